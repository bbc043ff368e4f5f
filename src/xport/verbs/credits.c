// SPDX-License-Identifier: MIT
/*
 * iWARP send credits (verbs.h, struct rv_credits): the responder writes
 * how many receives it has posted again into a word of the initiator's,
 * which posts a send only while that leaves a receive for it.
 *
 *   initiator info: "credit_addr", "credit_rkey" (its word, remote write)
 *   responder info: "credits": the receives it keeps posted
 *
 * Both are offered by a stream that needs them (a send test on an iWARP
 * device); the pacing is on when the peer offered its half.
 *
 * Below serve.c and post.c: the responder's reaping of its completed
 * sends, the echoes and the credit writes (rv_reap_echoes).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/json.h"
#include "platform/clock.h"
#include "xport/verbs/verbs.h"

#define RV_CREDIT_AREA	   64 /* the word's allocation: a cache line */
#define RV_CREDIT_FLUSH_NS 1000000000ULL /* a full send queue, at most */

static bool rv_credits_wanted(const struct rv_stream *s)
{
	/* a send completes before it is received: on iWARP once handed to
	 * TCP, on UC once sent (no acknowledgement) */
	return (s->no_imm || s->base.spec.qp == RP_QP_UC) && s->op->receives;
}

int rv_credits_setup(struct rv_stream *s)
{
	int access = rv_responder(s)
			     ? IBV_ACCESS_LOCAL_WRITE
			     : IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;

	if (!rv_credits_wanted(s))
		return 0;
	if (posix_memalign((void **)&s->cr.word, RV_CREDIT_AREA,
			   RV_CREDIT_AREA))
		return rp_stream_fail(&s->base, -ENOMEM,
				      "out of memory for send credits");
	*s->cr.word = 0;
	s->cr.mr = ibv_reg_mr(s->pd, s->cr.word, RV_CREDIT_AREA, access);
	if (!s->cr.mr)
		return rv_fail(&s->base.err, "ibv_reg_mr (send credits)");
	s->cr.step = s->nrecv / RV_CREDIT_STEP ? s->nrecv / RV_CREDIT_STEP : 1;
	return 0;
}

void rv_credits_free(struct rv_stream *s)
{
	if (s->cr.mr)
		ibv_dereg_mr(s->cr.mr);
	free(s->cr.word);
	s->cr.mr = NULL;
	s->cr.word = NULL;
}

int rv_credits_info(struct rv_stream *s, cJSON *info)
{
	char addr[24];
	bool ok;

	if (!s->cr.mr)
		return 0;
	if (rv_responder(s)) {
		ok = cJSON_AddNumberToObject(info, "credits", s->nrecv);
	} else {
		snprintf(addr, sizeof(addr), "%" PRIu64,
			 (uint64_t)(uintptr_t)s->cr.word);
		ok = cJSON_AddStringToObject(info, "credit_addr", addr) &&
		     cJSON_AddNumberToObject(info, "credit_rkey",
					     s->cr.mr->rkey);
	}
	return ok ? 0 : -1;
}

/* The responder's write of its count into the initiator's word. */
static void rv_credit_wr(struct rv_stream *s, uint64_t raddr, uint32_t rkey)
{
	s->cr.sge = (struct ibv_sge){ .addr = (uintptr_t)s->cr.word,
				      .length = sizeof(*s->cr.word),
				      .lkey = s->cr.mr->lkey };
	s->cr.wr = (struct ibv_send_wr){ .wr_id = UINT64_MAX,
					 .sg_list = &s->cr.sge,
					 .num_sge = 1,
					 .opcode = IBV_WR_RDMA_WRITE,
					 .send_flags = IBV_SEND_SIGNALED };
	if (s->inline_max >= sizeof(*s->cr.word))
		s->cr.wr.send_flags |= IBV_SEND_INLINE;
	s->cr.wr.wr.rdma.remote_addr = raddr;
	s->cr.wr.wr.rdma.rkey = rkey;
}

int rv_credits_peer(struct rv_stream *s, const cJSON *info)
{
	uint64_t addr, rkey, n;

	if (!s->cr.mr)
		return 0;
	if (rv_responder(s)) {
		if (!cJSON_GetObjectItemCaseSensitive(info, "credit_addr"))
			return 0; /* an older initiator: no pacing */
		if (rp_json_u64(info, "credit_addr", UINT64_MAX, &addr) ||
		    rp_json_u64(info, "credit_rkey", UINT32_MAX, &rkey))
			return rp_stream_fail(&s->base, -EPROTO,
					      "the peer's credit_addr or "
					      "credit_rkey is malformed");
		rv_credit_wr(s, addr, (uint32_t)rkey);
	} else {
		if (!cJSON_GetObjectItemCaseSensitive(info, "credits"))
			return 0; /* an older responder */
		if (rp_json_u64(info, "credits", UINT32_MAX, &n) ||
		    n < s->max_depth)
			return rp_stream_fail(&s->base, -EPROTO,
					      "the peer's credits are "
					      "malformed or under the queue "
					      "depth %u",
					      s->max_depth);
		s->cr.peer_nrecv = (uint32_t)n;
		rp_stream_note(&s->base,
			       "%s: sends paced by the receiver's credits "
			       "(no receiver-not-ready retry)",
			       s->no_imm ? "iWARP" : "UC");
	}
	s->cr.on = true;
	return 0;
}

uint32_t rv_credit_room(const struct rv_stream *s)
{
	uint32_t granted = *(const volatile uint32_t *)s->cr.word;
	uint32_t out = s->cr.sent - granted; /* modulo 2^32 */

	return out >= s->cr.peer_nrecv ? 0 : s->cr.peer_nrecv - out;
}

/* Room on the send queue the echoes share, after reaping what completed:
 * 1 or 0, or -errno. */
static int rv_credit_sq_room(struct rv_stream *s)
{
	int ret;

	if (s->echo_out < s->sq_size)
		return 1;
	ret = rv_reap_echoes(s);
	return ret ? ret : s->echo_out < s->sq_size;
}

int rv_credit_tell(struct rv_stream *s, bool flush)
{
	struct ibv_send_wr *bad;
	uint64_t deadline;
	int ret;

	if (!s->cr.on)
		return 0;
	if (s->cr.reposted == s->cr.told ||
	    (!flush && s->cr.reposted - s->cr.told < s->cr.step))
		return 0;
	ret = rv_credit_sq_room(s);
	/* full: the next receive tries again; at a phase's end (the last
	 * word the initiator gets before the next phase) wait a while */
	for (deadline = rp_clock_ns() + RV_CREDIT_FLUSH_NS;
	     !ret && flush && rp_clock_ns() < deadline;)
		ret = rv_credit_sq_room(s);
	if (ret <= 0)
		return ret;
	*s->cr.word = s->cr.reposted;
	ret = ibv_post_send(s->qp, &s->cr.wr, &bad);
	if (ret)
		return rv_call_failed(s, "ibv_post_send (credit)", ret);
	s->cr.told = s->cr.reposted;
	s->echo_out++;
	return 0;
}

/* Reap the responder's completed sends: echoes and credit writes. */
int rv_reap_echoes(struct rv_stream *s)
{
	struct ibv_wc wc[RV_BATCH];
	int n, i;

	if (!s->echo_out)
		return 0;
	n = ibv_poll_cq(s->scq, RV_BATCH, wc);
	if (n < 0)
		return rv_cq_failed(s);
	for (i = 0; i < n; i++)
		if (wc[i].status != IBV_WC_SUCCESS)
			return rv_wc_failed(s, &wc[i]);
	s->echo_out -= (uint32_t)n;
	return 0;
}
