// SPDX-License-Identifier: MIT
/*
 * What the transport does for each operation (rv_ops, the one place that
 * tells the operations apart). The transport's ops table is verbs.c's.
 */
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
