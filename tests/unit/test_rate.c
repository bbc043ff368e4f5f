// SPDX-License-Identifier: MIT
/*
 * Unit tests of the open loop (--rate) and of --signal in run/engine.c, on
 * a fake transport and a scripted clock: time moves only when the engine
 * polls (a fixed step, or once a long stall), an operation completes a
 * fixed service time after its post. So every figure is known exactly:
 * the engine's corrected latencies must be, value for value, completion
 * minus intended start on the schedule; a stall of X at rate R must show
 * as the X*R operations it delayed, which the post-to-completion latency
 * never sees (coordinated omission).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/hist.h"
#include "run/engine.h"
#include "run/run.h"

#define US	1000ULL
#define MS	1000000ULL
#define T0	(1000 * MS) /* the clock at the phase's start */
#define MAX_OPS 4096

static uint64_t clock_ns;

static uint64_t fake_clock(void)
{
	return clock_ns;
}

struct fake {
	struct rp_stream base;
	uint64_t step_ns, service_ns, stall_at, stall_ns;
	bool stalled;
	uint64_t posted, done;
	uint64_t post_at[MAX_OPS], done_at[MAX_OPS];
	bool last_of_final; /* the last post call said last */
	uint32_t bad;	    /* broken promises */
};

static struct fake *fake_of(struct rp_stream *s)
{
	return rp_container_of(s, struct fake, base);
}

static int fake_post(struct rp_stream *s, uint64_t seq, uint32_t count,
		     bool last)
{
	struct fake *f = fake_of(s);
	uint32_t i;

	if (seq != f->posted || !count || seq + count > MAX_OPS ||
	    f->posted + count - f->done > s->spec.queue_depth)
		f->bad++;
	for (i = 0; i < count && seq + i < MAX_OPS; i++)
		f->post_at[seq + i] = clock_ns;
	f->posted += count;
	f->last_of_final = last;
	return 0;
}

/* The clock steps (or, once, stalls); what has been served completes. */
static int fake_poll(struct rp_stream *s)
{
	struct fake *f = fake_of(s);
	int n = 0;

	if (f->stall_ns && !f->stalled && clock_ns >= f->stall_at) {
		clock_ns += f->stall_ns;
		f->stalled = true;
	} else {
		clock_ns += f->step_ns;
	}
	while (f->done < f->posted &&
	       f->post_at[f->done] + f->service_ns <= clock_ns) {
		f->done_at[f->done++] = clock_ns;
		n++;
	}
	return n;
}

static const struct rp_xport_ops fake_ops = {
	.name = "fake",
	.post = fake_post,
	.poll = fake_poll,
};

struct run {
	struct fake *f;
	struct rp_engine_stream es;
	struct rp_hist *want; /* corrected latencies, from the fake's records */
	double period;
};

static void run_init(struct run *r, uint32_t depth, uint64_t rate)
{
	struct rp_spec spec;

	rp_spec_defaults(&spec);
	spec.queue_depth = depth;
	r->f = test_calloc(1, sizeof(*r->f));
	assert_non_null(r->f);
	rp_stream_init(&r->f->base, &fake_ops, &spec, RP_ROLE_INITIATOR);
	r->f->step_ns = 1 * US;
	r->f->service_ns = 3 * US;
	r->es = (struct rp_engine_stream){ .s = &r->f->base };
	assert_int_equal(rp_hist_create(&r->es.hist), 0);
	assert_int_equal(rp_hist_create(&r->es.corr), 0);
	assert_int_equal(rp_hist_create(&r->want), 0);
	r->period = rp_engine_period_ns(rate, 1);
	clock_ns = T0;
}

static void run_fini(struct run *r)
{
	rp_hist_destroy(r->es.hist);
	rp_hist_destroy(r->es.corr);
	rp_hist_destroy(r->want);
	test_free(r->f);
}

static void run_phase(struct run *r, uint64_t iterations, uint64_t dur_ns)
{
	struct rp_engine_opts o = { .iterations = iterations,
				    .duration_ns = dur_ns,
				    .period_ns = r->period,
				    .clock = fake_clock };
	uint64_t k;

	assert_int_equal(rp_engine_bandwidth(&r->es, 1, &o), 0);
	assert_int_equal(r->f->bad, 0);
	assert_int_equal(r->es.out.messages, r->f->done);
	for (k = 0; k < r->f->done; k++)
		rp_hist_record(r->want,
			       r->f->done_at[k] - T0 -
				       (uint64_t)((double)k * r->period));
}

/* Operations whose corrected latency is at least @ns. */
static uint64_t late(const struct run *r, uint64_t ns)
{
	uint64_t k, n = 0;

	for (k = 0; k < r->f->done; k++)
		n += r->f->done_at[k] - T0 -
			     (uint64_t)((double)k * r->period) >=
		     ns;
	return n;
}

