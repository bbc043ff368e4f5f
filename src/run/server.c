// SPDX-License-Identifier: MIT
/*
 * Server driver. The main thread accepts control connections, each on a
 * thread of its own (struct rp_conn); each of --max-tests slots (one by
 * default) holds one test (session.c, server_phase.c); a client that
 * arrives while every slot is taken is told ERROR "busy" and closed. The
 * tests at once share --max-memory's budget; each has its own number,
 * which its log lines carry.
 *
 *   no --auth-key:  accept -> slot taken -> HELLO -> TEST ... -> slot free
 *   --auth-key:     accept -> gate (HELLO, proof; no slot held)
 *                     -> proof good: claim a slot -> HELLO -> TEST ...
 *                                    none free: ERROR "busy", close
 *
 * The gate holds at most RP_GATE_MAX connections, RP_GATE_PER_SOURCE from
 * one address, for one control timeout each: a peer without the key can
 * neither hold the slot nor fill the gate from one address.
 */
#include <errno.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/clock.h"
#include "platform/net.h"
#include "platform/wait.h"
#include "proto/proto.h"
#include "run/server.h"

#define ACCEPT_POLL_MS 200
#define STR_(x)	       #x
#define STR(x)	       STR_(x)

#define BUSY_TEXT "every test slot of this server is taken; try again later"
#define GATE_TEXT "too many connections are authenticating; try again later"

static void peer_name(rp_sock_t fd, char *buf, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char host[NI_MAXHOST] = "?", serv[NI_MAXSERV] = "?";

	if (getpeername(fd, (struct sockaddr *)&ss, &sl) == 0)
		getnameinfo((struct sockaddr *)&ss, sl, host, sizeof(host),
			    serv, sizeof(serv),
			    NI_NUMERICHOST | NI_NUMERICSERV);
	snprintf(buf, len, "%s:%s", host, serv);
}

/* ERROR "busy" to @fd, logged with @why where there is one; the caller
 * closes @fd. */
static void turn_away(struct rp_server *srv, rp_sock_t fd, const char *who,
		      const char *why, const char *text)
{
	char name[64];

	if (!who) {
		peer_name(fd, name, sizeof(name));
		who = name;
	}
	if (!srv->cfg->quiet)
		fprintf(stderr, "rdmaperf server: %s: busy, turned away%s%s\n",
			who, why ? ": " : "", why ? why : "");
	rp_proto_send_error(fd, "busy", text);
}

/* The thread's connection closed; never one that shut_down() might
 * reach once its number is someone else's. */
static void conn_close(struct rp_server *srv, struct rp_conn *c)
{
	rp_sock_t fd;

	pthread_mutex_lock(&srv->lock);
	fd = c->fd;
	c->fd = RP_SOCK_INVALID;
	pthread_mutex_unlock(&srv->lock);
	rp_net_close(fd);
}

/* One of --max-tests' slots, if one is free. */
static bool take_slot(struct rp_server *srv)
{
	int n = atomic_load(&srv->running);

	do {
		if (n >= (int)srv->max_tests)
			return false;
	} while (!atomic_compare_exchange_weak(&srv->running, &n, n + 1));
	return true;
}

static void free_slot(struct rp_server *srv)
{
	atomic_fetch_sub(&srv->running, 1);
}

/* An authenticated peer takes a test slot, or is told at once why not:
 * other tests hold them all, or the server is going away (--once: its
 * test is done). */
static bool claim(struct session *s)
{
	struct rp_server *srv = s->srv;

	if (session_stopping(s)) {
		session_refuse(s, -ESHUTDOWN, "shutdown", "");
		return false;
	}
	if (!take_slot(srv)) {
		turn_away(srv, s->fd, s->peer, NULL, BUSY_TEXT);
		return false;
	}
	if (srv->once && atomic_load(&srv->tests)) {
		free_slot(srv);
		session_refuse(s, -ESHUTDOWN, "shutdown",
			       "the server is shutting down");
		return false;
	}
	s->started_ns = rp_clock_ns();
	return true;
}

/* A connection's thread. Without --auth-key it holds a test slot from
 * the start; with one, it is in the gate until the peer's proof, and
 * claims a slot only then. */
static void *conn_main(void *arg)
{
	struct session *s = arg;
	struct rp_server *srv = s->srv;
	struct rp_conn *c = s->conn;
	bool held = !atomic_load(&c->gated);
	int err = 0;

	if (!held) {
		err = session_admit(s);
		atomic_store(&c->gated, 0);
		held = !err && claim(s);
	}
	if (held) {
		err = session_run(s);
		if (err && err != -ECONNABORTED && s->counted)
			atomic_fetch_add(&srv->failed, 1);
	}
	session_free(s);
	/* Free before the client sees the close: it may come back at once
	 * (the next transport of -x a,b) and must not be told "busy". */
	if (held)
		free_slot(srv);
	conn_close(srv, c);
	atomic_store(&c->done, 1);
	return NULL;
}

