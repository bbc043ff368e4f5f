// SPDX-License-Identifier: MIT
/*
 * rdma_cm events: a non-blocking event channel per listener and per stream,
 * waited on under a deadline; the one event expected next, or a reason.
 * Once established, what the connection got (path MTU, GID, RNR timer).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>

#include "platform/clock.h"
#include "platform/wait.h"
#include "xport/verbs/verbs.h"

/* The errno an unexpected event stands for (0: its status, or abort). */
static const int rv_event_errnos[] = {
	[RDMA_CM_EVENT_ADDR_ERROR] = -EADDRNOTAVAIL,
	[RDMA_CM_EVENT_ROUTE_ERROR] = -ENETUNREACH,
	[RDMA_CM_EVENT_REJECTED] = -ECONNREFUSED,
	[RDMA_CM_EVENT_UNREACHABLE] = -EHOSTUNREACH,
	[RDMA_CM_EVENT_DEVICE_REMOVAL] = -ENODEV,
	[RDMA_CM_EVENT_DISCONNECTED] = -ECONNRESET,
};

static int rv_event_errno(const struct rdma_cm_event *ev)
{
	size_t n = sizeof(rv_event_errnos) / sizeof(rv_event_errnos[0]);

	if ((size_t)ev->event < n && rv_event_errnos[ev->event])
		return rv_event_errnos[ev->event];
	return ev->status < 0 ? ev->status : -ECONNABORTED;
}

int rv_channel_create(struct rdma_event_channel **out, struct rp_err *e)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	int fl;

	if (!ch)
		return rv_fail(e, "rdma_create_event_channel (is rdma_ucm "
				  "loaded?)");
	fl = fcntl(ch->fd, F_GETFL);
	if (fl < 0 || fcntl(ch->fd, F_SETFL, fl | O_NONBLOCK) < 0) {
		fl = rv_fail(e, "fcntl on the rdma_cm channel");
		rdma_destroy_event_channel(ch);
		return fl;
	}
	*out = ch;
	return 0;
}

int rv_create_id(struct rdma_event_channel *ch, struct rdma_cm_id **id,
		 void *ctx, enum rp_qp qp, const struct sockaddr *bind,
		 struct rp_err *e)
{
	struct sockaddr_storage any = { .ss_family = AF_INET };
	struct rdma_addrinfo res = {
		.ai_flags = RAI_PASSIVE,
		.ai_qp_type = IBV_QPT_UC,
		.ai_port_space = RDMA_PS_IB,
	};

	if (qp != RP_QP_UC) { /* RC: the TCP port space, UD: the UDP one */
		if (rdma_create_id(ch, id, ctx,
				   qp == RP_QP_UD ? RDMA_PS_UDP : RDMA_PS_TCP))
			return rv_fail(e, "rdma_create_id");
		return bind && rdma_bind_addr(*id, (struct sockaddr *)bind)
			       ? rv_fail(e, "rdma_bind_addr")
			       : 0;
	}
	/* UC: rdma_create_id takes the queue pair type from the port space
	 * (TCP: RC), rdma_create_ep from the address info: a passive one
	 * only binds, then the id moves to @ch as any other. */
	if (!bind)
		bind = (struct sockaddr *)&any;
	res.ai_family = bind->sa_family;
	res.ai_src_addr = (struct sockaddr *)bind;
	res.ai_src_len = bind->sa_family == AF_INET6
				 ? sizeof(struct sockaddr_in6)
				 : sizeof(struct sockaddr_in);
	if (rdma_create_ep(id, &res, NULL, NULL))
		return rv_fail(e, "rdma_create_ep (a UC id)");
	(*id)->context = ctx;
	if (rdma_migrate_id(*id, ch)) {
		int ret = rv_fail(e, "rdma_migrate_id (a UC id)");

		rdma_destroy_ep(*id);
		*id = NULL;
		return ret;
	}
	return 0;
}

/* Next event on @ch, or -ETIMEDOUT at @deadline_ns. The caller acks it. */
int rv_get_event(struct rdma_event_channel *ch, uint64_t deadline_ns,
		 struct rdma_cm_event **ev)
{
	int ret;

