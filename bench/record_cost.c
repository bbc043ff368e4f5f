/* SPDX-License-Identifier: MIT */
/*
 * record_cost - what it costs to time one operation on the hot path: one
 * monotonic clock read (rp_clock_ns) plus one histogram update
 * (rp_hist_record), measured together as the engine does them per completion,
 * and each alone.
 *
 * Usage: record_cost [iterations]      (default 10000000)
 *
 * Prints one "name value" line per figure, then a summary:
 *   iterations 10000000
 *   clock_source tsc             what rp_clock_ns() reads (platform/clock.h)
 *   clock_read_ns 19.8           one rp_clock_ns()
 *   record_ns 2.1                one rp_hist_record() of a varied value
 *   clock_and_record_ns 12.0     now = clock; record(now - prev); prev = now,
 *                                through a stage (core/hist.h), as the
 *                                latency phase records each round trip
 *   clock_and_direct_record_ns   the same, each value straight into the
 *                       18.0     histogram (rp_hist_record)
 *   with_interval_ns 25.0        direct, with -i: the ticker's boundary
 *                                check and its interval histogram too
 *   share_of_1us_op_pct 2.23     clock_and_record_ns against a 1 us operation
 *   monotonic_clock_read_ns,     the two first figures again with
 *   monotonic_clock_and_record_ns  CLOCK_MONOTONIC, for comparison
 * Each figure is the best of REPEATS runs: the least disturbed one, since
 * other work on a shared machine only ever adds time.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/hist.h"
#include "platform/clock.h"
#include "run/ticker.h"

#define DEFAULT_ITERS 10000000ULL
#define MAX_ITERS     (1ULL << 40)
#define REPEATS	      5
#define N_VALUES      4096 /* recorded values, cycled; a power of two */

enum what { WHAT_CLOCK, WHAT_RECORD, WHAT_BOTH, WHAT_DIRECT, WHAT_TICKED };

static struct rp_ticker ticker; /* -i: the engine's per-stream ticker */

static volatile uint64_t sink; /* keeps results alive */

static uint64_t loop_clock(uint64_t n)
{
	uint64_t acc = 0, i;

	for (i = 0; i < n; i++)
		acc += rp_clock_ns();
	return acc;
}

static uint64_t loop_record(struct rp_hist *h, const uint64_t *vals, uint64_t n)
{
	uint64_t i;

	for (i = 0; i < n; i++)
		rp_hist_record(h, vals[i & (N_VALUES - 1)]);
	return rp_hist_count(h);
}

/* As the latency phase does per operation: through a stage (hist.h). */
static uint64_t loop_both(struct rp_hist *h, uint64_t n)
{
	uint64_t prev = rp_clock_ns(), now, i;
	struct rp_hist_stage stage = { 0 };

	for (i = 0; i < n; i++) {
		now = rp_clock_ns();
		rp_hist_stage_put(&stage, h, now - prev);
		prev = now;
	}
	rp_hist_stage_flush(&stage, h);
	return prev;
}

/* Each value recorded as soon as it is read. */
static uint64_t loop_direct(struct rp_hist *h, uint64_t n)
{
	uint64_t prev = rp_clock_ns(), now, i;

	for (i = 0; i < n; i++) {
		now = rp_clock_ns();
		rp_hist_record(h, now - prev);
		prev = now;
	}
	return prev;
}

/* As the engine does per completion with -i (the boundaries a second
 * apart; nobody takes the slots, which costs the thread nothing more). */
static uint64_t loop_ticked(struct rp_hist *h, uint64_t n)
{
	uint64_t prev = rp_clock_ns(), now, i;

	rp_ticker_arm(&ticker, prev, 1000000000ULL, 0);
	for (i = 0; i < n; i++) {
		now = rp_clock_ns();
		rp_ticker_tick(&ticker, now);
		rp_hist_record(h, now - prev);
		rp_ticker_record(&ticker, now - prev);
		prev = now;
	}
	return prev;
}

/* Nanoseconds per iteration of one run of @what. */
static double run_once(enum what what, struct rp_hist *h, const uint64_t *vals,
		       uint64_t n)
{
	uint64_t t0 = rp_clock_ns(), t1;

	switch (what) {
	case WHAT_CLOCK:
		sink = loop_clock(n);
		break;
	case WHAT_RECORD:
		sink = loop_record(h, vals, n);
		break;
	case WHAT_BOTH:
		sink = loop_both(h, n);
		break;
	case WHAT_DIRECT:
		sink = loop_direct(h, n);
		break;
	case WHAT_TICKED:
		sink = loop_ticked(h, n);
		break;
	}
	t1 = rp_clock_ns();
	return (double)(t1 - t0) / (double)n;
}

