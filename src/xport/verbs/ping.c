// SPDX-License-Identifier: MIT
/*
 * The initiator's latency phase: one round trip at a time (depth 1,
 * slot 0), spinning, or asleep on the completion channel under --wait
 * event wherever there is a completion to wait for.
 *
 *   send, write_imm  the initiator posts a receive and the operation; the
 *                    responder echoes it (send: a send; write_imm: a
 *                    write_imm into the initiator's slot 1); done when both
 *                    complete.
 *   write            perftest's method: the initiator writes slot 0 with a
 *                    nonzero marker in its last byte (of the point's size);
 *                    the responder spins on that byte and writes its slot 0
 *                    back into the initiator's slot 1, where the initiator
 *                    spins for the same marker.
 *                    Under --wait event a plain write would wake nobody: the
 *                    echo is a write with immediate into a receive the
 *                    initiator posted, and the initiator sleeps on its
 *                    receive CQ. So what is timed is a write (still noticed
 *                    by the responder polling memory: a one-sided write
 *                    raises no event) plus a write_imm echo that wakes the
 *                    initiator; the stream's note says so (ops.c).
 *                    perftest's ib_write_lat has no event mode to compare.
 *   read, atomics    one operation, waited for.
 */
#include <errno.h>

#include "platform/clock.h"
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

/* --wait event: arm the CQs still awaited; when they all were armed
 * already, sleep until an event or @deadline_ns. */
static int rv_ping_sleep(struct rv_stream *s, bool sent, bool got,
			 uint64_t deadline_ns)
{
	unsigned int want =
		(sent ? 0 : RV_ARMED_SEND) | (got ? 0 : RV_ARMED_RECV);
	int ret = rv_arm_cqs(s, want);

	if (ret) /* armed now: poll once more first; or failed */
		return ret < 0 ? ret : 0;
	return rv_sleep(s, deadline_ns);
}

/* Spinning until the echo: only the echo is looked at on each turn (the
 * marker byte, or the receive CQ); the operation's own completion waits
 * for it, or for every RV_SPIN_CHECK-th turn, and the deadline for every
 * RV_CLOCK_CHECK-th: a clock read on a turn delays noticing the answer by
 * as long as the read takes (a system call of 2.4 us, where the clock is
 * a guest's HPET), and the deadline is seconds away. */
static int rv_ping_spin(struct rv_stream *s, bool *sent, bool *got,
			const volatile uint8_t *flag, uint8_t mark,
			uint64_t deadline_ns)
{
	unsigned int spins = 0;
	int ret;

	while (!*got) {
		if (flag)
			*got = *flag == mark;
		else if ((ret = rv_reap_one(s, s->rcq, got)))
			return ret;
		if (*got || ++spins % RV_SPIN_CHECK)
			continue;
		if (!*sent && (ret = rv_reap_one(s, s->scq, sent)))
			return ret;
		if (!(spins % RV_CLOCK_CHECK) && rp_clock_ns() >= deadline_ns)
			return -ETIMEDOUT;
	}
	while (!*sent) {
		if ((ret = rv_reap_one(s, s->scq, sent)))
			return ret;
		if (!*sent && !(++spins % RV_CLOCK_CHECK) &&
		    rp_clock_ns() >= deadline_ns)
			return -ETIMEDOUT;
	}
	return 0;
}

/* Asleep on the completion channel: wait for the operation (if not @sent)
 * and the echo, re-arming as the CQs need. */
static int rv_ping_events(struct rv_stream *s, bool *sent, bool *got,
			  uint64_t deadline_ns)
{
	int ret;

	for (;;) {
		ret = *sent ? 0 : rv_reap_one(s, s->scq, sent);
		if (!ret && !*got)
			ret = rv_reap_one(s, s->rcq, got);
		if (ret)
			return ret;
		if (*sent && *got)
			return 0;
		ret = rv_ping_sleep(s, *sent, *got, deadline_ns);
		if (ret)
			return ret;
		if (rp_clock_ns() >= deadline_ns)
			return -ETIMEDOUT;
	}
}

