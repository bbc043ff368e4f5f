// SPDX-License-Identifier: MIT
/*
 * --srq: the server's responders of one test take their receives from one
 * shared receive queue. The listener makes it at the first responder's
 * connection request, on that request's device: a protection domain the
 * streams share (their QPs, MRs and the SRQ must be of one PD), the
 * receive slots and their MR (a send's bytes land there; write_imm's
 * receives take no bytes), the SRQ with every receive posted, and its
 * limit armed. Each stream holds a reference, the listener one more; the
 * last one out frees it, after its own QP.
 *
 * Each receive (rwr[i], rsge[i]: slot i) is owned by one stream at a
 * time, from its completion on that stream's CQ to its repost, so streams
 * on different threads chain and repost their own (ibv_post_srq_recv is
 * thread-safe).
 *
 * The limit: the device raises IBV_EVENT_SRQ_LIMIT_REACHED, once, when
 * fewer receives than it are posted, and the SRQ must be armed again. It
 * is armed at a sixteenth of the receives (at least one): the responders
 * are reposting too slowly for the senders, which are about to meet
 * "receiver not ready". The device's asynchronous events are read without
 * blocking (the context's async_fd made non-blocking) every
 * RV_SRQ_POLL_BATCHES batches a responder serves and at the end of each
 * phase, by whichever responder gets the lock; events that are not the
 * limit's are acknowledged and left.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "xport/verbs/verbs.h"

struct rv_srq {
	atomic_int refs;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_srq *srq;
	struct ibv_mr *mr;
	struct rp_mem mem;
	uint32_t n;	/* receives */
	uint32_t limit; /* armed at */
	struct ibv_recv_wr *rwr;
	struct ibv_sge *rsge;
	pthread_mutex_t lock; /* the async events */
	atomic_uint_fast64_t limit_events;
};

/* The receives: --srq-size's, or what the streams' operations in flight
 * can take and one margin for all, at least what one stream keeps for
 * small messages (setup.c's rule for a stream of its own). */
static uint32_t rv_srq_want(const struct rp_spec *spec)
{
	uint64_t n =
		(uint64_t)spec->streams * spec->queue_depth + RV_RECV_MARGIN;
	uint64_t small = RV_RECV_BYTES / spec->size_bytes;

	if (spec->srq_size)
		return spec->srq_size;
	if (small > RV_RECV_MAX)
		small = RV_RECV_MAX;
	return (uint32_t)(n > small ? n : small);
}

static int rv_srq_arm(struct rv_srq *q)
{
	struct ibv_srq_attr a = { .srq_limit = q->limit };

	return ibv_modify_srq(q->srq, &a, IBV_SRQ_LIMIT);
}

static void rv_srq_free(struct rv_srq *q)
{
	if (q->srq)
		ibv_destroy_srq(q->srq);
	if (q->mr)
		ibv_dereg_mr(q->mr);
	rp_mem_unmap(&q->mem);
	if (q->pd)
		ibv_dealloc_pd(q->pd);
	pthread_mutex_destroy(&q->lock);
	free(q->rwr);
	free(q->rsge);
	free(q);
}

/* The slots, their work requests, every one posted. */
static int rv_srq_fill(struct rv_srq *q, const struct rp_spec *spec, bool data,
		       struct rp_err *e)
{
	struct ibv_recv_wr *bad;
	uint32_t i;
	int ret;

	q->rwr = calloc(q->n, sizeof(*q->rwr));
	q->rsge = calloc(q->n, sizeof(*q->rsge));
	if (!q->rwr || !q->rsge)
		return rp_errf(e, -ENOMEM, "out of memory");
	if (data) {
		ret = rp_mem_map(&q->mem, spec->mem, NULL,
				 (size_t)q->n * spec->size_bytes, e);
		if (ret)
			return ret;
		q->mr = ibv_reg_mr(q->pd, q->mem.p, q->mem.len,
				   IBV_ACCESS_LOCAL_WRITE);
		if (!q->mr)
			return rv_fail(e, "ibv_reg_mr (the SRQ's receives)");
	}
	for (i = 0; i < q->n; i++) {
		q->rsge[i].addr = data ? (uintptr_t)((uint8_t *)q->mem.p +
						     i * spec->size_bytes)
				       : 0;
		q->rsge[i].length = (uint32_t)spec->size_bytes;
		q->rsge[i].lkey = data ? q->mr->lkey : 0;
		q->rwr[i].wr_id = i;
		q->rwr[i].sg_list = &q->rsge[i];
		q->rwr[i].num_sge = data ? 1 : 0;
		q->rwr[i].next = i + 1 < q->n ? &q->rwr[i + 1] : NULL;
	}
	ret = ibv_post_srq_recv(q->srq, q->rwr, &bad);
	return ret ? rp_errf(e, -ret, "ibv_post_srq_recv: %s", strerror(ret))
		   : 0;
}

