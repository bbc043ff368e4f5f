// SPDX-License-Identifier: MIT
/*
 * The initiator of a stream transport, the side being timed: post
 * operations, poll for their completions (acknowledgements, or the
 * messages of a read), ping-pong one message at a time, and arm for the
 * engine's sleep under --wait event. Busy: it spins, and sleeps only after
 * SPIN_BEFORE_SLEEP empty polls in a row. Event: poll() never sleeps, the
 * engine sleeps on arm()'s descriptor; ping() sleeps in poll() itself.
 */
#include <errno.h>

#include "platform/clock.h"
#include "xport/sock/sock.h"

static bool sock_is_event(const struct sock_stream *s)
{
	return s->base.spec.wait == RP_WAIT_EVENT;
}

/* The responder acknowledges on its own (--signal: serve.c), @last needs
 * nothing here. */
int rp_sock_post(struct rp_stream *base, uint64_t seq, uint32_t count,
		 bool last)
{
	struct sock_stream *s = sock_stream(base);

	(void)seq;
	(void)last;
	if (sock_is_read(s)) {
		s->ctx.want += count;
		return rp_sock_ctr_push(s);
	}
	rp_sock_data_queue(s, count);
	return rp_sock_data_push(s);
}

/* The responder's count of messages received, checked: never more than
 * were sent (a hostile or broken peer would otherwise make up
 * throughput). 0, or -EPROTO with the reason. */
static int take_ack(struct sock_stream *s)
{
	uint64_t sent = s->tx_bytes / s->base.spec.size_bytes;

	if (s->crx.val > sent)
		return rp_stream_fail(&s->base, -EPROTO,
				      "the server acknowledged %llu messages, "
				      "only %llu were sent",
				      (unsigned long long)s->crx.val,
				      (unsigned long long)sent);
	if (s->crx.val > s->completed) /* pings complete without one */
		s->completed = s->crx.val;
	return 0;
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
	if (err < 0)
		return err;
	return take_ack(s);
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
	if (n) {
		s->idle = 0;
	} else if (!sock_is_event(s) && ++s->idle > SPIN_BEFORE_SLEEP) {
		/* Spinning on a blocked socket steals the CPU the peer and the
		 * network stack need: sleep until the socket is ready. */
		err = rp_sock_idle_wait(s, 1);
		s->idle = 0;
		if (err < 0 && err != -ETIMEDOUT)
			return err;
	}
	return (int)n;
}

/* Sockets are level-triggered: whatever arrived since the last poll()
 * leaves the descriptor ready, so arming cannot miss it. */
int rp_sock_arm(struct rp_stream *base, rp_sock_t *fd, short *events)
{
	struct sock_stream *s = sock_stream(base);

	*fd = s->fd;
	*events = rp_sock_wanted_events(s);
	return 0;
}

/* A ping found nothing to do: under --wait event, sleep until the socket
 * is ready or @deadline; busy, go on spinning. 0, or -errno. */
static int ping_idle(struct sock_stream *s, uint64_t deadline)
{
	return sock_is_event(s) ? rp_sock_event_wait(s, deadline) : 0;
}

/* Spinning, a ping looks at its deadline every SPIN_CHECK turns only: a
 * clock read can be a system call (a virtual machine's HPET), which would
 * lie inside every round trip. Asleep, the wait itself ends at the
 * deadline. */
static bool ping_late(struct sock_stream *s, unsigned int *turns,
		      uint64_t deadline)
{
	if (!sock_is_event(s) && ++*turns % SPIN_CHECK)
		return false;
	return rp_clock_ns() > deadline;
}

/* Initiator, write/send ping: one message out, its echo back. */
static int ping_echo(struct sock_stream *s, uint64_t deadline)
{
	size_t got = 0, sz = s->base.spec.size_bytes;
	unsigned int turns = 0;
	ssize_t n;
	int err;

	rp_sock_data_queue(s, 1);
	while (got < sz) {
		err = rp_sock_data_push(s);
		if (err)
			return err;
		n = s->c->recv(s->fd, s->echo + got, sz - got, RP_MSG_DONTWAIT);
		if (n > 0)
			got += (size_t)n;
		else if ((err = rp_sock_io_result(s, n, false)))
			return err;
		else if ((err = ping_idle(s, deadline)))
			return err;
		if (ping_late(s, &turns, deadline))
			return -ETIMEDOUT;
	}
	s->completed++;
	s->reported = s->completed;
	return 0;
}

int rp_sock_ping(struct rp_stream *base, uint64_t seq, uint64_t deadline_ns)
{
	struct sock_stream *s = sock_stream(base);
	unsigned int turns = 0;
	int n;

	if (!sock_is_read(s))
		return ping_echo(s, deadline_ns);
	n = rp_sock_post(base, seq, 1, true);
	while (n == 0) {
		n = rp_sock_poll(base);
		if (n)
			break;
		if ((n = ping_idle(s, deadline_ns)))
			return n;
		if (ping_late(s, &turns, deadline_ns))
			return -ETIMEDOUT;
	}
	return n < 0 ? n : 0;
}
