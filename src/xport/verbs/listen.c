// SPDX-License-Identifier: MIT
/*
 * The server's end: an rdma_cm listener on port 0 (the endpoint tells the
 * client which port it got); a connection request from a peer --allow
 * admits that presents the stream's token becomes a stream, any other is
 * rejected (and counted, for the server's log). The client connects its
 * streams one at a time, each after the last was established, so the
 * backlog need only hold the strays beside it.
 *
 *   CONNECT_REQUEST (token) -> migrate the id to a channel of its own,
 *   set up (a responder's receives too), rdma_accept -> ESTABLISHED
 *
 * The accepted stream takes the role accept() was given; the atomic
 * resources are the minimum of what each end's role offers (verbs.h).
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/clock.h"
#include "platform/net.h"
#include "xport/verbs/verbs.h"

#define RV_LISTEN_BACKLOG 64

/* @l's id, for the test's queue pair type, bound to @addr (any IPv4
 * address when NULL). */
static int rv_bind(struct rv_listener *l, const char *addr, struct rp_err *e)
{
	struct addrinfo hints = { .ai_flags = AI_PASSIVE | AI_NUMERICSERV,
				  .ai_socktype = SOCK_STREAM };
	struct sockaddr_in any = { .sin_family = AF_INET };
	enum rp_qp qp = l->base.spec.qp;
	struct addrinfo *ai = NULL;
	int ret;

	if (!addr)
		return rv_create_id(l->ch, &l->id, l, qp,
				    (struct sockaddr *)&any, e);
	ret = getaddrinfo(addr, "0", &hints, &ai);
	if (ret)
		return rp_errf(e, -EADDRNOTAVAIL, "cannot resolve %s: %s", addr,
			       gai_strerror(ret));
	ret = rv_create_id(l->ch, &l->id, l, qp, ai->ai_addr, e);
	if (ret)
		rp_errf(e, ret, "cannot listen on %s: %s", addr,
			strerror(-ret));
	freeaddrinfo(ai);
	return ret;
}

/* Make and bind @l's id, listen, and put the port it got into
 * @endpoint. */
static int rv_listen_on(struct rv_listener *l, const char *addr,
			cJSON *endpoint, struct rp_err *why)
{
	int ret = rv_bind(l, addr, why);

	if (ret)
		return ret;
	if (rdma_listen(l->id, RV_LISTEN_BACKLOG))
		return rv_fail(why, "rdma_listen");
	return rp_endpoint_set_port(endpoint, ntohs(rdma_get_src_port(l->id)),
				    why);
}

/* -d on the server: the device the listener's address is on (bound to
 * one address), or one that exists (bound to any): refused here, at
 * SETUP, where the client hears why, not at its connection request. */
static int rv_listen_device(const struct rv_listener *l, struct rp_err *why)
{
	const char *want = l->opts.device, *name;
	struct ibv_device **list;
	bool found = false;
	int n = 0, i;

	if (!want[0])
		return 0;
	if (l->id->verbs) {
		name = ibv_get_device_name(l->id->verbs->device);
		if (!strcmp(name, want))
			return 0;
		return rp_errf(why, -ENODEV,
			       "the server's address is on device %s, but "
			       "device %s was asked for (-d)",
			       name, want);
	}
	list = ibv_get_device_list(&n);
	for (i = 0; list && i < n && !found; i++)
		found = !strcmp(ibv_get_device_name(list[i]), want);
	if (list)
		ibv_free_device_list(list);
	return found ? 0
		     : rp_errf(why, -ENODEV,
			       "the server has no RDMA device %s (-d)", want);
}

int rv_listen(const struct rp_xport_ops *self, const struct rp_spec *spec,
	      const struct rp_xport_params *p, cJSON *endpoint,
	      struct rp_listener **out, struct rp_err *why)
{
	struct rv_listener *l;
	int ret = rv_check_spec(spec, why);

