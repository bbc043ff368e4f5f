// SPDX-License-Identifier: MIT
/*
 * Server side of a stream transport's setup: listen on an ephemeral port
 * of the address the client reached the server on (p->bind: the control
 * connection's own end, IPv4 or IPv6; the client connects to the address
 * it reached, the endpoint gives the port), and take each stream by the
 * token it presents (RP_TOKEN_LEN bytes; every stream of a test has its
 * own, rp_auth_stream_token).
 *
 *   listening socket --accept--> not admitted (--allow): closed at once
 *                            \--> pending: its token read as it comes,
 *                                 every pending connection at once
 *   token complete  --> the one accept() asks for: a stream
 *                   \--> another stream's: kept for the accept() that
 *                        asks for it
 *                   \--> none of the test's (p->tokens): closed, counted
 *   peer closed before its token, or the table full: closed, counted
 *
 * No connection is waited on alone, so a silent or slow one (a stray, or
 * a genuine stream on a loaded host) delays nobody, and a genuine one is
 * never dropped for being late: it waits, like the rest, until the
 * caller's deadline. The table holds the test's streams and PENDING_SPARE
 * more; when a new connection finds it full, the oldest without a whole
 * token goes (else the oldest), so that strays can crowd out only each
 * other. The backlog is sized to the streams asked for, so that a burst of
 * connects (-P 128 --bidir) never overflows it. The wait for a connection
 * stops at the accept's deadline, also while accept() itself keeps failing
 * (no descriptor left: EMFILE), when accept backs off and retries. The
 * accepted stream takes the role the caller gives, whoever initiates.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/clock.h"
#include "platform/wait.h"
#include "xport/sock/sock.h"

#define PENDING_SPARE 16 /* pending connections beside the test's own */
#define BACKLOG_SPARE 16 /* backlog beyond the test's streams */
#define BACKLOG_MAX   4096

/* The streams @spec connects: what the listener must hold at once. */
static unsigned int spec_streams(const struct rp_spec *spec)
{
	return spec->streams * (spec->bidir ? 2u : 1u);
}

static int listener_alloc(struct sock_listener *l, const struct rp_spec *spec,
			  const struct rp_xport_params *p)
{
	unsigned int i;

	l->max_pend = spec_streams(spec) + PENDING_SPARE;
	l->pend = calloc(l->max_pend, sizeof(*l->pend));
	l->pfd = calloc(l->max_pend + 1, sizeof(*l->pfd));
	l->pfd_pend = calloc(l->max_pend, sizeof(*l->pfd_pend));
	if (!p)
		return l->pend && l->pfd && l->pfd_pend ? 0 : -ENOMEM;
	l->admit = p->admit;
	l->admit_ctx = p->admit_ctx;
	if (p->tokens && p->n_tokens) {
		l->tokens = calloc(p->n_tokens, sizeof(*l->tokens));
		if (!l->tokens)
			return -ENOMEM;
		for (i = 0; i < p->n_tokens; i++)
			rp_sock_token(l->tokens[i], p->tokens[i]);
		l->n_tokens = p->n_tokens;
	}
	return l->pend && l->pfd && l->pfd_pend ? 0 : -ENOMEM;
}

/* Whether a whole token @got is one of the test's (any, if not known). */
static bool token_known(const struct sock_listener *l,
			const uint8_t got[RP_TOKEN_LEN])
{
	unsigned int i;

	for (i = 0; i < l->n_tokens; i++)
		if (!memcmp(l->tokens[i], got, RP_TOKEN_LEN))
			return true;
	return !l->tokens;
}

static void listener_free(struct sock_listener *l)
{
	unsigned int i;

	for (i = 0; i < l->n_pend; i++) {
		l->c->close(l->pend[i].fd);
		rp_sock_unreserve(l->c);
	}
	free(l->tokens);
	free(l->pend);
	free(l->pfd);
	free(l->pfd_pend);
	free(l);
}

int rp_sock_listen(const struct rp_xport_ops *self, const struct rp_spec *spec,
		   const struct rp_xport_params *p, cJSON *endpoint,
		   struct rp_listener **out, struct rp_err *why)
{
	const char *host = p ? p->bind : NULL;
	struct sock_listener *l;
	unsigned int backlog = spec_streams(spec) + BACKLOG_SPARE;
	int err, port, marked;