/* Best of REPEATS runs, after a shorter warm-up run. */
static double run_best(enum what what, struct rp_hist *h, const uint64_t *vals,
		       uint64_t n)
{
	double best, t;
	int r;

	run_once(what, h, vals, n / 10 + 1);
	best = run_once(what, h, vals, n);
	for (r = 1; r < REPEATS; r++) {
		t = run_once(what, h, vals, n);
		if (t < best)
			best = t;
	}
	return best;
}

/* Latency-like values, log-uniform from 256 ns to about 128 us. */
static void fill_values(uint64_t *vals)
{
	uint64_t s = 0x2545f4914f6cdd1dULL;
	unsigned int i, k;

	for (i = 0; i < N_VALUES; i++) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		k = 8 + (unsigned int)(s % 9);
		vals[i] = (1ULL << k) | ((s >> 8) & ((1ULL << k) - 1));
	}
}

static int parse_iters(int argc, char **argv, uint64_t *out)
{
	char *end;

	*out = DEFAULT_ITERS;
	if (argc < 2)
		return 0;
	errno = 0;
	*out = strtoull(argv[1], &end, 10);
	if (argc > 2 || errno || end == argv[1] || *end || *out == 0 ||
	    *out > MAX_ITERS)
		return -EINVAL;
	return 0;
}

int main(int argc, char **argv)
{
	static uint64_t vals[N_VALUES];
	struct rp_hist *h;
	double clock_ns, record_ns, both_ns, direct_ns, ticked_ns, mono_ns;
	double mono_both_ns;
	const char *src;
	uint64_t n;
	int err;

	if (parse_iters(argc, argv, &n)) {
		fprintf(stderr, "usage: %s [iterations], 1 to %llu\n", argv[0],
			(unsigned long long)MAX_ITERS);
		return 2;
	}
	err = rp_hist_create(&h);
	if (!err)
		err = rp_ticker_init(&ticker);
	if (err) {
		fprintf(stderr,
			"record_cost: cannot create histogram: error %d\n",
			err);
		return 1;
	}
	fill_values(vals);
	rp_clock_init(); /* as rdmaperf does: the cheapest clock here */
	src = rp_clock_source_name();
	clock_ns = run_best(WHAT_CLOCK, h, vals, n);
	record_ns = run_best(WHAT_RECORD, h, vals, n);
	both_ns = run_best(WHAT_BOTH, h, vals, n);
	direct_ns = run_best(WHAT_DIRECT, h, vals, n);
	ticked_ns = run_best(WHAT_TICKED, h, vals, n);
	rp_clock_use(RP_CLOCK_MONOTONIC); /* the kernel's, for comparison */
	mono_ns = run_best(WHAT_CLOCK, h, vals, n);
	mono_both_ns = run_best(WHAT_BOTH, h, vals, n);
	rp_hist_destroy(h);
	rp_ticker_fini(&ticker);

	printf("iterations %llu\n", (unsigned long long)n);
	printf("clock_source %s\n", src);
	printf("clock_read_ns %.1f\n", clock_ns);
	printf("record_ns %.1f\n", record_ns);
	printf("clock_and_record_ns %.1f\n", both_ns);
	printf("clock_and_direct_record_ns %.1f\n", direct_ns);
	printf("with_interval_ns %.1f\n", ticked_ns);
	printf("share_of_1us_op_pct %.2f\n", both_ns / 1000 * 100);
	printf("monotonic_clock_read_ns %.1f\n", mono_ns);
	printf("monotonic_clock_and_record_ns %.1f\n", mono_both_ns);
	printf("summary: timing one operation costs %.1f ns (clock %.1f + "
	       "record %.1f) with the %s clock, %.1f%% of a 1 us operation; "
	       "%.1f ns with CLOCK_MONOTONIC\n",
	       both_ns, clock_ns, record_ns, src, both_ns / 10, mono_both_ns);
	printf("summary: %.1f ns recording each value at once (%.1f ns more "
	       "than through a stage); with -i %.1f ns (+%.1f ns for the "
	       "interval)\n",
	       direct_ns, direct_ns - both_ns, ticked_ns,
	       ticked_ns - direct_ns);
	return 0;
}
