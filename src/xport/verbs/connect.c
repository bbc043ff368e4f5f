// SPDX-License-Identifier: MIT
/*
 * The client's end: resolve the server's address and route (which picks
 * the device), set up (a responder's receives too), and connect presenting
 * the test's token as private data, all under one deadline. The stream
 * takes the role connect() was given, whatever the server's end.
 */
#include <errno.h>
#include <limits.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>

#include "platform/clock.h"
#include "xport/verbs/verbs.h"

/* rdma_cm's timeout for a step that must end by @deadline_ns. */
static int rv_cm_timeout_ms(uint64_t deadline_ns)
{
	int ms = rp_ms_left(deadline_ns);

	return ms < 0 || ms == INT_MAX ? INT_MAX : ms + 1;
}

/* --rails: the rail's numeric address @src into @ss, of @family. */
static int rv_src_addr(const char *src, int family, struct sockaddr_storage *ss,
		       struct rp_err *e)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST,
				  .ai_family = family,
				  .ai_socktype = SOCK_STREAM };
	struct addrinfo *ai = NULL;

	if (getaddrinfo(src, NULL, &hints, &ai) || !ai ||
	    ai->ai_addrlen > sizeof(*ss)) {
		if (ai)
			freeaddrinfo(ai);
		return rp_errf(e, -EADDRNOTAVAIL,
			       "the rail's address %s is not one of the "
			       "server's family",
			       src);
	}
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	freeaddrinfo(ai);
	return 0;
}

/* @src (--rails): the local address to resolve from, whose device the
 * route then takes; NULL: the route's. */
static int rv_resolve(struct rv_stream *s, const char *host, const char *src,
		      const cJSON *endpoint, uint64_t deadline_ns)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICSERV,
				  .ai_socktype = SOCK_STREAM };
	struct sockaddr_storage any = { 0 };
	struct sockaddr *from = NULL;
	struct addrinfo *ai = NULL;
	struct rp_err *e = &s->base.err;
	uint16_t port_num;
	char port[8];
	int ret;

	ret = rp_endpoint_port(endpoint, &port_num, e);
	if (ret)
		return ret;
	snprintf(port, sizeof(port), "%u", port_num);
	ret = getaddrinfo(host, port, &hints, &ai);
	if (ret)
		return rp_errf(e, -EHOSTUNREACH, "cannot resolve %s: %s", host,
			       gai_strerror(ret));
	/* UC's id comes bound (cm.c): to any address of the server's
	 * family, which the resolution below makes the route's, or to the
	 * rail's */
	any.ss_family = (sa_family_t)ai->ai_family;
	ret = src ? rv_src_addr(src, ai->ai_family, &any, e) : 0;
	if (src)
		from = (struct sockaddr *)&any;
	if (!ret)
		ret = rv_create_id(s->ch, &s->id, s, s->base.spec.qp,
				   s->base.spec.qp == RP_QP_UC
					   ? (struct sockaddr *)&any
					   : NULL,
				   e);
	if (!ret &&
	    rdma_resolve_addr(s->id, s->base.spec.qp == RP_QP_UC ? NULL : from,
			      ai->ai_addr, rv_cm_timeout_ms(deadline_ns)))
		ret = rv_fail(e, "rdma_resolve_addr");
	freeaddrinfo(ai);
	if (ret)
		return ret;
	/* --tos, before the route: rdma_cm puts it into the path (RoCE: the
	 * GRH's traffic class, so the IP header's TOS; IB: the QoS class the
	 * SA maps to an SL). The responder's QP takes the path from our
	 * REQ, so its packets carry it too. */
	if (s->base.spec.tos) {
		uint8_t tos = (uint8_t)s->base.spec.tos;

		if (rdma_set_option(s->id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS,
				    &tos, sizeof(tos)))
			return rv_fail(e,
				       "rdma_set_option(RDMA_OPTION_ID_TOS)");
	}
	ret = rv_expect(s->ch, RDMA_CM_EVENT_ADDR_RESOLVED, deadline_ns,
			"resolving the server's address", e);
	if (!ret && rdma_resolve_route(s->id, rv_cm_timeout_ms(deadline_ns)))
		ret = rv_fail(e, "rdma_resolve_route");
	if (!ret)
		ret = rv_expect(s->ch, RDMA_CM_EVENT_ROUTE_RESOLVED,
				deadline_ns, "resolving the route", e);
	return ret;
}