	err = rp_sock_fits(sock_calls_of(self), spec, why);
	if (err)
		return err;
	l = calloc(1, sizeof(*l));
	if (!l)
		return rp_errf(why, -ENOMEM, "out of memory for a listener");
	rp_listener_init(&l->base, self, spec);
	l->c = sock_calls_of(self);
	l->fd = RP_SOCK_INVALID;
	if (listener_alloc(l, spec, p)) {
		err = rp_errf(why, -ENOMEM, "out of memory for a listener");
		goto out_free;
	}
	err = rp_net_listen(
		l->c, host, 0,
		(int)(backlog < BACKLOG_MAX ? backlog : BACKLOG_MAX), &l->fd);
	if (err) {
		rp_errf(why, err, "cannot listen on %s: %s",
			host ? host : "any address", strerror(-err));
		goto out_free;
	}
	/* --tos: the SYN-ACKs too, and what accept() hands out (what the
	 * kernel marks instead, each stream's note says) */
	if (spec->tos)
		err = rp_net_set_tos(l->c, l->fd, (int)spec->tos, &marked);
	if (err) {
		rp_errf(why, err,
			"cannot mark the listener with TOS 0x%02x: %s",
			(unsigned int)spec->tos, strerror(-err));
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
	listener_free(l);
	return err;
}

void rp_sock_unlisten(struct rp_listener *base)
{
	struct sock_listener *l;

	if (!base)
		return;
	l = sock_listener(base);
	l->c->close(l->fd);
	listener_free(l);
}

/* Close pending connection @i and forget it, counting why. */
static void pending_drop(struct sock_listener *l, unsigned int i,
			 const char *why)
{
	struct sock_pending *p = &l->pend[i];

	rp_listener_drop(&l->base, "data connection from %s dropped: %s",
			 p->peer, why);
	l->c->close(p->fd);
	rp_sock_unreserve(l->c);
	memmove(p, p + 1, (l->n_pend - i - 1) * sizeof(*p));
	l->n_pend--;
}

/* Room for one more pending connection: the oldest without a whole token
 * goes, else the oldest. */
static void pending_make_room(struct sock_listener *l)
{
	unsigned int i;

	for (i = 0; i < l->n_pend && l->pend[i].len == RP_TOKEN_LEN; i++)
		;
	pending_drop(l, i < l->n_pend ? i : 0,
		     "crowded out by newer connections");
}

/* A descriptor for one more connection: rsockets have a cap (max_open);
 * a pending connection gives its place up for it. */
static int pending_reserve(struct sock_listener *l)
{
	int err = rp_sock_reserve(l->c, &l->base.err);

	if (err && l->n_pend) {
		pending_make_room(l);
		err = rp_sock_reserve(l->c, &l->base.err);
	}
	return err;
}

/* Take a connection from the backlog into the table: 0, or -errno with a
 * reason in @l; *@failed holds accept()'s errno while it keeps failing. */
static int pending_accept(struct sock_listener *l, uint64_t deadline,
			  int *failed)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	struct sock_pending *p;
	char peer[RP_NET_ADDR_LEN] = "?";
	rp_sock_t fd;
	int err = pending_reserve(l);

	if (err)
		return err;
	fd = l->c->accept(l->fd, (struct sockaddr *)&ss, &sl);
	if (!rp_sock_valid(fd)) {
		err = errno;
		rp_sock_unreserve(l->c);
		if (rp_net_accept_failed(err, deadline))
			*failed = err;
		return 0;
	}
	*failed = 0;
	if (rp_net_addr_text((struct sockaddr *)&ss, sl, peer, sizeof(peer)))
		snprintf(peer, sizeof(peer), "?");
	if (l->admit && !l->admit(l->admit_ctx, (struct sockaddr *)&ss)) {
		rp_listener_drop(&l->base,
				 "data connection from %s refused: not in "
				 "--allow",
				 peer);
		l->c->close(fd);
		rp_sock_unreserve(l->c);
		return 0;
	}
	if (l->n_pend == l->max_pend)
		pending_make_room(l);
	p = &l->pend[l->n_pend++];
	memset(p, 0, sizeof(*p));
	p->fd = fd;
	memcpy(p->peer, peer, sizeof(peer));
	return 0;
}

/* Read what pending connection @i has sent of its token; false if it
 * failed or closed first (then dropped). */
