// SPDX-License-Identifier: MIT
/*
 * The responder's side of a phase, over all the streams of its thread in
 * one loop, until the initiators' stop:
 *
 *   send, write_imm  poll each stream's receive CQ: count, check
 *                    (--verify), echo in the latency phase, repost the
 *                    receive (iWARP: and write the count of them reposted
 *                    now and then, credits.c); drain them all after stop,
 *                    to the count the initiator completed (rp_stream.due),
 *                    then write that count once more. Under --wait event,
 *                    when a pass found nothing, sleep on their completion
 *                    channels (RV_EVENT_MS at most, to notice stop).
 *   write            latency: watch each stream's marker (the last byte of
 *                    slot 0 at the point's size) and echo it; spinning even
 *                    under --wait event (a one-sided write raises no event).
 *                    Otherwise idle, then check the slots (--verify).
 *   read, atomics    idle: the responder's CPU takes no part.
 *
 * st[i] counts stream i; the stream that fails holds the reason.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "platform/clock.h"
#include "platform/os.h"
#include "xport/verbs/verbs.h"

/* Asleep until stop (a futex where there is one: a nap every millisecond
 * would take a guest's CPU from the device's own work). */
static void rv_idle(const atomic_int *stop)
{
	while (!rv_stopped(stop))
		rp_os_flag_wait(stop, RV_IDLE_MAX_MS);
}

/* The responder's latency phase between pings: when it began to find
 * nothing (0 while pings come), and whether it naps yet. */
struct rv_quiet {
	uint64_t since;
	bool napping;
};

/* Nothing came (called every RV_SPIN_CHECK empty turns, the @spins-th):
 * once nothing has for RP_LAT_IDLE_NS, the client has gone quiet (a
 * ping-pong never pauses that long): nap instead of spinning. The clock
 * is read every RV_CLOCK_CHECK turns only: a read can be a system call,
 * and a ping landing during one waits for it. */
static void rv_lat_idle(struct rv_quiet *q, unsigned int spins)
{
	struct timespec ts = { .tv_nsec = RV_IDLE_NS };
	uint64_t now;

	if (!q->napping && !(spins % RV_CLOCK_CHECK)) {
		now = rp_clock_ns();
		if (!q->since)
			q->since = now;
		q->napping = now - q->since > RP_LAT_IDLE_NS;
	}
	if (q->napping)
		nanosleep(&ts, NULL);
}

/* One-sided ops: the initiator's writes and reads complete without this
 * side's knowledge; say so to the session that watches for progress. */
static void rv_blind(struct rp_stream *const *bs, unsigned int n, int on)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		atomic_store(&bs[i]->blind, on);
}

int rv_serve_idle(struct rp_stream *const *bs, unsigned int n,
		  enum rp_phase phase, const atomic_int *stop,
		  struct rp_side_stats *st)
{
	(void)phase;
	(void)st;
	rv_blind(bs, n, 1);
	rv_idle(stop);
	rv_blind(bs, n, 0);
	return 0;
}

/* Latency: send @len bytes at @addr back to the initiator (see ping.c). */
static int rv_echo(struct rv_stream *s, uint64_t addr, uint32_t len,
		   uint32_t imm, const atomic_int *stop)
{
	int ret;

	while (s->echo_out >= s->sq_size) {
		if (rv_stopped(stop)) /* the initiator is done: nobody waits */
			return 0;
		ret = rv_reap_echoes(s);
		if (ret)
			return ret;
	}
	s->sge[0].addr = addr;
	s->sge[0].length = len;
	s->wr[0].imm_data = imm;
	s->wr[0].next = NULL;
	ret = rv_post_send(s, &s->wr[0]);
	if (ret)
		return ret;
	s->echo_out++;
	return 0;
}

static void rv_chain_recv(struct rv_stream *s, struct ibv_recv_wr *w)
{
	w->next = NULL;
	if (s->rtail)
		s->rtail->next = w;
	else
		s->rhead = w;
	s->rtail = w;
}