/* --sl, --flow-label: our own QP (path.c) to RTR and RTS on the reply,
 * then rdma_establish. */
static int rv_own_qp_connect(struct rv_stream *s, struct rdma_conn_param *cp,
			     uint64_t deadline_ns)
{
	int ret;

	cp->qp_num = s->qp->qp_num;
	cp->srq = s->srq != NULL;
	if (rdma_connect(s->id, cp))
		return rv_fail(&s->base.err, "rdma_connect");
	/* our QP, not rdma_cm's: the REP comes as CONNECT_RESPONSE */
	ret = rv_expect(s->ch, RDMA_CM_EVENT_CONNECT_RESPONSE, deadline_ns,
			"connecting", &s->base.err);
	if (!ret)
		ret = rv_path_ready(s);
	if (!ret && rdma_establish(s->id))
		ret = rv_fail(&s->base.err, "rdma_establish");
	if (ret) {
		rdma_disconnect(s->id);
		return ret;
	}
	rv_connected(s);
	return 0;
}

/* The atomic resources offered are what this side's role needs (setup.c);
 * the server answers with the minimum of both offers. */
static int rv_client_connect(struct rv_stream *s, const char *token,
			     uint64_t deadline_ns)
{
	struct rdma_conn_param cp = {
		.private_data = token,
		.private_data_len = (uint8_t)strlen(token),
		.responder_resources = s->rd_atom,
		.initiator_depth = s->init_atom,
		.retry_count = 7,
		.rnr_retry_count = 7, /* infinite: wait for the receiver */
	};

	if (rv_hand_path(s)) /* --sl, --flow-label: our own QP */
		return rv_own_qp_connect(s, &cp, deadline_ns);
	if (rdma_connect(s->id, &cp))
		return rv_fail(&s->base.err, "rdma_connect");
	return rv_established(s, deadline_ns, "connecting");
}

/* Everything from a new stream to ESTABLISHED; the reason lands in @s. */
static int rv_connect_stream(struct rv_stream *s, const char *host,
			     const char *src, const cJSON *endpoint,
			     const char *token, uint64_t deadline_ns)
{
	int ret = rv_channel_create(&s->ch, &s->base.err);

	if (!ret)
		ret = rv_resolve(s, host, src, endpoint, deadline_ns);
	if (!ret)
		ret = rv_setup(s);
	if (!ret)
		ret = rv_ud(s) ? rv_ud_connect(s, token, deadline_ns)
			       : rv_client_connect(s, token, deadline_ns);
	return ret;
}

int rv_connect(const struct rp_xport_ops *self, const struct rp_spec *spec,
	       const struct rp_xport_params *p, const char *host,
	       const cJSON *endpoint, const char *token, enum rp_role role,
	       int timeout_ms, struct rp_stream **out, struct rp_err *why)
{
	uint64_t deadline = rp_deadline_ns(timeout_ms);
	struct rv_stream *s;
	struct rv_opts o;
	int ret;

	if (!token || strlen(token) > RV_TOKEN_MAX || !host)
		return rp_errf(why, -EINVAL,
			       "no host, no token, or one over %d bytes",
			       RV_TOKEN_MAX);
	ret = rv_check_spec(spec, why);
	if (ret)
		return ret;
	rv_opts_init(&o, p);
	ret = rv_stream_new(self, spec, &o, role, &s);
	if (ret)
		return rp_errf(why, ret, "out of memory");
	s->mem_path = p ? p->mem_path : NULL;
	ret = rv_connect_stream(s, host, p ? p->src : NULL, endpoint, token,
				deadline);
	if (ret) { /* the stream goes: its reason goes to @why */
		rp_errf(why, ret, "%s", rp_err_text(&s->base.err, ret));
		rv_close(&s->base);
		return ret;
	}
	*out = &s->base;
	return 0;
}