/* Join the threads that are done (@all: every one, done or not). */
static void reap(struct rp_server *srv, bool all)
{
	struct rp_conn *c;
	size_t i;

	for (i = 0; i < RP_CONNS; i++) {
		c = &srv->conns[i];
		if (c->used && (all || atomic_load(&c->done))) {
			pthread_join(c->thread, NULL);
			c->used = false;
		}
	}
}

static bool same_source(const struct sockaddr_storage *a,
			const struct sockaddr_storage *b)
{
	const struct sockaddr_in *a4 = (const void *)a, *b4 = (const void *)b;
	const struct sockaddr_in6 *a6 = (const void *)a, *b6 = (const void *)b;

	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return a4->sin_addr.s_addr == b4->sin_addr.s_addr;
	return a->ss_family == AF_INET6 &&
	       !memcmp(&a6->sin6_addr, &b6->sin6_addr, sizeof(a6->sin6_addr));
}

/* A free connection slot for a peer from @from, or NULL with *@why:
 * with @gated (--auth-key), the gate holds at most RP_GATE_MAX peers, and
 * RP_GATE_PER_SOURCE from one address, so one source cannot fill it. */
static struct rp_conn *conn_slot(struct rp_server *srv, bool gated,
				 const struct sockaddr_storage *from,
				 const char **why)
{
	struct rp_conn *c, *slot = NULL;
	unsigned int n = 0, mine = 0;
	size_t i;

	for (i = 0; i < RP_CONNS; i++) {
		c = &srv->conns[i];
		if (!c->used) {
			slot = slot ? slot : c;
		} else if (atomic_load(&c->gated)) {
			n++;
			mine += same_source(&c->from, from);
		}
	}
	*why = "no connection slot left";
	if (gated && n >= RP_GATE_MAX)
		*why = "the gate is full (" STR(
			RP_GATE_MAX) " connections "
				     "before their proof)";
	else if (gated && mine >= RP_GATE_PER_SOURCE)
		*why = STR(RP_GATE_PER_SOURCE) " connections from this "
					       "address are before their proof";
	else if (slot)
		return slot;
	return NULL;
}

/* The next control connection, or RP_SOCK_INVALID; its peer into *@ss.
 * --allow: a peer outside every prefix is closed at once, before a byte
 * is read or written. */
static rp_sock_t accept_allowed(struct rp_server *srv,
				struct sockaddr_storage *ss)
{
	socklen_t len = sizeof(*ss);
	rp_sock_t fd = rp_net_accept(srv->fd, (struct sockaddr *)ss, &len);
	char who[64];

	if (!rp_sock_valid(fd)) {
		rp_net_accept_failed(errno, RP_NO_DEADLINE);
		return RP_SOCK_INVALID;
	}
	if (rp_cidr_admits(srv->cfg->access.allow, srv->cfg->access.n_allow,
			   (struct sockaddr *)ss))
		return fd;
	peer_name(fd, who, sizeof(who));
	if (!srv->cfg->quiet)
		fprintf(stderr,
			"rdmaperf server: %s: refused: not in --allow\n", who);
	rp_net_close(fd);
	return RP_SOCK_INVALID;
}

/* @fd's thread in slot @c: with @gated, in the gate; else it holds the
 * test slot admit() took for it from now on (and frees it, or this does
 * on failure). */
static int start_conn(struct rp_server *srv, struct rp_conn *c, rp_sock_t fd,
		      const struct sockaddr_storage *from, bool gated)
{
	struct session *s = calloc(1, sizeof(*s));
	char name[64];
	int one = 1, err;

	if (!s) {
		if (!gated)
			free_slot(srv);
		rp_net_close(fd);
		return -ENOMEM;
	}
	s->srv = srv;
	s->conn = c;
	s->fd = fd;
	peer_name(fd, name, sizeof(name));
	snprintf(s->peer, sizeof(s->peer), "#%u %s",
		 atomic_fetch_add(&srv->sessions, 1) + 1, name);
	rp_net_setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	rp_net_setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
	c->from = *from;
	atomic_store(&c->gated, gated);
	atomic_store(&c->done, 0);
	pthread_mutex_lock(&srv->lock);
	c->fd = fd;
	pthread_mutex_unlock(&srv->lock);
	if (!gated)
		s->started_ns = rp_clock_ns();
	err = pthread_create(&c->thread, NULL, conn_main, s);
	c->used = err == 0;
	if (err) {
		if (!gated)
			free_slot(srv);
		atomic_store(&c->gated, 0);
		conn_close(srv, c);
		free(s);
		return -err;
	}
	return 0;
}