static int rv_repost(struct rv_stream *s)
{
	struct ibv_recv_wr *bad;
	int ret;

	if (!s->rhead)
		return 0;
	if (s->srq) {
		ret = rv_srq_repost(s, s->rhead);
		s->rhead = s->rtail = NULL;
		if (!ret && ++s->srq_batches % RV_SRQ_POLL_BATCHES == 0)
			rv_srq_poll(s->srq);
		return ret;
	}
	ret = ibv_post_recv(s->qp, s->rhead, &bad);
	s->rhead = s->rtail = NULL;
	return ret ? rv_call_failed(s, "ibv_post_recv", ret) : 0;
}

/* One arrived send or write_imm: count, check, echo (latency), repost. A
 * send's bytes are in its receive's buffer, a write_imm's in slot 0. */
static int rv_serve_wc(struct rv_stream *s, enum rp_phase phase,
		       const struct ibv_wc *wc, const atomic_int *stop,
		       struct rp_side_stats *st)
{
	bool in_recv = s->op->recv_data;
	uint32_t len = in_recv ? rv_recv_len(s, wc) : (uint32_t)s->size;
	uint64_t addr;
	int ret;

	if (wc->status != IBV_WC_SUCCESS)
		return rv_wc_failed(s, wc);
	if (wc->wr_id >= s->nrecv)
		return rp_stream_fail(&s->base, -EPROTO,
				      "a receive completed with an unknown "
				      "wr_id %" PRIu64,
				      (uint64_t)wc->wr_id);
	if (rv_ud_stray(s, wc)) { /* not counted, not echoed */
		rv_chain_recv(s, &s->rwr[wc->wr_id]);
		return 0;
	}
	st->messages++;
	st->bytes += len;
	if (s->base.spec.verify)
		rv_check_recv(s, phase, wc, st);
	if (phase == RP_PHASE_LATENCY) {
		addr = in_recv ? rv_recv_sge(s, wc->wr_id)->addr
			       : (uintptr_t)s->buf;
		ret = rv_ud(s) ? rv_ud_reply_to(s, wc) : 0;
		if (!ret)
			ret = rv_echo(s, addr, len, wc->imm_data, stop);
		if (ret)
			return ret;
	}
	rv_chain_recv(s, &s->rwr[wc->wr_id]);
	return 0;
}

/* One batch of arrivals on @s; returns how many, or -errno. */
static int rv_serve_batch(struct rv_stream *s, enum rp_phase phase,
			  const atomic_int *stop, struct rp_side_stats *st)
{
	struct ibv_wc wc[RV_BATCH];
	int n, i, ret;

	n = ibv_poll_cq(s->rcq, RV_BATCH, wc);
	if (n <= 0) /* nothing to repost, the echoes reaped next time */
		return n < 0 ? rv_cq_failed(s) : 0;
	for (i = 0; i < n; i++) {
		ret = rv_serve_wc(s, phase, &wc[i], stop, st);
		if (ret)
			return ret;
	}
	ret = rv_repost(s);
	s->cr.reposted += (uint32_t)n;
	if (!ret && phase != RP_PHASE_LATENCY)
		ret = rv_credit_tell(s, false);
	if (!ret)
		ret = rv_reap_echoes(s);
	return ret ? ret : n;
}

/* One batch on each stream; returns how many arrived in all, or -errno. */
static int rv_serve_pass(struct rp_stream *const *bs, unsigned int n,
			 enum rp_phase phase, const atomic_int *stop,
			 struct rp_side_stats *st)
{
	unsigned int i;
	int got = 0, ret;

	for (i = 0; i < n; i++) {
		ret = rv_serve_batch(rv_of(bs[i]), phase, stop, &st[i]);
		if (ret < 0)
			return ret;
		got += ret;
	}
	return got;
}

/* Is any of the @n streams short of what its initiator completed? */
static bool rv_short(struct rp_stream *const *bs, unsigned int n,
		     const struct rp_side_stats *st)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (st[i].messages < atomic_load(&bs[i]->due))
			return true;
	return false;
}

