// SPDX-License-Identifier: MIT
/*
 * The server's loop of a stream transport: for write and send, take the
 * messages in and acknowledge them (or, in the latency phase, echo every
 * byte back); for read, send the messages the client's credits ask for.
 * It spins while there is work, then sleeps in poll() (or the calls' idle
 * sleep) between checks of the stop flag.
 */
#include <errno.h>

#include "xport/sock/sock.h"

#define SERVER_SLEEP_MS 10

/* Server, read op: send the messages the client's credits ask for. */
static int serve_read_step(struct sock_stream *s)
{
	uint64_t queued = s->tx_target / s->base.spec.size_bytes;
	int moved = rp_sock_ctr_pull(s), err;

	if (moved < 0)
		return moved;
	if (s->crx.val > queued)
		rp_sock_data_queue(s, s->crx.val - queued);
	err = rp_sock_data_push(s);
	return err ? err : moved;
}

/* Server, latency phase: send received bytes back from where they landed. */
static int echo_push(struct sock_stream *s)
{
	return rp_sock_ring_send(s, &s->echo_bytes, s->rx_bytes);
}

/* Server, write/send: take messages in, ack them (or echo the bytes). */
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
		s->echo_bytes = s->rx_bytes;
		s->ctx.want = s->completed;
		err = rp_sock_ctr_push(s);
	}
	return err ? err : moved;
}

/* The loop until *@stop: 0, or -errno with a reason in @s. */
static int serve_loop(struct sock_stream *s, enum rp_phase phase,
		      const atomic_int *stop)
{
	unsigned int idle = 0;
	int r = 0;

	while (!atomic_load_explicit(stop, memory_order_relaxed)) {
		if (sock_is_read(s))
			r = serve_read_step(s);
		else
			r = serve_sink_step(s, phase == RP_PHASE_LATENCY);
		if (r < 0)
			return r;
		if (r > 0) {
			idle = 0;
		} else if (phase != RP_PHASE_LATENCY &&
			   ++idle > SPIN_BEFORE_SLEEP) {
			/* Sleep when idle, except in the ping-pong phase:
			 * there a wake-up would be part of every round trip
			 * (CPU is only accounted in the throughput phase). */
			r = rp_sock_idle_wait(s, SERVER_SLEEP_MS);
			if (r < 0 && r != -ETIMEDOUT)
				return r;
		}
	}
	return 0;
}

int rp_sock_serve(struct rp_stream *base, enum rp_phase phase,
		  const atomic_int *stop, struct rp_side_stats *st)
{
	struct sock_stream *s = sock_stream(base);
	size_t sz = base->spec.size_bytes;
	/* A read server counts what it sent, a sink what it received. */
	uint64_t msgs0 = sock_is_read(s) ? s->tx_bytes / sz : s->completed;
	uint64_t bytes0 = s->rx_bytes;
	uint64_t verr0 = s->verify_errors;
	int err = serve_loop(s, phase, stop);

	if (sock_is_read(s)) {
		st->messages = s->tx_bytes / sz - msgs0;
		st->bytes = st->messages * sz;
	} else {
		st->messages = s->completed - msgs0;
		st->bytes = s->rx_bytes - bytes0;
	}
	st->verify_errors = s->verify_errors - verr0;
	return err;
}
