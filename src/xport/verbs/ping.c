// SPDX-License-Identifier: MIT
/*
 * The client's latency phase: one round trip at a time, busy-polling
 * (depth 1, slot 0).
 *
 *   send, write_imm  the client posts a receive and the operation; the
 *                    server echoes it (send: a send; write_imm: a write_imm
 *                    into the client's slot 1); done when both complete.
 *   write            perftest's method: the client writes slot 0 with a
 *                    nonzero marker in its last byte; the server spins on
 *                    that byte and writes its slot 0 back into the client's
 *                    slot 1, where the client spins for the same marker.
 *   read, atomics    one operation, waited for.
 */
#include <errno.h>

#include "core/clock.h"
#include "xport/verbs/verbs.h"

/* Reap at most one completion of @cq; @done set when one came. */
static int rv_reap_one(struct rv_stream *s, struct ibv_cq *cq, bool *done)
{
	struct ibv_wc wc;
	int n = ibv_poll_cq(cq, 1, &wc);

	if (n < 0)
		return rv_cq_failed(s);
	if (!n)
		return 0;
	if (wc.status != IBV_WC_SUCCESS)
		return rv_wc_failed(s, &wc);
	if (cq == s->scq)
		s->op->check_done(s, 0);
	*done = true;
	return 0;
}

/* Spin until the operation (if @signaled) and the echo (@recv, or @flag
 * showing @mark, when given) completed, or @deadline_ns. */
static int rv_ping_wait(struct rv_stream *s, bool signaled, bool recv,
			const volatile uint8_t *flag, uint8_t mark,
			uint64_t deadline_ns)
{
	bool sent = !signaled, got = !recv;
	int ret;

	for (;;) {
		ret = sent ? 0 : rv_reap_one(s, s->scq, &sent);
		if (!ret && !got)
			ret = rv_reap_one(s, s->rcq, &got);
		if (ret)
			return ret;
		if (sent && got && (!flag || *flag == mark))
			return 0;
		if (rp_clock_ns() >= deadline_ns)
			return rp_stream_fail(&s->base, -ETIMEDOUT,
					      "ping-pong: no answer in time");
	}
}

/* Post a ping; like perftest, only every RV_PING_SIGNAL-th asks for a
 * completion (the send queue must still be reaped): what is timed is the
 * echo, which implies the peer got ours, not a completion of our own. */
static int rv_ping_post_some(struct rv_stream *s, struct ibv_send_wr *w,
			     uint64_t seq, bool *signaled)
{
	int ret;

	*signaled = seq % RV_PING_SIGNAL == RV_PING_SIGNAL - 1;
	if (!*signaled)
		w->send_flags &= ~(unsigned int)IBV_SEND_SIGNALED;
	ret = rv_post_send(s, w);
	w->send_flags |= IBV_SEND_SIGNALED; /* the post copied the request */
	return ret;
}

/* Send, write_imm: the server echoes the message into our slot 1. */
int rv_ping_echo(struct rv_stream *s, uint64_t seq, uint64_t deadline_ns)
{
	struct ibv_recv_wr *bad;
	bool signaled;
	int ret;

	s->rwr[0].next = NULL;
	ret = ibv_post_recv(s->qp, &s->rwr[0], &bad);
	if (ret)
		return rv_call_failed(s, "ibv_post_recv", ret);
	ret = rv_ping_post_some(s, rv_prep(s, 0, seq), seq, &signaled);
	if (!ret)
		ret = rv_ping_wait(s, signaled, true, NULL, 0, deadline_ns);
	if (!ret && s->base.spec.verify &&
	    rp_payload_check(s->buf + s->size, s->size, seq))
		s->verify_errors++;
	return ret;
}

/* Write: the server writes our marker back into slot 1 (perftest). */
int rv_ping_write(struct rv_stream *s, uint64_t seq, uint64_t deadline_ns)
{
	struct ibv_send_wr *w = rv_prep(s, 0, seq);
	bool signaled;
	int ret;

	s->marker = (uint8_t)(s->marker % 255 + 1); /* never 0 */
	s->buf[s->size - 1] = s->marker;
	s->buf[2 * s->size - 1] = 0; /* no echo in flight: drop the stale */
	ret = rv_ping_post_some(s, w, seq, &signaled);
	if (ret)
		return ret;
	return rv_ping_wait(s, signaled, false, s->buf + 2 * s->size - 1,
			    s->marker, deadline_ns);
}

/* Read, atomics: the completion is the round trip. */
int rv_ping_once(struct rv_stream *s, uint64_t seq, uint64_t deadline_ns)
{
	int ret = rv_post_send(s, rv_prep(s, 0, seq));

	return ret ? ret : rv_ping_wait(s, true, false, NULL, 0, deadline_ns);
}
