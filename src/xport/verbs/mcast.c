// SPDX-License-Identifier: MIT
/*
 * --mcast on verbs (xport/mcast.h): an rdma_cm id of the UDP port space
 * resolved from the local address to the group, its UD queue pair
 * (rdma_create_qp takes it to RTS with RDMA_UDP_QKEY), and rdma_join_multicast
 * on the group. The join's event brings the group's address handle attributes,
 * QP number (0xffffff) and qkey: the sender aims every send through them;
 * librdmacm attaches a joined id's QP to the group, so a receiver's posted
 * receives take the group's datagrams. On RoCE the join is the netdev's IP join
 * (IGMP or MLD), and rxe carries each datagram to every QP attached.
 *
 * A receive lands as the 40-byte GRH and the message, one slot each of
 * 40 + size bytes; a receiver waits on a completion channel, the sender
 * polls its send completions.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "platform/clock.h"
#include "xport/mcast.h"
#include "xport/verbs/verbs.h"

#define GRH	  40
#define JOIN_MS	  10000
#define MCAST_QPN 0xffffffu

struct rp_mcast {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_comp_channel *cc; /* a receiver's */
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct ibv_ah *ah;
	uint8_t *buf;
	uint32_t depth, size, slot, inflight;
	uint32_t qpn, qkey;
	int mtu;
	bool sender, joined, qp;
	struct sockaddr_storage group;
	char device[64];
};

static int numeric_addr(const char *text, struct sockaddr_storage *out,
			const char *what, struct rp_err *why)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST }, *res;
	int ret = getaddrinfo(text, NULL, &hints, &res);

	if (ret)
		return rp_errf(why, -EINVAL,
			       "--mcast: %s %s is not an IP "
			       "address: %s",
			       what, text, gai_strerror(ret));
	memcpy(out, res->ai_addr, res->ai_addrlen);
	freeaddrinfo(res);
	return 0;
}

static uint8_t *slot_at(const struct rp_mcast *m, uint32_t i)
{
	return m->buf + (size_t)i * (GRH + m->size);
}

static int post_recv(struct rp_mcast *m, uint32_t i)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)slot_at(m, i),
		.length = GRH + m->size,
		.lkey = m->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 },
			   *bad;

	int ret = ibv_post_recv(m->id->qp, &wr, &bad);

	return ret ? rv_neg(ret) : 0;
}

/* The resources below the join: PD, CQ (a receiver's with its channel),
 * the QP, the slots registered, a receiver's receives posted. */
static int make_qp(struct rp_mcast *m, struct rp_err *why)
{
	struct ibv_context *ctx = m->id->verbs;
	struct ibv_qp_init_attr a = { .qp_type = IBV_QPT_UD, .sq_sig_all = 1 };
	size_t len = (size_t)m->depth * (GRH + m->size);
	uint32_t i;
	int ret;

	m->pd = ibv_alloc_pd(ctx);
	if (!m->pd)
		return rv_fail(why, "ibv_alloc_pd");
	if (!m->sender && !(m->cc = ibv_create_comp_channel(ctx)))
		return rv_fail(why, "ibv_create_comp_channel");
	if (m->cc && fcntl(m->cc->fd, F_SETFL,
			   fcntl(m->cc->fd, F_GETFL) | O_NONBLOCK) < 0)
		return rv_fail(why, "fcntl on the completion channel");
	m->cq = ibv_create_cq(ctx, (int)m->depth + 1, NULL, m->cc, 0);
	if (!m->cq)
		return rv_fail(why, "ibv_create_cq");
	a.send_cq = a.recv_cq = m->cq;
	a.cap.max_send_wr = m->sender ? m->depth : 1;
	a.cap.max_recv_wr = m->sender ? 1 : m->depth;
	a.cap.max_send_sge = a.cap.max_recv_sge = 1;
	if (rdma_create_qp(m->id, m->pd, &a))
		return rv_fail(why, "rdma_create_qp (UD)");
	m->qp = true;
	m->buf = aligned_alloc(4096, (len + 4095) / 4096 * 4096);
	if (!m->buf)
		return rp_errf(why, -ENOMEM, "--mcast: out of memory");
	memset(m->buf, 0, len);
	m->mr = ibv_reg_mr(m->pd, m->buf, len, IBV_ACCESS_LOCAL_WRITE);
	if (!m->mr)
		return rv_fail(why, "ibv_reg_mr");
	for (i = 0; !m->sender && i < m->depth; i++)
		if ((ret = post_recv(m, i)))
			return rp_errf(why, ret, "ibv_post_recv failed: %s",
				       strerror(-ret));
	return 0;
}

