// SPDX-License-Identifier: MIT
/*
 * Server side of a stream transport's setup: listen on an ephemeral port
 * of the address the client reached the server on (p->bind: the control
 * connection's own end, IPv4 or IPv6; the client connects to the address
 * it reached, the endpoint gives the port), accept the connection that
 * presents the test's token. A stray connection (wrong token, silent,
 * gone) is dropped and accept keeps waiting; the wait for a connection
 * stops at the accept's deadline, also while accept() itself keeps failing
 * (no descriptor left: EMFILE), when accept backs off and retries; a token
 * under way gets its own TOKEN_WAIT_NS. The accepted stream takes the role
 * the caller gives, whoever initiates.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "platform/wait.h"
#include "xport/sock/sock.h"

#define LISTEN_BACKLOG	   8
#define TOKEN_WAIT_NS	   (2 * RP_NS_PER_SEC) /* for a silent connection */
#define ACCEPT_KEEP_TRYING -EAGAIN	       /* accept_one: go on waiting */

int rp_sock_listen(const struct rp_xport_ops *self, const struct rp_spec *spec,
		   const struct rp_xport_params *p, cJSON *endpoint,
		   struct rp_listener **out, struct rp_err *why)
{
	const char *host = p ? p->bind : NULL;
	struct sock_listener *l = calloc(1, sizeof(*l));
	int err, port;

	err = rp_sock_fits(sock_calls_of(self), spec, why);
	if (err) {
		free(l);
		return err;
	}
	if (!l)
		return rp_errf(why, -ENOMEM, "out of memory for a listener");
	rp_listener_init(&l->base, self, spec);
	l->c = sock_calls_of(self);
	err = rp_net_listen(l->c, host, 0, LISTEN_BACKLOG, &l->fd);
	if (err) {
		rp_errf(why, err, "cannot listen on %s: %s",
			host ? host : "any address", strerror(-err));
		goto out_free;
	}
	port = rp_net_local_port(l->c, l->fd);
	if (port < 0) {
		err = rp_errf(why, port, "cannot tell the port listened on: %s",
			      strerror(-port));
		goto out_close;
	}
	err = rp_endpoint_set_port(endpoint, port, why);
	if (err)
		goto out_close;
	*out = &l->base;
	return 0;
out_close:
	l->c->close(l->fd);
out_free:
	free(l);
	return err;
}

void rp_sock_unlisten(struct rp_listener *base)
{
	struct sock_listener *l;

	if (!base)
		return;
	l = sock_listener(base);
	l->c->close(l->fd);
	free(l);
}

/* Read the token a new connection on @fd presents; 0 if it matches. A
 * silent connection gets at most TOKEN_WAIT_NS: the caller's deadline
 * bounds the wait for a connection, not a handshake under way (a token
 * late by a slice of the caller's wait must not cost the connection). */
static int check_token(const struct rp_sock_calls *c, rp_sock_t fd,
		       const char *token)
{
	uint8_t want[RP_TOKEN_LEN], got[RP_TOKEN_LEN];
	int err;

	rp_sock_token(want, token);
	err = rp_net_xfer_all(c, fd, got, sizeof(got), false,
			      rp_clock_ns() + TOKEN_WAIT_NS);
	if (err)
		return err;
	return memcmp(want, got, sizeof(got)) ? -EACCES : 0;
}

/* Take one connection from the backlog. Return: 0 with the stream,
 * ACCEPT_KEEP_TRYING, or -errno with a reason in @l. */
static int accept_one(struct sock_listener *l, const char *token,
		      enum rp_role role, uint64_t deadline, int *failed,
		      struct sock_stream **out)
{
	struct sock_stream *s = NULL;
	rp_sock_t fd;
	int err;

	err = rp_sock_reserve(l->c, &l->base.err);
	if (err)
		return err;
	fd = l->c->accept(l->fd, NULL, NULL);
	if (!rp_sock_valid(fd)) {
		err = errno;
		rp_sock_unreserve(l->c);
		if (rp_net_accept_failed(err, deadline))
			*failed = err;
		return ACCEPT_KEEP_TRYING;
	}
	*failed = 0;
	/* The token before any memory: a stray or slow connection costs no
	 * ring; drop it, keep waiting. */
	err = check_token(l->c, fd, token);
	if (err) {
		l->c->close(fd);
		rp_sock_unreserve(l->c);
		l->dropped++;
		l->drop_err = err;
		return ACCEPT_KEEP_TRYING;
	}
	err = rp_sock_stream_create(l->base.ops, &l->base.spec, role, fd, &s);
	if (err) {
		l->c->close(fd);
		rp_sock_unreserve(l->c);
		return rp_errf(&l->base.err, err,
			       "cannot set up a data connection: %s",
			       strerror(-err));
	}
	s->accepted = true;
	*out = s;
	return 0;
}

/* The wait ended with no stream, but connections came: say so and why
 * they were dropped (their clients saw them close and no reason). */
static int dropped_all(struct sock_listener *l)
{
	char why[64];

	if (l->drop_err == -ETIMEDOUT)
		snprintf(why, sizeof(why), "no token within %.0f s",
			 (double)TOKEN_WAIT_NS / RP_NS_PER_SEC);
	else if (l->drop_err == -EACCES)
		snprintf(why, sizeof(why), "a wrong token");
	else
		snprintf(why, sizeof(why), "%s", strerror(-l->drop_err));
	return rp_errf(&l->base.err, -ETIMEDOUT,
		       "%u connection%s dropped without the test's token (the "
		       "last: %s)",
		       l->dropped, l->dropped == 1 ? "" : "s", why);
}

int rp_sock_accept(struct rp_listener *base, const char *token,
		   enum rp_role role, int timeout_ms, struct rp_stream **out)
{
	struct sock_listener *l = sock_listener(base);
	uint64_t deadline = rp_deadline_ns(timeout_ms);
	struct sock_stream *s = NULL;
	int err, failed = 0;

	rp_err_clear(&base->err);
	l->dropped = 0;
	do {
		err = rp_wait_fd(l->c->poll, l->fd, POLLIN, deadline);
		if (err && err != -ETIMEDOUT)
			return rp_errf(&base->err, err,
				       "waiting for a data connection: %s",
				       strerror(-err));
		if (!err)
			err = accept_one(l, token, role, deadline, &failed, &s);
	} while (err == ACCEPT_KEEP_TRYING);
	if (err == -ETIMEDOUT && failed)
		return rp_errf(&base->err, -failed,
			       "cannot accept a data connection: %s",
			       strerror(failed));
	if (err == -ETIMEDOUT && l->dropped)
		return dropped_all(l);
	if (err)
		return err;
	*out = &s->base;
	return 0;
}
