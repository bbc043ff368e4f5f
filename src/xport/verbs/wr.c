// SPDX-License-Identifier: MIT
/*
 * Work requests, built once and reused: the initiator's one send per slot,
 * the responder's one echo; the receives of either side. set_point retunes
 * the sends to a sweep point (length, inline); the slots, their stride and
 * the receives stay as they were set up (verbs.h, "Memory").
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "xport/verbs/verbs.h"

static enum ibv_wr_opcode rv_opcode(const struct rv_stream *s)
{
	if (rv_responder(s) && rv_ud(s)) /* the ping's seq back (ud.c) */
		return IBV_WR_SEND_WITH_IMM;
	if (rv_responder(s))
		return s->cchan ? s->op->event_echo : s->op->opcode;
	if (!s->base.spec.verify)
		return s->op->opcode;
	if (s->no_imm && s->op->verify_opcode == IBV_WR_SEND_WITH_IMM)
		return IBV_WR_SEND; /* iWARP: the receiver counts instead */
	return s->op->verify_opcode;
}

/* Inline only when the current point's message fits. */
static unsigned int rv_send_flags(const struct rv_stream *s)
{
	if (s->op->can_inline && s->size <= s->inline_max)
		return IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	return IBV_SEND_SIGNALED;
}

/* The sends' slots: one per slot (initiator), the echo's (responder). */
static uint32_t rv_nsends(const struct rv_stream *s)
{
	return rv_responder(s) ? 1 : s->max_depth;
}

/* Each send for the current point: @s->size bytes from its slot. */
static void rv_build_sends(struct rv_stream *s)
{
	uint32_t i, n = rv_nsends(s);

	for (i = 0; i < n; i++) {
		s->sge[i].addr = (uintptr_t)(s->buf + i * s->slot_bytes);
		s->sge[i].length = (uint32_t)s->size;
		s->sge[i].lkey = s->mr->lkey;
		s->wr[i].sg_list = &s->sge[i];
		s->wr[i].num_sge = 1;
		s->wr[i].opcode = rv_opcode(s);
		s->wr[i].send_flags = rv_send_flags(s);
	}
}

/* Receives: a send lands in a slot each (responder) or slot 1 (initiator:
 * the echo); a write_imm's receive takes only the immediate. Each takes
 * a whole slot, whatever the point's size. UD: each begins with its own
 * GRH area (ud.c). */
static void rv_build_recvs(struct rv_stream *s)
{
	uint32_t i, slot, per = rv_ud(s) ? 2 : 1;
	struct ibv_sge *g;

	for (i = 0; i < s->nrecv; i++) {
		slot = rv_responder(s) ? i : 1;
		g = &s->rsge[per * i];
		if (rv_ud(s)) {
			g->addr = (uintptr_t)(s->buf + s->grh_off +
					      (size_t)i * RV_GRH_BYTES);
			g->length = RV_GRH_BYTES;
			g->lkey = s->mr->lkey;
		}
		g[per - 1].addr = (uintptr_t)(s->buf + slot * s->slot_bytes);
		g[per - 1].length = (uint32_t)s->slot_bytes;
		g[per - 1].lkey = s->mr->lkey;
		s->rwr[i].wr_id = i;
		s->rwr[i].sg_list = g;
		s->rwr[i].num_sge = s->op->recv_data ? (int)per : 0;
	}
}

int rv_build_wrs(struct rv_stream *s)
{
	bool atomic = !rv_responder(s) && rp_op_is_atomic(s->base.spec.op);
	uint32_t n = rv_nsends(s);

	s->wr = calloc(n, sizeof(*s->wr));
	s->sge = calloc(n, sizeof(*s->sge));
	if (s->srq) { /* --srq: its receives, built and posted */
		rv_srq_wrs(s->srq, &s->rwr, &s->rsge);
	} else {
		s->rwr = calloc(s->nrecv, sizeof(*s->rwr));
		s->rsge = calloc((size_t)s->nrecv * (rv_ud(s) ? 2 : 1),
				 sizeof(*s->rsge));
	}
	if (atomic) /* the old value each slot's next atomic returns */
		s->atom_next = calloc(s->max_depth, sizeof(*s->atom_next));
	if (!s->wr || !s->sge || !s->rwr || !s->rsge ||
	    (atomic && !s->atom_next))
		return rp_stream_fail(&s->base, -ENOMEM,
				      "out of memory for work requests");
	rv_build_sends(s);
	if (!s->srq)
		rv_build_recvs(s);
	else if (s->op->recv_data) /* a send's echo: from the SRQ's slot */
		s->sge[0].lkey = rv_srq_lkey(s->srq);
	return 0;
}

/* Responder: post every receive, before the connection is made. */
int rv_post_recvs(struct rv_stream *s)
{
	struct ibv_recv_wr *bad;
	uint32_t i;
	int ret;

	for (i = 0; i < s->nrecv; i++)
		s->rwr[i].next = i + 1 < s->nrecv ? &s->rwr[i + 1] : NULL;
	ret = ibv_post_recv(s->qp, s->rwr, &bad);
	return ret ? rv_call_failed(s, "ibv_post_recv", ret) : 0;
}

/*
 * The set_point op: the next phases move @size_bytes per operation with at
 * most @depth in flight; operation seq then uses slot seq % @depth (of the
 * stride set up), on both ends. Nothing is in flight (the contract), so
 * the sends may be rebuilt; remote addresses do not change. What the slots
 * hold stays valid: atomics' counters per slot, read's prefilled pattern
 * (the same for any prefix), a write responder's slot 0, zeroed whole
 * after every phase (serve.c).
 */
int rv_set_point(struct rp_stream *bs, uint64_t size_bytes, uint32_t depth)
{
	struct rv_stream *s = rv_of(bs);

	if (!size_bytes || size_bytes > s->slot_bytes || !depth ||
	    depth > s->max_depth)
		return rp_stream_fail(bs, -EINVAL,
				      "point of %" PRIu64 " bytes at depth %u: "
				      "the stream was set up for 1 to %" PRIu64
				      " bytes at depth 1 to %u",
				      size_bytes, depth, s->slot_bytes,
				      s->max_depth);
	if (rp_op_is_atomic(bs->spec.op) && size_bytes != s->slot_bytes)
		return rp_stream_fail(bs, -EINVAL,
				      "point of %" PRIu64 " bytes: atomics "
				      "move %" PRIu64 " bytes",
				      size_bytes, s->slot_bytes);
	s->size = size_bytes;
	s->depth = depth;
	bs->spec.size_bytes = size_bytes;
	bs->spec.queue_depth = depth;
	rv_build_sends(s);
	return 0;
}
