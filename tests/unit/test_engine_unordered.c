// SPDX-License-Identifier: MIT
/*
 * Unit tests of run/engine.c with a transport whose operations complete in
 * any order (ops.poll_seqs, the file transport's CQEs): the queue is
 * refilled as soon as any operation completes, never past depth in flight
 * nor past the window behind the oldest one out, and every operation is
 * timed from its own post. The fake's clock is scripted: it moves 1 us at
 * each poll, so the fake knows every operation's true latency.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/hist.h"
#include "run/engine.h"
#include "run/run.h"

#define DEPTH	  4
#define N_OPS	  400
#define STRAGGLER 3 /* completes only once 10 later ones have */
#define TICK_NS	  1000

struct fake {
	struct rp_stream base;
	uint64_t post_ns[N_OPS];
	bool out[N_OPS], done[N_OPS];
	uint64_t posted, n_done, in_flight;
	uint64_t max_ahead; /* highest seq posted while the straggler was out */
	uint64_t true_max, true_sum;
	char bad[160];
};

static uint64_t g_now = 1000000;

static uint64_t fake_clock(void)
{
	return g_now;
}

static struct fake *fake_of(struct rp_stream *s)
{
	return rp_container_of(s, struct fake, base);
}

static int fake_post(struct rp_stream *s, uint64_t seq, uint32_t count,
		     bool last)
{
	struct fake *f = fake_of(s);
	uint64_t k;

	(void)last;
	if (seq != f->posted || seq + count > N_OPS)
		snprintf(f->bad, sizeof(f->bad), "post %llu x %u after %llu",
			 (unsigned long long)seq, count,
			 (unsigned long long)f->posted);
	for (k = seq; k < seq + count && k < N_OPS; k++) {
		f->post_ns[k] = g_now;
		f->out[k] = true;
		if (f->out[STRAGGLER] && k > f->max_ahead)
			f->max_ahead = k;
	}
	f->posted = seq + count;
	f->in_flight += count;
	if (f->in_flight > DEPTH)
		snprintf(f->bad, sizeof(f->bad), "%llu in flight",
			 (unsigned long long)f->in_flight);
	return 0;
}

/* The newest operation out completes first (all but the straggler,
 * which waits for 10 others): the worst order for a FIFO. */
static bool completes(const struct fake *f, uint64_t k)
{
	return k != STRAGGLER || f->n_done >= STRAGGLER + 10;
}

static int fake_poll_seqs(struct rp_stream *s, uint64_t *seqs, uint32_t max)
{
	struct fake *f = fake_of(s);
	uint64_t k, lat;
	uint32_t n = 0;

	g_now += TICK_NS; /* the engine reads the clock after the poll */
	for (k = f->posted; k-- > 0 && n < max && n < 2;) {
		if (!f->out[k] || !completes(f, k))
			continue;
		f->out[k] = false;
		f->done[k] = true;
		lat = g_now - f->post_ns[k];
		f->true_sum += lat;
		f->true_max = lat > f->true_max ? lat : f->true_max;
		seqs[n++] = k;
	}
	f->n_done += n;
	f->in_flight -= n;
	return (int)n;
}

static int fake_poll(struct rp_stream *s)
{
	(void)s;
	fail_msg("poll() called: the engine should use poll_seqs()");
	return -EINVAL;
}

static const struct rp_xport_ops fake_ops = {
	.name = "fake-unordered",
	.post = fake_post,
	.poll = fake_poll,
	.poll_seqs = fake_poll_seqs,
};

static void test_refills_and_times_each(void **state)
{
	static struct fake f;
	struct rp_engine_opts o = { .iterations = N_OPS, .clock = fake_clock };
	struct rp_engine_stream es = { .s = &f.base };
	struct rp_hist_summary sum;
	struct rp_spec spec;
	uint64_t k;

	(void)state;
	rp_spec_defaults(&spec);
	spec.queue_depth = DEPTH;
	rp_stream_init(&f.base, &fake_ops, &spec, RP_ROLE_INITIATOR);
	assert_int_equal(rp_hist_create(&es.hist), 0);
	assert_int_equal(rp_engine_bandwidth(&es, 1, &o), 0);
	if (f.bad[0])
		fail_msg("the engine broke a promise: %s", f.bad);
	assert_int_equal(es.out.messages, N_OPS);
	for (k = 0; k < N_OPS; k++)
		assert_true(f.done[k]);
	/* it posted past the straggler, within the window of 4 depths */
	assert_true(f.max_ahead >= STRAGGLER + DEPTH);
	assert_true(f.max_ahead < STRAGGLER + 4 * DEPTH);
	rp_hist_summarize(es.hist, &sum);
	assert_int_equal(sum.count, N_OPS);
	/* each timed from its own post: the straggler's wait is the max,
	 * and the mean is the true one (the histogram's 1% aside) */
	assert_true(sum.max >= 0.99 * (double)f.true_max &&
		    sum.max <= 1.01 * (double)f.true_max);
	assert_true(sum.mean >= 0.99 * (double)f.true_sum / N_OPS &&
		    sum.mean <= 1.01 * (double)f.true_sum / N_OPS);
	assert_true(f.true_max >= 4 * TICK_NS); /* others take 1 */
	rp_hist_destroy(es.hist);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refills_and_times_each),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
