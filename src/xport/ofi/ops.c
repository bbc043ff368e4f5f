// SPDX-License-Identifier: MIT
/*
 * What the transport does for each operation (ofi_ops, the one place that
 * tells the operations apart): the capabilities fi_getinfo must grant for
 * both roles (an initiator is also the target of latency echoes), and
 * the calls each side makes.
 */
#include "xport/ofi/ofi.h"

#define OFI_RMA_W (FI_RMA | FI_WRITE | FI_REMOTE_WRITE)
#define OFI_RMA_R (FI_RMA | FI_READ | FI_REMOTE_READ)
#define OFI_ATOM                                                               \
	(FI_ATOMIC | FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE)

const struct ofi_op_info ofi_ops[RP_OP__COUNT] = {
	[RP_OP_WRITE] = {
		.caps = OFI_RMA_W,
		.one_sided = true,
		.marker = true,
		.post = ofi_post_write,
		.inject = ofi_inject_write,
		.done = ofi_done_nothing,
	},
	[RP_OP_READ] = {
		.caps = OFI_RMA_R,
		.one_sided = true,
		.prefill = true,
		.post = ofi_post_read,
		.done = ofi_done_read,
	},
	[RP_OP_SEND] = {
		.caps = FI_MSG | FI_SEND | FI_RECV,
		.receives = true,
		.recv_data = true,
		.echo = true,
		.post = ofi_post_send,
		.inject = ofi_inject_send,
		.done = ofi_done_nothing,
	},
	[RP_OP_WRITE_IMM] = {
		.caps = OFI_RMA_W,
		.cq_data = true,
		.echo = true,
		.post = ofi_post_write_imm,
		.inject = ofi_inject_write_imm,
		.done = ofi_done_nothing,
	},
	[RP_OP_FETCH_ADD] = {
		.caps = OFI_ATOM,
		.one_sided = true,
		.post = ofi_post_fetch_add,
		.done = ofi_done_fetch_add,
	},
	[RP_OP_CMP_SWAP] = {
		.caps = OFI_ATOM,
		.one_sided = true,
		.post = ofi_post_cmp_swap,
		.done = ofi_done_cmp_swap,
	},
};