static void assert_same_hist(const struct rp_hist *a, const struct rp_hist *b)
{
	struct rp_hist_summary x, y;

	rp_hist_summarize(a, &x);
	rp_hist_summarize(b, &y);
	assert_int_equal(x.count, y.count);
	assert_true(x.min == y.min && x.max == y.max && x.p50 == y.p50 &&
		    x.p99 == y.p99 && x.mean == y.mean);
}

/* 10,000 ops/s, nothing in the way: every operation goes out at its
 * intended start, corrected and raw latency are the service time. */
static void test_on_schedule(void **state)
{
	struct run r;
	uint64_t k;

	(void)state;
	run_init(&r, 4, 10000);
	run_phase(&r, 1000, 0);
	for (k = 0; k < 1000; k++)
		assert_int_equal(r.f->post_at[k], T0 + k * 100 * US);
	assert_int_equal(rp_hist_max(r.es.hist), 3 * US);
	assert_int_equal(rp_hist_max(r.es.corr), 3 * US);
	assert_same_hist(r.es.corr, r.want);
	assert_int_equal(r.es.out.backlogged, 0);
	assert_int_equal(r.es.out.max_backlog, 0);
	/* 999 periods from the first post to the last, plus its service */
	assert_int_equal(r.es.out.last_done_ns - r.es.out.first_post_ns,
			 999 * 100 * US + 3 * US);
	run_fini(&r);
}

/* A 10 ms stall at 10,000 ops/s, with nothing in flight: the 100
 * operations due meanwhile go out late; corrected, 50 of them took 5 ms or
 * more, the latest 10 ms; post to completion, none did (the closed-loop
 * view: coordinated omission). */
static void test_stall(void **state)
{
	struct run r;

	(void)state;
	run_init(&r, 4, 10000);
	r.f->stall_at = T0 + 50 * MS + 50 * US; /* between two operations */
	r.f->stall_ns = 10 * MS;
	run_phase(&r, 1000, 0);
	assert_same_hist(r.es.corr, r.want);
	assert_int_equal(late(&r, 5 * MS), 50);
	/* 90 from the stall alone; draining the backlog, 4 at a time every
	 * 4 us, pushes at most the next one (0.95 ms + its wait) over 1 ms */
	assert_in_range(late(&r, 1 * MS), 90, 91);
	assert_true(rp_hist_max(r.es.corr) >= 9950 * US);
	assert_true(rp_hist_max(r.es.corr) <= 10 * MS + 3 * US);
	assert_int_equal(rp_hist_max(r.es.hist), 3 * US);
	/* all 100 were due at once, 4 could go: 96 waited for room */
	assert_int_equal(r.es.out.max_backlog, 96);
	assert_true(r.es.out.backlogged >= 96);
	run_fini(&r);
}

/* Offered twice what the queue can take (depth 1, 200 us per operation,
 * 10,000 ops/s), for 20 ms: half goes out; the rest is counted as never
 * sent, and the corrected latency grows along the phase. */
static void test_saturated(void **state)
{
	struct run r;
	uint64_t due = 20 * MS / (100 * US) + 1;

	(void)state;
	run_init(&r, 1, 10000);
	r.f->service_ns = 200 * US;
	run_phase(&r, 0, 20 * MS);
	assert_int_equal(r.f->done, r.f->posted);
	assert_true(r.f->posted >= 95 && r.f->posted <= 101);
	assert_int_equal(r.es.out.unsent, due - r.f->posted);
	assert_same_hist(r.es.corr, r.want);
	assert_true(rp_hist_max(r.es.corr) >= 9 * MS);
	assert_true(rp_hist_max(r.es.hist) <= 202 * US);
	run_fini(&r);
}

/* --signal 8, closed loop: a count that is no multiple ends with a post
 * that says last; a timed phase posts on to a multiple of 8, so the
 * transport's last operation is a signaled one. */
static void test_signal_end(void **state)
{
	struct run r;

	(void)state;
	run_init(&r, 16, 0);
	r.f->base.spec.signal = 8;
	run_phase(&r, 100, 0);
	assert_int_equal(r.f->done, 100);
	assert_true(r.f->last_of_final);
	run_fini(&r);

	run_init(&r, 16, 0);
	r.f->base.spec.signal = 8;
	r.f->step_ns = 7 * US;
	run_phase(&r, 0, 1 * MS);
	assert_int_equal(r.f->posted % 8, 0);
	assert_int_equal(r.f->done, r.f->posted);
	assert_int_equal(rp_hist_count(r.es.corr), 0); /* closed: none */
	run_fini(&r);
}

static void test_period(void **state)
{
	(void)state;
	assert_true(rp_engine_period_ns(0, 4) == 0);
	assert_true(rp_engine_period_ns(1000000, 1) == 1000.0);
	assert_true(rp_engine_period_ns(1000000, 4) == 4000.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_on_schedule),
		cmocka_unit_test(test_stall),
		cmocka_unit_test(test_saturated),
		cmocka_unit_test(test_signal_end),
		cmocka_unit_test(test_period),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
