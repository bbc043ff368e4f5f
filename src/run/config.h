/* SPDX-License-Identifier: MIT */
/*
 * The command line, validated: the test it asks for (run/test.h: what
 * proto, run and report need) and the settings of this run that cli/ owns
 * (mode, outputs, a server's limits and access, --matrix's knobs). report/
 * sees only the test.
 */
#ifndef RP_RUN_CONFIG_H
#define RP_RUN_CONFIG_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/cidr.h"
#include "run/test.h"

struct rp_result;
struct rp_interval;

#define RP_CTRL_TIMEOUT_MS  10000 /* one control message */
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
#define RP_MAX_TESTS		64   /* --max-tests: a server's tests at once */
#define RP_LIMIT_TIME_DEFAULT_S 3600 /* --max-time */
#define RP_AUTH_KEY_MAX		256  /* --auth-key: bytes of the shared key */

/** What a server grants (--max-*): a spec beyond any of them is refused,
 *  with a clear ERROR, before anything is allocated. Each bounds one test,
 *  but for --max-memory, which is a budget shared by the tests that run at
 *  once (--max-tests). */
struct rp_limits {
	uint32_t max_tests;   /* tests at once (0 reads as 1) */
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
	bool progress;	    /* a live line on stderr (a terminal, no -q) */
	const struct rp_observer *obs; /* or NULL */
	bool once;
	bool quiet;
	struct rp_matrix_opts matrix;
	struct rp_limits limits; /* server */
	/* --stall-timeout: a phase with no sign of life this long ends, on
	 * either side (a ping unanswered, nothing completing, a silent
	 * client) */
	uint64_t stall_ns;
	struct rp_access access; /* --allow (server), --auth-key (both) */
	/* set by a signal handler (a lock-free atomic is safe there) and
	 * read by every thread: stop posting, finish, report */
	const atomic_int *interrupted;
	/* CPU figures of this side's own threads, not the process's: the
	 * process runs other tests at once (a --pattern's rank) */
	bool own_threads;
};

/** rp_stall_ns - @cfg's --stall-timeout; RP_STALL_TIMEOUT_NS where unset
 *  (a config built without the command line's defaults). */
static inline uint64_t rp_stall_ns(const struct rp_config *cfg)
{
	return cfg->stall_ns ? cfg->stall_ns : RP_STALL_TIMEOUT_NS;
}

#endif