static int join(struct rp_mcast *m, struct rp_err *why)
{
	struct rdma_cm_event *ev;
	struct rdma_ud_param ud;
	int ret;

	if (rdma_join_multicast(m->id, (struct sockaddr *)&m->group, m))
		return rv_fail(why, "rdma_join_multicast");
	m->joined = true;
	ret = rv_get_event(m->ch, rp_deadline_ns(JOIN_MS), &ev);
	if (ret)
		return rp_errf(why, ret, "--mcast: joining the group: %s",
			       ret == -ETIMEDOUT ? "timed out"
						 : strerror(-ret));
	if (ev->event != RDMA_CM_EVENT_MULTICAST_JOIN) {
		ret = rp_errf(why, -ENETUNREACH,
			      "--mcast: joining the group: got %s (status "
			      "%d)",
			      rdma_event_str(ev->event), ev->status);
		rdma_ack_cm_event(ev);
		return ret;
	}
	ud = ev->param.ud;
	rdma_ack_cm_event(ev);
	m->ah = ibv_create_ah(m->pd, &ud.ah_attr);
	if (!m->ah)
		return rv_fail(why, "ibv_create_ah (the group)");
	m->qpn = ud.qp_num ? ud.qp_num : MCAST_QPN;
	m->qkey = ud.qkey;
	return 0;
}

int rp_mcast_open(const char *local, const char *group, bool sender,
		  uint32_t depth, uint32_t size, struct rp_mcast **out,
		  struct rp_err *why)
{
	struct rp_mcast *m = calloc(1, sizeof(*m));
	struct sockaddr_storage me;
	int ret;

	if (!m)
		return rp_errf(why, -ENOMEM, "--mcast: out of memory");
	m->sender = sender;
	m->depth = depth ? depth : 1;
	m->size = size < RP_MCAST_HDR ? RP_MCAST_HDR : size;
	ret = numeric_addr(group, &m->group, "group", why);
	if (!ret)
		ret = numeric_addr(local, &me, "local address", why);
	if (!ret)
		ret = rv_channel_create(&m->ch, why);
	if (!ret && rdma_create_id(m->ch, &m->id, m, RDMA_PS_UDP))
		ret = rv_fail(why, "rdma_create_id (UDP port space)");
	/* resolved from the local address to the group, as mckey does: the
	 * id takes the device, and its QP the path, from that */
	if (!ret && rdma_resolve_addr(m->id, (struct sockaddr *)&me,
				      (struct sockaddr *)&m->group, JOIN_MS))
		ret = rv_fail(why, "rdma_resolve_addr (the group)");
	if (!ret)
		ret = rv_expect(m->ch, RDMA_CM_EVENT_ADDR_RESOLVED,
				rp_deadline_ns(JOIN_MS + 1000),
				"--mcast: resolving the group", why);
	if (!ret && !m->id->verbs)
		ret = rp_errf(why, -ENODEV, "--mcast: no RDMA device holds %s",
			      local);
	if (!ret) {
		snprintf(m->device, sizeof(m->device), "%s port %u",
			 ibv_get_device_name(m->id->verbs->device),
			 m->id->port_num);
		ret = rv_qp_check(m->id->verbs, RP_QP_UD, why); /* iWARP */
	}
	if (!ret)
		ret = rv_ud_mtu(m->id->verbs, m->id->port_num, m->size, &m->mtu,
				why);
	if (!ret)
		ret = make_qp(m, why);
	if (!ret)
		ret = join(m, why);
	if (ret) {
		rp_mcast_close(m);
		return ret;
	}
	*out = m;
	return 0;
}

const char *rp_mcast_device(const struct rp_mcast *m)
{
	return m->device;
}

int rp_mcast_mtu(const struct rp_mcast *m)
{
	return m->mtu;
}

int rp_mcast_post(struct rp_mcast *m, uint64_t seq, uint64_t now_ns)
{
	uint32_t i = m->slot, magic = RP_MCAST_MAGIC;
	uint8_t *p = slot_at(m, i);
	struct ibv_sge sge = {
		.addr = (uintptr_t)p,
		.length = m->size,
		.lkey = m->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = seq,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	},
			   *bad;
	int ret;

	if (m->inflight >= m->depth)
		return -EAGAIN;
	memcpy(p, &magic, 4);
	memcpy(p + 8, &seq, 8);
	memcpy(p + 16, &now_ns, 8);
	wr.wr.ud.ah = m->ah;
	wr.wr.ud.remote_qpn = m->qpn;
	wr.wr.ud.remote_qkey = m->qkey;
	ret = ibv_post_send(m->id->qp, &wr, &bad);
	if (ret)
		return rv_neg(ret);
	m->inflight++;
	m->slot = (i + 1) % m->depth;
	return 0;
}

