// SPDX-License-Identifier: MIT
/*
 * The client of a stream transport, the side being timed: post operations,
 * poll for their completions (acknowledgements, or the messages of a read),
 * ping-pong one message at a time. It busy-polls, and sleeps only after
 * SPIN_BEFORE_SLEEP empty polls in a row.
 */
#include <errno.h>

#include "core/clock.h"
#include "xport/sock/sock.h"

int rp_sock_post(struct rp_stream *base, uint64_t seq, uint32_t count)
{
	struct sock_stream *s = sock_stream(base);

	(void)seq;
	if (sock_is_read(s)) {
		s->ctx.want += count;
		return rp_sock_ctr_push(s);
	}
	rp_sock_data_queue(s, count);
	return rp_sock_data_push(s);
}

/* Move what can move: 0, or -errno. */
static int client_progress(struct sock_stream *s)
{
	int err;

	if (sock_is_read(s)) {
		err = rp_sock_ctr_push(s);
		return err ? err : rp_sock_data_pull(s);
	}
	err = rp_sock_data_push(s);
	if (!err)
		err = rp_sock_ctr_pull(s);
	if (s->crx.val > s->completed)
		s->completed = s->crx.val;
	return err;
}

int rp_sock_poll(struct rp_stream *base)
{
	struct sock_stream *s = sock_stream(base);
	int err = client_progress(s);
	uint64_t n;

	if (err < 0)
		return err;
	n = s->completed - s->reported;
	s->reported = s->completed;
	if (n == 0 && ++s->idle > SPIN_BEFORE_SLEEP) {
		/* Spinning on a blocked socket steals the CPU the peer and the
		 * network stack need: sleep until the socket is ready. */
		err = rp_sock_idle_wait(s, 1);
		s->idle = 0;
		if (err < 0 && err != -ETIMEDOUT)
			return err;
	} else if (n) {
		s->idle = 0;
	}
	return (int)n;
}

/* Client, write/send ping: one message out, its echo back. */
static int ping_echo(struct sock_stream *s, uint64_t deadline)
{
	size_t got = 0, sz = s->base.spec.size_bytes;
	ssize_t n;
	int err;

	rp_sock_data_queue(s, 1);
	while (got < sz) {
		err = rp_sock_data_push(s);
		if (err)
			return err;
		n = s->c->recv(s->fd, s->echo + got, sz - got, MSG_DONTWAIT);
		if (n > 0)
			got += (size_t)n;
		else if ((err = rp_sock_io_result(s, n, false)))
			return err;
		if (rp_clock_ns() > deadline)
			return -ETIMEDOUT;
	}
	s->completed++;
	s->reported = s->completed;
	return 0;
}

int rp_sock_ping(struct rp_stream *base, uint64_t seq, uint64_t deadline_ns)
{
	struct sock_stream *s = sock_stream(base);
	int n;

	if (!sock_is_read(s))
		return ping_echo(s, deadline_ns);
	n = rp_sock_post(base, seq, 1);
	while (n == 0) {
		n = rp_sock_poll(base);
		if (n == 0 && rp_clock_ns() > deadline_ns)
			return -ETIMEDOUT;
	}
	return n < 0 ? n : 0;
}
