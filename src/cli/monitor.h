/* SPDX-License-Identifier: MIT */
/*
 * rdmaperf monitor CONFIG: probe a list of peers every interval, in turn,
 * with a low-impact test (an unloaded ping-pong, a short burst, the
 * counters' deltas and the verdicts of --expect), and say what each probe
 * found as OpenMetrics over HTTP (/metrics) and as node_exporter's
 * textfile (doc/monitor.md).
 *
 *   monitor.c        the command line, the schedule and its backoff
 *   monitor_probe.c  one peer's probe into its figures (run/'s client)
 *   monitor_http.c   /metrics, on libmicrohttpd's own thread
 *                    (monitor_nohttp.c where the build has no
 *                    libmicrohttpd: the HTTP side refused, said why)
 *   monitor_conf.c   the config file, each error with FILE:LINE
 *   monitor_expo.c   the bottom: the exposition (OpenMetrics, Prometheus
 *                    text) of a snapshot, and the textfile written
 *                    atomically
 */
#ifndef RP_CLI_MONITOR_H
#define RP_CLI_MONITOR_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/expect.h"
#include "run/run.h"

/** rp_monitor_main - run "rdmaperf monitor ARGS" (@argv[0] is
 *  "monitor"). Return: the exit status: 0 (stopped by a signal, or
 *  --once done), 1 (a runtime failure), 2 (bad usage or config). */
int rp_monitor_main(int argc, char **argv);

/* ---- the config (monitor_conf.c) ---- */

#define RP_MON_MAX_PEERS    64
#define RP_MON_MAX_ARGS	    40
#define RP_MON_NAME_LEN	    64
#define RP_MON_LISTEN_LEN   128
#define RP_MON_PATH_LEN	    4096
#define RP_MON_ERR_LEN	    (RP_MON_PATH_LEN + 512)
#define RP_MON_PORT_DEFAULT 9520

/* A key of a [peer NAME] section: the command line's flag it stands for
 * and the line that gave it (0: not given). */
struct rp_mon_key {
	const char *flag;
	unsigned int line;
};

struct rp_mon_peer_conf {
	char name[RP_MON_NAME_LEN];
	unsigned int line;	     /* its "[peer NAME]" line */
	unsigned int addr_line;	     /* its "address =" line */
	char *argv[RP_MON_MAX_ARGS]; /* "rdmaperf -c -a ADDR ...", owned */
	unsigned int argl[RP_MON_MAX_ARGS]; /* the line of each argument */
	int argc;
	double burst_s; /* the throughput phase, -t */
	bool has_burst, has_lat, has_warmup, has_stall;
	struct rp_xport_params params; /* cfg.test.params points here */
	struct rp_config cfg;	       /* the probe's test, validated */
};

struct rp_mon_conf {
	char path[RP_MON_PATH_LEN];
	double interval_s; /* 60 */
	unsigned int interval_line;
	char listen[RP_MON_LISTEN_LEN]; /* ADDR:PORT, "" for no HTTP */
	unsigned int listen_line;
	char textfile[RP_MON_PATH_LEN]; /* "" for none */
	char source[RP_MON_NAME_LEN];	/* the source label: this host */
	double max_duty;		/* 0.1: of each interval, sending */
	unsigned int max_duty_line;
	double backoff_max_s; /* a down peer's longest wait: 8 intervals */
	bool has_backoff_max;
	/* the probe's defaults, each peer may set its own */
	char burst[32], lat_iterations[32], warmup[32], stall_timeout[32];
	unsigned int burst_line, lat_line, warmup_line, stall_line;
	struct rp_mon_peer_conf *peers;
	size_t n_peers;
};

/**
 * rp_mon_conf_load - read and validate the config file @path into @c
 * (the peers' addresses resolved, the duty cycle checked).
 * Return: 0, or -EINVAL with "FILE:LINE: why" (or "FILE: why") in @err.
 */
int rp_mon_conf_load(const char *path, struct rp_mon_conf *c, char *err,
		     size_t len);

/** rp_mon_conf_free - what @c owns; @c itself stays. */
void rp_mon_conf_free(struct rp_mon_conf *c);

/** rp_mon_listen_split - "ADDR:PORT" ("[::1]:9520", ":9520" for every
 *  address) into @host (@len; "" for every address) and *@port.
 *  Return: 0 or -EINVAL. */
int rp_mon_listen_split(const char *s, char *host, size_t len, uint16_t *port);

/* ---- the figures (monitor_expo.c renders them) ---- */

#define RP_MON_MAX_COUNTERS 160
#define RP_MON_QUANTILES    3 /* 0.5, 0.99, 0.999 */

struct rp_mon_counter {
	char side[8]; /* "client", "server" */
	char group[8];
	char name[48];
	uint64_t delta;
};

