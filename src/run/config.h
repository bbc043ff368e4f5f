/* SPDX-License-Identifier: MIT */
/*
 * The command line, validated: the test it asks for (what proto, run and
 * report need) and the settings of this run (mode, outputs, a server's
 * limits and access). It sees nothing of the transports: their local
 * options are reached through a pointer whose type is xport/'s.
 */
#ifndef RP_RUN_CONFIG_H
#define RP_RUN_CONFIG_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/cidr.h"
#include "core/expect.h"
#include "core/rate.h"
#include "core/spec.h"

struct rp_result;
struct rp_interval;
struct rp_xport_params;

#define RP_MAX_TRANSPORTS   8
#define RP_PATH_LEN	    256 /* -x file:PATH: bytes of PATH, with its NUL */
#define RP_MAX_SIZES	    32	/* -S list or range: 2 B to 8 MiB is 23 */
#define RP_MAX_DEPTHS	    16	/* -q list */
#define RP_MAX_POINTS	    (RP_MAX_SIZES * RP_MAX_DEPTHS)
#define RP_MAX_CPUS	    RP_SPEC_MAX_THREADS /* --cpu list */
#define RP_CTRL_TIMEOUT_MS  10000		/* one control message */
#define RP_SETUP_TIMEOUT_MS 30000 /* transport setup, phase barriers */
#define RP_STALL_TIMEOUT_NS (30ULL * 1000000000ULL) /* --stall-timeout */

enum rp_mode {
	RP_MODE_NONE,
	RP_MODE_SERVER,
	RP_MODE_CLIENT,
	RP_MODE_LOOPBACK,
	RP_MODE_REPORT, /* --report: re-render a saved result */
	RP_MODE_MATRIX, /* --matrix: every pair of an MPI job's ranks */
};

#define RP_MAX_ALLOW		16   /* --allow prefixes */
#define RP_LIMIT_TIME_DEFAULT_S 3600 /* --max-time */
#define RP_AUTH_KEY_MAX		256  /* --auth-key: bytes of the shared key */

/** What a server grants one test (--max-*): a spec beyond any of them is
 *  refused, with a clear ERROR, before anything is allocated. */
struct rp_limits {
	uint64_t max_memory;  /* bytes of buffers, all streams, this side */
	uint32_t max_streams; /* streams per direction */
	uint64_t max_size;    /* bytes per message */
	uint64_t max_time_ns; /* a timed phase; and a whole test's bound */
};

/** Who may use a server (--allow), and the shared key (--auth-key) both
 *  sides prove they hold before anything else is said. */
struct rp_access {
	struct rp_cidr allow[RP_MAX_ALLOW];
	size_t n_allow; /* 0: any address */
	uint8_t key[RP_AUTH_KEY_MAX];
	size_t key_len; /* 0: no key */
};

/** Who hears of a client's run as it goes (-i, --json-stream, the
 *  progress line), on the client's main thread; any member may be NULL. */
struct rp_observer {
	/* point @k of the @of of this transport begins */
	void (*point)(void *ctx, const struct rp_result *r, size_t k,
		      size_t of);
	/* an interval of its throughput phase ended (-i, or the progress
	 * line's own, once a second) */
	void (*interval)(void *ctx, const struct rp_result *r,
			 const struct rp_interval *iv);
	/* the point is over: its result is complete */
	void (*result)(void *ctx, const struct rp_result *r);
	void *ctx;
};

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
};

/** Everything the command line says, validated: the test, and the
 *  settings of this run that cli/ owns (mode, outputs, progress, a
 *  server's limits and access, --matrix's knobs). */
struct rp_config {
	struct rp_test test;
	enum rp_mode mode;
	bool json;	    /* one JSON document on stdout */
	bool json_stream;   /* JSON lines on stdout while running */
	bool csv;	    /* CSV on stdout */
	const char *plot;   /* --plot FILE.svg, or NULL */
	const char *report; /* --report FILE.json: re-render, no network */
	double interval_s;  /* -i: 0 for none */
	bool progress;	    /* a live line on stderr (a terminal, no -q) */
	const struct rp_observer *obs; /* or NULL */
	bool once;
	bool quiet;
	/* --matrix: one pair per round; outliers below this fraction of the
	 * median; a round's bound */
	bool serial;
	double outlier;
	unsigned int round_timeout_s;
	struct rp_limits limits; /* server */
	/* --stall-timeout: a phase with no sign of life this long ends, on
	 * either side (a ping unanswered, nothing completing, a silent
	 * client) */
	uint64_t stall_ns;
	struct rp_access access; /* --allow (server), --auth-key (both) */
	/* set by a signal handler (a lock-free atomic is safe there) and
	 * read by every thread: stop posting, finish, report */
	const atomic_int *interrupted;
};

/** rp_stall_ns - @cfg's --stall-timeout; RP_STALL_TIMEOUT_NS where unset
 *  (a config built without the command line's defaults). */
static inline uint64_t rp_stall_ns(const struct rp_config *cfg)
{
	return cfg->stall_ns ? cfg->stall_ns : RP_STALL_TIMEOUT_NS;
}

/** rp_config_points - points of @c's sweep: sizes x depths x rates. */
static inline size_t rp_config_points(const struct rp_config *c)
{
	return (c->test.n_sizes ? c->test.n_sizes : 1) *
	       (c->test.n_depths ? c->test.n_depths : 1) *
	       (c->test.n_rates ? c->test.n_rates : 1);
}

/** rp_config_point - point @p's indexes into @c's sizes, depths, rates
 *  (size-major, rate innermost). */
static inline void rp_config_point(const struct rp_config *c, size_t p,
				   size_t *size, size_t *depth, size_t *rate)
{
	size_t nd = c->test.n_depths ? c->test.n_depths : 1;
	size_t nr = c->test.n_rates ? c->test.n_rates : 1;

	*rate = p % nr;
	*depth = p / nr % nd;
	*size = p / nr / nd;
}

#endif
