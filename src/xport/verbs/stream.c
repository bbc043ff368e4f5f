// SPDX-License-Identifier: MIT
/*
 * A stream's life: created for a validated spec, disconnected and freed
 * (what a connection got is noted by cm.c's rv_connected).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xport/verbs/verbs.h"

/* The spec's limits bound what this side allocates. */
int rv_check_spec(const struct rp_spec *spec, struct rp_err *why)
{
	char text[RP_ERR_LEN];
	int ret = rp_spec_validate(spec, text, sizeof(text));

	return ret ? rp_errf(why, ret, "invalid test: %s", text) : 0;
}

/* A stream for @spec (validated: its op indexes rv_ops), this side taking
 * @role; set up for spec's size and depth, which set_point may lower. */
int rv_stream_new(const struct rp_xport_ops *ops, const struct rp_spec *spec,
		  const struct rv_opts *o, enum rp_role role,
		  struct rv_stream **out)
{
	struct rv_stream *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	rp_stream_init(&s->base, ops, spec, role);
	s->op = &rv_ops[spec->op];
	s->opts = *o;
	s->slot_bytes = s->size = spec->size_bytes;
	s->max_depth = s->depth = spec->queue_depth;
	s->gid_index = -1;
	*out = s;
	return 0;
}

/* The QP before its CQs, the CQs before their completion channel (every
 * event taken was acknowledged at once: events.c). */
static void rv_free_verbs(struct rv_stream *s)
{
	if (s->qp && s->own_qp)
		ibv_destroy_qp(s->qp);
	else if (s->qp)
		rdma_destroy_qp(s->id);
	if (s->ah)
		ibv_destroy_ah(s->ah);
	if (s->mr)
		ibv_dereg_mr(s->mr);
	rp_mem_unmap(&s->mem);
	rv_credits_free(s);
	if (s->scq)
		ibv_destroy_cq(s->scq);
	if (s->rcq)
		ibv_destroy_cq(s->rcq);
	rv_events_destroy(s);
	if (s->pd && !s->srq)
		ibv_dealloc_pd(s->pd);
	rv_srq_put(s->srq); /* after the QP and MR of its PD */
}

/* Free whatever @s holds; the verbs objects go before the id (its device). */
void rv_stream_free(struct rv_stream *s)
{
	rv_free_verbs(s);
	if (s->id)
		rdma_destroy_id(s->id);
	if (s->ch)
		rdma_destroy_event_channel(s->ch);
	free(s->wr);
	free(s->sge);
	if (!s->srq) {
		free(s->rwr);
		free(s->rsge);
	}
	free(s->atom_next);
	free(s);
}

void rv_close(struct rp_stream *bs)
{
	struct rv_stream *s;

	if (!bs)
		return;
	s = rv_of(bs);
	if (s->connected && !rv_ud(s)) /* UD: nothing to disconnect */
		rv_disconnect(s);
	rv_stream_free(s);
}