static int rv_srq_make(struct ibv_context *ctx, const struct rp_spec *spec,
		       bool data, struct rv_srq **out, struct rp_err *e)
{
	struct ibv_srq_init_attr ia = { 0 };
	struct ibv_device_attr da;
	struct rv_srq *q;
	int ret, fl;

	ret = rv_srq_check(ctx, true, e);
	if (ret)
		return ret;
	ret = ibv_query_device(ctx, &da);
	if (ret)
		return rp_errf(e, -ret, "ibv_query_device: %s", strerror(ret));
	if (!da.max_srq || da.max_srq_wr < 2)
		return rp_errf(e, -EOPNOTSUPP,
			       "--srq: device %s has no shared receive queues",
			       ibv_get_device_name(ctx->device));
	q = calloc(1, sizeof(*q));
	if (!q)
		return rp_errf(e, -ENOMEM, "out of memory");
	pthread_mutex_init(&q->lock, NULL);
	atomic_init(&q->refs, 1);
	q->ctx = ctx;
	q->n = rv_srq_want(spec);
	if (!spec->srq_size && q->n > (uint32_t)da.max_srq_wr)
		q->n = (uint32_t)da.max_srq_wr;
	q->limit = q->n / 16 ? q->n / 16 : 1;
	if (q->n > (uint32_t)da.max_srq_wr || q->limit >= q->n) {
		ret = rp_errf(e, -EINVAL,
			      "--srq: %u receives; device %s takes 2 to %d",
			      q->n, ibv_get_device_name(ctx->device),
			      da.max_srq_wr);
		goto out;
	}
	q->pd = ibv_alloc_pd(ctx);
	if (!q->pd) {
		ret = rv_fail(e, "ibv_alloc_pd (the SRQ's)");
		goto out;
	}
	ia.attr.max_wr = q->n;
	ia.attr.max_sge = 1;
	q->srq = ibv_create_srq(q->pd, &ia);
	if (!q->srq) {
		ret = rv_fail(e, "ibv_create_srq");
		goto out;
	}
	ret = rv_srq_fill(q, spec, data, e);
	if (!ret && rv_srq_arm(q))
		ret = rv_fail(e, "ibv_modify_srq (arming its limit)");
	fl = ret ? 0 : fcntl(ctx->async_fd, F_GETFL);
	if (!ret &&
	    (fl < 0 || fcntl(ctx->async_fd, F_SETFL, fl | O_NONBLOCK) < 0))
		ret = rv_fail(e, "fcntl on the device's async events");
	if (!ret) {
		*out = q;
		return 0;
	}
out:
	rv_srq_free(q);
	return ret;
}

int rv_srq_join(struct rv_listener *l, struct rv_stream *s)
{
	struct ibv_context *ctx = s->id->verbs;
	int ret;

	if (!l->srq) {
		ret = rv_srq_make(ctx, &l->base.spec, s->op->recv_data, &l->srq,
				  &s->base.err);
		if (ret)
			return ret;
	}
	if (l->srq->ctx != ctx)
		return rp_stream_fail(&s->base, -EXDEV,
				      "--srq: a stream arrived on device %s, "
				      "the shared receive queue is on %s",
				      ibv_get_device_name(ctx->device),
				      ibv_get_device_name(l->srq->ctx->device));
	atomic_fetch_add(&l->srq->refs, 1);
	s->srq = l->srq;
	return 0;
}

void rv_srq_put(struct rv_srq *q)
{
	if (q && atomic_fetch_sub(&q->refs, 1) == 1)
		rv_srq_free(q);
}

struct ibv_pd *rv_srq_pd(const struct rv_srq *q)
{
	return q->pd;
}

struct ibv_srq *rv_srq_queue(const struct rv_srq *q)
{
	return q->srq;
}

uint32_t rv_srq_size(const struct rv_srq *q)
{
	return q->n;
}

uint32_t rv_srq_lkey(const struct rv_srq *q)
{
	return q->mr ? q->mr->lkey : 0;
}

void rv_srq_wrs(const struct rv_srq *q, struct ibv_recv_wr **rwr,
		struct ibv_sge **rsge)
{
	*rwr = q->rwr;
	*rsge = q->rsge;
}

int rv_srq_repost(struct rv_stream *s, struct ibv_recv_wr *head)
{
	struct ibv_recv_wr *bad;
	int ret = ibv_post_srq_recv(s->srq->srq, head, &bad);

	return ret ? rv_call_failed(s, "ibv_post_srq_recv", ret) : 0;
}

/* Read the device's async events that are there: count the limit's and
 * arm it again. Whoever holds the lock does it; the others go on. */
void rv_srq_poll(struct rv_srq *q)
{
	struct ibv_async_event ev;

	if (pthread_mutex_trylock(&q->lock))
		return;
	while (!ibv_get_async_event(q->ctx, &ev)) {
		if (ev.event_type == IBV_EVENT_SRQ_LIMIT_REACHED &&
		    ev.element.srq == q->srq) {
			atomic_fetch_add(&q->limit_events, 1);
			rv_srq_arm(q);
		}
		ibv_ack_async_event(&ev);
	}
	pthread_mutex_unlock(&q->lock);
}

uint64_t rv_srq_limit_events(struct rp_stream *bs)
{
	struct rv_stream *s = rv_of(bs);

	if (!s->srq)
		return 0;
	rv_srq_poll(s->srq);
	return atomic_load(&s->srq->limit_events);
}

int rv_srq_info(const struct rv_stream *s, cJSON *info)
{
	cJSON *o;

	if (!s->srq)
		return 0;
	o = cJSON_AddObjectToObject(info, "srq");
	return o && cJSON_AddNumberToObject(o, "receives", s->srq->n) &&
			       cJSON_AddNumberToObject(o, "limit",
						       s->srq->limit)
		       ? 0
		       : -ENOMEM;
}