/* After stop and a drain that found the CQs empty: the messages the
 * initiators completed and that have not arrived. On InfiniBand and RoCE
 * there are none (a send completes once acknowledged); an iWARP send
 * completes once handed to TCP, and across a wire the last ones may
 * still be in it. Wait for them, RP_DRAIN_MS at most: a message that
 * never comes then shows in the counts, not as a hang. */
static int rv_drain_due(struct rp_stream *const *bs, unsigned int n,
			enum rp_phase phase, const atomic_int *stop,
			struct rp_side_stats *st, struct pollfd *fds)
{
	struct timespec ts = { .tv_nsec = RV_IDLE_NS / 10 };
	/* UD: what is missing by then was lost, and counts as such */
	uint64_t end = rp_clock_ns() +
		       (rv_ud(rv_of(bs[0])) ? RV_UD_DRAIN_MS : RP_DRAIN_MS) *
			       1000000ULL;
	int ret = 0;

	while (ret >= 0 && rv_short(bs, n, st) && rp_clock_ns() < end) {
		ret = rv_serve_pass(bs, n, phase, stop, st);
		if (ret > 0)
			rp_stream_active(bs[0]);
		else if (ret == 0 && fds)
			ret = rv_sleep_many(bs, n, fds);
		else if (ret == 0)
			nanosleep(&ts, NULL);
	}
	return ret < 0 ? ret : 0;
}

/* Send, write_imm: poll for arrivals (or sleep, under --wait event). Once
 * stop is seen, everything the initiators completed in this phase is in
 * the CQs or (iWARP) on its way: drain them, to the count the initiators
 * said (rv_drain_due), so that no message is counted in (or echoed by)
 * the next phase. */
int rv_serve_recv(struct rp_stream *const *bs, unsigned int n,
		  enum rp_phase phase, const atomic_int *stop,
		  struct rp_side_stats *st)
{
	struct pollfd *fds = NULL;
	struct rv_quiet quiet = { 0 };
	unsigned int i, spins = 0;
	int ret = 0;

	for (i = 0; i < n; i++) { /* each phase numbers from 0 */
		rv_of(bs[i])->rx_seq = 0;
		rv_of(bs[i])->rx_next = 0;
	}
	if (rv_of(bs[0])->cchan) {
		fds = calloc(n, sizeof(*fds));
		if (!fds)
			return rp_stream_fail(bs[0], -ENOMEM, "out of memory");
	}
	while (ret >= 0) {
		ret = rv_serve_pass(bs, n, phase, stop, st);
		if (ret > 0) {
			quiet = (struct rv_quiet){ 0 };
			rp_stream_active(bs[0]);
		} else if (ret == 0 && fds) {
			ret = rv_sleep_many(bs, n, fds);
		}
		/* spinning: the stop flag and the clock every so often */
		if (ret < 0 || (!fds && ++spins % RV_SPIN_CHECK))
			continue;
		if (rv_stopped(stop))
			break;
		if (ret == 0 && !fds && phase == RP_PHASE_LATENCY)
			rv_lat_idle(&quiet, spins);
	}
	while (ret >= 0) {
		ret = rv_serve_pass(bs, n, phase, stop, st);
		if (ret == 0)
			break;
	}
	if (ret >= 0)
		ret = rv_drain_due(bs, n, phase, stop, st, fds);
	/* iWARP send credits: the count as the phase leaves it */
	for (i = 0; ret >= 0 && i < n; i++)
		ret = rv_credit_tell(rv_of(bs[i]), true);
	free(fds);
	return ret < 0 ? ret : 0;
}

/* Write latency, one look at @s's marker: echo a new one. Return: 1 if
 * a ping came, 0 if not, or -errno. Only the marker is read on the way to
 * the echo; the echoes' completions are reaped between pings. */
static int rv_watch_marker(struct rv_stream *s, const atomic_int *stop)
{
	uint8_t b = *(const volatile uint8_t *)(s->buf + s->size - 1);
	int ret;

	if (b == s->marker)
		return 0;
	s->marker = b;
	ret = rv_echo(s, (uintptr_t)s->buf, (uint32_t)s->size, 0, stop);
	rp_stream_active(&s->base);
	return ret ? ret : 1;
}

