// SPDX-License-Identifier: MIT
/*
 * Server driver. The main thread accepts control connections; one session
 * thread runs the current test (session.c, server_phase.c); a client that
 * arrives meanwhile is told ERROR "busy" and closed.
 */
#include <errno.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "platform/net.h"
#include "platform/wait.h"
#include "proto/proto.h"
#include "run/server.h"

#define ACCEPT_POLL_MS 200

static void *session_main(void *arg)
{
	struct session *s = arg;
	struct rp_server *srv = s->srv;

	rp_sock_t fd = s->fd;
	int err = session_run(s);

	atomic_store(&srv->session_fd, RP_SOCK_INVALID);
	if (err && err != -ECONNABORTED && s->counted)
		atomic_fetch_add(&srv->failed, 1);
	session_free(s);
	/* Free before the client sees the close: it may come back at once
	 * (the next transport of -x a,b) and must not be told "busy". */
	atomic_store(&srv->busy, 0);
	rp_net_close(fd);
	return NULL;
}

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

static void turn_away(struct rp_server *srv, rp_sock_t fd)
{
	char who[64];

	peer_name(fd, who, sizeof(who));
	if (!srv->cfg->quiet)
		fprintf(stderr, "rdmaperf server: %s: busy, turned away\n",
			who);
	rp_proto_send_error(fd, "busy",
			    "server is running another test; try again later");
	rp_net_close(fd);
}

static bool allowed(const struct rp_access *acc, const struct sockaddr *sa)
{
	size_t i;

	for (i = 0; i < acc->n_allow; i++)
		if (rp_cidr_match(&acc->allow[i], sa))
			return true;
	return !acc->n_allow;
}

/* The next control connection, or RP_SOCK_INVALID. --allow: a peer outside
 * every prefix is closed at once, before a byte is read or written. */
static rp_sock_t accept_allowed(struct rp_server *srv)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	rp_sock_t fd = rp_net_accept(srv->fd, (struct sockaddr *)&ss, &len);
	char who[64];

	if (!rp_sock_valid(fd)) {
		rp_net_accept_failed(errno, RP_NO_DEADLINE);
		return RP_SOCK_INVALID;
	}
	if (allowed(&srv->cfg->access, (struct sockaddr *)&ss))
		return fd;
	peer_name(fd, who, sizeof(who));
	if (!srv->cfg->quiet)
		fprintf(stderr,
			"rdmaperf server: %s: refused: not in --allow\n", who);
	rp_net_close(fd);
	return RP_SOCK_INVALID;
}

static int start_session(struct rp_server *srv, rp_sock_t fd)
{
	struct session *s = calloc(1, sizeof(*s));
	int one = 1, err;

	if (!s) {
		rp_net_close(fd);
		return -ENOMEM;
	}
	s->srv = srv;
	s->fd = fd;
	peer_name(fd, s->peer, sizeof(s->peer));
	rp_net_setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	rp_net_setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
	if (srv->joinable)
		pthread_join(srv->thread, NULL);
	atomic_store(&srv->busy, 1);
	atomic_store(&srv->session_fd, fd);
	s->started_ns = rp_clock_ns();
	err = pthread_create(&srv->thread, NULL, session_main, s);
	srv->joinable = err == 0;
	if (err) {
		atomic_store(&srv->busy, 0);
		rp_net_close(fd);
		free(s);
		return -err;
	}
	return 0;
}

static bool stopping(struct rp_server *srv, const atomic_int *stop)
{
	return atomic_load(&srv->stop) || (stop && atomic_load(stop));
}

bool session_stopping(const struct session *s)
{
	return stopping(s->srv, s->srv->ext_stop);
}

void rp_server_stop(struct rp_server *srv)
{
	atomic_store(&srv->stop, 1);
}

/* Stopped (SIGINT, SIGTERM): no new client from now on, and the test
 * under way ends within a second: its session sees the stop at its next
 * look, or, waiting for its client, the end of its control connection's
 * input; it tells the client why. */
static void shut_down(struct rp_server *srv)
{
	rp_sock_t fd;

	rp_net_close(srv->fd);
	srv->fd = RP_SOCK_INVALID;
	atomic_store(&srv->stop, 1);
	fd = atomic_load(&srv->session_fd);
	if (rp_sock_valid(fd) && atomic_load(&srv->busy))
		shutdown(fd, SHUT_RD);
}

int rp_server_serve(struct rp_server *srv, bool once, const atomic_int *stop)
{
	struct pollfd pfd = { .fd = srv->fd, .events = POLLIN };
	rp_sock_t fd;
	int n, err = 0;

	srv->ext_stop = stop;
	while (!stopping(srv, stop)) {
		/* --once: one test, not one connection (a port probe is none)
		 */
		if (once && atomic_load(&srv->tests) &&
		    !atomic_load(&srv->busy))
			break;
		n = rp_poll(&pfd, 1, ACCEPT_POLL_MS);
		if (n <= 0)
			continue;
		fd = accept_allowed(srv);
		if (!rp_sock_valid(fd))
			continue;
		if (atomic_load(&srv->busy))
			turn_away(srv, fd);
		else
			err = start_session(srv, fd);
		if (err)
			break;
	}
	if (stopping(srv, stop))
		shut_down(srv);
	if (srv->joinable)
		pthread_join(srv->thread, NULL);
	srv->joinable = false;
	if (!err && once && atomic_load(&srv->failed))
		err = -ECANCELED;
	return err;
}

int rp_server_open(const struct rp_config *cfg, struct rp_server **out)
{
	struct rp_server *srv = calloc(1, sizeof(*srv));
	int err;

	if (!srv)
		return -ENOMEM;
	srv->cfg = cfg;
	atomic_store(&srv->session_fd, RP_SOCK_INVALID);
	err = rp_net_listen(&rp_sock_kernel, cfg->host, cfg->port, 16,
			    &srv->fd);
	if (err) {
		free(srv);
		return err;
	}
	srv->port = (uint16_t)rp_net_local_port(&rp_sock_kernel, srv->fd);
	*out = srv;
	return 0;
}

uint16_t rp_server_port(const struct rp_server *srv)
{
	return srv->port;
}

void rp_server_close(struct rp_server *srv)
{
	if (!srv)
		return;
	if (srv->joinable)
		pthread_join(srv->thread, NULL);
	if (rp_sock_valid(srv->fd))
		rp_net_close(srv->fd);
	free(srv);
}
