// SPDX-License-Identifier: MIT
/*
 * --qp ud: unreliable datagrams, send alone. What differs from RC and UC:
 *
 *   ids        rdma_cm's UDP port space: rdma_create_qp moves the QP to
 *              RTS itself (qkey RDMA_UDP_QKEY); rdma_connect is a SIDR
 *              request carrying the token, rdma_accept its reply with the
 *              server's QP number. The client's ESTABLISHED brings the
 *              path as an address handle's attributes (rdma_cm's UD path):
 *              the client's sends go through that handle. The server has
 *              no path from the request; its responder answers pings
 *              through a handle made from the first ping's completion and
 *              GRH (ibv_init_ah_from_wc), to the QP number the peer's
 *              information names: a datagram from any other QP is a stray,
 *              neither counted nor answered (rv_ud_stray).
 *   receives   a receive starts with the 40-byte GRH the device writes
 *              before every datagram: two scatter entries, the GRH into a
 *              40-byte area of its own (after the slots), the message into
 *              its slot. A completion's byte_len counts the GRH: the
 *              message is byte_len - 40 (rv_recv_len).
 *   sizes      a message is one packet: at most the port's active MTU,
 *              the path's on RoCE (rv_ud_mtu).
 *   loss       nothing is acknowledged or retried: a send completes once
 *              it has left, a datagram that finds no receive posted is
 *              dropped. The responder counts what arrived, the client
 *              reports sent against arrived. A ping with no echo within
 *              RV_UD_PING_MS is lost (RP_PING_LOST to the engine); the
 *              echo carries the ping's seq as its immediate, so a late one
 *              is told from the next ping's and dropped.
 *   close      nothing to disconnect.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "core/json.h"
#include "platform/clock.h"
#include "xport/verbs/verbs.h"

int rv_ud_mtu(struct ibv_context *ctx, uint8_t port, uint64_t size,
	      int *mtu_bytes, struct rp_err *why)
{
	struct ibv_port_attr pa;
	int mtu;

	if (ibv_query_port(ctx, port, &pa))
		return rv_fail(why, "ibv_query_port");
	mtu = rv_mtu_bytes(pa.active_mtu);
	if (mtu_bytes)
		*mtu_bytes = mtu;
	if (size <= (uint64_t)mtu)
		return 0;
	return rp_errf(why, -EMSGSIZE,
		       "--qp ud: a UD message is one packet: %llu bytes is "
		       "over the path MTU of %d bytes (device %s port %u); "
		       "use -S %d or less",
		       (unsigned long long)size, mtu,
		       ibv_get_device_name(ctx->device), port, mtu);
}

/* Aim every send at the peer's QP through @s->ah. */
static void rv_ud_aim(struct rv_stream *s, uint32_t qpn, uint32_t qkey)
{
	uint32_t i, n = rv_responder(s) ? 1 : s->max_depth;

	for (i = 0; i < n; i++) {
		s->wr[i].wr.ud.ah = s->ah;
		s->wr[i].wr.ud.remote_qpn = qpn;
		s->wr[i].wr.ud.remote_qkey = qkey;
	}
}

/* The client: a SIDR request with the token; ESTABLISHED gives the path
 * (address handle attributes), the server's QP number and qkey. */
