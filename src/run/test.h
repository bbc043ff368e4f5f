/* SPDX-License-Identifier: MIT */
/*
 * The test a command line or a saved document asks for: where, over what,
 * the spec and its sweep, this side's CPUs, the transports' own options and
 * what the figures must show. What proto, run and report need, and nothing
 * of the run's settings (run/config.h). It sees nothing of the transports:
 * their options are reached through a pointer whose type is xport/'s.
 */
#ifndef RP_RUN_TEST_H
#define RP_RUN_TEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/expect.h"
#include "core/pattern.h"
#include "core/rate.h"
#include "core/spec.h"

struct rp_xport_params;

#define RP_MAX_TRANSPORTS 8
#define RP_PATH_LEN	  256 /* -x file:PATH: bytes of PATH, with its NUL */
#define RP_MAX_SIZES	  32  /* -S list or range: 2 B to 8 MiB is 23 */
#define RP_MAX_DEPTHS	  16  /* -q list */
#define RP_MAX_POINTS	  (RP_MAX_SIZES * RP_MAX_DEPTHS)
#define RP_MAX_CPUS	  RP_SPEC_MAX_THREADS /* --cpu list */
#define RP_RAILS_LEN	  512		      /* --rails' list, with its NUL */

/** The test the command line asks for: what proto, run and report need
 *  (where, over what, the spec and its sweep, this side's CPUs and the
 *  transports' own options). */
struct rp_test {
	const char *host;    /* client: the server; server: address to bind */
	bool host_defaulted; /* --loopback without -a */
	bool transport_defaulted; /* no -x */
	uint16_t port;
	char transports[RP_MAX_TRANSPORTS][RP_SPEC_NAME_LEN];
	/* -x file:PATH: the path of each local entry, "" for the others */
	char paths[RP_MAX_TRANSPORTS][RP_PATH_LEN];
	size_t n_transports;
	struct rp_spec spec; /* size_bytes, queue_depth: the sweep's largest */
	/* The sweep: every size with every depth, size-major (core/sweep.h);
	 * one point when -S and -q give one value each. */
	uint64_t sizes[RP_MAX_SIZES];
	size_t n_sizes;
	uint32_t depths[RP_MAX_DEPTHS];
	size_t n_depths;
	/* --rate / --load-curve: every size and depth at each rate (the
	 * innermost of the sweep); none: closed loop only */
	struct rp_rate rates[RP_RATE_MAX_POINTS];
	size_t n_rates;
	unsigned int load_curve;   /* --load-curve N, or 0 */
	bool iterations_defaulted; /* neither -C nor -t: rp_sweep_iterations */
	int cpus[RP_MAX_CPUS];	   /* --cpu: thread i runs on cpus[i % n] */
	size_t n_cpus;
	/* The transports' parameters (xport/xport.h): storage the config's
	 * maker owns beside it (rp_cli_parse fills it); copies of a config
	 * share it, and a run copies it before setting a stream's fields. */
	struct rp_xport_params *params;
	/* --expect: what each point must show (n 0: nothing), and --retry:
	 * how many times a point that fails it runs again first */
	struct rp_expect expect;
	uint32_t retry;
	/* --repeat: every point this many times (0, 1: once), in rounds of
	 * every transport; --confidence: the intervals' level (0: 0.95)
	 * and, when width > 0, the half-width (a share of the mean) that
	 * ends the rounds before --repeat's */
	uint32_t repeat;
	double confidence, confidence_width;
	/* --slo: the latency target whose highest offered rate is searched
	 * (one term of core/expect.h; n 0: no search), and --slo-tolerance:
	 * the bracket's width that ends it, a share of the rate found (0:
	 * run/slo.h's default) */
	struct rp_expect slo;
	double slo_tolerance;
	/* -i: the throughput phase sampled this often (s); 0: not at all */
	double interval_s;
	/* --rails (xport/rails.h): this side's rails, "auto" or a list of
	 * devices or interfaces; "": none (a server: auto when a client
	 * asks). A client's -P is then streams per rail. */
	char rails[RP_RAILS_LEN];
};

/** --matrix's knobs: one pair per round; outliers below this fraction of
 *  the median; a round's bound. The matrix document records them. */
struct rp_matrix_opts {
	bool serial;
	double outlier;
	unsigned int round_timeout_s;
	bool no_retest; /* --no-retest: the outliers are not run again */
	struct rp_pattern pattern; /* --pattern; kind NONE: all pairs */
};

/** rp_test_points - points of @t's sweep: sizes x depths x rates. */
static inline size_t rp_test_points(const struct rp_test *t)
{
	return (t->n_sizes ? t->n_sizes : 1) * (t->n_depths ? t->n_depths : 1) *
	       (t->n_rates ? t->n_rates : 1);
}

/** rp_test_point - point @p's indexes into @t's sizes, depths, rates
 *  (size-major, rate innermost). */
static inline void rp_test_point(const struct rp_test *t, size_t p,
				 size_t *size, size_t *depth, size_t *rate)
{
	size_t nd = t->n_depths ? t->n_depths : 1;
	size_t nr = t->n_rates ? t->n_rates : 1;

	*rate = p % nr;
	*depth = p / nr % nd;
	*size = p / nr / nd;
}

#endif