	if (ret)
		return ret;
	l = calloc(1, sizeof(*l));
	if (!l)
		return rp_errf(why, -ENOMEM, "out of memory");
	rp_listener_init(&l->base, self, spec);
	rv_opts_init(&l->opts, p);
	if (p) {
		l->admit = p->admit;
		l->admit_ctx = p->admit_ctx;
	}
	ret = rv_channel_create(&l->ch, why);
	if (ret)
		goto out_free;
	ret = rv_listen_on(l, p ? p->bind : NULL, endpoint, why);
	if (!ret)
		ret = rv_listen_device(l, why);
	if (!ret && l->id->verbs) /* bound to a device: its operations */
		ret = rv_caps_check(l->id->verbs, l->id->port_num, spec->op,
				    why);
	if (!ret && l->id->verbs && spec->mem == RP_MEM_ODP)
		ret = rv_odp_check(l->id->verbs, spec->op, why);
	if (!ret && l->id->verbs)
		ret = rv_qp_check(l->id->verbs, spec->qp, why);
	if (!ret && l->id->verbs)
		ret = rv_srq_check(l->id->verbs, spec->srq, why);
	if (!ret && l->id->verbs && spec->qp == RP_QP_UD)
		ret = rv_ud_mtu(l->id->verbs, l->id->port_num, spec->size_bytes,
				NULL, why);
	if (ret)
		goto out_id;
	*out = &l->base;
	return 0;
out_id:
	if (l->id)
		rdma_destroy_id(l->id);
	rdma_destroy_event_channel(l->ch);
out_free:
	free(l);
	return ret;
}

void rv_unlisten(struct rp_listener *bl)
{
	struct rv_listener *l;

	if (!bl)
		return;
	l = rv_listener_of(bl);
	rv_srq_put(l->srq); /* the streams keep theirs */
	rdma_destroy_id(l->id);
	rdma_destroy_event_channel(l->ch);
	free(l);
}

static bool rv_token_ok(const struct rdma_cm_event *ev, const char *token)
{
	const char *pd = ev->param.conn.private_data;
	size_t len = ev->param.conn.private_data_len, tlen = strlen(token);

	if (!pd || len < tlen || memcmp(pd, token, tlen) != 0)
		return false;
	return len == tlen || pd[tlen] == '\0';
}

/* Why the connection request @ev is refused, or NULL to take it. */
static const char *rv_request_refused(const struct rv_listener *l,
				      struct rdma_cm_event *ev,
				      const char *token)
{
	struct sockaddr *peer = rdma_get_peer_addr(ev->id);

	if (l->admit && !l->admit(l->admit_ctx, peer))
		return "not in --allow";
	return rv_token_ok(ev, token) ? NULL : "not the stream's token";
}

/* Reject and forget the request @ev, counting why. */
static void rv_drop_request(struct rv_listener *l, struct rdma_cm_event *ev,
			    const char *why)
{
	struct sockaddr *peer = rdma_get_peer_addr(ev->id);
	struct rdma_cm_id *id = ev->id;
	char addr[RP_NET_ADDR_LEN] = "?";

	if (peer && rp_net_addr_text(peer,
				     peer->sa_family == AF_INET6
					     ? sizeof(struct sockaddr_in6)
					     : sizeof(struct sockaddr_in),
				     addr, sizeof(addr)))
		snprintf(addr, sizeof(addr), "?");
	rp_listener_drop(&l->base, "data connection from %s rejected: %s", addr,
			 why);
	rdma_reject(id, NULL, 0);
	rdma_ack_cm_event(ev);
	rdma_destroy_id(id);
}

static uint8_t rv_min_u8(uint8_t a, uint8_t b)
{
	return a < b ? a : b;
}

