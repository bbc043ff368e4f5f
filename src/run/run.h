/* SPDX-License-Identifier: MIT */
/*
 * Client and server drivers: the phases of a test (DESIGN.md, "The shape of
 * a run") over any transport, and the result they produce for report/.
 */
#ifndef RP_RUN_RUN_H
#define RP_RUN_RUN_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "core/cidr.h"
#include "core/cpu.h"
#include "core/hist.h"
#include "core/rate.h"
#include "core/spec.h"
#include "xport/xport.h"

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

struct rp_result;
struct rp_interval;

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

/** Everything the command line says, validated. */
struct rp_config {
	enum rp_mode mode;
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
	struct rp_xport_params params;
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

/** One side's view of the throughput phase. */
struct rp_side {
	bool present;
	struct rp_cpu_usage cpu;
	uint64_t messages;
	uint64_t bytes;
	uint64_t verify_errors;
	/* --zerocopy: this side's zero-copy sends over the point (issued,
	 * notified, copied by the kernel anyway), if it reported them (a
	 * server older than --zerocopy does not) */
	bool has_zc;
	struct rp_zc_count zc;
};

/** What a set of operations did: one stream, a direction, a whole test. */
struct rp_flow {
	uint64_t bytes;
	uint64_t messages;
	double seconds; /* first post to last completion */
	double bits_per_second;
	double mib_per_second;
	double messages_per_second;
	bool has_latency; /* completion latency under load, ns */
	struct rp_hist_summary latency;
	/* Open loop (--rate): latency from each operation's intended start
	 * (coordinated omission corrected), and how the schedule fared
	 * (struct rp_phase_out) */
	bool has_corrected;
	struct rp_hist_summary corrected;
	uint64_t backlogged, max_backlog, unsent;
};

/** One stream's share of a direction. */
struct rp_stream_result {
	uint32_t stream; /* 0.. within its direction */
	uint32_t thread; /* the initiator's thread that drove it */
	struct rp_flow flow;
};

/** One interval (-i) of the throughput phase, the client's streams. */
struct rp_interval {
	uint32_t index;	     /* 0.. within the point */
	double start;	     /* seconds since the phase began */
	struct rp_flow flow; /* seconds: this interval's length */
	uint32_t n_streams;  /* per_stream's length: 0 with one stream */
	struct rp_stream_result *per_stream; /* owned */
};

enum rp_dir { RP_DIR_C2S, RP_DIR_S2C, RP_DIR__COUNT };

/** One direction of a test: the client's streams, or (--bidir) the
 *  server's. */
struct rp_direction {
	bool present;
	struct rp_flow flow; /* all its streams together */
	uint32_t n_streams;
	struct rp_stream_result *per_stream; /* n_streams, owned */
	double fairness; /* Jain's index over per-stream throughput, 0..1 */
};

/** rp_config_points - points of @c's sweep: sizes x depths x rates. */
static inline size_t rp_config_points(const struct rp_config *c)
{
	return (c->n_sizes ? c->n_sizes : 1) * (c->n_depths ? c->n_depths : 1) *
	       (c->n_rates ? c->n_rates : 1);
}

/** rp_config_point - point @p's indexes into @c's sizes, depths, rates
 *  (size-major, rate innermost). */
static inline void rp_config_point(const struct rp_config *c, size_t p,
				   size_t *size, size_t *depth, size_t *rate)
{
	size_t nd = c->n_depths ? c->n_depths : 1;
	size_t nr = c->n_rates ? c->n_rates : 1;

	*rate = p % nr;
	*depth = p / nr % nd;
	*size = p / nr / nd;
}

/** The result of one test point on one transport. */
struct rp_result {
	char transport[RP_SPEC_NAME_LEN];
	struct rp_spec spec; /* this point's size, depth, iterations */
	uint32_t point;	     /* index in the sweep */
	uint64_t warmup_messages;
	bool has_bandwidth;
	/* The test: with --bidir the sum of both directions. */
	uint64_t bytes;
	uint64_t messages;
	double seconds;
	double bits_per_second;
	double mib_per_second;
	double messages_per_second;
	bool has_latency; /* completion latency under load, ns (merged) */
	struct rp_hist_summary latency;
	struct rp_direction dir[RP_DIR__COUNT];
	struct rp_spectrum latency_spectrum; /* n = 0: none */
	/* -i: the throughput phase interval by interval (owned), and the
	 * lowest and highest interval throughput among the intervals at least
	 * half interval_s long (a short last one would mislead) */
	double interval_s;
	struct rp_interval *intervals;
	uint32_t n_intervals;
	bool has_interval_range;
	double interval_min_bps, interval_max_bps;
	bool has_unloaded; /* ping-pong: rtt/2 (or whole op), ns */
	struct rp_hist_summary unloaded;
	struct rp_hist_summary rtt;
	struct rp_spectrum unloaded_spectrum; /* as unloaded: halved or not */
	bool unloaded_halved;		      /* unloaded = rtt / 2 */
	struct rp_side client;
	struct rp_side server;
	cJSON *client_info; /* the transports' local_info, owned: an array,
			     * one object per stream */
	cJSON *server_info;
	cJSON *server_host;
	cJSON *client_host;	 /* rp_host_info() of this side, owned */
	char notes[RP_NOTE_LEN]; /* the transport's notes for the user */
	bool interrupted;	 /* SIGINT: the sweep stopped at this point */
	enum rp_phase interrupted_phase; /* the phase it stopped in */
	bool failed;
	char error_code[32];
	char error[256];
};

/** rp_intervals_free - free @n intervals and their per-stream arrays. */
void rp_intervals_free(struct rp_interval *iv, uint32_t n);

/** rp_result_fini - free what a result owns; the struct itself stays. */
void rp_result_fini(struct rp_result *r);

/**
 * rp_client_run_test - run the test of @cfg, every point of its sweep, on
 * transport @t of cfg->transports against the server at
 * cfg->host:cfg->port, over one control connection and one transport
 * setup (a local transport, -x file:PATH, runs here on cfg->paths[@t],
 * without a server), filling @res[i] for point i
 * of rp_sweep_points() (also on failure: failed, error_code, error and
 * whatever phases completed; points after a failure are failed too).
 * @res: cfg->n_sizes * cfg->n_depths results.
 * Return: 0, or a negative errno when the test failed.
 */
int rp_client_run_test(const struct rp_config *cfg, size_t t,
		       struct rp_result *res);

/** rp_result_saturated - an open loop (--rate) whose client direction
 *  achieved under RP_RATE_SATURATED of the rate it offered. Its figures
 *  (achieved, corrected latency, backlog) are that direction's flow. */
static inline bool rp_result_saturated(const struct rp_result *r)
{
	return r->spec.rate && r->dir[RP_DIR_C2S].flow.messages_per_second <
				       RP_RATE_SATURATED * (double)r->spec.rate;
}

/** rp_host_info - this host as a JSON object (hostname, kernel, cpus...). */
cJSON *rp_host_info(void);

/** rp_host_clock_end - at the end of a run, this side's clock drift from
 *  CLOCK_MONOTONIC since calibration into @host's "clock" (drift_ppm). */
void rp_host_clock_end(cJSON *host);

struct rp_server;

/**
 * rp_server_open - listen for clients on cfg->host (NULL: any) and cfg->port
 * (0: an ephemeral port, see rp_server_port).
 * Return: 0, or -errno (the reason is printed).
 */
int rp_server_open(const struct rp_config *cfg, struct rp_server **out);

/** rp_server_port - the port the server listens on. */
uint16_t rp_server_port(const struct rp_server *srv);

/**
 * rp_server_serve - serve tests, one at a time, until *@stop is set,
 * rp_server_stop() is called, or after one test with @once. A second
 * client meanwhile is told "busy".
 * Return: 0; -errno on a fatal error of the listener itself; with @once,
 * -ECANCELED when that test failed.
 */
int rp_server_serve(struct rp_server *srv, bool once, const atomic_int *stop);

/** rp_server_stop - make rp_server_serve() return soon; any thread. */
void rp_server_stop(struct rp_server *srv);

/** rp_server_close - stop listening and free; NULL is accepted. */
void rp_server_close(struct rp_server *srv);

/* Initiator phase loops (engine.c). */

/** What the initiator saw on one stream in one phase. */
struct rp_phase_out {
	uint64_t messages;
	uint64_t first_post_ns;
	uint64_t last_done_ns;
	/* Open loop (--rate) only: */
	uint64_t backlogged;  /* ops due while the queue was full */
	uint64_t max_backlog; /* most ops due and not yet posted at once */
	uint64_t unsent;      /* due before the phase's end, never posted */
};

/** One stream an engine drives, and where its figures go. */
struct rp_engine_stream {
	struct rp_stream *s;
	struct rp_hist *hist;	/* one record per operation; may be NULL */
	struct rp_ticker *tick; /* -i: intervals (run/ticker.h); or NULL */
	/* --rate: each operation from its intended start on the schedule
	 * to its completion (coordinated omission corrected); or NULL */
	struct rp_hist *corr;
	struct rp_phase_out out;
};

struct rp_ticker;

/** How long and how one phase runs. */
struct rp_engine_opts {
	uint64_t iterations;	 /* operations per stream; 0: time mode */
	uint64_t duration_ns;	 /* time mode: post for this long */
	uint64_t stall_ns;	 /* no completion this long: -ETIMEDOUT;
				  * 0: RP_STALL_TIMEOUT_NS */
	const atomic_int *intr;	 /* set: post no more, let the rest finish */
	const atomic_int *abort; /* set: the peer ended the phase: stop at
				  * once (-ECONNABORTED), nothing to wait for */
	/* --rate: each stream's interval between intended starts, in ns
	 * (rp_engine_period_ns); 0: closed loop */
	double period_ns;
	/* the clock; NULL: rp_clock_ns (tests script time with their own) */
	uint64_t (*clock)(void);
};

/** rp_engine_period_ns - the interval of each of @streams streams that
 *  offer @rate operations per second together; 0 for rate 0. */
double rp_engine_period_ns(uint64_t rate, unsigned int streams);

/**
 * rp_engine_bandwidth - keep up to queue_depth operations posted on each of
 * the @n streams of @es (one transport, all initiators) until each
 * completed @o->iterations, or for @o->duration_ns; record each one's
 * completion latency in its stream's hist. Open loop (@o->period_ns):
 * stream i of the @n posts operation k at t0 + (i / n + k) * period
 * (staggered), or as soon after as its queue has room; each operation's
 * latency from that intended start goes to es[i].corr (wrk2's correction
 * of coordinated omission), its post-to-completion one to hist. Under --wait
 * event it sleeps in poll(2) over the streams' arm() descriptors when nothing
 * moved. Return: 0, -ETIMEDOUT when a stream saw nothing complete for the stall
 * time, or the transport's -errno (its reason in that stream's err).
 * Each es[i].out counts what completed.
 */
int rp_engine_bandwidth(struct rp_engine_stream *es, unsigned int n,
			const struct rp_engine_opts *o);

/**
 * rp_engine_latency - @o->iterations ping-pongs at depth 1 on @es->s, each
 * round trip time into @es->hist; each must finish within the stall time.
 * Return: 0 or -errno, as rp_engine_bandwidth().
 */
int rp_engine_latency(struct rp_engine_stream *es,
		      const struct rp_engine_opts *o);

/**
 * rp_streams_set_point - move the @n streams of one side to a point of the
 * sweep (rp_xport_ops.set_point), unless they are there already (their spec
 * says: both ends start at the test's largest point and move together).
 * Return: 0, or the transport's -errno with *@failed the stream whose err
 * holds the reason.
 */
int rp_streams_set_point(struct rp_stream *const *s, unsigned int n,
			 uint64_t size_bytes, uint32_t depth,
			 struct rp_stream **failed);

/**
 * rp_streams_zerocopy - the zero-copy sends (--zerocopy) of the @n streams
 * of one side over their lives, summed into *@out; all zero where the
 * transport has none.
 */
void rp_streams_zerocopy(struct rp_stream *const *s, unsigned int n,
			 struct rp_zc_count *out);

#endif