/* A new control connection: told "busy" at once while every test slot
 * is taken; without --auth-key it takes one and runs its test, with a key
 * it goes to the gate, unless that is full (for its source address). */
static int admit(struct rp_server *srv, rp_sock_t fd,
		 const struct sockaddr_storage *from)
{
	bool gated = srv->cfg->access.key_len > 0;
	const char *why = NULL;
	struct rp_conn *c = NULL;
	bool slot = false;

	reap(srv, false);
	if (gated ? atomic_load(&srv->running) < (int)srv->max_tests
		  : (slot = take_slot(srv)))
		c = conn_slot(srv, gated, from, &why);
	if (c)
		return start_conn(srv, c, fd, from, gated);
	if (slot)
		free_slot(srv);
	turn_away(srv, fd, NULL, why, why ? GATE_TEXT : BUSY_TEXT);
	rp_net_close(fd);
	return 0;
}

void rp_server_stop(struct rp_server *srv)
{
	atomic_store(&srv->stop, 1);
}

/* Stopped (SIGINT, SIGTERM, or --once done): no new client from now on,
 * and every connection ends within a second: the end of its input wakes
 * a peer in the gate at once; the test under way sees the stop at its
 * next look, or, waiting for its client, that end too; it tells the
 * client why. */
static void shut_down(struct rp_server *srv)
{
	size_t i;

	rp_net_close(srv->fd);
	srv->fd = RP_SOCK_INVALID;
	atomic_store(&srv->stop, 1);
	pthread_mutex_lock(&srv->lock);
	for (i = 0; i < RP_CONNS; i++)
		if (rp_sock_valid(srv->conns[i].fd))
			shutdown(srv->conns[i].fd, SHUT_RD);
	pthread_mutex_unlock(&srv->lock);
}

int rp_server_serve(struct rp_server *srv, bool once, const atomic_int *stop)
{
	struct pollfd pfd = { .fd = srv->fd, .events = POLLIN };
	struct sockaddr_storage from;
	rp_sock_t fd;
	int n, err = 0;

	srv->ext_stop = stop;
	srv->once = once;
	while (!err && !server_stopping(srv)) {
		/* --once: one test, not one connection (a port probe is none)
		 */
		if (once && atomic_load(&srv->tests) &&
		    !atomic_load(&srv->running))
			break;
		n = rp_poll(&pfd, 1, ACCEPT_POLL_MS);
		if (n <= 0)
			continue;
		fd = accept_allowed(srv, &from);
		if (rp_sock_valid(fd))
			err = admit(srv, fd, &from);
	}
	/* a fatal error of the listener lets the test under way finish */
	if (!err || server_stopping(srv))
		shut_down(srv);
	reap(srv, true);
	if (!err && once && atomic_load(&srv->failed))
		err = -ECANCELED;
	return err;
}

int rp_server_open(const struct rp_config *cfg, struct rp_server **out)
{
	struct rp_server *srv = calloc(1, sizeof(*srv));
	size_t i;
	int err;

	if (!srv)
		return -ENOMEM;
	srv->cfg = cfg;
	srv->max_tests = cfg->limits.max_tests ? cfg->limits.max_tests : 1;
	for (i = 0; i < RP_CONNS; i++)
		srv->conns[i].fd = RP_SOCK_INVALID;
	err = -pthread_mutex_init(&srv->lock, NULL);
	if (err)
		goto out_free;
	err = rp_net_listen(&rp_sock_kernel, cfg->test.host, cfg->test.port, 16,
			    &srv->fd);
	if (err)
		goto out_destroy_lock;
	srv->port = (uint16_t)rp_net_local_port(&rp_sock_kernel, srv->fd);
	*out = srv;
	return 0;
out_destroy_lock:
	pthread_mutex_destroy(&srv->lock);
out_free:
	free(srv);
	return err;
}

uint16_t rp_server_port(const struct rp_server *srv)
{
	return srv->port;
}

void rp_server_close(struct rp_server *srv)
{
	if (!srv)
		return;
	reap(srv, true); /* none: rp_server_serve() joined them */
	if (rp_sock_valid(srv->fd))
		rp_net_close(srv->fd);
	pthread_mutex_destroy(&srv->lock);
	free(srv);
}
