// SPDX-License-Identifier: MIT
/*
 * The transport's ops table (rp_xport_rdma), the top of verbs/: it names
 * the entry points of the other files, and none of them reaches back to
 * it. The per-operation table, which those files read, is ops.c's.
 */
#include <errno.h>
#include <string.h>

#include "xport/rdma_addr.h"
#include "xport/verbs/verbs.h"

static int rv_probe(const struct rp_xport_ops *self, struct rp_err *why)
{
	struct rdma_event_channel *ch;

	(void)self;
	if (rp_rdma_device_count() <= 0)
		return rp_errf(why, -ENODEV,
			       "no RDMA device found (ibv_get_device_list "
			       "returned none); try -x tcp");
	ch = rdma_create_event_channel();
	if (!ch)
		return rp_errf(why, -ENODEV,
			       "rdma_cm is not available (%s): load rdma_ucm, "
			       "or try -x tcp",
			       strerror(errno));
	rdma_destroy_event_channel(ch);
	return 0;
}

static int rv_ping(struct rp_stream *bs, uint64_t seq, uint64_t deadline_ns)
{
	struct rv_stream *s = rv_of(bs);

	return s->op->ping(s, seq, deadline_ns);
}

/* Same transport, same test (operation and waiting), all responders. */
static bool rv_serve_ok(struct rp_stream *const *bs, unsigned int i)
{
	return bs[i]->ops == bs[0]->ops && bs[i]->spec.op == bs[0]->spec.op &&
	       bs[i]->spec.wait == bs[0]->spec.wait &&
	       bs[i]->role == RP_ROLE_RESPONDER;
}

static int rv_serve(struct rp_stream *const *bs, unsigned int n,
		    enum rp_phase phase, const atomic_int *stop,
		    struct rp_side_stats *st)
{
	unsigned int i;

	if (!n)
		return 0;
	for (i = 0; i < n; i++)
		if (!rv_serve_ok(bs, i))
			return rp_stream_fail(bs[i], -EINVAL,
					      "serve: stream %u is not a "
					      "responder of this test",
					      i);
	return rv_of(bs[0])->op->serve(bs, n, phase, stop, st);
}

static uint64_t rv_verify_errors(struct rp_stream *bs)
{
	return rv_of(bs)->verify_errors;
}

static const struct rp_xport_ops rv_xport_ops = {
	.name = "rdma",
	.op_mask = RP_OP_MASK_ALL,
	.tos = true, /* rdma_cm's RDMA_OPTION_ID_TOS (connect.c) */
	.mem_kinds = RP_MEM_MAPPED | RP_MEM_BIT(RP_MEM_ODP), /* setup.c */
	.qp_types = true,				     /* cm.c, setup.c */
	.srq = true,					     /* srq.c */
	.rails = true, /* connect.c resolves from the rail's address */
	.probe = rv_probe,
	.preflight = rv_preflight,
	.listen = rv_listen,
	.accept = rv_accept,
	.unlisten = rv_unlisten,
	.connect = rv_connect,
	.local_info = rv_local_info,
	.set_peer = rv_set_peer,
	.set_point = rv_set_point,
	.serve = rv_serve,
	.ping = rv_ping,
	.post = rv_post,
	.poll = rv_poll,
	.arm = rv_arm,
	.wait_poll = NULL, /* poll(2) on the completion channel */
	.verify_errors = rv_verify_errors,
	.srq_limit_events = rv_srq_limit_events,
	.link_facts = rv_link_facts,
	.counters = rv_counters,
	.close = rv_close,
	.loopback_addr = rp_rdma_loopback_addr,
};

const struct rp_xport_ops *const rp_xport_rdma = &rv_xport_ops;
