/* SPDX-License-Identifier: MIT */
/*
 * --slo: the highest offered rate (the open loop, --rate) at which a
 * point's latency under load meets a target, found by bisection. The
 * search is pure: each step runs through the caller's callback, so it is
 * tested on a made-up latency(rate) curve (tests/unit/test_slo.c).
 *
 *   max     the closed loop: what it achieves is the upper bound. Met
 *           there, and confirmed: "met_at_max".
 *   floor   RP_SLO_FLOOR of the maximum, the lowest rate tried. Not met
 *           there, and confirmed: "not_met".
 *   bisect  the geometric middle of [lo, hi]: the tolerance is a share of
 *           the rate found, so the bracket narrows by ratio, until
 *           hi <= lo x (1 + tolerance) or RP_SLO_MAX_STEPS steps.
 *   edge    lo and hi each run again @reps times, judged on the median
 *           run (fresh runs: the step that put a rate at the edge was
 *           chosen for passing or failing, and would bias it).
 *
 * Latency against rate is not monotone when it is measured: a lucky lo
 * (its median fails) or an unlucky hi (its median passes) moves the
 * bracket to the nearest rate judged the other way, and the bisection
 * resumes there; a rate is confirmed at most once, and after
 * RP_SLO_MAX_ROUNDS rounds (bisect, confirm lo, confirm hi) an edge whose
 * ends are not both confirmed is reported as not settled.
 * A step whose offered rate was not achieved (saturated) fails whatever
 * its latency: the queue depth bounds the latency of a backlog it cannot
 * see.
 */
#ifndef RP_RUN_SLO_H
#define RP_RUN_SLO_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "core/expect.h"

#define RP_SLO_FLOOR	     0.01 /* the lowest rate tried: 1% of the max */
#define RP_SLO_MAX_STEPS     12	  /* bisection steps, all rounds together */
#define RP_SLO_MAX_ROUNDS    3	  /* confirmations of the edge */
#define RP_SLO_REPS	     3	  /* runs of an edge unless --repeat says */
#define RP_SLO_MAX_REPS	     10	  /* --repeat's bound with --slo */
#define RP_SLO_TOLERANCE     0.05 /* the bracket's width, share of lo */
#define RP_SLO_TOLERANCE_MIN 0.005
#define RP_SLO_TOLERANCE_MAX 0.5
/* the longest walk: max and floor confirmed, the bisection, each round
 * confirming both edges */
#define RP_SLO_MAX_WALK                                                        \
	(2 * (1 + RP_SLO_MAX_REPS) + RP_SLO_MAX_STEPS +                        \
	 RP_SLO_MAX_ROUNDS * 2 * RP_SLO_MAX_REPS)

enum rp_slo_kind {
	RP_SLO_STEP_MAX,    /* the closed loop */
	RP_SLO_STEP_FLOOR,  /* the lowest rate tried */
	RP_SLO_STEP_BISECT, /* a middle of the bracket */
	RP_SLO_STEP_EDGE,   /* a repetition confirming an edge */
};

enum rp_slo_status {
	RP_SLO_FOUND,	   /* lo meets it, hi does not */
	RP_SLO_MET_AT_MAX, /* the closed loop meets it */
	RP_SLO_NOT_MET,	   /* not even the floor meets it */
	RP_SLO_FAILED,	   /* a step could not run: the callback's error */
};

/** One step of the walk. The callback fills achieved, measured and
 *  saturated; the search the rest. */
struct rp_slo_step {
	enum rp_slo_kind kind;
	uint32_t round;	 /* an edge step: the confirmation it is of */
	double offered;	 /* operations/s; 0: the closed loop */
	double achieved; /* operations/s */
	double measured; /* the target's metric, ns; NAN: not measured */
	bool saturated;	 /* achieved under RP_RATE_SATURATED of offered */
	bool pass;
};

/** What is searched for, and how far. */
struct rp_slo_params {
	struct rp_expect_term target; /* a latency under load, <= or < */
	double tolerance;	      /* hi <= lo x (1 + tolerance) stops */
	uint32_t reps;		      /* runs of an edge, 1..RP_SLO_MAX_REPS */
	uint32_t max_steps;	      /* bisection steps, <= RP_SLO_MAX_STEPS */
	double floor;		      /* the lowest rate, share of the max */
};

/**
 * rp_slo_run_fn - run the point at @offered operations per second (0: the
 * closed loop) and fill @step's achieved, measured and saturated.
 * Return: 0, or a negative errno, which ends the search (RP_SLO_FAILED).
 */
typedef int (*rp_slo_run_fn)(void *ctx, double offered,
			     struct rp_slo_step *step);

/** A search, as it ended, and the curve it walked. */
struct rp_slo {
	struct rp_slo_params p;
	enum rp_slo_status status;
	int err;	  /* RP_SLO_FAILED: the callback's error */
	double max_ops;	  /* what the closed loop achieved */
	double floor_ops; /* the lowest rate tried */
	double found;	  /* the rate found, ops/s; 0: not met */
	double lo, hi;	  /* the last bracket (hi 0: met at the max) */
	bool narrow;	  /* hi <= lo x (1 + tolerance) at the end */
	bool settled;	  /* the last confirmation agreed with the walk */
	uint32_t kept;	  /* the step that stands for the rate found: the
			   * median run of its edge */
	uint32_t bisects; /* bisection steps run */
	uint32_t rounds;  /* confirmations run */
	uint32_t n;	  /* steps */
	struct rp_slo_step step[RP_SLO_MAX_WALK];
};

/** rp_slo_defaults - @p with the defaults and @target. */
void rp_slo_defaults(struct rp_slo_params *p,
		     const struct rp_expect_term *target);

/** rp_slo_judge - @step meets @t: measured, not saturated, and within. */
bool rp_slo_judge(const struct rp_expect_term *t,
		  const struct rp_slo_step *step);

/**
 * rp_slo_search - the highest rate meeting p->target, into @s; each step
 * through @run with @ctx, step i being the callback's i-th call.
 * Return: 0, or the callback's negative errno (s->status RP_SLO_FAILED,
 * the failed step the last one).
 */
int rp_slo_search(struct rp_slo *s, const struct rp_slo_params *p,
		  rp_slo_run_fn run, void *ctx);

/** rp_slo_status_name - "found", "met_at_max", "not_met", "failed". */
const char *rp_slo_status_name(enum rp_slo_status st);

/**
 * rp_slo_json - the search as the document's result writes it (schema/:
 * "slo"): target, status, the rate found in operations and bits per
 * second at @size_bytes, what was measured there, the bracket, the
 * tolerance, how it stopped and every step. NULL: no memory.
 */
cJSON *rp_slo_json(const struct rp_slo *s, uint64_t size_bytes);

#endif
