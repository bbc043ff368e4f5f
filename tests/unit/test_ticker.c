// SPDX-License-Identifier: MIT
/*
 * Unit tests of run/ticker.c and run/sampler.c: the lock-free hand-over of
 * interval slots between engine threads and the sampler. Time is the
 * caller's (the engine passes its clock reads), so the tests drive it; the
 * sampler really runs beside writer threads, so the hand-over is raced.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "run/ticker.h"
#include "run/run.h"

#define T0    1000000000ULL
#define IVL   1000000ULL /* 1 ms of the writers' time */
#define STEP  1000ULL	 /* each operation advances time by 1 us */
#define SIZE  4096ULL
#define N_OPS 200000ULL

struct seen {
	uint32_t n;
	uint64_t messages[4];
	uint64_t total;
	uint32_t last_index;
	bool ordered;
};

static void on_interval(void *ctx, const struct rp_result *r,
			const struct rp_interval *iv)
{
	struct seen *s = ctx;
	uint32_t i;

	(void)r;
	s->ordered &= iv->index == s->n;
	s->n++;
	s->total += iv->flow.messages;
	for (i = 0; i < iv->n_streams && i < 4; i++)
		s->messages[i] += iv->per_stream[i].flow.messages;
}

struct writer {
	struct rp_ticker *t;
	uint64_t ops;
};

/* An engine thread: one completion per step, a clock read per turn. */
static void *write_ops(void *arg)
{
	struct writer *w = arg;
	uint64_t now = T0, i;

	for (i = 0; i < w->ops; i++) {
		now += STEP;
		rp_ticker_tick(w->t, now);
		rp_ticker_record(w->t, 500 + i % 1000);
	}
	rp_ticker_finish(w->t, now);
	return NULL;
}

static void test_raced(void **state)
{
	struct rp_ticker t[2];
	struct writer w[2] = { { &t[0], N_OPS }, { &t[1], N_OPS / 2 } };
	struct seen s = { .ordered = true };
	struct rp_sampler_sink sink = { .keep = true,
					.interval = on_interval,
					.ctx = &s };
	struct rp_result r = { .interval_s = IVL / 1e9 };
	pthread_t th[2];
	uint32_t i;
	int k;

	(void)state;
	for (k = 0; k < 2; k++) {
		assert_int_equal(rp_ticker_init(&t[k]), 0);
		rp_ticker_arm(&t[k], T0, IVL, 0);
	}
	for (k = 0; k < 2; k++)
		assert_int_equal(pthread_create(&th[k], NULL, write_ops, &w[k]),
				 0);
	assert_int_equal(rp_sampler_run(t, 2, 2, SIZE, T0, &r, &sink), 0);
	for (k = 0; k < 2; k++)
		pthread_join(th[k], NULL);
	/* Every operation in exactly one interval, whatever the races. */
	assert_true(s.ordered);
	assert_int_equal(s.messages[0], N_OPS);
	assert_int_equal(s.messages[1], N_OPS / 2);
	assert_int_equal(s.total, N_OPS + N_OPS / 2);
	assert_int_equal(r.n_intervals, s.n);
	assert_true(s.n >= 2);
	for (i = 0; i < r.n_intervals; i++) {
		assert_int_equal(r.intervals[i].n_streams, 2);
		assert_int_equal(r.intervals[i].flow.bytes,
				 r.intervals[i].flow.messages * SIZE);
		if (r.intervals[i].flow.messages)
			assert_true(r.intervals[i].flow.latency.p50 >= 500 &&
				    r.intervals[i].flow.latency.p99 <= 1500);
	}
	rp_intervals_free(r.intervals, r.n_intervals);
	for (k = 0; k < 2; k++)
		rp_ticker_fini(&t[k]);
}

/* A sampler that is late: the writer keeps its slot, that interval is
 * longer, nothing is lost. */
