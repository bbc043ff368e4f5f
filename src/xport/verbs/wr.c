// SPDX-License-Identifier: MIT
/*
 * Work requests, built once and reused: the client's one send per slot,
 * the server's one echo; the receives of either side.
 */
#include <errno.h>
#include <stdlib.h>

#include "xport/verbs/verbs.h"

static enum ibv_wr_opcode rv_opcode(const struct rv_stream *s)
{
	if (s->base.spec.verify && !s->server)
		return s->op->verify_opcode;
	return s->op->opcode;
}

static unsigned int rv_send_flags(const struct rv_stream *s)
{
	if (s->op->can_inline && s->size <= s->inline_max)
		return IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	return IBV_SEND_SIGNALED;
}

static void rv_build_sends(struct rv_stream *s, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		s->sge[i].addr = (uintptr_t)(s->buf + i * s->size);
		s->sge[i].length = (uint32_t)s->size;
		s->sge[i].lkey = s->mr->lkey;
		s->wr[i].sg_list = &s->sge[i];
		s->wr[i].num_sge = 1;
		s->wr[i].opcode = rv_opcode(s);
		s->wr[i].send_flags = rv_send_flags(s);
	}
}

/* Receives: a send lands in a slot each (server) or slot 1 (client echo);
 * a write_imm's receive takes only the immediate. */
static void rv_build_recvs(struct rv_stream *s)
{
	uint32_t i, slot;

	for (i = 0; i < s->nrecv; i++) {
		slot = s->server ? i : 1;
		s->rsge[i].addr = (uintptr_t)(s->buf + slot * s->size);
		s->rsge[i].length = (uint32_t)s->size;
		s->rsge[i].lkey = s->mr->lkey;
		s->rwr[i].wr_id = i;
		s->rwr[i].sg_list = &s->rsge[i];
		s->rwr[i].num_sge = s->op->recv_data ? 1 : 0;
	}
}

int rv_build_wrs(struct rv_stream *s)
{
	bool atomic = !s->server && rp_op_is_atomic(s->base.spec.op);
	uint32_t n = s->server ? 1 : s->depth;

	s->wr = calloc(n, sizeof(*s->wr));
	s->sge = calloc(n, sizeof(*s->sge));
	s->rwr = calloc(s->nrecv, sizeof(*s->rwr));
	s->rsge = calloc(s->nrecv, sizeof(*s->rsge));
	if (atomic) /* the old value each slot's next atomic returns */
		s->atom_next = calloc(s->depth, sizeof(*s->atom_next));
	if (!s->wr || !s->sge || !s->rwr || !s->rsge ||
	    (atomic && !s->atom_next))
		return rp_stream_fail(&s->base, -ENOMEM,
				      "out of memory for work requests");
	rv_build_sends(s, n);
	rv_build_recvs(s);
	return 0;
}

/* Server: post every receive, before the connection is accepted. */
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