static bool pending_read(struct sock_listener *l, unsigned int i)
{
	struct sock_pending *p = &l->pend[i];
	ssize_t n;
	char why[96];

	n = l->c->recv(p->fd, p->got + p->len, RP_TOKEN_LEN - p->len,
		       RP_MSG_DONTWAIT);
	if (n > 0) {
		p->len += (size_t)n;
		if (p->len < RP_TOKEN_LEN || token_known(l, p->got))
			return true;
		pending_drop(l, i, "a wrong token");
		return false;
	}
	if (n < 0 &&
	    (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return true;
	snprintf(why, sizeof(why), "%s before its token (%zu of %d bytes)",
		 n ? strerror(errno) : "closed", p->len, RP_TOKEN_LEN);
	pending_drop(l, i, why);
	return false;
}

/* The pending connection that presents @want, or -1. */
static int pending_find(const struct sock_listener *l,
			const uint8_t want[RP_TOKEN_LEN])
{
	unsigned int i;

	for (i = 0; i < l->n_pend; i++)
		if (l->pend[i].len == RP_TOKEN_LEN &&
		    !memcmp(l->pend[i].got, want, RP_TOKEN_LEN))
			return (int)i;
	return -1;
}

/* Pending connection @i becomes a stream with @role. */
static int pending_take(struct sock_listener *l, unsigned int i,
			enum rp_role role, struct sock_stream **out)
{
	rp_sock_t fd = l->pend[i].fd;
	int err;

	memmove(&l->pend[i], &l->pend[i + 1],
		(l->n_pend - i - 1) * sizeof(l->pend[0]));
	l->n_pend--;
	err = rp_sock_stream_create(l->base.ops, &l->base.spec, role, fd, NULL,
				    out, &l->base.err);
	if (err) {
		l->c->close(fd);
		rp_sock_unreserve(l->c);
		return rp_errf(&l->base.err, err,
			       "cannot set up a data connection: %s",
			       strerror(-err));
	}
	(*out)->accepted = true;
	return 0;
}

/* Wait until the listener or a pending connection without its whole
 * token is readable: 0, -ETIMEDOUT, or -errno. */
static int pending_wait(struct sock_listener *l, uint64_t deadline)
{
	unsigned int i, n = 1;
	uint64_t now = rp_clock_ns();
	int r;

	l->pfd[0] = (struct pollfd){ .fd = l->fd, .events = POLLIN };
	for (i = 0; i < l->n_pend; i++) {
		if (l->pend[i].len == RP_TOKEN_LEN)
			continue;
		l->pfd_pend[n - 1] = i;
		l->pfd[n++] = (struct pollfd){ .fd = l->pend[i].fd,
					       .events = POLLIN };
	}
	l->n_pfd = n;
	if (now >= deadline)
		return -ETIMEDOUT;
	r = l->c->poll(l->pfd, n, (int)((deadline - now + 999999) / 1000000));
	if (r < 0)
		return errno == EINTR ? 0 : -errno;
	return r ? 0 : -ETIMEDOUT;
}

/* After pending_wait(): take a new connection, read the tokens under way
 * (from the last, since reading may drop one). */
static int pending_step(struct sock_listener *l, uint64_t deadline, int *failed)
{
	unsigned int k;

	for (k = l->n_pfd; k > 1; k--)
		if (l->pfd[k - 1].revents)
			pending_read(l, l->pfd_pend[k - 2]);
	return l->pfd[0].revents ? pending_accept(l, deadline, failed) : 0;
}

/* The accept's time ran out: why no stream, for the caller's error (the
 * server tells the client). */
static int accept_timed_out(struct sock_listener *l, int failed)
{
	unsigned int i, silent = 0;

	if (failed)
		return rp_errf(&l->base.err, -failed,
			       "cannot accept a data connection: %s",
			       strerror(failed));
	for (i = 0; i < l->n_pend; i++)
		silent += l->pend[i].len < RP_TOKEN_LEN;
	if (!l->n_pend && !l->base.dropped)
		return -ETIMEDOUT;
	return rp_errf(&l->base.err, -ETIMEDOUT,
		       "no connection presented the stream's token; %u "
		       "waiting (%u without a whole token), %u dropped%s%s%s",
		       l->n_pend, silent, l->base.dropped,
		       l->base.dropped ? " (the last: " : "",
		       l->base.dropped ? l->base.drop_note : "",
		       l->base.dropped ? ")" : "");
}

int rp_sock_accept(struct rp_listener *base, const char *token,
		   enum rp_role role, int timeout_ms, struct rp_stream **out)
{
	struct sock_listener *l = sock_listener(base);
	uint64_t deadline = rp_deadline_ns(timeout_ms);
	struct sock_stream *s = NULL;
	uint8_t want[RP_TOKEN_LEN];
	int err, i, failed = 0;

	rp_err_clear(&base->err);
	rp_sock_token(want, token);
	for (;;) {
		i = pending_find(l, want);
		if (i >= 0)
			break;
		err = pending_wait(l, deadline);
		if (err == -ETIMEDOUT)
			return accept_timed_out(l, failed);
		if (err)
			return rp_errf(&base->err, err,
				       "waiting for a data connection: %s",
				       strerror(-err));
		err = pending_step(l, deadline, &failed);
		if (err)
			return err;
	}
	err = pending_take(l, (unsigned int)i, role, &s);
	if (err)
		return err;
	*out = &s->base;
	return 0;
}