int rv_ud_connect(struct rv_stream *s, const char *token, uint64_t deadline_ns)
{
	struct rdma_conn_param cp = {
		.private_data = token,
		.private_data_len = (uint8_t)strlen(token),
	};
	struct rdma_cm_event *ev;
	struct rdma_ud_param ud;
	int ret;

	if (rdma_connect(s->id, &cp))
		return rv_fail(&s->base.err, "rdma_connect (a UD id)");
	ret = rv_get_event(s->ch, deadline_ns, &ev);
	if (ret)
		return rp_stream_fail(&s->base, ret, "connecting: %s",
				      ret == -ETIMEDOUT ? "timed out"
							: strerror(-ret));
	if (ev->event != RDMA_CM_EVENT_ESTABLISHED) {
		ret = rp_stream_fail(
			&s->base, -ECONNREFUSED,
			"connecting: got %s (status %d)%s",
			rdma_event_str(ev->event), ev->status,
			ev->event == RDMA_CM_EVENT_UNREACHABLE ||
					ev->event == RDMA_CM_EVENT_REJECTED
				? ": no listener or a wrong token"
				: "");
		rdma_ack_cm_event(ev);
		return ret;
	}
	ud = ev->param.ud;
	rdma_ack_cm_event(ev);
	rv_path_ah(s, &ud.ah_attr); /* --sl, --flow-label */
	rv_path_took(s, &ud.ah_attr);
	s->ah = ibv_create_ah(s->pd, &ud.ah_attr);
	if (!s->ah)
		return rv_fail(&s->base.err, "ibv_create_ah (the UD path)");
	if (ud.ah_attr.is_global)
		s->gid_index = ud.ah_attr.grh.sgid_index;
	s->ud_qpn = ud.qp_num;
	rv_ud_aim(s, ud.qp_num, ud.qkey);
	s->connected = true;
	return rv_ud_mtu(s->id->verbs, s->id->port_num, 0, &s->mtu_bytes,
			 &s->base.err);
}

/* The server: the SIDR reply (the QP number is the id's QP's). No
 * ESTABLISHED comes on this side. */
int rv_ud_accept(struct rv_stream *s)
{
	struct rdma_conn_param cp = { 0 };

	if (rdma_accept(s->id, &cp))
		return rv_fail(&s->base.err, "rdma_accept (a UD id)");
	s->connected = true;
	return rv_ud_mtu(s->id->verbs, s->id->port_num, 0, &s->mtu_bytes,
			 &s->base.err);
}

/* What the peer needs: our QP number (its datagrams from any other QP
 * are strays, rv_ud_stray). */
int rv_ud_info(const struct rv_stream *s, cJSON *info)
{
	if (!rv_ud(s))
		return 0;
	return cJSON_AddNumberToObject(info, "qpn", s->qp->qp_num) ? 0
								   : -ENOMEM;
}

/* The peer's QP number: the client's, which the server's responder
 * answers alone; the server's, which must be the one rdma_cm gave. */
int rv_ud_peer(struct rv_stream *s, const cJSON *info)
{
	uint64_t qpn;

	if (!rv_ud(s))
		return 0;
	if (rp_json_u64(info, "qpn", 0xffffff, &qpn))
		return rp_stream_fail(&s->base, -EPROTO,
				      "--qp ud: the peer's qpn is missing or "
				      "malformed");
	if (s->ah && qpn != s->ud_qpn)
		return rp_stream_fail(&s->base, -EPROTO,
				      "--qp ud: the peer says QP %u, rdma_cm "
				      "said %u",
				      (unsigned int)qpn, s->ud_qpn);
	s->ud_qpn = (uint32_t)qpn;
	return 0;
}

/* A datagram from a QP other than the peer's: the qkey rdma_cm uses is
 * everyone's, and a stranger's datagram must neither count nor redirect
 * the echoes. Noted once. */
bool rv_ud_stray(struct rv_stream *s, const struct ibv_wc *wc)
{
	if (!rv_ud(s) || wc->src_qp == s->ud_qpn)
		return false;
	if (!s->ud_strays++)
		rp_stream_note(&s->base,
			       "--qp ud: dropped a datagram from QP %u, not "
			       "the peer's (%u)",
			       wc->src_qp, s->ud_qpn);
	return true;
}

/* The responder, before an echo: a handle back to where @wc came from
 * (the peer's QP: rv_ud_stray), made from its GRH once. */
int rv_ud_reply_to(struct rv_stream *s, const struct ibv_wc *wc)
{
	struct ibv_grh *grh =
		(struct ibv_grh *)(uintptr_t)s->rsge[2 * wc->wr_id].addr;
	struct ibv_wc w = *wc; /* the call's argument is not const */
	struct ibv_ah_attr ah;

	if (s->ah)
		return 0;
	if (ibv_init_ah_from_wc(s->id->verbs, s->id->port_num, &w, grh, &ah))
		return rv_fail(&s->base.err,
			       "ibv_init_ah_from_wc (an echo's path)");
	rv_path_ah(s, &ah); /* --sl, --flow-label */
	rv_path_took(s, &ah);
	s->ah = ibv_create_ah(s->pd, &ah);
	if (!s->ah)
		return rv_fail(&s->base.err, "ibv_create_ah (an echo's path)");
	rv_ud_aim(s, s->ud_qpn, RDMA_UDP_QKEY);
	return 0;
}

