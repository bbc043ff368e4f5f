/* SPDX-License-Identifier: MIT */
/*
 * The client driver's private parts, shared by client.c (the control
 * connection, setup, the sweep), client_points.c (the sweep's points),
 * client_local.c (a local transport's test), client_phase.c (one point's
 * phases), client_streams.c (the streams' arrays) and, below them all,
 * client_ctl.c (failures, requests and replies, the ERROR to the server).
 */
#ifndef RP_RUN_CLIENT_H
#define RP_RUN_CLIENT_H

#include "run/counters.h"
#include "run/engine.h"
#include "run/run.h"

struct client {
	const struct rp_config *cfg;
	const struct rp_xport_ops *ops;
	struct rp_spec spec;   /* the test: buffers sized for the largest */
	struct rp_result *res; /* the point being run */
	rp_sock_t fd;
	unsigned int n_fwd;	    /* streams the client initiates */
	unsigned int n_rev;	    /* --bidir: streams the server initiates */
	struct rp_stream **streams; /* n_fwd + n_rev, forward first */
	struct rp_engine_stream *fwd; /* n_fwd, each with its histogram */
	struct rp_engine_stream *rev; /* n_rev, no histogram */
	struct rp_hist *scratch;      /* merges, the latency phase */
	struct rp_ticker *tick;	      /* n_fwd with -i or progress, or NULL */
	uint64_t verify_seen;	      /* verify_errors before this point */
	/* --zerocopy: both sides' counts before this point */
	struct rp_zc_count zc_seen, zc_server_seen;
	bool told; /* the server has this test's ERROR: no second one */
	struct rp_counter_watch cw; /* this side's link over the point */
	struct rp_counter_watch iw; /* and over each -i interval */
};

/* A local transport (-x file:PATH) runs without a server: no control
 * connection, nothing to tell anyone between phases. */
static inline bool client_has_server(const struct client *c)
{
	return rp_sock_valid(c->fd);
}

/* client_ctl.c, the bottom: it calls no other client_*.c file */
__attribute__((format(printf, 4, 5))) int client_fail(struct rp_result *res,
						      int err, const char *code,
						      const char *fmt, ...);
void client_tell(struct client *c, const char *code, const char *message);
int client_call(struct client *c, uint16_t type, const cJSON *body,
		uint16_t want, int timeout_ms, cJSON **reply);
/* the control connection to @host @port, and HELLO (with --auth-key,
 * the proofs); the reason in c->res */
int client_connect(struct client *c, const char *host, uint16_t port);
int client_hello(struct client *c);

/* client_mcast.c: --mcast, this side the group's sender and each server
 * of -a's list a receiver; the one point's result into @res */
int client_run_mcast(struct client *c, struct rp_result *res);
/* the first receiver's host, without its :PORT (the route the transport's
 * preflight looks at); 0, or -EINVAL */
int client_mcast_first(const struct rp_config *cfg, char *name, size_t len);

/* client_streams.c */
int client_alloc_streams(struct client *c);
/* the transports' local information into the result's client_info */
int client_collect_info(struct client *c);

/* client_points.c: the results of the @n points on @transport, their
 * specs set; after the run, the points not told yet */
void client_init_results(struct client *c, const char *transport,
			 struct rp_result *res, size_t n);
void client_finish_results(const struct client *c, struct rp_result *res,
			   size_t n, size_t ran, size_t told);
/* every point of the sweep, once setup ended with @err (0: it went well) */
int client_run_points(struct client *c, struct rp_result *res, size_t n,
		      int err, size_t *ran, size_t *told);

/* client_local.c */
int client_run_local(struct client *c, const char *path, struct rp_result *res,
		     size_t n, size_t *ran, size_t *told);

/* client_phase.c */
int client_run_point(struct client *c);

/* client_counts.c: what a point added to both ends' counts, after its
 * phases: --verify's bad messages (an error where any), --zerocopy's. */
int client_check_verify(struct client *c);
void client_count_zerocopy(struct client *c);

#endif
