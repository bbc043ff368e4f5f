// SPDX-License-Identifier: MIT
/*
 * The responder's loop of a stream transport, over every responder stream
 * of one thread: for write and send, take the messages in and acknowledge
 * them (or, in the latency phase, echo every byte back); for read, send the
 * messages the initiator's credits ask for. One round steps every stream;
 * when a round finds nothing to do, the loop spins on (busy: up to
 * SPIN_BEFORE_SLEEP rounds, never asleep in the latency phase) or sleeps
 * in one poll() over all the streams (or the calls' idle sleep) between
 * checks of the stop flag.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "platform/clock.h"
#include "xport/sock/sock.h"

#define SERVER_SLEEP_MS 10

/* Responder, read op: send the messages the initiator's credits ask for. */
static int serve_read_step(struct sock_stream *s)
{
	uint64_t queued = s->tx_target / s->base.spec.size_bytes;
	uint64_t sent = s->tx_bytes / s->base.spec.size_bytes;
	uint64_t depth = s->base.spec.queue_depth;
	int moved = rp_sock_ctr_pull(s), err;

	if (moved < 0)
		return moved;
	/* The client posts at most depth reads beyond those it completed,
	 * and completes none we did not send whole: a credit past that is a
	 * lie that would have us queue without end. */
	if (s->crx.val > sent + depth || s->crx.val < s->credit_seen)
		return rp_stream_fail(&s->base, -EPROTO,
				      "the client's read credit %llu is out of "
				      "bounds (%llu sent, depth %llu)",
				      (unsigned long long)s->crx.val,
				      (unsigned long long)sent,
				      (unsigned long long)depth);
	s->credit_seen = s->crx.val;
	if (s->crx.val > queued)
		rp_sock_data_queue(s, s->crx.val - queued);
	err = rp_sock_data_push(s);
	return err ? err : moved;
}

/* Responder, latency phase: send received bytes back from where they
 * landed. */
static int echo_push(struct sock_stream *s)
{
	return rp_sock_ring_send(s, &s->echo_bytes, s->rx_bytes, false);
}

/* Responder, write/send: take messages in, ack them (or echo the bytes). */
static int serve_sink_step(struct sock_stream *s, bool echo)
{
	int moved, err;

	/* Echo only what fits: never receive over bytes not yet echoed. */
	if (echo && s->echo_bytes < s->rx_bytes) {
		err = echo_push(s);
		if (err || s->echo_bytes < s->rx_bytes)
			return err;
	}
	moved = rp_sock_data_pull(s);
	if (moved < 0)
		return moved;
	if (echo) {
		err = echo_push(s);
	} else {
		/* --signal N: one acknowledgement per N messages, and one for
		 * everything as soon as the input runs dry (nothing more to
		 * cover: the sender's last messages never wait) */
		s->echo_bytes = s->rx_bytes;
		if (!moved ||
		    s->completed - s->ctx.want >= rp_spec_signal(&s->base.spec))
			s->ctx.want = s->completed;
		err = rp_sock_ctr_push(s);
	}
	return err ? err : moved;
}

/* One round over the @n streams: > 0 if something arrived, 0 if not, or
 * -errno with a reason in the failing stream. */
static int serve_round(struct rp_stream *const *s, unsigned int n,
		       enum rp_phase phase)
{
	bool echo = phase == RP_PHASE_LATENCY;
	int r, moved = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct sock_stream *ss = sock_stream(s[i]);

		r = sock_is_read(ss) ? serve_read_step(ss)
				     : serve_sink_step(ss, echo);
		if (r < 0)
			return r;
		moved |= r;
	}
	return moved;
}

/* A round found nothing: sleep now? Busy, only after SPIN_BEFORE_SLEEP
 * empty rounds, and in the latency phase only once nothing has come for
 * RP_LAT_IDLE_NS (a wake-up would be part of every round trip; a
 * ping-pong never pauses that long, a client that went quiet does), timed
 * every SPIN_CHECK rounds (a clock read can be a system call).
 * @since: when the idle spell began, 0 before it is timed. */