int rp_mcast_reap(struct rp_mcast *m, int timeout_ms)
{
	uint64_t deadline = rp_deadline_ns(timeout_ms);
	struct ibv_wc wc[16];
	int n, i, done = 0;

	for (;;) {
		n = ibv_poll_cq(m->cq, 16, wc);
		if (n < 0)
			return -EIO;
		for (i = 0; i < n; i++) {
			m->inflight--;
			if (wc[i].status != IBV_WC_SUCCESS)
				return -EIO;
		}
		done += n;
		if (done || timeout_ms <= 0 || rp_clock_ns() >= deadline)
			return done;
	}
}

/* Sleep on the completion channel, at most @timeout_ms, unless a
 * completion came in before the CQ was armed (polled again: it would
 * raise no event). Return: 0 (poll the CQ), or -EIO. */
static int wait_cq(struct rp_mcast *m, int timeout_ms)
{
	struct pollfd pfd = { .fd = m->cc->fd, .events = POLLIN };
	struct ibv_cq *cq;
	void *ctx;

	if (ibv_req_notify_cq(m->cq, 0))
		return -EIO;
	if (poll(&pfd, 1, timeout_ms) > 0 &&
	    !ibv_get_cq_event(m->cc, &cq, &ctx))
		ibv_ack_cq_events(cq, 1);
	return 0;
}

int rp_mcast_recv(struct rp_mcast *m, struct rp_mcast_arrival *out, int n,
		  int timeout_ms, struct rp_err *why)
{
	struct ibv_wc wc[32];
	uint64_t now;
	uint32_t magic;
	int got, i, ret, waited = 0;
	const uint8_t *p;

	if (n > 32)
		n = 32;
	/* poll; armed, poll again (what came before the arming raises no
	 * event); then sleep and poll once more */
	for (;;) {
		got = ibv_poll_cq(m->cq, n, wc);
		if (got < 0)
			return rp_errf(why, -EIO, "ibv_poll_cq failed");
		if (got || waited == 2 || timeout_ms <= 0)
			break;
		if (!waited && ibv_req_notify_cq(m->cq, 0))
			return rp_errf(why, -EIO, "ibv_req_notify_cq failed");
		if (waited && wait_cq(m, timeout_ms))
			return rp_errf(why, -EIO, "ibv_req_notify_cq failed");
		waited++;
	}
	now = rp_clock_ns();
	for (i = 0; i < got; i++) {
		struct rp_mcast_arrival *a = &out[i];
		uint32_t slot = (uint32_t)wc[i].wr_id;

		memset(a, 0, sizeof(*a));
		a->arrived_ns = now;
		if (wc[i].status != IBV_WC_SUCCESS || slot >= m->depth)
			return rp_errf(why, -EIO,
				       "--mcast: a receive failed: %s",
				       ibv_wc_status_str(wc[i].status));
		p = slot_at(m, slot) + GRH;
		a->len = wc[i].byte_len > GRH ? wc[i].byte_len - GRH : 0;
		memcpy(&magic, p, 4);
		a->bad = a->len < RP_MCAST_HDR || magic != RP_MCAST_MAGIC;
		if (!a->bad) {
			memcpy(&a->seq, p + 8, 8);
			memcpy(&a->sent_ns, p + 16, 8);
		}
		ret = post_recv(m, slot);
		if (ret)
			return rp_errf(why, ret, "ibv_post_recv failed: %s",
				       strerror(-ret));
	}
	return got;
}

void rp_mcast_close(struct rp_mcast *m)
{
	if (!m)
		return;
	if (m->joined)
		rdma_leave_multicast(m->id, (struct sockaddr *)&m->group);
	if (m->ah)
		ibv_destroy_ah(m->ah);
	if (m->qp)
		rdma_destroy_qp(m->id);
	if (m->mr)
		ibv_dereg_mr(m->mr);
	if (m->cq)
		ibv_destroy_cq(m->cq);
	if (m->cc)
		ibv_destroy_comp_channel(m->cc);
	if (m->pd)
		ibv_dealloc_pd(m->pd);
	if (m->id)
		rdma_destroy_id(m->id);
	if (m->ch)
		rdma_destroy_event_channel(m->ch);
	free(m->buf);
	free(m);
}