/* Between pings, every RV_SPIN_CHECK empty turns: reap the echoes, see
 * whether the initiator went quiet. */
static int rv_write_lat_pause(struct rp_stream *const *bs, unsigned int n,
			      struct rv_quiet *quiet, unsigned int spins)
{
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = rv_reap_echoes(rv_of(bs[i]));
		if (ret)
			return ret;
	}
	rv_lat_idle(quiet, spins);
	return 0;
}

/* Write latency: spin over the streams' markers (perftest's responder
 * spins on its one byte alone). Slot 0 is zero at the start of a phase
 * (rv_write_done): 0 means "no ping yet". */
static int rv_serve_write_lat(struct rp_stream *const *bs, unsigned int n,
			      const atomic_int *stop)
{
	struct rv_quiet quiet = { 0 };
	unsigned int i, spins = 0;
	int ret = 0, got;

	for (i = 0; i < n; i++)
		rv_of(bs[i])->marker = 0;
	while (ret >= 0) {
		for (i = 0, got = 0; ret >= 0 && i < n; i++)
			got |= ret = rv_watch_marker(rv_of(bs[i]), stop);
		if (got > 0) {
			quiet = (struct rv_quiet){ 0 };
			continue;
		}
		if (ret < 0 || ++spins % RV_SPIN_CHECK)
			continue;
		if (rv_stopped(stop))
			break;
		ret = rv_write_lat_pause(bs, n, &quiet, spins);
	}
	return ret < 0 ? ret : 0;
}

/* Before the slots are checked: the initiator's last writes may still be
 * on their way (an iWARP write completes once it has left, as a send
 * does). Of the due writes (rp_stream.due: seq 0 to due - 1), slot j's
 * last is the highest seq below due that maps to j: wait until each slot
 * holds it whole, until @end (rp_clock_ns time: RP_DRAIN_MS after stop,
 * for all of a thread's streams together); what is still wrong then is
 * the check's to count. Without a due (an older client) no wait. */
static void rv_await_writes(struct rv_stream *s, uint64_t end)
{
	struct timespec ts = { .tv_nsec = RV_IDLE_NS / 10 };
	uint64_t due = atomic_load(&s->base.due), last;
	const uint8_t *p;
	uint32_t slot;

	if (!due || s->size < 8)
		return;
	for (slot = 0; slot < s->depth && slot < due; slot++) {
		last = due - 1 - (due - 1 - slot) % s->depth;
		p = s->buf + (size_t)slot * s->slot_bytes;
		while (rp_payload_check(p, s->size, last) &&
		       rp_clock_ns() < end) {
			nanosleep(&ts, NULL);
			atomic_thread_fence(memory_order_acquire);
		}
	}
}

/* After a write phase (the initiator is done): check the slots (--verify),
 * then zero what the next phase, maybe of another point, must find zero:
 * every slot under --verify (a slot the next point's depth does not
 * rewrite would hold another mapping's seq), slot 0 whole always (the
 * next point's marker, at any size, reads "no ping yet"). */
static void rv_write_done(struct rv_stream *s, enum rp_phase phase,
			  uint64_t end, struct rp_side_stats *st)
{
	if (phase != RP_PHASE_LATENCY && s->base.spec.verify) {
		rv_await_writes(s, end);
		rv_check_slots(s, st);
		memset(s->buf, 0, s->buf_len);
	}
	memset(s->buf, 0, s->slot_bytes);
}

int rv_serve_write(struct rp_stream *const *bs, unsigned int n,
		   enum rp_phase phase, const atomic_int *stop,
		   struct rp_side_stats *st)
{
	unsigned int i;
	uint64_t end;
	int ret = 0;

	if (phase == RP_PHASE_LATENCY) {
		ret = rv_serve_write_lat(bs, n, stop);
	} else {
		rv_blind(bs, n, 1);
		rv_idle(stop);
		rv_blind(bs, n, 0);
	}
	end = rp_clock_ns() + RP_DRAIN_MS * 1000000ULL;
	for (i = 0; i < n; i++)
		rv_write_done(rv_of(bs[i]), phase, end, &st[i]);
	return ret;
}
