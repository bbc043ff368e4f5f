// SPDX-License-Identifier: MIT
/* A stream transport's stream: creation, close, the I/O of setup, idling. */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "platform/wait.h"
#include "xport/sock/sock.h"

int rp_sock_stream_create(const struct rp_xport_ops *ops,
			  const struct rp_spec *spec, int fd,
			  struct sock_stream **out)
{
	const struct rp_sock_calls *c = sock_calls_of(ops);
	struct sock_stream *s = calloc(1, sizeof(*s));
	int one = 1, err;

	if (!s)
		return -ENOMEM;
	rp_stream_init(&s->base, ops, spec);
	s->c = c;
	s->fd = fd;
	s->ctx.off = 8;
	s->ring_len = spec->size_bytes * spec->queue_depth;
	s->ring = aligned_alloc(4096, (s->ring_len + 4095) & ~(size_t)4095);
	err = s->ring ? rp_net_set_nonblock(c, fd) : -ENOMEM;
	if (err) {
		free(s->ring);
		free(s);
		return err;
	}
	memset(s->ring, 0, s->ring_len);
	c->setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	*out = s;
	return 0;
}

void rp_sock_close(struct rp_stream *base)
{
	struct sock_stream *s;

	if (!base)
		return;
	s = sock_stream(base);
	if (s->fd >= 0)
		s->c->close(s->fd);
	free(s->echo);
	free(s->ring);
	free(s);
}

void rp_sock_token(uint8_t buf[RP_TOKEN_LEN], const char *token)
{
	memset(buf, 0, RP_TOKEN_LEN);
	memcpy(buf, token, strnlen(token, RP_TOKEN_LEN));
}

static short wanted_events(const struct sock_stream *s)
{
	bool tx_owed = s->tx_bytes < s->tx_target || s->ctx.off < 8 ||
		       s->ctx.sent != s->ctx.want ||
		       s->echo_bytes < s->rx_bytes;

	return POLLIN | (tx_owed ? POLLOUT : 0);
}

int rp_sock_idle_wait(struct sock_stream *s, int ms)
{
	struct timespec ts = { .tv_nsec = (long)s->c->idle_sleep_us * 1000 };
	int err;

	if (s->c->idle_sleep_us) {
		nanosleep(&ts, NULL);
		return 0;
	}
	err = rp_wait_fd(s->c->poll, s->fd, wanted_events(s),
			 rp_deadline_ns(ms));
	if (err && err != -ETIMEDOUT)
		return rp_stream_fail(&s->base, err,
				      "waiting on the data connection: %s",
				      strerror(-err));
	return err;
}

int rp_sock_local_info(struct rp_stream *s, cJSON *info)
{
	(void)s;
	(void)info;
	return 0;
}

int rp_sock_set_peer(struct rp_stream *s, const cJSON *info)
{
	(void)s;
	(void)info;
	return 0;
}

uint64_t rp_sock_verify_errors(struct rp_stream *s)
{
	return sock_stream(s)->verify_errors;
}