static void test_late_sampler(void **state)
{
	struct rp_ticker t;
	struct seen s = { .ordered = true };
	struct rp_sampler_sink sink = { .keep = true,
					.interval = on_interval,
					.ctx = &s };
	struct rp_result r = { .interval_s = IVL / 1e9 };
	uint64_t now = T0;
	int i;

	(void)state;
	assert_int_equal(rp_ticker_init(&t), 0);
	rp_ticker_arm(&t, T0, IVL, 0);
	for (i = 0; i < 5000; i++) { /* 5 boundaries, nobody takes */
		now += STEP;
		rp_ticker_tick(&t, now);
		rp_ticker_record(&t, 100);
	}
	rp_ticker_finish(&t, now);
	assert_int_equal(atomic_load(&t.published), 1);
	assert_int_equal(rp_sampler_run(&t, 1, 1, SIZE, T0, &r, &sink), 0);
	assert_int_equal(r.n_intervals, 2);
	assert_int_equal(s.total, 5000);
	/* the op whose clock read crossed the boundary is the next one's */
	assert_int_equal(r.intervals[0].flow.messages, 999);
	assert_int_equal(r.intervals[1].flow.messages, 4001);
	assert_true(r.intervals[1].flow.seconds > 3.9 * IVL / 1e9);
	assert_null(r.intervals[0].per_stream); /* one stream: none */
	rp_interval_range(&r);
	assert_true(r.has_interval_range);
	rp_intervals_free(r.intervals, r.n_intervals);
	rp_ticker_fini(&t);
}

/* Past the end of a timed phase the drain stays in the last interval. */
static void test_drain(void **state)
{
	struct rp_ticker t;
	struct rp_sampler_sink sink = { .keep = true };
	struct rp_result r = { .interval_s = IVL / 1e9 };
	uint64_t now = T0;
	int i;

	(void)state;
	assert_int_equal(rp_ticker_init(&t), 0);
	rp_ticker_arm(&t, T0, IVL, T0 + 2 * IVL);
	for (i = 0; i < 2100; i++) {
		now += STEP;
		rp_ticker_tick(&t, now);
		rp_ticker_record(&t, 100);
		if (i == 1500) /* as if the sampler had taken interval 0 */
			atomic_store(&t.taken, 1);
	}
	rp_ticker_finish(&t, now);
	assert_int_equal(atomic_load(&t.published), 1);
	assert_int_equal(t.next_ns, UINT64_MAX);
	assert_int_equal(rp_sampler_run(&t, 1, 1, SIZE, T0, &r, &sink), 0);
	assert_int_equal(r.n_intervals, 2);
	assert_int_equal(r.intervals[0].flow.messages, 999);
	assert_int_equal(r.intervals[1].flow.messages, 1101); /* + drain */
	assert_true(r.intervals[1].start > 0.99 * IVL / 1e9);
	rp_intervals_free(r.intervals, r.n_intervals);
	rp_ticker_fini(&t);
}

static void test_range(void **state)
{
	struct rp_interval iv[3] = { 0 };
	struct rp_result r = { .interval_s = 1.0,
			       .intervals = iv,
			       .n_intervals = 3 };

	(void)state;
	iv[0].flow = (struct rp_flow){ .seconds = 1.0, .bits_per_second = 5 };
	iv[1].flow = (struct rp_flow){ .seconds = 0.99, .bits_per_second = 9 };
	iv[2].flow = (struct rp_flow){ .seconds = 0.1, .bits_per_second = 1 };
	rp_interval_range(&r);
	assert_true(r.has_interval_range);
	assert_true(r.interval_min_bps == 5 && r.interval_max_bps == 9);
	r.n_intervals = 0;
	rp_interval_range(&r);
	assert_false(r.has_interval_range);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_raced),
		cmocka_unit_test(test_late_sampler),
		cmocka_unit_test(test_drain),
		cmocka_unit_test(test_range),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
