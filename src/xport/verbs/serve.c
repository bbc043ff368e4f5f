// SPDX-License-Identifier: MIT
/*
 * The server's side of a phase, until the client's stop:
 *
 *   send, write_imm  spin on arrivals: count, check (--verify), echo in the
 *                    latency phase, repost the receive; drain after stop.
 *   write            latency: spin on slot 0's last byte and echo it;
 *                    otherwise idle, then check the slots (--verify).
 *   read, atomics    idle: the server's CPU takes no part.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "xport/verbs/verbs.h"

static void rv_idle(const atomic_int *stop)
{
	struct timespec ts = { .tv_nsec = RV_IDLE_NS };

	while (!rv_stopped(stop))
		nanosleep(&ts, NULL);
}

int rv_serve_idle(struct rv_stream *s, enum rp_phase phase,
		  const atomic_int *stop, struct rp_side_stats *st)
{
	(void)s;
	(void)phase;
	(void)st;
	rv_idle(stop);
	return 0;
}

static int rv_reap_echoes(struct rv_stream *s)
{
	struct ibv_wc wc[RV_BATCH];
	int n, i;

	if (!s->echo_out)
		return 0;
	n = ibv_poll_cq(s->scq, RV_BATCH, wc);
	if (n < 0)
		return rv_cq_failed(s);
	for (i = 0; i < n; i++)
		if (wc[i].status != IBV_WC_SUCCESS)
			return rv_wc_failed(s, &wc[i]);
	s->echo_out -= (uint32_t)n;
	return 0;
}

/* Latency: send @len bytes at @addr back to the client (see ping.c). */
static int rv_echo(struct rv_stream *s, uint64_t addr, uint32_t len,
		   uint32_t imm, const atomic_int *stop)
{
	int ret;

	while (s->echo_out >= s->sq_size) {
		if (rv_stopped(stop)) /* the client is done: nobody waits */
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
	uint32_t len = in_recv ? wc->byte_len : (uint32_t)s->size;
	uint64_t addr;
	int ret;

	if (wc->status != IBV_WC_SUCCESS)
		return rv_wc_failed(s, wc);
	if (wc->wr_id >= s->nrecv)
		return rp_stream_fail(&s->base, -EPROTO,
				      "a receive completed with an unknown "
				      "wr_id %" PRIu64,
				      (uint64_t)wc->wr_id);
	st->messages++;
	st->bytes += len;
	if (s->base.spec.verify)
		rv_check_recv(s, phase, wc, st);
	if (phase == RP_PHASE_LATENCY) {
		addr = in_recv ? s->rsge[wc->wr_id].addr : (uintptr_t)s->buf;
		ret = rv_echo(s, addr, len, wc->imm_data, stop);
		if (ret)
			return ret;
	}
	rv_chain_recv(s, &s->rwr[wc->wr_id]);
	return 0;
}

/* One batch of arrivals; returns how many, or -errno. */
static int rv_serve_batch(struct rv_stream *s, enum rp_phase phase,
			  const atomic_int *stop, struct rp_side_stats *st)
{
	struct ibv_wc wc[RV_BATCH];
	int n, i, ret;

	n = ibv_poll_cq(s->rcq, RV_BATCH, wc);
	if (n < 0)
		return rv_cq_failed(s);
	for (i = 0; i < n; i++) {
		ret = rv_serve_wc(s, phase, &wc[i], stop, st);
		if (ret)
			return ret;
	}
	ret = rv_repost(s);
	if (!ret)
		ret = rv_reap_echoes(s);
	return ret ? ret : n;
}

/* Send, write_imm: spin on arrivals. Once stop is seen, everything the
 * client completed in this phase is in the CQ: drain it, so that no message
 * is counted in (or echoed by) the next phase. */
int rv_serve_recv(struct rv_stream *s, enum rp_phase phase,
		  const atomic_int *stop, struct rp_side_stats *st)
{
	int n = 0;

	s->rx_seq = 0; /* the engine numbers each phase from 0 */
	while (n >= 0 && !rv_stopped(stop))
		n = rv_serve_batch(s, phase, stop, st);
	while (n >= 0) {
		n = rv_serve_batch(s, phase, stop, st);
		if (n == 0)
			return 0;
	}
	return n;
}

/* Write latency: spin on the last byte of slot 0 for the client's marker. */
static int rv_serve_write_lat(struct rv_stream *s, const atomic_int *stop)
{
	const volatile uint8_t *flag = s->buf + s->size - 1;
	uint8_t seen = 0, b;
	int ret = 0;

	while (!ret && !rv_stopped(stop)) {
		b = *flag;
		if (b != seen) {
			seen = b;
			ret = rv_echo(s, (uintptr_t)s->buf, (uint32_t)s->size,
				      0, stop);
		}
		if (!ret)
			ret = rv_reap_echoes(s);
	}
	return ret;
}

int rv_serve_write(struct rv_stream *s, enum rp_phase phase,
		   const atomic_int *stop, struct rp_side_stats *st)
{
	int ret = 0;

	if (phase == RP_PHASE_LATENCY)
		ret = rv_serve_write_lat(s, stop);
	else
		rv_idle(stop);
	if (phase != RP_PHASE_LATENCY && s->base.spec.verify)
		rv_check_slots(s, st);
	/* the client is done: a zero slot 0 is ready for the next latency
	 * phase's markers, and "not written" to the check */
	memset(s->buf, 0, s->size);
	return ret;
}
