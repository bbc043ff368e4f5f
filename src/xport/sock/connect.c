// SPDX-License-Identifier: MIT
/* Client side of a stream transport's setup: connect, present the token. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "xport/sock/sock.h"

/* Set up the client's stream over @fd (closed on failure) and present
 * @token on it. Return: 0, or -errno with a reason in @why. */
static int open_stream(const struct rp_xport_ops *self,
		       const struct rp_spec *spec, int fd, const char *token,
		       uint64_t deadline, struct sock_stream **out,
		       struct rp_err *why)
{
	const struct rp_sock_calls *c = sock_calls_of(self);
	uint8_t tok[RP_TOKEN_LEN];
	struct sock_stream *s = NULL;
	int err;

	err = rp_sock_stream_create(self, spec, fd, &s);
	if (err) {
		c->close(fd);
		return rp_errf(why, err,
			       "cannot set up the data connection: %s",
			       strerror(-err));
	}
	s->echo = malloc(spec->size_bytes);
	if (!s->echo) {
		err = rp_errf(why, -ENOMEM, "out of memory for %llu bytes",
			      (unsigned long long)spec->size_bytes);
		goto out_close;
	}
	rp_sock_token(tok, token);
	err = rp_net_xfer_all(s->c, s->fd, tok, sizeof(tok), true, deadline);
	if (err) {
		rp_errf(why, err, "sending the data token: %s", strerror(-err));
		goto out_close;
	}
	*out = s;
	return 0;
out_close:
	rp_sock_close(&s->base);
	return err;
}

int rp_sock_connect(const struct rp_xport_ops *self, const struct rp_spec *spec,
		    const struct rp_xport_params *p, const char *host,
		    const cJSON *endpoint, const char *token, int timeout_ms,
		    struct rp_stream **out, struct rp_err *why)
{
	uint64_t deadline = rp_deadline_ns(timeout_ms);
	struct sock_stream *s = NULL;
	uint16_t port;
	int fd, err;

	(void)p;
	err = rp_endpoint_port(endpoint, &port, why);
	if (err)
		return err;
	err = rp_net_dial(sock_calls_of(self), host, port, deadline, &fd);
	if (err)
		return rp_errf(why, err, "connecting to %s port %d: %s", host,
			       port, strerror(-err));
	err = open_stream(self, spec, fd, token, deadline, &s, why);
	if (err)
		return err;
	*out = &s->base;
	return 0;
}
