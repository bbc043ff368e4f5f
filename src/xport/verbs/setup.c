// SPDX-License-Identifier: MIT
/*
 * Everything that needs the device, after the route and before the
 * connection: the device and port asked for, its limits, the protection
 * domain, completion queues, queue pair and the one registered buffer.
 */
#include <errno.h>
#include <string.h>

#include "xport/verbs/verbs.h"

static int rv_check_device(struct rv_stream *s)
{
	const char *name = ibv_get_device_name(s->id->verbs->device);

	if (s->opts.device[0] && strcmp(s->opts.device, name) != 0)
		return rp_stream_fail(
			&s->base, -ENODEV,
			"rdma_cm resolved the address to device %s, but device "
			"%s was asked for: use an address of %s",
			name, s->opts.device, s->opts.device);
	if (s->opts.ib_port && s->opts.ib_port != s->id->port_num)
		return rp_stream_fail(
			&s->base, -ENODEV,
			"rdma_cm resolved the address to %s port %u, but port "
			"%d was asked for",
			name, s->id->port_num, s->opts.ib_port);
	return 0;
}

/* The responder keeps enough receives posted that a sender does not run
 * into "receiver not ready" while the responder is off the CPU for a
 * moment. Sized for the setup point, the largest. */
static uint32_t rv_responder_recvs(const struct rv_stream *s, uint32_t max_wr)
{
	uint64_t n = (uint64_t)s->max_depth + RV_RECV_MARGIN;
	uint64_t more = RV_RECV_BYTES / s->slot_bytes;

	if (more > RV_RECV_MAX)
		more = RV_RECV_MAX;
	if (more > n)
		n = more;
	return (uint32_t)(n > max_wr ? max_wr : n);
}

static void rv_queue_sizes(struct rv_stream *s, uint32_t max_wr)
{
	bool recv = s->op->receives;

	if (rv_responder(s)) {
		s->sq_size = RV_RESPONDER_SQ;
		s->nrecv = recv ? rv_responder_recvs(s, max_wr) : 1;
		/* --srq: its receives (its CQ may hold a completion of each) */
		if (s->srq)
			s->nrecv = rv_srq_size(s->srq);
	} else {
		/* room for the unsignaled pings of the latency phase, which
		 * may hold their slots until the next completion is reaped */
		s->sq_size = s->max_depth + RV_PING_SIGNAL;
		s->nrecv = recv ? RV_INITIATOR_RQ : 1;
	}
}

static uint8_t rv_min_atom(int dev)
{
	return (uint8_t)(dev < RV_RD_ATOMIC_MAX ? dev : RV_RD_ATOMIC_MAX);
}

static int rv_query_limits(struct rv_stream *s)
{
	struct ibv_device_attr a;
	int ret = ibv_query_device(s->id->verbs, &a);

	if (ret)
		return rv_call_failed(s, "ibv_query_device", ret);
	ret = rv_caps_check(s->id->verbs, s->id->port_num, s->base.spec.op,
			    &s->base.err);
	if (ret)
		return ret;
	s->no_imm = s->id->verbs->device->transport_type == IBV_TRANSPORT_IWARP;
	ret = rv_qp_check(s->id->verbs, s->base.spec.qp, &s->base.err);
	if (ret)
		return ret;
	rv_queue_sizes(s, (uint32_t)a.max_qp_wr);
	if (s->sq_size > (uint32_t)a.max_qp_wr ||
	    (rv_responder(s) && s->op->receives && !s->srq &&
	     s->nrecv < s->max_depth) ||
	    s->sq_size + 1 > (uint32_t)a.max_cqe ||
	    s->nrecv + 1 > (uint32_t)a.max_cqe)
		return rp_stream_fail(&s->base, -EINVAL,
				      "queue depth %u exceeds the device's "
				      "limits (%d work requests, %d "
				      "completions)",
				      s->max_depth, a.max_qp_wr, a.max_cqe);
	/* Both directions are offered whatever the role: rdma_cm applies
	 * each side's own offer to its QP on the active side, and a 0 there
	 * leaves reads and atomics waiting forever (seen on rxe). */
	s->rd_atom = rv_min_atom(a.max_qp_rd_atom);
	s->init_atom = rv_min_atom(a.max_qp_init_rd_atom);
	if (s->base.spec.qp != RP_QP_RC) /* no reads, no atomics */
		s->rd_atom = s->init_atom = 0;
	if (rv_ud(s)) /* one packet a message */
		return rv_ud_mtu(s->id->verbs, s->id->port_num, s->slot_bytes,
				 &s->mtu_bytes, &s->base.err);
	return 0;
}

/* Both CQs report to the completion channel, if --wait event made one. */
static int rv_create_cqs(struct rv_stream *s)
{
	s->scq = ibv_create_cq(s->id->verbs, (int)s->sq_size + 1, NULL,
			       s->cchan, 0);
	if (!s->scq)
		return rv_fail(&s->base.err, "ibv_create_cq (send)");
	s->rcq = ibv_create_cq(s->id->verbs, (int)s->nrecv + 1, NULL, s->cchan,
			       0);
	if (!s->rcq)
		return rv_fail(&s->base.err, "ibv_create_cq (receive)");
	return 0;
}

