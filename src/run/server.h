/* SPDX-License-Identifier: MIT */
/*
 * The server driver's private parts: server.c (the listener, one session
 * at a time, and with --auth-key the gate before it), session.c (a
 * session's setup), server_phase.c (its phases) and, below them all,
 * session_ctl.c (a session's log, refusals, awaited messages).
 */
#ifndef RP_RUN_SERVER_H
#define RP_RUN_SERVER_H

#include <pthread.h>
#include <stdatomic.h>

#include "platform/net.h"
#include "run/engine.h"
#include "run/run.h"

/* --auth-key: connections before their proof (the gate), in all and from
 * one source address; past either, the newest is told "busy" at once. */
#define RP_GATE_MAX	   16
#define RP_GATE_PER_SOURCE 4
/* connection threads: the gate's, and one per test that may run at once */
#define RP_CONNS (RP_GATE_MAX + RP_MAX_TESTS)

/* One control connection and its thread: the session, or with --auth-key
 * a peer in the gate, before its proof. */
struct rp_conn {
	pthread_t thread;
	rp_sock_t fd; /* under rp_server.lock; invalid once closed */
	struct sockaddr_storage from; /* the peer: main thread only */
	bool used;		      /* a thread to join: main thread only */
	atomic_int gated;	      /* before its proof */
	atomic_int done;	      /* the thread is about to return */
};

struct rp_server {
	const struct rp_config *cfg;
	rp_sock_t fd;
	uint16_t port;
	atomic_int running;	       /* tests holding a slot (--max-tests) */
	unsigned int max_tests;	       /* --max-tests, at least 1 */
	atomic_uint_fast64_t mem_used; /* --max-memory's budget taken */
	atomic_uint sessions;	       /* connections so far: a test's number */
	atomic_int tests;	       /* sessions that got as far as a TEST */
	atomic_int failed;	       /* of those, how many failed */
	atomic_int stop;	       /* rp_server_stop(), or shut down */
	const atomic_int *ext_stop;    /* rp_server_serve()'s stop */
	bool once;		       /* rp_server_serve()'s once */
	/* every connection's thread: the tests', the gate's; fds under the
	 * lock, for shut_down() */
	struct rp_conn conns[RP_CONNS];
	pthread_mutex_t lock;
};

struct session {
	struct rp_server *srv;
	struct rp_conn *conn;
	rp_sock_t fd;
	char peer[80];	     /* "#N ADDR:PORT": the log's name for this test */
	uint64_t reserved;   /* bytes of --max-memory's budget it holds */
	uint64_t started_ns; /* the session began: --max-time's bound */
	bool counted;	     /* its streams connected: a test (--once) */
	bool told;	     /* an ERROR went to the client already */
	bool admitted;	     /* HELLO (and the proof) are in */
	struct rp_spec spec;
	const struct rp_xport_ops *ops;
	struct rp_listener *listener;
	unsigned int n_fwd;	      /* streams the client initiates */
	unsigned int n_rev;	      /* --bidir: streams this side initiates */
	struct rp_stream **streams;   /* n_fwd + n_rev, forward first */
	struct rp_engine_stream *rev; /* n_rev, with histograms */
	struct rp_hist *scratch;
	uint64_t verify_seen; /* initiators' verify_errors so far */
	uint64_t srq_seen;    /* --srq: the limit events so far */
	cJSON *streams_msg;   /* STREAMS that arrived while accepting */
};

/* session_ctl.c, the bottom: it calls none of server.c, session.c and
 * server_phase.c */
__attribute__((format(printf, 2, 3))) void session_log(const struct session *s,
						       const char *fmt, ...);
int session_refuse(struct session *s, int err, const char *code,
		   const char *msg);
int session_expect(struct session *s, uint16_t want, int timeout_ms,
		   cJSON **body);
/* the server is stopping (SIGINT, SIGTERM, rp_server_stop): the one test
 * of it, for the accept loop and for a session */
bool server_stopping(const struct rp_server *srv);
bool session_stopping(const struct session *s);

/* session.c */
/* HELLO, and with --auth-key the proof, in one control timeout in all. */
int session_admit(struct session *s);
int session_run(struct session *s);
void session_free(struct session *s);

/* session_mcast.c: --mcast, this server one receiver of the group */
int session_mcast(struct session *s);

/* server_phase.c: START/STOP pairs until BYE. */
int session_phases(struct session *s);

#endif