/* Accept @s's connection request (its id) on a channel of its own. */
static int rv_accept_stream(struct rv_stream *s,
			    const struct rdma_conn_param *req,
			    uint64_t deadline_ns)
{
	struct rdma_conn_param cp = { .retry_count = 7, .rnr_retry_count = 7 };
	int ret;

	ret = rv_channel_create(&s->ch, &s->base.err);
	if (!ret && rdma_migrate_id(s->id, s->ch))
		ret = rv_fail(&s->base.err, "rdma_migrate_id");
	if (!ret)
		ret = rv_setup(s);
	if (ret) {
		rdma_reject(s->id, NULL, 0);
		return ret;
	}
	if (rv_ud(s))
		return rv_ud_accept(s);
	cp.responder_resources = rv_min_u8(req->initiator_depth, s->rd_atom);
	cp.initiator_depth = rv_min_u8(req->responder_resources, s->init_atom);
	if (rv_hand_path(s)) { /* --sl, --flow-label: our QP, to RTS first */
		ret = rv_path_ready(s);
		if (ret) {
			rdma_reject(s->id, NULL, 0);
			return ret;
		}
		cp.qp_num = s->qp->qp_num;
		cp.srq = s->srq != NULL;
	}
	if (rdma_accept(s->id, &cp))
		return rv_fail(&s->base.err, "rdma_accept");
	return rv_established(s, deadline_ns, "accept");
}

/* Take the connection request @ev (its token checked) as a new stream.
 * The handshake gets a deadline of its own: callers accept in short slices
 * (to watch their control connection), and a client whose request is in
 * hand must not be dropped because setting up its memory took a while. A
 * handshake that times out is -ECONNABORTED, not "nobody came yet". */
static int rv_take_request(struct rv_listener *l, struct rdma_cm_event *ev,
			   enum rp_role role, struct rp_stream **out)
{
	uint64_t deadline_ns = rp_deadline_ns(RV_HANDSHAKE_MS);
	struct rdma_conn_param req = ev->param.conn;
	struct rdma_cm_id *id = ev->id;
	struct rv_stream *s;
	int ret;

	rdma_ack_cm_event(ev);
	ret = rv_stream_new(l->base.ops, &l->base.spec, &l->opts, role, &s);
	if (ret) {
		rdma_reject(id, NULL, 0);
		rdma_destroy_id(id);
		return rp_errf(&l->base.err, ret, "out of memory");
	}
	s->id = id;
	id->context = s;
	ret = l->base.spec.srq && role == RP_ROLE_RESPONDER ? rv_srq_join(l, s)
							    : 0;
	if (ret) {
		rdma_reject(id, NULL, 0);
		rp_errf(&l->base.err, ret, "%s",
			rp_err_text(&s->base.err, ret));
		rv_close(&s->base);
		return ret;
	}
	ret = rv_accept_stream(s, &req, deadline_ns);
	if (ret) {
		ret = ret == -ETIMEDOUT ? -ECONNABORTED : ret;
		rp_errf(&l->base.err, ret, "%s",
			rp_err_text(&s->base.err, ret));
		rv_close(&s->base);
		return ret;
	}
	*out = &s->base;
	return 0;
}

int rv_accept(struct rp_listener *bl, const char *token, enum rp_role role,
	      int timeout_ms, struct rp_stream **out)
{
	struct rv_listener *l = rv_listener_of(bl);
	uint64_t deadline = rp_deadline_ns(timeout_ms);
	struct rdma_cm_event *ev;
	const char *why;
	int ret;

	rp_err_clear(&bl->err);
	if (!token || strlen(token) > RV_TOKEN_MAX)
		return rp_errf(&bl->err, -EINVAL,
			       "no token, or one over %d bytes", RV_TOKEN_MAX);
	for (;;) {
		ret = rv_get_event(l->ch, deadline, &ev);
		if (ret == -ETIMEDOUT) /* callers poll in slices */
			return ret;
		if (ret)
			return rp_errf(&bl->err, ret, "rdma_get_cm_event: %s",
				       strerror(-ret));
		if (ev->event != RDMA_CM_EVENT_CONNECT_REQUEST) {
			rdma_ack_cm_event(ev);
			continue;
		}
		why = rv_request_refused(l, ev, token);
		if (!why)
			return rv_take_request(l, ev, role, out);
		rv_drop_request(l, ev, why);
	}
}
