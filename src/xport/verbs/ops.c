// SPDX-License-Identifier: MIT
/*
 * The tables: what the transport does for each operation (rv_ops, the one
 * place that tells the operations apart), and the transport's ops table.
 */
#include <errno.h>
#include <string.h>

#include "xport/rdma_addr.h"
#include "xport/verbs/verbs.h"

#define RV_LW IBV_ACCESS_LOCAL_WRITE

/*
 * Access is the least each side needs (DESIGN.md, "Failure and safety"):
 * an initiator registers remote write only where latency echoes land in
 * it. The initiator's slots are at least two (slot 1 takes the echoes); it
 * reaches the responder's depth slots, the responder's echo reaches the
 * initiator's slot 1.
 */
const struct rv_op_info rv_ops[RP_OP__COUNT] = {
	[RP_OP_WRITE] = {
		.opcode = IBV_WR_RDMA_WRITE,
		.verify_opcode = IBV_WR_RDMA_WRITE,
		/* a plain write would wake nobody: see ping.c */
		.event_echo = IBV_WR_RDMA_WRITE_WITH_IMM,
		.can_inline = true,
		.event_note = "--wait event: write latency is timed to an echo "
			      "written with immediate data, which wakes the "
			      "initiator; the responder still polls memory for "
			      "the write (perftest's ib_write_lat has no event "
			      "mode)",
		.responder = { .access = RV_LW | IBV_ACCESS_REMOTE_WRITE,
			.slots = RV_SPAN_DEPTH,
			.peer_need = RV_SPAN_ECHO },
		.initiator = { .access = RV_LW | IBV_ACCESS_REMOTE_WRITE,
			.slots = RV_SPAN_DEPTH2,
			.peer_need = RV_SPAN_DEPTH },
		.prep = rv_prep_fill,
		.ping = rv_ping_write,
		.serve = rv_serve_write,
		.check_done = rv_done_nothing,
	},
	[RP_OP_READ] = {
		.opcode = IBV_WR_RDMA_READ,
		.verify_opcode = IBV_WR_RDMA_READ,
		.event_echo = IBV_WR_RDMA_READ, /* no echo */
		.prefill = true,
		.responder = { .access = RV_LW | IBV_ACCESS_REMOTE_READ,
			.slots = RV_SPAN_DEPTH,
			.peer_need = RV_SPAN_NONE },
		.initiator = { .access = RV_LW,
			.slots = RV_SPAN_DEPTH2,
			.peer_need = RV_SPAN_DEPTH },
		.prep = rv_prep_read,
		.ping = rv_ping_once,
		.serve = rv_serve_idle,
		.check_done = rv_done_read,
	},
	[RP_OP_SEND] = {
		.opcode = IBV_WR_SEND,
		/* the immediate tells the responder seq */
		.verify_opcode = IBV_WR_SEND_WITH_IMM,
		.event_echo = IBV_WR_SEND,
		.receives = true,
		.recv_data = true,
		.can_inline = true,
		.responder = { .access = RV_LW,
			.slots = RV_SPAN_RECVS,
			.peer_need = RV_SPAN_NONE },
		.initiator = { .access = RV_LW,
			.slots = RV_SPAN_DEPTH2,
			.peer_need = RV_SPAN_NONE },
		.prep = rv_prep_fill,
		.ping = rv_ping_echo,
		.serve = rv_serve_recv,
		.check_done = rv_done_nothing,
		.check_recv = rv_recv_send_ok,
	},
	[RP_OP_WRITE_IMM] = {
		.opcode = IBV_WR_RDMA_WRITE_WITH_IMM,
		.verify_opcode = IBV_WR_RDMA_WRITE_WITH_IMM,
		.event_echo = IBV_WR_RDMA_WRITE_WITH_IMM,
		.receives = true,
		.can_inline = true,
		.responder = { .access = RV_LW | IBV_ACCESS_REMOTE_WRITE,
			.slots = RV_SPAN_DEPTH,
			.peer_need = RV_SPAN_ECHO },
		.initiator = { .access = RV_LW | IBV_ACCESS_REMOTE_WRITE,
			.slots = RV_SPAN_DEPTH2,
			.peer_need = RV_SPAN_DEPTH },
		.prep = rv_prep_fill,
		.ping = rv_ping_echo,
		.serve = rv_serve_recv,
		.check_done = rv_done_nothing,
		.check_recv = rv_recv_imm_ok,
	},
	[RP_OP_FETCH_ADD] = {
		.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD,
		.verify_opcode = IBV_WR_ATOMIC_FETCH_AND_ADD,
		.event_echo = IBV_WR_ATOMIC_FETCH_AND_ADD, /* no echo */
		.responder = { .access = RV_LW | IBV_ACCESS_REMOTE_ATOMIC,
			.slots = RV_SPAN_DEPTH,
			.peer_need = RV_SPAN_NONE },
		.initiator = { .access = RV_LW,
			.slots = RV_SPAN_DEPTH2,
			.peer_need = RV_SPAN_DEPTH },
		.prep = rv_prep_nothing,
		.ping = rv_ping_once,
		.serve = rv_serve_idle,
		.check_done = rv_done_fetch_add,
	},
	[RP_OP_CMP_SWAP] = {
		.opcode = IBV_WR_ATOMIC_CMP_AND_SWP,
		.verify_opcode = IBV_WR_ATOMIC_CMP_AND_SWP,
		.event_echo = IBV_WR_ATOMIC_CMP_AND_SWP, /* no echo */
		.responder = { .access = RV_LW | IBV_ACCESS_REMOTE_ATOMIC,
			.slots = RV_SPAN_DEPTH,
			.peer_need = RV_SPAN_NONE },
		.initiator = { .access = RV_LW,
			.slots = RV_SPAN_DEPTH2,
			.peer_need = RV_SPAN_DEPTH },
		.prep = rv_prep_cmp_swap,
		.ping = rv_ping_once,
		.serve = rv_serve_idle,
		.check_done = rv_done_cmp_swap,
	},
};

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
	.close = rv_close,
	.loopback_addr = rp_rdma_loopback_addr,
};

const struct rp_xport_ops *const rp_xport_rdma = &rv_xport_ops;