/* Wait until the operation (if @signaled) and the echo (@recv, or @flag
 * showing @mark, when given) completed, or @deadline_ns (-ETIMEDOUT, which
 * the engine words: it knows the stall time). Spins unless the stream has
 * a completion channel and a completion is awaited (@flag is NULL then). */
static int rv_ping_wait(struct rv_stream *s, bool signaled, bool recv,
			const volatile uint8_t *flag, uint8_t mark,
			uint64_t deadline_ns)
{
	bool sent = !signaled, got = !recv && !flag;

	if (s->cchan && !flag)
		return rv_ping_events(s, &sent, &got, deadline_ns);
	return rv_ping_spin(s, &sent, &got, flag, mark, deadline_ns);
}

/* Post a ping; every RV_PING_SIGNAL-th asks for a completion (the send
 * queue must still be reaped): what is timed is the echo, which implies
 * the peer got ours, not a completion of our own. The count runs across
 * phases, so that at most RV_PING_SIGNAL - 1 unsignaled requests ever
 * wait in the send queue (sequence numbers restart). RV_PING_SIGNAL is 1,
 * as ib_write_lat signals every write: on Soft-RoCE an unsignaled write
 * asks for no acknowledgement, and one in 16 signaled made the write
 * ping-pong a little slower and noisier (bench/perftest_floor.sh). */
static int rv_ping_post_some(struct rv_stream *s, struct ibv_send_wr *w,
			     bool *signaled)
{
	int ret;

	*signaled = ++s->ping_unsig == RV_PING_SIGNAL;
	if (*signaled)
		s->ping_unsig = 0;
	else
		w->send_flags &= ~(unsigned int)IBV_SEND_SIGNALED;
	ret = rv_post_send(s, w);
	w->send_flags |= IBV_SEND_SIGNALED; /* the post copied the request */
	return ret;
}

/* The receive the echo lands in (slot 1, or only its immediate). */
static int rv_post_echo_recv(struct rv_stream *s)
{
	struct ibv_recv_wr *bad;
	int ret;

	s->rwr[0].next = NULL;
	ret = ibv_post_recv(s->qp, &s->rwr[0], &bad);
	return ret ? rv_call_failed(s, "ibv_post_recv", ret) : 0;
}

/* Send, write_imm: the responder echoes the message into our slot 1. */
int rv_ping_echo(struct rv_stream *s, uint64_t seq, uint64_t deadline_ns)
{
	bool signaled;
	int ret;

	if (rv_ud(s))
		return rv_ping_ud(s, seq, deadline_ns);
	ret = rv_post_echo_recv(s);
	if (!ret)
		ret = rv_ping_post_some(s, rv_prep(s, 0, seq), &signaled);
	if (!ret)
		ret = rv_ping_wait(s, signaled, true, NULL, 0, deadline_ns);
	if (!ret && s->base.spec.verify &&
	    rp_payload_check(s->buf + s->slot_bytes, s->size, seq))
		s->verify_errors++;
	return ret;
}

/* Write: the responder writes our marker back into slot 1 (perftest);
 * under --wait event with an immediate, into a receive (see above). */
int rv_ping_write(struct rv_stream *s, uint64_t seq, uint64_t deadline_ns)
{
	struct ibv_send_wr *w = rv_prep(s, 0, seq);
	const volatile uint8_t *flag = s->buf + s->slot_bytes + s->size - 1;
	bool signaled, event = s->cchan != NULL;
	int ret = 0;

	s->marker = (uint8_t)(s->marker % 255 + 1); /* never 0 */
	s->buf[s->size - 1] = s->marker;
	s->buf[s->slot_bytes + s->size - 1] = 0; /* no echo in flight */
	if (event)
		ret = rv_post_echo_recv(s);
	if (!ret)
		ret = rv_ping_post_some(s, w, &signaled);
	if (ret)
		return ret;
	return rv_ping_wait(s, signaled, event, event ? NULL : flag, s->marker,
			    deadline_ns);
}

/* Read, atomics: the completion is the round trip. */
int rv_ping_once(struct rv_stream *s, uint64_t seq, uint64_t deadline_ns)
{
	int ret = rv_post_send(s, rv_prep(s, 0, seq));

	return ret ? ret : rv_ping_wait(s, true, false, NULL, 0, deadline_ns);
}
