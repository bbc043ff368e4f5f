// SPDX-License-Identifier: MIT
/*
 * The connecting side of a stream transport's setup: connect, present the
 * token. The role this side takes in the stream is the caller's choice.
 */
#include <errno.h>
#include <string.h>

#include "platform/clock.h"
#include "xport/sock/sock.h"

/* Set up this side's stream over @fd (closed on failure), taking @role,
 * and present @token on it. Return: 0, or -errno with a reason in @why. */
static int open_stream(const struct rp_xport_ops *self,
		       const struct rp_spec *spec, enum rp_role role,
		       rp_sock_t fd, const char *token, const char *mem_path,
		       uint64_t deadline, struct sock_stream **out,
		       struct rp_err *why)
{
	const struct rp_sock_calls *c = sock_calls_of(self);
	uint8_t tok[RP_TOKEN_LEN];
	struct sock_stream *s = NULL;
	int err;

	/* The token first: the server waits for it a bounded time, which
	 * zeroing a large ring here must not use up. */
	rp_sock_token(tok, token);
	err = rp_net_xfer_all(c, fd, tok, sizeof(tok), true, deadline);
	if (err) {
		c->close(fd);
		rp_sock_unreserve(c);
		return rp_errf(why, err, "sending the data token: %s",
			       strerror(-err));
	}
	err = rp_sock_stream_create(self, spec, role, fd, mem_path, &s, why);
	if (err) {
		c->close(fd);
		rp_sock_unreserve(c);
		return rp_errf(why, err,
			       "cannot set up the data connection: %s",
			       strerror(-err));
	}
	*out = s;
	return 0;
}

int rp_sock_connect(const struct rp_xport_ops *self, const struct rp_spec *spec,
		    const struct rp_xport_params *p, const char *host,
		    const cJSON *endpoint, const char *token, enum rp_role role,
		    int timeout_ms, struct rp_stream **out, struct rp_err *why)
{
	uint64_t deadline = rp_deadline_ns(timeout_ms);
	struct sock_stream *s = NULL;
	uint16_t port;
	rp_sock_t fd;
	int err;

	err = rp_endpoint_port(endpoint, &port, why);
	if (!err)
		err = rp_sock_fits(sock_calls_of(self), spec, why);
	if (!err)
		err = rp_sock_reserve(sock_calls_of(self), why);
	if (err)
		return err;
	err = rp_net_dial_from(sock_calls_of(self), host, port,
			       p ? p->src : NULL, (int)spec->tos, deadline,
			       &fd);
	if (err) {
		rp_sock_unreserve(sock_calls_of(self));
		return rp_errf(why, err, "connecting to %s port %d%s%s: %s",
			       host, port, p && p->src ? " from " : "",
			       p && p->src ? p->src : "", strerror(-err));
	}
	err = open_stream(self, spec, role, fd, token, p ? p->mem_path : NULL,
			  deadline, &s, why);
	if (err)
		return err;
	*out = &s->base;
	return 0;
}