struct rp_mon_check {
	char text[48]; /* the term as written: "p99<=5us" */
	bool pass;
};

/** A latency distribution of the last probe (seconds) and the count and
 *  sum of every probe's (cumulative, as a summary's must be). */
struct rp_mon_latency {
	bool has;
	double q[RP_MON_QUANTILES];
	uint64_t count;
	double sum;
};

/** What the monitor knows of one peer: plain data, copied whole. */
struct rp_mon_peer {
	char peer[RP_MON_NAME_LEN];
	char device[RP_MON_NAME_LEN]; /* the link it ran on: "" unknown */
	char transport[RP_SPEC_NAME_LEN];
	char op[RP_SPEC_NAME_LEN];
	bool probed; /* a probe has ended */
	bool up;     /* the last one succeeded */
	double duration_s, end_unix_s, sending_s;
	uint64_t probes, failures; /* since the start */
	uint32_t consecutive_failures;
	double backoff_s; /* the wait before the next probe */
	char reason[256]; /* the last failure's */
	bool has_bw;
	double bits_per_second, messages_per_second;
	struct rp_mon_latency unloaded, loaded;
	bool has_sums; /* the counters' sums: errors, retrans, congestion */
	uint64_t errors, retrans, congestion;
	unsigned int n_counters;
	struct rp_mon_counter c[RP_MON_MAX_COUNTERS];
	bool has_verdict, pass;
	unsigned int n_checks;
	struct rp_mon_check k[RP_EXPECT_MAX];
};

struct rp_mon_snapshot {
	char source[RP_MON_NAME_LEN];
	double interval_s, max_duty;
	double duty; /* the last probes' sending time over the interval */
	size_t n;
	struct rp_mon_peer *p;
};

/** A growing text buffer: the exposition's. */
struct rp_mon_buf {
	char *s;
	size_t len, cap;
	bool oom;
};

enum rp_mon_format { RP_MON_OPENMETRICS, RP_MON_PROMETHEUS };

#define RP_MON_CT_OPENMETRICS                                                  \
	"application/openmetrics-text; version=1.0.0; charset=utf-8"
#define RP_MON_CT_PROMETHEUS "text/plain; version=0.0.4; charset=utf-8"

/**
 * rp_mon_render - @s as the exposition format @f into @b (its text
 * appended; free b->s). Return: 0, or -ENOMEM.
 */
int rp_mon_render(const struct rp_mon_snapshot *s, enum rp_mon_format f,
		  struct rp_mon_buf *b);

/** rp_mon_format_of - the format an HTTP Accept header (NULL: none) asks
 *  for: OpenMetrics where it names it, else the Prometheus text. */
enum rp_mon_format rp_mon_format_of(const char *accept);

/**
 * rp_mon_textfile_write - @s as Prometheus text into @path atomically
 * (PATH.tmp beside it, fsync, rename). Return: 0, or -errno with the
 * reason in @err.
 */
int rp_mon_textfile_write(const struct rp_mon_snapshot *s, const char *path,
			  char *err, size_t len);

/* ---- the probe (monitor_probe.c) ---- */

/**
 * rp_mon_probe - probe @pc once into @p (its figures replaced, its totals
 * counted), the run stopping early when *@stop is set.
 * Return: 0 when the peer answered, or -EIO (p->reason says why).
 */
int rp_mon_probe(const struct rp_mon_peer_conf *pc, struct rp_mon_peer *p,
		 const atomic_int *stop);

/** rp_mon_peer_init - @p's labels from @pc, no probe yet. */
void rp_mon_peer_init(const struct rp_mon_peer_conf *pc, struct rp_mon_peer *p);

/* ---- HTTP (monitor_http.c) ---- */

struct rp_mon_http;

/** The figures the HTTP thread renders: a copy taken under @lock. */
struct rp_mon_shared {
	pthread_mutex_t lock;
	struct rp_mon_snapshot snap; /* the monitor's, updated under lock */
};

/**
 * rp_mon_http_start - serve @sh's figures on @listen ("ADDR:PORT").
 * Return: 0, or -errno with the reason in @err (a port in use: "ADDR:PORT:
 * Address already in use"; a build without libmicrohttpd: -ENOTSUP).
 */
int rp_mon_http_start(const char *listen, struct rp_mon_shared *sh,
		      struct rp_mon_http **out, char *err, size_t len);

/** rp_mon_http_port - the port it listens on (the one asked, or the one
 *  port 0 gave). */
uint16_t rp_mon_http_port(const struct rp_mon_http *h);

/** rp_mon_http_stop - stop serving and free; NULL is accepted. */
void rp_mon_http_stop(struct rp_mon_http *h);

#endif
