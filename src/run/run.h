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

#include "core/cpu.h"
#include "core/hist.h"
#include "core/spec.h"
#include "xport/xport.h"

#define RP_MAX_TRANSPORTS   8
#define RP_CTRL_TIMEOUT_MS  10000 /* one control message */
#define RP_SETUP_TIMEOUT_MS 30000 /* transport setup, phase barriers */
#define RP_STALL_TIMEOUT_NS (30ULL * 1000000000ULL) /* no completion */

enum rp_mode { RP_MODE_NONE, RP_MODE_SERVER, RP_MODE_CLIENT, RP_MODE_LOOPBACK };

/** Everything the command line says, validated. */
struct rp_config {
	enum rp_mode mode;
	const char *host;    /* client: the server; server: address to bind */
	bool host_defaulted; /* --loopback without -a */
	bool transport_defaulted; /* no -x */
	uint16_t port;
	char transports[RP_MAX_TRANSPORTS][RP_SPEC_NAME_LEN];
	size_t n_transports;
	struct rp_spec spec;
	struct rp_xport_params params;
	bool json;
	bool once;
	bool quiet;
	/* set by a signal handler (a lock-free atomic is safe there) and
	 * read by every thread: stop posting, finish, report */
	const atomic_int *interrupted;
};

/** One side's view of the throughput phase. */
struct rp_side {
	bool present;
	struct rp_cpu_usage cpu;
	uint64_t messages;
	uint64_t bytes;
	uint64_t verify_errors;
};

/** The result of one test on one transport. */
struct rp_result {
	char transport[RP_SPEC_NAME_LEN];
	struct rp_spec spec;
	uint64_t warmup_messages;
	bool has_bandwidth;
	uint64_t bytes;
	uint64_t messages;
	double seconds;
	double bits_per_second;
	double mib_per_second;
	double messages_per_second;
	bool has_latency; /* completion latency under load, ns */
	struct rp_hist_summary latency;
	bool has_unloaded; /* ping-pong: rtt/2 (or whole op), ns */
	struct rp_hist_summary unloaded;
	struct rp_hist_summary rtt;
	bool unloaded_halved; /* unloaded = rtt / 2 */
	struct rp_side client;
	struct rp_side server;
	cJSON *client_info; /* the transports' local_info, owned */
	cJSON *server_info;
	cJSON *server_host;
	cJSON *client_host;	 /* rp_host_info() of this side, owned */
	char notes[RP_NOTE_LEN]; /* the transport's notes for the user */
	bool failed;
	char error_code[32];
	char error[256];
};

/** rp_result_fini - free what a result owns; the struct itself stays. */
void rp_result_fini(struct rp_result *r);

/**
 * rp_client_run_test - run the test of @cfg on transport @transport against
 * the server at cfg->host:cfg->port, filling @res (also on failure: failed,
 * error_code, error and whatever phases completed).
 * Return: 0, or a negative errno when the test failed.
 */
int rp_client_run_test(const struct rp_config *cfg, const char *transport,
		       struct rp_result *res);

/** rp_host_info - this host as a JSON object (hostname, kernel, cpus...). */
cJSON *rp_host_info(void);

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

/* Client phase loops (engine.c). */

/** What the client saw in one phase. */
struct rp_phase_out {
	uint64_t messages;
	uint64_t first_post_ns;
	uint64_t last_done_ns;
};

/** How long and how one phase runs. */
struct rp_engine_opts {
	uint64_t iterations;	/* operations to complete; 0: time mode */
	uint64_t duration_ns;	/* time mode: post for this long */
	uint64_t stall_ns;	/* no completion this long: -ETIMEDOUT;
				 * 0: RP_STALL_TIMEOUT_NS */
	struct rp_hist *hist;	/* one record per operation; may be NULL */
	const atomic_int *intr; /* set: post no more, let the rest finish */
};

/**
 * rp_engine_bandwidth - keep up to s->spec.queue_depth operations posted
 * on @s until @o->iterations completed, or for @o->duration_ns; record
 * each one's completion latency in @o->hist.
 * Return: 0, -ETIMEDOUT when nothing completed for the stall time, or the
 * transport's -errno (its reason in s->err). @out counts what completed.
 */
int rp_engine_bandwidth(struct rp_stream *s, const struct rp_engine_opts *o,
			struct rp_phase_out *out);

/**
 * rp_engine_latency - @o->iterations ping-pongs at depth 1 on @s, each
 * round trip time into @o->hist; each must finish within the stall time.
 * Return: 0 or -errno, as rp_engine_bandwidth().
 */
int rp_engine_latency(struct rp_stream *s, const struct rp_engine_opts *o,
		      struct rp_phase_out *out);

/** rp_phase_name - "warmup", "latency", "bandwidth". */
const char *rp_phase_name(enum rp_phase p);

/** rp_phase_parse - inverse of rp_phase_name. Return: 0 or -EINVAL. */
int rp_phase_parse(const char *name, enum rp_phase *out);

#endif