	for (;;) {
		if (rdma_get_cm_event(ch, ev) == 0)
			return 0;
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			return rv_neg(errno);
		ret = rp_wait_fd(NULL, ch->fd, POLLIN, deadline_ns);
		if (ret)
			return ret;
	}
}

/* Wait for event @want on @ch; anything else (or nothing) is an error,
 * said in @e as "@what: ...". */
int rv_expect(struct rdma_event_channel *ch, enum rdma_cm_event_type want,
	      uint64_t deadline_ns, const char *what, struct rp_err *e)
{
	struct rdma_cm_event *ev;
	int ret;

	ret = rv_get_event(ch, deadline_ns, &ev);
	if (ret)
		return rp_errf(e, ret, "%s: %s", what,
			       ret == -ETIMEDOUT ? "timed out"
						 : strerror(-ret));
	if (ev->event != want)
		ret = rp_errf(e, rv_event_errno(ev), "%s: got %s (status %d)%s",
			      what, rdma_event_str(ev->event), ev->status,
			      ev->event == RDMA_CM_EVENT_REJECTED
				      ? ": no listener or a wrong token"
				      : "");
	rdma_ack_cm_event(ev);
	return ret;
}

/* Wait for ESTABLISHED after accept or connect; on failure tell the peer
 * and wait no longer. */
int rv_established(struct rv_stream *s, uint64_t deadline_ns, const char *what)
{
	int ret = rv_expect(s->ch, RDMA_CM_EVENT_ESTABLISHED, deadline_ns, what,
			    &s->base.err);

	if (ret)
		rdma_disconnect(s->id);
	else
		rv_connected(s);
	return ret;
}

/* Disconnect and wait (bounded) for the peer to do the same: an rxe peer
 * left undisconnected blocks its process's exit for about 100 s. A peer
 * that closes later than RV_CLOSE_MS is not an error: the kernel finishes
 * the handshake after our id is gone. */
void rv_disconnect(struct rv_stream *s)
{
	uint64_t deadline = rp_deadline_ns(RV_CLOSE_MS);
	struct rdma_cm_event *ev;
	bool done = false;

	if (rdma_disconnect(s->id))
		return;
	while (!done && rv_get_event(s->ch, deadline, &ev) == 0) {
		done = ev->event == RDMA_CM_EVENT_DISCONNECTED;
		rdma_ack_cm_event(ev);
	}
}

/* rdma_cm leaves the receiver's RNR timer at 0, which makes a sender wait
 * 655 ms after each "receiver not ready"; RTS -> RTS may change it. */
static void rv_set_rnr_timer(struct rv_stream *s)
{
	struct ibv_qp_attr qa = { .min_rnr_timer = RV_MIN_RNR_TIMER };
	int ret;

	if (!s->op->receives || s->base.spec.qp != RP_QP_RC)
		return; /* UC has no receiver-not-ready: credits pace it */
	ret = ibv_modify_qp(s->qp, &qa, IBV_QP_MIN_RNR_TIMER);
	if (ret)
		rp_stream_note(&s->base,
			       "cannot shorten the RNR timer (%s): a receiver "
			       "that falls behind stalls its sender for 655 ms",
			       strerror(-rv_neg(ret)));
}

/* What the connection got: path MTU and GID; note what could not be set. */
void rv_connected(struct rv_stream *s)
{
	struct ibv_qp_init_attr init;
	struct ibv_port_attr pa;
	struct ibv_qp_attr qa;

	s->connected = true;
	rv_set_rnr_timer(s);
	if (ibv_query_qp(s->qp, &qa, IBV_QP_PATH_MTU | IBV_QP_AV, &init) == 0) {
		s->mtu_bytes = rv_mtu_bytes(qa.path_mtu);
		if (qa.ah_attr.is_global)
			s->gid_index = qa.ah_attr.grh.sgid_index;
		rv_path_took(s, &qa.ah_attr);
	} else if (ibv_query_port(s->id->verbs, s->id->port_num, &pa) == 0) {
		s->mtu_bytes = rv_mtu_bytes(pa.active_mtu);
	}
	rv_path_check(s);
	if (s->opts.gid_index >= 0 && s->opts.gid_index != s->gid_index)
		rp_stream_note(&s->base,
			       "rdma_cm picks the GID from the address; "
			       "using GID index %d, not %d",
			       s->gid_index, s->opts.gid_index);
}
