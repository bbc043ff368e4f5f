// SPDX-License-Identifier: MIT
/*
 * The initiator's throughput path: post a chain of prepared work requests,
 * reap completions in posting order. No allocation, no system call beyond
 * the provider's own (and, under --wait event only, the channel's).
 */
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "xport/verbs/verbs.h"

/* Ready slot @slot's work request for operation @seq. */
struct ibv_send_wr *rv_prep(struct rv_stream *s, uint32_t slot, uint64_t seq)
{
	struct ibv_send_wr *w = &s->wr[slot];

	w->wr_id = seq;
	w->next = NULL;
	w->imm_data = htobe32((uint32_t)seq);
	/* signaled unless rv_post says otherwise (--signal): a ping that
	 * waits for its own completion must get one */
	w->send_flags |= IBV_SEND_SIGNALED;
	s->op->prep(s, w, slot, seq);
	return w;
}

/* Write, send, write_imm: under --verify the message carries its pattern. */
void rv_prep_fill(struct rv_stream *s, struct ibv_send_wr *w, uint32_t slot,
		  uint64_t seq)
{
	(void)w;
	if (s->base.spec.verify)
		rp_payload_fill(s->buf + slot * s->slot_bytes, s->size, seq);
}

/* Read, --verify: clear the header, so that a read that lands nothing
 * fails the check. */
void rv_prep_read(struct rv_stream *s, struct ibv_send_wr *w, uint32_t slot,
		  uint64_t seq)
{
	(void)w;
	(void)seq;
	if (s->base.spec.verify)
		memset(s->buf + slot * s->slot_bytes, 0,
		       s->size < 8 ? s->size : 8);
}

/* Fetch_add: adds 1 (rv_set_remote), nothing to prepare. */
void rv_prep_nothing(struct rv_stream *s, struct ibv_send_wr *w, uint32_t slot,
		     uint64_t seq)
{
	(void)s;
	(void)w;
	(void)slot;
	(void)seq;
}

/* Cmp_swap: swap the value due in the slot for the next one. */
void rv_prep_cmp_swap(struct rv_stream *s, struct ibv_send_wr *w, uint32_t slot,
		      uint64_t seq)
{
	(void)seq;
	w->wr.atomic.compare_add = s->atom_next[slot];
	w->wr.atomic.swap = s->atom_next[slot] + 1;
}

int rv_post_send(struct rv_stream *s, struct ibv_send_wr *w)
{
	struct ibv_send_wr *bad;
	int ret = ibv_post_send(s->qp, w, &bad);

	if (ret)
		return rv_call_failed(s, "ibv_post_send", ret);
	if (s->cr.on && !rv_responder(s)) /* iWARP sends: count them */
		for (; w; w = w->next)
			s->cr.sent++;
	return 0;
}

/* --signal: operation @seq is signaled at every rp_spec_signal()-th and,
 * when @last, at the end of the batch; the rest complete with the next
 * signaled one. */
static void rv_signal(struct ibv_send_wr *w, bool on)
{
	if (on)
		w->send_flags |= IBV_SEND_SIGNALED;
	else
		w->send_flags &= ~(unsigned int)IBV_SEND_SIGNALED;
}

/* Post the @count operations from @seq as chains of at most --post-list
 * work requests; operation @sig_last is signaled whatever --signal says. */
static int rv_post_chains(struct rv_stream *s, uint64_t seq, uint32_t count,
			  uint64_t sig_last)
{
	uint32_t sig = rp_spec_signal(&s->base.spec),
		 pl = s->base.spec.post_list;
	struct ibv_send_wr *first = NULL, *prev = NULL, *w;
	uint32_t i, chain = 0;
	int err;

	for (i = 0; i < count; i++) {
		w = rv_prep(s, (uint32_t)((seq + i) % s->depth), seq + i);
		rv_signal(w, (seq + i + 1) % sig == 0 || seq + i == sig_last);
		if (prev)
			prev->next = w;
		else
			first = w;
		prev = w;
		if (++chain == pl || i + 1 == count) {
			err = rv_post_send(s, first);
			if (err)
				return err;
			first = prev = NULL;
			chain = 0;
		}
	}
	return 0;
}

/* Send credits: post as many of the operations waiting as the responder
 * has receives for. */
static int rv_post_waiting(struct rv_stream *s)
{
	uint32_t n = rv_credit_room(s);
	int err;

	if (n > s->cr.waiting)
		n = s->cr.waiting;
	if (!n)
		return 0;
	err = rv_post_chains(s, s->cr.next_seq, n, s->cr.sig_last);
	if (err)
		return err;
	s->cr.next_seq += n;
	s->cr.waiting -= n;
	return 0;
}

/* Post the @count operations from @seq (all in one call by default, or as
 * --post-list says); with @last, the last one is signaled. Under send
 * credits they queue behind those still waiting for room. */
int rv_post(struct rp_stream *bs, uint64_t seq, uint32_t count, bool last)
{
	struct rv_stream *s = rv_of(bs);
	uint64_t sig_last = last ? seq + count - 1 : UINT64_MAX;

	if (count > s->depth)
		return rp_stream_fail(bs, -EINVAL,
				      "%u operations posted at queue depth %u",
				      count, s->depth);
	if (!seq)
		s->reaped = 0; /* a phase's first operation */
	if (!s->cr.on)
		return rv_post_chains(s, seq, count, sig_last);
	if (!seq) {
		s->cr.waiting = 0;
		s->cr.sig_last = UINT64_MAX;
	}
	if (s->cr.waiting && seq != s->cr.next_seq + s->cr.waiting)
		return rp_stream_fail(bs, -EINVAL,
				      "operation %" PRIu64 " posted while %u "
				      "from %" PRIu64 " wait",
				      seq, s->cr.waiting, s->cr.next_seq);
	if (!s->cr.waiting)
		s->cr.next_seq = seq;
	s->cr.waiting += count;
	if (last)
		s->cr.sig_last = sig_last;
	return rv_post_waiting(s);
}

/* Under --wait event, first take the event of the send CQ that arm()
 * armed (busy mode: the bit is never set, one well-predicted branch). */
int rv_poll(struct rp_stream *bs)
{
	struct rv_stream *s = rv_of(bs);
	struct ibv_wc wc[RV_BATCH];
	uint64_t done;
	int n, i;

	if (s->armed & RV_ARMED_SEND) {
		n = rv_take_events(s);
		if (n)
			return n;
	}
	if (s->cr.waiting && (n = rv_post_waiting(s)))
		return n;
	n = ibv_poll_cq(s->scq, RV_BATCH, wc);
	if (n < 0)
		return rv_cq_failed(s);
	done = s->reaped;
	for (i = 0; i < n; i++) {
		if (wc[i].status != IBV_WC_SUCCESS)
			return rv_wc_failed(s, &wc[i]);
		/* a completion covers the unsignaled ones before it */
		for (; s->reaped <= wc[i].wr_id; s->reaped++)
			s->op->check_done(s, (uint32_t)(s->reaped % s->depth));
	}
	return (int)(s->reaped - done);
}
