/* SPDX-License-Identifier: MIT */
/*
 * --repeat and --confidence: a point's figures over its repetitions, what
 * they say in sum (core/stats.h: median, mean, the mean's t interval, CoV,
 * the raw values), a transport against the first one round by round, and
 * the warnings that say a figure is not to be trusted. The result keeps
 * them as JSON (schema/: "repeat"), which text/ and --report read.
 */
#ifndef RP_RUN_REPEAT_H
#define RP_RUN_REPEAT_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "run/result.h"

#define RP_REPEAT_MAX	   100	/* --repeat's bound */
#define RP_REPEAT_MAX_RUNS 4096 /* repetitions x points x transports */
#define RP_REPEAT_LEVEL	   0.95 /* the interval's level unless told */
#define RP_REPEAT_MIN_AUTO 3	/* --confidence judges from this many on */
#define RP_REPEAT_COV_WARN 0.05 /* a CoV above this is unstable */

enum rp_fig {
	RP_FIG_THROUGHPUT, /* bit/s */
	RP_FIG_MSG_RATE,   /* messages/s */
	RP_FIG_P50,	   /* latency under load, ns */
	RP_FIG_P99,
	RP_FIG_P99_9,
	RP_FIG_UNLOADED_P50, /* ns */
	RP_FIG_CPU_CLIENT,   /* us per KiB moved */
	RP_FIG_CPU_SERVER,
	RP_FIG__COUNT
};

#define RP_REPEAT_SHORT_S   0.1	 /* a point shorter than this, */
#define RP_REPEAT_SHORT_OPS 1000 /* or with fewer operations, warns */
#define RP_REPEAT_BUSY_WARN 0.25 /* the host's CPUs this busy elsewhere */

#define RP_REPEAT_SPEED_WARN 0.10   /* the CPU's speed moved this much */
#define RP_REPEAT_DRIFT_WARN 1000.0 /* ppm: the clock off the kernel's */

/**
 * What a round ran in, taken around it (rp_repeat_round_begin and _end):
 * the CPU's speed measured at both ends (core/cpuspeed.h: ns per
 * operation of a fixed chain), and how far the clock the figures are
 * timed with ran from CLOCK_MONOTONIC over the round.
 */
struct rp_round {
	double speed_begin, speed_end; /* ns per operation; NAN unknown */
	uint64_t ours0, mono0;	       /* rp_clock_ns, CLOCK_MONOTONIC */
	double drift_ppm;	       /* over the round; NAN unknown */
};

/** rp_repeat_round_begin - measure the CPU's speed, read both clocks. */
void rp_repeat_round_begin(struct rp_round *c);

/** rp_repeat_round_end - measure the speed again, and the clock's drift
 *  over the round. */
void rp_repeat_round_end(struct rp_round *c);

/** A point's figures, one row per repetition (NAN: not measured), and
 *  what each repetition says of the conditions it ran in. */
struct rp_repeat {
	uint32_t n;
	double v[RP_REPEAT_MAX][RP_FIG__COUNT];
	double seconds[RP_REPEAT_MAX];	      /* of its longest phase */
	uint64_t ops[RP_REPEAT_MAX];	      /* operations it timed */
	double other_busy[RP_REPEAT_MAX];     /* the host's CPUs' share busy
					       * with other work; NAN unknown */
	struct rp_round round[RP_REPEAT_MAX]; /* its round's conditions */
};

/** rp_fig_key - the figure's name in the document: "throughput", ... */
const char *rp_fig_key(enum rp_fig f);

/** rp_fig_unit - the unit the document gives it in: "Gb/s", "us", ... */
const char *rp_fig_unit(enum rp_fig f);

/** rp_fig_scale - from rp_fig_values()'s unit (bit/s, ns) to the
 *  document's (rp_fig_unit). */
double rp_fig_scale(enum rp_fig f);

/** rp_fig_higher_better - throughput and message rate; not latency or
 *  CPU cost. */
bool rp_fig_higher_better(enum rp_fig f);

/** rp_fig_values - @r's figures into @v[RP_FIG__COUNT] in their own
 *  units (bit/s, msg/s, ns, us/KiB); NAN where @r has none (all of them
 *  when it failed). */
void rp_fig_values(const struct rp_result *r, double *v);

/** rp_repeat_add - @r's figures as repetition rep->n (none past the
 *  bound), run in the round @c (NULL: its conditions unknown). A failed
 *  result adds a row of NANs. */
void rp_repeat_add(struct rp_repeat *rep, const struct rp_result *r,
		   const struct rp_round *c);

/** rp_repeat_median_row - the repetition to keep as the point's result:
 *  the one at the (lower) median of throughput, or of the first figure
 *  measured at all; 0 when none is. */
uint32_t rp_repeat_median_row(const struct rp_repeat *rep);

/** rp_repeat_narrow - each central figure measured (throughput, message
 *  rate, p50 under load, unloaded p50; not the tails, not CPU) has an
 *  interval whose half-width is at most @width (a share of its mean) at
 *  @level. */
bool rp_repeat_narrow(const struct rp_repeat *rep, double level, double width);

/**
 * rp_repeat_json - what @rep says (schema/: "repeat"): n, level, the
 * interval's method, why the repetitions stopped (@stopped: "count" or
 * "confidence") and the half-width --confidence aimed at (@width, a share
 * of the mean; 0: none), per figure its median, mean, interval, half-width,
 * CoV, min, max and values, and its warnings. @base (NULL: none) is the first
 * transport's repetitions of the same point, measured round by round
 * beside these: their paired ratios go in "against". NULL: no memory.
 */
cJSON *rp_repeat_json(const struct rp_repeat *rep, double level, double width,
		      const char *stopped, const struct rp_repeat *base,
		      const char *base_transport);

#endif