/* The initiator's echo receive, if none is posted (one lost stays). */
static int rv_ud_echo_recv(struct rv_stream *s)
{
	struct ibv_recv_wr *bad;
	int ret;

	if (s->ud_echo_posted)
		return 0;
	s->rwr[0].next = NULL;
	ret = ibv_post_recv(s->qp, &s->rwr[0], &bad);
	if (ret)
		return rv_call_failed(s, "ibv_post_recv", ret);
	s->ud_echo_posted = true;
	return 0;
}

/* One look at the CQs: the send's completion, the echo of @imm (a late
 * echo of an earlier ping is dropped, its receive posted again). */
static int rv_ud_reap(struct rv_stream *s, uint32_t imm, bool *sent, bool *got)
{
	struct ibv_wc wc;
	int n;

	if (!*sent) {
		n = ibv_poll_cq(s->scq, 1, &wc);
		if (n < 0)
			return rv_cq_failed(s);
		if (n && wc.status != IBV_WC_SUCCESS)
			return rv_wc_failed(s, &wc);
		*sent = n > 0;
	}
	n = ibv_poll_cq(s->rcq, 1, &wc);
	if (n < 0)
		return rv_cq_failed(s);
	if (!n)
		return 0;
	s->ud_echo_posted = false;
	if (wc.status != IBV_WC_SUCCESS)
		return rv_wc_failed(s, &wc);
	if (!rv_ud_stray(s, &wc) && (wc.wc_flags & IBV_WC_WITH_IMM) &&
	    wc.imm_data == imm) {
		*got = true;
		return 0;
	}
	return rv_ud_echo_recv(s); /* late or a stray: not this ping's */
}

/*
 * A UD ping: the send (with its seq as immediate) and the responder's echo
 * of it, spinning or (--wait event) asleep; no echo by RV_UD_PING_MS:
 * RP_PING_LOST, once the send itself completed (a send that does not
 * complete by @deadline_ns is the stall it is anywhere).
 */
int rv_ping_ud(struct rv_stream *s, uint64_t seq, uint64_t deadline_ns)
{
	struct ibv_send_wr *w = rv_prep(s, 0, seq);
	uint32_t imm = w->imm_data;
	bool sent = false, got = false;
	unsigned int spins = 0;
	uint64_t now, lose = 0; /* set at the first look at the clock */
	int ret;

	ret = rv_ud_echo_recv(s);
	if (ret)
		return ret;
	w->opcode = IBV_WR_SEND_WITH_IMM;
	ret = rv_post_send(s, w);
	w->opcode = s->base.spec.verify ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND;
	while (!ret) {
		ret = rv_ud_reap(s, imm, &sent, &got);
		if (ret || (sent && got))
			break;
		/* spinning, the clock every RV_CLOCK_CHECK turns: a read can
		 * be a system call, and one on the way to the echo delays it */
		if (!s->cchan && ++spins % RV_CLOCK_CHECK)
			continue;
		now = rp_clock_ns();
		if (!lose)
			lose = now + RV_UD_PING_MS * 1000000ULL;
		if (now >= (sent ? lose : deadline_ns))
			return sent ? RP_PING_LOST : -ETIMEDOUT;
		if (!s->cchan)
			continue;
		ret = rv_arm_cqs(s, (sent ? 0 : RV_ARMED_SEND) | RV_ARMED_RECV);
		if (!ret) /* all armed already: sleep */
			ret = rv_sleep(s, sent ? lose : deadline_ns);
		if (ret == -ETIMEDOUT || ret > 0) /* look again */
			ret = 0;
	}
	if (!ret && s->base.spec.verify &&
	    rp_payload_check(s->buf + s->slot_bytes, s->size, seq))
		s->verify_errors++;
	return ret;
}
