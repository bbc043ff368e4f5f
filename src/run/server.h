/* SPDX-License-Identifier: MIT */
/*
 * The server driver's private parts: server.c (the listener, one session
 * at a time), session.c (a session's setup), server_phase.c (its phases).
 */
#ifndef RP_RUN_SERVER_H
#define RP_RUN_SERVER_H

#include <pthread.h>
#include <stdatomic.h>

#include "run/run.h"

struct rp_server {
	const struct rp_config *cfg;
	rp_sock_t fd;
	uint16_t port;
	atomic_int busy;
	atomic_int tests;	    /* sessions that got as far as a TEST */
	atomic_int failed;	    /* of those, how many failed */
	atomic_int stop;	    /* rp_server_stop(), or shut down */
	const atomic_int *ext_stop; /* rp_server_serve()'s stop */
	/* the session's control connection */
	_Atomic(rp_sock_t) session_fd;
	pthread_t thread;
	bool joinable;
};

struct session {
	struct rp_server *srv;
	rp_sock_t fd;
	char peer[64];
	uint64_t started_ns; /* the session began: --max-time's bound */
	bool counted;	     /* its streams connected: a test (--once) */
	bool told;	     /* an ERROR went to the client already */
	struct rp_spec spec;
	const struct rp_xport_ops *ops;
	struct rp_listener *listener;
	unsigned int n_fwd;	      /* streams the client initiates */
	unsigned int n_rev;	      /* --bidir: streams this side initiates */
	struct rp_stream **streams;   /* n_fwd + n_rev, forward first */
	struct rp_engine_stream *rev; /* n_rev, with histograms */
	struct rp_hist *scratch;
	uint64_t verify_seen; /* initiators' verify_errors so far */
	cJSON *streams_msg;   /* STREAMS that arrived while accepting */
};

/* session.c */
__attribute__((format(printf, 2, 3))) void session_log(const struct session *s,
						       const char *fmt, ...);
int session_refuse(struct session *s, int err, const char *code,
		   const char *msg);
int session_expect(struct session *s, uint16_t want, int timeout_ms,
		   cJSON **body);
int session_run(struct session *s);
/* server.c: the server is stopping (SIGINT, SIGTERM, rp_server_stop). */
bool session_stopping(const struct session *s);
void session_free(struct session *s);

/* server_phase.c: START/STOP pairs until BYE. */
int session_phases(struct session *s);

#endif