static bool serve_may_sleep(const struct rp_spec *spec, enum rp_phase phase,
			    unsigned int *idle, uint64_t *since)
{
	uint64_t now;

	if (spec->wait == RP_WAIT_EVENT)
		return true;
	if (++*idle <= SPIN_BEFORE_SLEEP)
		return false;
	if (phase != RP_PHASE_LATENCY)
		return true;
	if (*idle % SPIN_CHECK)
		return false;
	now = rp_clock_ns();
	if (!*since)
		*since = now;
	return now - *since > RP_LAT_IDLE_NS;
}

/* Sleep until a stream is ready for what it is owed, at most
 * SERVER_SLEEP_MS. 0, or -errno with a reason in the first stream. */
static int serve_sleep(struct rp_stream *const *s, unsigned int n,
		       struct pollfd *pfd)
{
	const struct rp_sock_calls *c = sock_stream(s[0])->c;
	unsigned int i;
	int err;

	for (i = 0; i < n; i++) {
		pfd[i].fd = sock_stream(s[i])->fd;
		pfd[i].events = rp_sock_wanted_events(sock_stream(s[i]));
		pfd[i].revents = 0;
	}
	if (c->poll(pfd, n, SERVER_SLEEP_MS) >= 0 || errno == EINTR)
		return 0;
	err = errno;
	return rp_stream_fail(s[0], -err, "waiting on the data connections: %s",
			      strerror(err));
}

/* The loop until *@stop: 0, or -errno with a reason in the failing
 * stream. */
static int serve_loop(struct rp_stream *const *s, unsigned int n,
		      enum rp_phase phase, const atomic_int *stop,
		      struct pollfd *pfd)
{
	unsigned int idle = 0;
	uint64_t since = 0;
	int r;

	while (!atomic_load_explicit(stop, memory_order_relaxed)) {
		r = serve_round(s, n, phase);
		if (r < 0)
			return r;
		if (r > 0) {
			idle = 0;
			since = 0;
			rp_stream_active(s[0]);
			continue;
		}
		if (serve_may_sleep(&s[0]->spec, phase, &idle, &since)) {
			r = serve_sleep(s, n, pfd);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

/* Every stream responds, over the same socket calls. 0 or -EINVAL. */
static int serve_check(struct rp_stream *const *s, unsigned int n)
{
	const struct rp_sock_calls *c = sock_stream(s[0])->c;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (s[i]->role != RP_ROLE_RESPONDER)
			return rp_stream_fail(s[i], -EINVAL,
					      "serve() called on a stream "
					      "whose side initiates");
		if (sock_stream(s[i])->c != c)
			return rp_stream_fail(s[i], -EINVAL,
					      "serve() called on streams of "
					      "different transports");
	}
	return 0;
}

/* What a responder counts: a read responder what it sent, a sink what it
 * received. */
static void mark_counts(struct sock_stream *s, struct serve_mark *m)
{
	size_t sz = s->base.spec.size_bytes;

	m->messages = sock_is_read(s) ? s->tx_bytes / sz : s->completed;
	m->bytes = sock_is_read(s) ? m->messages * sz : s->rx_bytes;
	m->verify_errors = s->verify_errors;
}

static void serve_count(struct sock_stream *s, struct rp_side_stats *st)
{
	struct serve_mark now;

	mark_counts(s, &now);
	st->messages = now.messages - s->mark.messages;
	st->bytes = now.bytes - s->mark.bytes;
	st->verify_errors = now.verify_errors - s->mark.verify_errors;
}

int rp_sock_serve(struct rp_stream *const *s, unsigned int n,
		  enum rp_phase phase, const atomic_int *stop,
		  struct rp_side_stats *st)
{
	struct pollfd *pfd;
	unsigned int i;
	int err;

	if (n == 0)
		return 0;
	err = serve_check(s, n);
	if (err)
		return err;
	pfd = calloc(n, sizeof(*pfd));
	if (!pfd)
		return rp_stream_fail(s[0], -ENOMEM,
				      "out of memory for %u descriptors", n);
	for (i = 0; i < n; i++)
		mark_counts(sock_stream(s[i]), &sock_stream(s[i])->mark);
	err = serve_loop(s, n, phase, stop, pfd);
	for (i = 0; i < n; i++)
		serve_count(sock_stream(s[i]), &st[i]);
	free(pfd);
	return err;
}