/* Automatic inline: ask for RV_INLINE_AUTO, take less if refused. */
static int rv_create_qp(struct rv_stream *s)
{
	bool autoinl = s->opts.inline_bytes < 0;
	uint32_t want =
		autoinl ? RV_INLINE_AUTO : (uint32_t)s->opts.inline_bytes;
	struct ibv_qp_init_attr a;
	/* --sl, --flow-label, --mtu: iw_cm moves an iWARP QP itself, and TCP
	 * has none of them; an MTU over the port's */
	int ret = rv_path_dev_check(s->id->verbs, s->id->port_num,
				    &s->base.spec, &s->base.err);

	if (ret)
		return ret;
	for (;;) {
		memset(&a, 0, sizeof(a));
		a.send_cq = s->scq;
		a.recv_cq = s->rcq;
		a.qp_type = s->base.spec.qp == RP_QP_UC	  ? IBV_QPT_UC
			    : s->base.spec.qp == RP_QP_UD ? IBV_QPT_UD
							  : IBV_QPT_RC;
		a.cap.max_send_wr = s->sq_size;
		a.cap.max_recv_wr = s->srq ? 0 : s->nrecv;
		a.cap.max_send_sge = 1;
		a.cap.max_recv_sge = s->srq ? 0 : rv_ud(s) ? 2 : 1;
		a.srq = s->srq ? rv_srq_queue(s->srq) : NULL;
		a.cap.max_inline_data = want;
		if (!rv_hand_path(s) && rdma_create_qp(s->id, s->pd, &a) == 0)
			break;
		if (rv_hand_path(s) && !(ret = rv_path_create_qp(s, &a)))
			break;
		if (s->qp) /* ours, and it did not reach INIT */
			return ret;
		if (!autoinl || !want)
			return rv_fail(&s->base.err,
				       rv_hand_path(s) ? "ibv_create_qp"
						       : "rdma_create_qp");
		want = want > 32 ? want / 2 : 0;
	}
	if (!s->own_qp)
		s->qp = s->id->qp;
	s->inline_max = a.cap.max_inline_data;
	if (!autoinl && s->inline_max > want)
		s->inline_max = want;
	return 0;
}

uint64_t rv_span_slots(const struct rv_stream *s, enum rv_span span)
{
	const uint64_t slots[] = {
		[RV_SPAN_NONE] = 0,
		[RV_SPAN_ECHO] = 2,
		[RV_SPAN_DEPTH] = s->max_depth,
		[RV_SPAN_DEPTH2] = s->max_depth > 2 ? s->max_depth : 2,
		[RV_SPAN_RECVS] = s->nrecv,
	};

	return slots[span];
}

/* The buffer, of --mem's kind, with the least access the test needs
 * (DESIGN.md, "Failure and safety"): page-aligned and zeroed. */
static int rv_create_buffer(struct rv_stream *s)
{
	const struct rv_side *side = rv_side(s);
	enum rp_mem_kind kind = s->base.spec.mem;
	int access = side->access, err;
	size_t i;

	if (kind == RP_MEM_ODP) {
		err = rv_odp_check(s->id->verbs, s->base.spec.op, &s->base.err);
		if (err)
			return err;
		access |= IBV_ACCESS_ON_DEMAND;
	}
	/* --srq: sends land in the shared queue's slots, not ours */
	s->buf_len = (s->srq && side->slots == RV_SPAN_RECVS
			      ? 1
			      : rv_span_slots(s, side->slots)) *
		     s->slot_bytes;
	s->grh_off = s->buf_len; /* UD: a GRH area per receive, after */
	if (rv_ud(s))
		s->buf_len += (size_t)s->nrecv * RV_GRH_BYTES;
	err = rp_mem_map(&s->mem, kind, s->mem_path, s->buf_len, &s->base.err);
	if (err)
		return err;
	s->buf = s->mem.p;
	s->mr = ibv_reg_mr(s->pd, s->buf, s->buf_len, access);
	if (!s->mr)
		return rv_fail(
			&s->base.err,
			kind == RP_MEM_HOST
				? "ibv_reg_mr (is ulimit -l large enough?)"
			: kind == RP_MEM_HUGE ? "ibv_reg_mr of huge pages"
			: kind == RP_MEM_FILE
				? "ibv_reg_mr of a file's pages"
				: "ibv_reg_mr with IBV_ACCESS_ON_DEMAND");
	/* the pattern is the same for any prefix: good for every point */
	if (rv_responder(s) && s->op->prefill && s->base.spec.verify)
		for (i = 0; i < s->max_depth; i++)
			rp_payload_fill(s->buf + i * s->slot_bytes,
					s->slot_bytes, i);
	return 0;
}

/* Everything before rdma_accept or rdma_connect, whichever end this is: a
 * responder's receives are posted here (the QP is in INIT), so that the
 * initiator's first send finds them. */
int rv_setup(struct rv_stream *s)
{
	int ret;

	ret = rv_check_device(s);
	if (!ret)
		ret = rv_query_limits(s);
	if (ret)
		return ret;
	s->pd = s->srq ? rv_srq_pd(s->srq) : ibv_alloc_pd(s->id->verbs);
	if (!s->pd)
		return rv_fail(&s->base.err, "ibv_alloc_pd");
	ret = rv_events_create(s);
	if (!ret)
		ret = rv_create_cqs(s);
	if (!ret)
		ret = rv_create_qp(s);
	if (!ret)
		ret = rv_create_buffer(s);
	if (!ret)
		ret = rv_credits_setup(s);
	if (!ret)
		ret = rv_build_wrs(s);
	if (!ret && rv_responder(s) && s->op->receives && !s->srq)
		ret = rv_post_recvs(s); /* --srq: posted when it was made */
	if (!ret && s->cchan && s->op->event_note)
		rp_stream_note(&s->base, "%s", s->op->event_note);
	return ret;
}
