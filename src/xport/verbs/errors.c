// SPDX-License-Identifier: MIT
/*
 * Reasons: rdma-core's return conventions turned into a negative errno, and
 * a sentence for the user recorded beside it (nothing is printed here).
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "xport/verbs/verbs.h"

/* What a failed work completion most likely means, by status. */
static const char *const rv_wc_hints[] = {
	[IBV_WC_REM_ACCESS_ERR] = "the peer's rkey or memory access flags do "
				  "not allow this operation",
	[IBV_WC_RNR_RETRY_EXC_ERR] = "receiver not ready: no receive was "
				     "posted at the peer",
	[IBV_WC_RETRY_EXC_ERR] = "no answer from the peer: unreachable or "
				 "gone",
	[IBV_WC_WR_FLUSH_ERR] = "the queue pair was already in error after "
				"an earlier failure",
	[IBV_WC_LOC_PROT_ERR] = "local protection error: bad local key or "
				"buffer",
	[IBV_WC_LOC_LEN_ERR] = "message longer than the receive buffer",
	[IBV_WC_REM_INV_REQ_ERR] = "the peer refused the request (length, or "
				   "operation not enabled)",
};

static const char *rv_wc_hint(enum ibv_wc_status st)
{
	size_t n = sizeof(rv_wc_hints) / sizeof(rv_wc_hints[0]);

	if ((size_t)st < n && rv_wc_hints[st])
		return rv_wc_hints[st];
	return "see ibv_poll_cq(3)";
}

/* rdma-core's conventions to a negative errno; @err: errno or a return. */
int rv_neg(int err)
{
	if (err > 0)
		return -err;
	return err < 0 ? err : -EIO;
}

/* A failed setup call (off the hot path), errno as it was left. */
int rv_fail(struct rp_err *e, const char *what)
{
	int err = rv_neg(errno);

	return rp_errf(e, err, "%s failed: %s", what, strerror(-err));
}

/* A call that returned its error (ibv_post_send, ibv_modify_qp, ...). */
int rv_call_failed(struct rv_stream *s, const char *what, int ret)
{
	int err = rv_neg(ret);

	return rp_stream_fail(&s->base, err, "%s failed: %s", what,
			      strerror(-err));
}

/* iWARP has no receiver-not-ready retry: a send that finds no receive
 * posted ends the connection (siw: TERMINATE), and the sender's send
 * completes in error. Send credits (credits.c) prevent that, unless the
 * peer is an rdmaperf without them. */
static const char *rv_wc_hint_of(const struct rv_stream *s,
				 enum ibv_wc_status st)
{
	if (s->no_imm && s->base.spec.op == RP_OP_SEND &&
	    s->base.role == RP_ROLE_INITIATOR && !s->cr.on &&
	    (st == IBV_WC_LOC_QP_OP_ERR || st == IBV_WC_WR_FLUSH_ERR))
		return "on iWARP, which has no receiver-not-ready retry, most "
		       "likely the server ran out of posted receives, its "
		       "software behind the wire: it is an rdmaperf without "
		       "send credits; update it, or send fewer messages (-C)";
	return rv_wc_hint(st);
}

/* A failed work completion fails the run with -EIO. */
int rv_wc_failed(struct rv_stream *s, const struct ibv_wc *wc)
{
	return rp_stream_fail(
		&s->base, -EIO,
		"%s %s: work completion failed: %s (status %d, vendor error "
		"0x%x, wr_id %" PRIu64 "): %s",
		rp_role_name(s->base.role), rp_op_name(s->base.spec.op),
		ibv_wc_status_str(wc->status), (int)wc->status, wc->vendor_err,
		(uint64_t)wc->wr_id, rv_wc_hint_of(s, wc->status));
}

int rv_cq_failed(struct rv_stream *s)
{
	return rp_stream_fail(&s->base, -EIO, "ibv_poll_cq failed");
}
