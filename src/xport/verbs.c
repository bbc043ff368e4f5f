// SPDX-License-Identifier: MIT
/*
 * The "rdma" transport: one reliable-connected queue pair per stream, set up
 * with rdma_cm, driven with libibverbs.
 *
 *   Server                                        Client
 *   listen: bind port 0, rdma_listen
 *     endpoint {"port": N}  ~~~~~~~~~~~~~~~~~~~~>  resolve_addr, resolve_route
 *                                                  setup (PD, CQs, QP, MR, WRs)
 *   CONNECT_REQUEST  <~~~ private data: token ~~~  rdma_connect
 *     another token: rdma_reject, keep waiting
 *     setup, post receives, rdma_accept  ~~~~~~~>  ESTABLISHED
 *   ESTABLISHED
 *   ... phases ...
 *   close: rdma_disconnect, wait for DISCONNECTED (2 s), free: both sides
 *
 * Memory: each side registers one buffer of "slots" of size bytes, once.
 * Operation seq goes from the client's slot seq % depth to the server's slot
 * seq % depth (send: into whichever receive the server posted; the server
 * keeps at least depth + RV_RECV_MARGIN receives posted, one slot each,
 * see rv_server_recvs()). The client has at least two slots: slot 1 is
 * where latency echoes land.
 *
 * Latency (depth 1, slot 0):
 *   send, write_imm  client posts a receive and the operation; the server
 *                    echoes it (send: a send; write_imm: a write_imm into
 *                    the client's slot 1); done when both complete.
 *   write            perftest's method: the client writes slot 0 with a
 *                    nonzero marker in its last byte; the server spins on
 *                    that byte and writes its slot 0 back into the client's
 *                    slot 1, where the client spins for the same marker.
 *   read, atomics    one operation, waited for.
 *
 * --verify: senders fill each message with rp_payload_fill() before posting
 * (send carries seq in an immediate then, as write_imm always does). The
 * server checks sends and write_imms as they arrive, and at the end of a
 * write phase checks that every written slot holds the pattern of some seq
 * of that slot (the pattern starts with seq). For read the server fills slot
 * i with the pattern of seq i and the client checks every read; for atomics
 * the client checks the old value each one returns.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "core/clock.h"
#include "xport/xport.h"

#define RV_INLINE_AUTO	 256 /* inline size asked for when automatic */
#define RV_RECV_MARGIN	 16  /* server receives posted beyond the depth, */
#define RV_RECV_MAX	 512 /* or more, up to this many in all, */
#define RV_RECV_BYTES	 (8u << 20) /* as long as they fit in this */
#define RV_MIN_RNR_TIMER 12	    /* 0.64 ms; rdma_cm leaves 0: 655 ms */
#define RV_BATCH	 16	    /* work completions per ibv_poll_cq */
#define RV_TOKEN_MAX	 56	    /* private data of an RC connect request */
#define RV_RD_ATOMIC_MAX 16	    /* reads and atomics in flight, at most */
#define RV_CLOSE_MS	 2000	    /* wait for the peer's disconnect */
#define RV_HANDSHAKE_MS	 15000	    /* accept: request in hand to ESTABLISHED */
#define RV_PING_SIGNAL	 16 /* write ping-pong: one signaled in this many */
#define RV_SERVER_SQ	 4  /* server sends: latency echoes only */
#define RV_CLIENT_RQ	 2  /* client receives: latency echoes only */
#define RV_LATE_LAPS	 8  /* write_imm: later laps a slot may hold */
#define RV_IDLE_NS	 1000000 /* passive server: sleep between stop checks */
#define RV_DEVNAME	 64

/* Local options, copied from struct rp_xport_params. */
struct rv_opts {
	char device[RV_DEVNAME];
	int ib_port;
	int gid_index;
	int inline_bytes;
	int mtu;
};

struct rp_listener {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	struct rp_spec spec;
	struct rv_opts opts;
};

struct rp_stream {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *scq; /* send queue completions */
	struct ibv_cq *rcq; /* receive queue completions */
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf;
	size_t buf_len;
	struct rp_spec spec;
	struct rv_opts opts;
	bool server;
	bool connected;
	bool failed;	  /* a completion error was reported */
	uint64_t size;	  /* bytes per operation (slot size) */
	uint32_t depth;	  /* slots the operations cycle through */
	uint32_t sq_size; /* send work requests */
	uint32_t nrecv;	  /* receive work requests */
	uint32_t inline_max;
	uint8_t rd_atom;   /* responder resources we grant */
	uint8_t init_atom; /* reads/atomics we may have in flight */
	int mtu_bytes;
	int gid_index;
	uint64_t peer_addr;
	uint64_t peer_len;
	uint32_t peer_rkey;
	struct ibv_send_wr *wr; /* client: one per slot; server: [0] echo */
	struct ibv_sge *sge;
	struct ibv_recv_wr *rwr;
	struct ibv_sge *rsge;
	struct ibv_recv_wr *rhead; /* completed receives, to repost */
	struct ibv_recv_wr *rtail;
	uint64_t *atom_next; /* client atomics: old value due, per slot */
	uint64_t rx_seq;     /* server: seq of the last message received */
	uint32_t echo_out;   /* server: echoes not yet completed */
	uint8_t marker;	     /* write latency: marker of the last ping */
	uint64_t verify_errors;
};

static const char *const rv_op_names[RP_OP__COUNT] = {
	[RP_OP_WRITE] = "write",	 [RP_OP_READ] = "read",
	[RP_OP_SEND] = "send",		 [RP_OP_WRITE_IMM] = "write_imm",
	[RP_OP_FETCH_ADD] = "fetch_add", [RP_OP_CMP_SWAP] = "cmp_swap",
};

/* ---- errors and conversions --------------------------------------------- */

/* rdma-core's conventions to a negative errno; @err: errno or a return. */
static int rv_neg(int err)
{
	if (err > 0)
		return -err;
	return err < 0 ? err : -EIO;
}

/* Report a failed setup call (off the hot path); errno as it was left. */
static int rv_fail(const char *what)
{
	int err = rv_neg(errno);

	fprintf(stderr, "rdma: %s failed: %s\n", what, strerror(-err));
	return err;
}

static bool rv_is_atomic(enum rp_op op)
{
	return op == RP_OP_FETCH_ADD || op == RP_OP_CMP_SWAP;
}

static const char *rv_wc_hint(enum ibv_wc_status st)
{
	switch (st) {
	case IBV_WC_REM_ACCESS_ERR:
		return "the peer's rkey or memory access flags do not allow "
		       "this operation";
	case IBV_WC_RNR_RETRY_EXC_ERR:
		return "receiver not ready: no receive was posted at the peer";
	case IBV_WC_RETRY_EXC_ERR:
		return "no answer from the peer: unreachable or gone";
	case IBV_WC_WR_FLUSH_ERR:
		return "the queue pair was already in error after an earlier "
		       "failure";
	case IBV_WC_LOC_PROT_ERR:
		return "local protection error: bad local key or buffer";
	case IBV_WC_LOC_LEN_ERR:
		return "message longer than the receive buffer";
	case IBV_WC_REM_INV_REQ_ERR:
		return "the peer refused the request (length, or operation "
		       "not enabled)";
	default:
		return "see ibv_poll_cq(3)";
	}
}

/* A failed work completion: say it once, fail the run with -EIO. */
static int rv_wc_failed(struct rp_stream *s, const struct ibv_wc *wc)
{
	if (!s->failed)
		fprintf(stderr,
			"rdma: %s %s: work completion failed: %s (status %d, "
			"vendor error 0x%x, wr_id %" PRIu64 "): %s\n",
			s->server ? "server" : "client",
			rv_op_names[s->spec.op], ibv_wc_status_str(wc->status),
			(int)wc->status, wc->vendor_err, (uint64_t)wc->wr_id,
			rv_wc_hint(wc->status));
	s->failed = true;
	return -EIO;
}

static int rv_cq_failed(struct rp_stream *s)
{
	if (!s->failed)
		fprintf(stderr, "rdma: ibv_poll_cq failed\n");
	s->failed = true;
	return -EIO;
}

/* ---- rdma_cm events ----------------------------------------------------- */

static uint64_t rv_deadline(int timeout_ms)
{
	return rp_clock_ns() +
	       (uint64_t)(timeout_ms > 0 ? timeout_ms : 0) * RP_NS_PER_MS;
}

static int rv_ms_left(uint64_t deadline_ns)
{
	uint64_t now = rp_clock_ns(), ms;

	if (now >= deadline_ns)
		return 0;
	ms = (deadline_ns - now + RP_NS_PER_MS - 1) / RP_NS_PER_MS;
	return ms > INT_MAX ? INT_MAX : (int)ms;
}

static int rv_channel_create(struct rdma_event_channel **out)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	int fl;

	if (!ch)
		return rv_fail(
			"rdma_create_event_channel (is rdma_ucm loaded?)");
	fl = fcntl(ch->fd, F_GETFL);
	if (fl < 0 || fcntl(ch->fd, F_SETFL, fl | O_NONBLOCK) < 0) {
		fl = rv_fail("fcntl on the rdma_cm channel");
		rdma_destroy_event_channel(ch);
		return fl;
	}
	*out = ch;
	return 0;
}

/* Next event on @ch, or -ETIMEDOUT at @deadline_ns. The caller acks it. */
static int rv_get_event(struct rdma_event_channel *ch, uint64_t deadline_ns,
			struct rdma_cm_event **ev)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	int ms;

	for (;;) {
		if (rdma_get_cm_event(ch, ev) == 0)
			return 0;
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			return rv_neg(errno);
		ms = rv_ms_left(deadline_ns);
		if (!ms)
			return -ETIMEDOUT;
		if (poll(&pfd, 1, ms) < 0 && errno != EINTR)
			return rv_neg(errno);
	}
}

static int rv_event_errno(const struct rdma_cm_event *ev)
{
	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_ERROR:
		return -EADDRNOTAVAIL;
	case RDMA_CM_EVENT_ROUTE_ERROR:
		return -ENETUNREACH;
	case RDMA_CM_EVENT_REJECTED:
		return -ECONNREFUSED;
	case RDMA_CM_EVENT_UNREACHABLE:
		return -EHOSTUNREACH;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		return -ENODEV;
	case RDMA_CM_EVENT_DISCONNECTED:
		return -ECONNRESET;
	default:
		return ev->status < 0 ? ev->status : -ECONNABORTED;
	}
}

/* Wait for event @want on @ch; anything else (or nothing) is an error. */
static int rv_expect(struct rdma_event_channel *ch,
		     enum rdma_cm_event_type want, uint64_t deadline_ns,
		     const char *what)
{
	struct rdma_cm_event *ev;
	int ret;

	ret = rv_get_event(ch, deadline_ns, &ev);
	if (ret) {
		fprintf(stderr, "rdma: %s: %s\n", what,
			ret == -ETIMEDOUT ? "timed out" : strerror(-ret));
		return ret;
	}
	if (ev->event != want) {
		ret = rv_event_errno(ev);
		fprintf(stderr, "rdma: %s: got %s (status %d)%s\n", what,
			rdma_event_str(ev->event), ev->status,
			ev->event == RDMA_CM_EVENT_REJECTED
				? ": no listener or a wrong token"
				: "");
	}
	rdma_ack_cm_event(ev);
	return ret;
}

/* ---- stream lifetime ---------------------------------------------------- */

static void rv_opts_init(struct rv_opts *o, const struct rp_xport_params *p)
{
	memset(o, 0, sizeof(*o));
	o->gid_index = -1;
	o->inline_bytes = -1;
	if (!p)
		return;
	if (p->device)
		snprintf(o->device, sizeof(o->device), "%s", p->device);
	o->ib_port = p->ib_port;
	o->gid_index = p->gid_index;
	o->inline_bytes = p->inline_bytes;
	o->mtu = p->mtu;
}

static int rv_check_spec(const struct rp_spec *spec)
{
	const char *why = NULL;

	if ((unsigned)spec->op >= RP_OP__COUNT)
		why = "unknown operation";
	else if (!spec->size_bytes || spec->size_bytes > RP_SPEC_MAX_SIZE)
		why = "message size out of range";
	else if (!spec->queue_depth || spec->queue_depth > RP_SPEC_MAX_DEPTH)
		why = "queue depth out of range";
	else if (spec->size_bytes * spec->queue_depth > RP_SPEC_MAX_MEM)
		why = "size * queue depth exceeds the memory limit";
	else if (rv_is_atomic(spec->op) && spec->size_bytes != 8)
		why = "atomic operations move exactly 8 bytes";
	if (!why)
		return 0;
	fprintf(stderr, "rdma: invalid test: %s\n", why);
	return -EINVAL;
}

static int rv_stream_new(const struct rp_spec *spec, const struct rv_opts *o,
			 bool server, struct rp_stream **out)
{
	struct rp_stream *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->spec = *spec;
	s->opts = *o;
	s->server = server;
	s->size = spec->size_bytes;
	s->depth = spec->queue_depth;
	s->gid_index = -1;
	*out = s;
	return 0;
}

static void rv_free_verbs(struct rp_stream *s)
{
	if (s->qp)
		rdma_destroy_qp(s->id);
	if (s->mr)
		ibv_dereg_mr(s->mr);
	if (s->buf)
		munmap(s->buf, s->buf_len);
	if (s->scq)
		ibv_destroy_cq(s->scq);
	if (s->rcq)
		ibv_destroy_cq(s->rcq);
	if (s->pd)
		ibv_dealloc_pd(s->pd);
}

/* Free whatever @s holds; the verbs objects go before the id (its device). */
static void rv_stream_free(struct rp_stream *s)
{
	rv_free_verbs(s);
	if (s->id)
		rdma_destroy_id(s->id);
	if (s->ch)
		rdma_destroy_event_channel(s->ch);
	free(s->wr);
	free(s->sge);
	free(s->rwr);
	free(s->rsge);
	free(s->atom_next);
	free(s);
}

/* Disconnect and wait (bounded) for the peer to do the same: an rxe peer
 * left undisconnected blocks its process's exit for about 100 s. A peer
 * that closes later than RV_CLOSE_MS is not an error: the kernel finishes
 * the handshake after our id is gone. */
static void rv_disconnect(struct rp_stream *s)
{
	uint64_t deadline = rv_deadline(RV_CLOSE_MS);
	struct rdma_cm_event *ev;
	bool done = false;

	if (rdma_disconnect(s->id))
		return;
	while (!done && rv_get_event(s->ch, deadline, &ev) == 0) {
		done = ev->event == RDMA_CM_EVENT_DISCONNECTED;
		rdma_ack_cm_event(ev);
	}
}

static void rv_close(struct rp_stream *s)
{
	if (!s)
		return;
	if (s->connected)
		rv_disconnect(s);
	rv_stream_free(s);
}

/* ---- setup: device, queues, memory, work requests ----------------------- */

static int rv_check_device(struct rp_stream *s)
{
	const char *name = ibv_get_device_name(s->id->verbs->device);

	if (s->opts.device[0] && strcmp(s->opts.device, name) != 0) {
		fprintf(stderr,
			"rdma: rdma_cm resolved the address to device %s, "
			"but device %s was asked for: use an address of %s\n",
			name, s->opts.device, s->opts.device);
		return -ENODEV;
	}
	if (s->opts.ib_port && s->opts.ib_port != s->id->port_num) {
		fprintf(stderr,
			"rdma: rdma_cm resolved the address to %s port %u, "
			"but port %d was asked for\n",
			name, s->id->port_num, s->opts.ib_port);
		return -ENODEV;
	}
	return 0;
}

static bool rv_receives(const struct rp_stream *s)
{
	return s->spec.op == RP_OP_SEND || s->spec.op == RP_OP_WRITE_IMM;
}

/* The server keeps enough receives posted that a sender does not run into
 * "receiver not ready" while the server is off the CPU for a moment. */
static uint32_t rv_server_recvs(const struct rp_stream *s, uint32_t max_wr)
{
	uint64_t n = (uint64_t)s->depth + RV_RECV_MARGIN;
	uint64_t more = RV_RECV_BYTES / s->size;

	if (more > RV_RECV_MAX)
		more = RV_RECV_MAX;
	if (more > n)
		n = more;
	return (uint32_t)(n > max_wr ? max_wr : n);
}

static void rv_queue_sizes(struct rp_stream *s, uint32_t max_wr)
{
	bool recv = rv_receives(s);

	if (s->server) {
		s->sq_size = RV_SERVER_SQ;
		s->nrecv = recv ? rv_server_recvs(s, max_wr) : 1;
	} else {
		/* room for the unsignaled pings of the latency phase, which
		 * may hold their slots until the next completion is reaped */
		s->sq_size = s->depth + RV_PING_SIGNAL;
		s->nrecv = recv ? RV_CLIENT_RQ : 1;
	}
}

static int rv_query_limits(struct rp_stream *s)
{
	struct ibv_device_attr a;
	int ret = ibv_query_device(s->id->verbs, &a);

	if (ret) {
		errno = ret;
		return rv_fail("ibv_query_device");
	}
	if (rv_is_atomic(s->spec.op) && a.atomic_cap == IBV_ATOMIC_NONE) {
		fprintf(stderr, "rdma: device %s has no atomic operations\n",
			ibv_get_device_name(s->id->verbs->device));
		return -EOPNOTSUPP;
	}
	rv_queue_sizes(s, (uint32_t)a.max_qp_wr);
	if (s->sq_size > (uint32_t)a.max_qp_wr ||
	    (s->server && rv_receives(s) && s->nrecv < s->depth) ||
	    s->sq_size + 1 > (uint32_t)a.max_cqe ||
	    s->nrecv + 1 > (uint32_t)a.max_cqe) {
		fprintf(stderr,
			"rdma: queue depth %u exceeds the device's limits "
			"(%d work requests, %d completions)\n",
			s->depth, a.max_qp_wr, a.max_cqe);
		return -EINVAL;
	}
	s->rd_atom = (uint8_t)(a.max_qp_rd_atom < RV_RD_ATOMIC_MAX
				       ? a.max_qp_rd_atom
				       : RV_RD_ATOMIC_MAX);
	s->init_atom = (uint8_t)(a.max_qp_init_rd_atom < RV_RD_ATOMIC_MAX
					 ? a.max_qp_init_rd_atom
					 : RV_RD_ATOMIC_MAX);
	return 0;
}

static int rv_create_cqs(struct rp_stream *s)
{
	s->scq =
		ibv_create_cq(s->id->verbs, (int)s->sq_size + 1, NULL, NULL, 0);
	if (!s->scq)
		return rv_fail("ibv_create_cq (send)");
	s->rcq = ibv_create_cq(s->id->verbs, (int)s->nrecv + 1, NULL, NULL, 0);
	if (!s->rcq)
		return rv_fail("ibv_create_cq (receive)");
	return 0;
}

/* Automatic inline: ask for RV_INLINE_AUTO, take less if refused. */
static int rv_create_qp(struct rp_stream *s)
{
	bool autoinl = s->opts.inline_bytes < 0;
	uint32_t want =
		autoinl ? RV_INLINE_AUTO : (uint32_t)s->opts.inline_bytes;
	struct ibv_qp_init_attr a;

	for (;;) {
		memset(&a, 0, sizeof(a));
		a.send_cq = s->scq;
		a.recv_cq = s->rcq;
		a.qp_type = IBV_QPT_RC;
		a.cap.max_send_wr = s->sq_size;
		a.cap.max_recv_wr = s->nrecv;
		a.cap.max_send_sge = 1;
		a.cap.max_recv_sge = 1;
		a.cap.max_inline_data = want;
		if (rdma_create_qp(s->id, s->pd, &a) == 0)
			break;
		if (!autoinl || !want)
			return rv_fail("rdma_create_qp");
		want = want > 32 ? want / 2 : 0;
	}
	s->qp = s->id->qp;
	s->inline_max = a.cap.max_inline_data;
	if (!autoinl && s->inline_max > want)
		s->inline_max = want;
	return 0;
}

static size_t rv_slots(const struct rp_stream *s)
{
	if (!s->server)
		return s->depth > 2 ? s->depth : 2;
	return s->spec.op == RP_OP_SEND ? s->nrecv : s->depth;
}

/* The least access the test needs (DESIGN.md, "Failure and safety"). */
static int rv_access(const struct rp_stream *s)
{
	int a = IBV_ACCESS_LOCAL_WRITE;

	switch (s->spec.op) {
	case RP_OP_WRITE:
	case RP_OP_WRITE_IMM: /* the client too: latency echoes land there */
		return a | IBV_ACCESS_REMOTE_WRITE;
	case RP_OP_READ:
		return s->server ? a | IBV_ACCESS_REMOTE_READ : a;
	case RP_OP_FETCH_ADD:
	case RP_OP_CMP_SWAP:
		return s->server ? a | IBV_ACCESS_REMOTE_ATOMIC : a;
	default:
		return a;
	}
}

static int rv_create_buffer(struct rp_stream *s)
{
	void *p;
	size_t i;

	s->buf_len = rv_slots(s) * s->size;
	p = mmap(NULL, s->buf_len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return rv_fail("mmap of the message buffer");
	s->buf = p; /* page-aligned and zeroed */
	s->mr = ibv_reg_mr(s->pd, s->buf, s->buf_len, rv_access(s));
	if (!s->mr)
		return rv_fail("ibv_reg_mr (is ulimit -l large enough?)");
	if (s->server && s->spec.op == RP_OP_READ && s->spec.verify)
		for (i = 0; i < s->depth; i++)
			rp_payload_fill(s->buf + i * s->size, s->size, i);
	return 0;
}

static enum ibv_wr_opcode rv_opcode(const struct rp_stream *s)
{
	switch (s->spec.op) {
	case RP_OP_READ:
		return IBV_WR_RDMA_READ;
	case RP_OP_SEND: /* verify: the immediate tells the server seq */
		return s->spec.verify && !s->server ? IBV_WR_SEND_WITH_IMM
						    : IBV_WR_SEND;
	case RP_OP_WRITE_IMM:
		return IBV_WR_RDMA_WRITE_WITH_IMM;
	case RP_OP_FETCH_ADD:
		return IBV_WR_ATOMIC_FETCH_AND_ADD;
	case RP_OP_CMP_SWAP:
		return IBV_WR_ATOMIC_CMP_AND_SWP;
	default:
		return IBV_WR_RDMA_WRITE;
	}
}

static unsigned int rv_send_flags(const struct rp_stream *s)
{
	bool can = s->spec.op == RP_OP_WRITE || s->spec.op == RP_OP_SEND ||
		   s->spec.op == RP_OP_WRITE_IMM;

	if (can && s->size <= s->inline_max)
		return IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	return IBV_SEND_SIGNALED;
}

/* Send work requests: the client's one per slot, the server's echo. */
static void rv_build_sends(struct rp_stream *s, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		s->sge[i].addr = (uintptr_t)(s->buf + i * s->size);
		s->sge[i].length = (uint32_t)s->size;
		s->sge[i].lkey = s->mr->lkey;
		s->wr[i].sg_list = &s->sge[i];
		s->wr[i].num_sge = 1;
		s->wr[i].opcode = rv_opcode(s);
		s->wr[i].send_flags = rv_send_flags(s);
	}
}

/* Receives: send lands in a slot each (server) or slot 1 (client echo). */
static void rv_build_recvs(struct rp_stream *s)
{
	uint32_t i, slot;

	for (i = 0; i < s->nrecv; i++) {
		slot = s->server ? i : 1;
		s->rsge[i].addr = (uintptr_t)(s->buf + slot * s->size);
		s->rsge[i].length = (uint32_t)s->size;
		s->rsge[i].lkey = s->mr->lkey;
		s->rwr[i].wr_id = i;
		s->rwr[i].sg_list = &s->rsge[i];
		s->rwr[i].num_sge = s->spec.op == RP_OP_SEND ? 1 : 0;
	}
}

static int rv_build_wrs(struct rp_stream *s)
{
	uint32_t n = s->server ? 1 : s->depth;

	s->wr = calloc(n, sizeof(*s->wr));
	s->sge = calloc(n, sizeof(*s->sge));
	s->rwr = calloc(s->nrecv, sizeof(*s->rwr));
	s->rsge = calloc(s->nrecv, sizeof(*s->rsge));
	if (!s->wr || !s->sge || !s->rwr || !s->rsge)
		return -ENOMEM;
	if (!s->server && rv_is_atomic(s->spec.op)) {
		s->atom_next = calloc(s->depth, sizeof(*s->atom_next));
		if (!s->atom_next)
			return -ENOMEM;
	}
	rv_build_sends(s, n);
	rv_build_recvs(s);
	return 0;
}

/* Everything that needs the device: after the route, before the connect. */
static int rv_setup(struct rp_stream *s)
{
	int ret;

	ret = rv_check_device(s);
	if (!ret)
		ret = rv_query_limits(s);
	if (ret)
		return ret;
	s->pd = ibv_alloc_pd(s->id->verbs);
	if (!s->pd)
		return rv_fail("ibv_alloc_pd");
	ret = rv_create_cqs(s);
	if (!ret)
		ret = rv_create_qp(s);
	if (!ret)
		ret = rv_create_buffer(s);
	if (!ret)
		ret = rv_build_wrs(s);
	return ret;
}

static int rv_mtu_bytes(enum ibv_mtu m)
{
	return m >= IBV_MTU_256 && m <= IBV_MTU_4096 ? 128 << m : 0;
}

/* rdma_cm leaves the receiver's RNR timer at 0, which makes a sender wait
 * 655 ms after each "receiver not ready"; RTS -> RTS may change it. */
static void rv_set_rnr_timer(struct rp_stream *s)
{
	struct ibv_qp_attr qa = { .min_rnr_timer = RV_MIN_RNR_TIMER };
	int ret;

	if (!rv_receives(s))
		return;
	ret = ibv_modify_qp(s->qp, &qa, IBV_QP_MIN_RNR_TIMER);
	if (ret)
		fprintf(stderr,
			"rdma: cannot shorten the RNR timer (%s): a receiver "
			"that falls behind stalls its sender for 655 ms\n",
			strerror(ret > 0 ? ret : EIO));
}

/* What the connection got: path MTU and GID; say what could not be set. */
static void rv_connected(struct rp_stream *s)
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
	} else if (ibv_query_port(s->id->verbs, s->id->port_num, &pa) == 0) {
		s->mtu_bytes = rv_mtu_bytes(pa.active_mtu);
	}
	if (s->opts.mtu && s->opts.mtu != s->mtu_bytes)
		fprintf(stderr,
			"rdma: the path MTU cannot be set through rdma_cm; "
			"using %d bytes, not %d\n",
			s->mtu_bytes, s->opts.mtu);
	if (s->opts.gid_index >= 0 && s->opts.gid_index != s->gid_index)
		fprintf(stderr,
			"rdma: rdma_cm picks the GID from the address; "
			"using GID index %d, not %d\n",
			s->gid_index, s->opts.gid_index);
}

/* ---- connection: server ------------------------------------------------- */

/* Wait for ESTABLISHED after accept or connect; on failure tell the peer
 * and wait no longer. */
static int rv_established(struct rp_stream *s, uint64_t deadline_ns,
			  const char *what)
{
	int ret =
		rv_expect(s->ch, RDMA_CM_EVENT_ESTABLISHED, deadline_ns, what);

	if (ret)
		rdma_disconnect(s->id);
	else
		rv_connected(s);
	return ret;
}

static int rv_bind(struct rdma_cm_id *id, const char *addr)
{
	struct addrinfo hints = { .ai_flags = AI_PASSIVE | AI_NUMERICSERV,
				  .ai_socktype = SOCK_STREAM };
	struct sockaddr_in any = { .sin_family = AF_INET };
	struct addrinfo *ai = NULL;
	int ret;

	if (!addr)
		return rdma_bind_addr(id, (struct sockaddr *)&any)
			       ? rv_fail("rdma_bind_addr")
			       : 0;
	ret = getaddrinfo(addr, "0", &hints, &ai);
	if (ret) {
		fprintf(stderr, "rdma: cannot resolve %s: %s\n", addr,
			gai_strerror(ret));
		return -EADDRNOTAVAIL;
	}
	ret = rdma_bind_addr(id, ai->ai_addr);
	if (ret)
		fprintf(stderr, "rdma: cannot listen on %s: %s\n", addr,
			strerror(errno));
	ret = ret ? rv_neg(errno) : 0;
	freeaddrinfo(ai);
	return ret;
}

static int rv_listen(const struct rp_spec *spec,
		     const struct rp_xport_params *p, cJSON *endpoint,
		     struct rp_listener **out)
{
	struct rp_listener *l;
	int ret = rv_check_spec(spec);

	if (ret)
		return ret;
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->spec = *spec;
	rv_opts_init(&l->opts, p);
	ret = rv_channel_create(&l->ch);
	if (ret)
		goto out_free;
	if (rdma_create_id(l->ch, &l->id, l, RDMA_PS_TCP)) {
		ret = rv_fail("rdma_create_id");
		goto out_channel;
	}
	ret = rv_bind(l->id, p ? p->bind : NULL);
	if (!ret && rdma_listen(l->id, 16))
		ret = rv_fail("rdma_listen");
	if (!ret && !cJSON_AddNumberToObject(endpoint, "port",
					     ntohs(rdma_get_src_port(l->id))))
		ret = -ENOMEM;
	if (ret)
		goto out_id;
	*out = l;
	return 0;
out_id:
	rdma_destroy_id(l->id);
out_channel:
	rdma_destroy_event_channel(l->ch);
out_free:
	free(l);
	return ret;
}

static void rv_unlisten(struct rp_listener *l)
{
	if (!l)
		return;
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

static int rv_post_recvs(struct rp_stream *s)
{
	struct ibv_recv_wr *bad;
	uint32_t i;

	int ret;

	for (i = 0; i < s->nrecv; i++)
		s->rwr[i].next = i + 1 < s->nrecv ? &s->rwr[i + 1] : NULL;
	ret = ibv_post_recv(s->qp, s->rwr, &bad);
	return ret ? rv_neg(ret) : 0;
}

/* Accept @s's connection request (its id) on a channel of its own. */
static int rv_server_connect(struct rp_stream *s,
			     const struct rdma_conn_param *req,
			     uint64_t deadline_ns)
{
	struct rdma_conn_param cp = { .retry_count = 7, .rnr_retry_count = 7 };
	int ret;

	ret = rv_channel_create(&s->ch);
	if (!ret && rdma_migrate_id(s->id, s->ch))
		ret = rv_fail("rdma_migrate_id");
	if (!ret)
		ret = rv_setup(s);
	if (!ret && rv_receives(s))
		ret = rv_post_recvs(s);
	if (ret) {
		rdma_reject(s->id, NULL, 0);
		return ret;
	}
	cp.responder_resources = req->initiator_depth < s->rd_atom
					 ? req->initiator_depth
					 : s->rd_atom;
	cp.initiator_depth = req->responder_resources < s->init_atom
				     ? req->responder_resources
				     : s->init_atom;
	if (rdma_accept(s->id, &cp))
		return rv_fail("rdma_accept");
	return rv_established(s, deadline_ns, "accept");
}

/* Take the connection request @ev (its token checked) as a new stream.
 * The handshake gets a deadline of its own: callers accept in short slices
 * (to watch their control connection), and a client whose request is in
 * hand must not be dropped because setting up its memory took a while. A
 * handshake that times out is -ECONNABORTED, not "nobody came yet". */
static int rv_take_request(struct rp_listener *l, struct rdma_cm_event *ev,
			   struct rp_stream **out)
{
	uint64_t deadline_ns = rv_deadline(RV_HANDSHAKE_MS);
	struct rdma_conn_param req = ev->param.conn;
	struct rdma_cm_id *id = ev->id;
	struct rp_stream *s;
	int ret;

	rdma_ack_cm_event(ev);
	ret = rv_stream_new(&l->spec, &l->opts, true, &s);
	if (ret) {
		rdma_reject(id, NULL, 0);
		rdma_destroy_id(id);
		return ret;
	}
	s->id = id;
	id->context = s;
	ret = rv_server_connect(s, &req, deadline_ns);
	if (ret) {
		rv_close(s);
		return ret == -ETIMEDOUT ? -ECONNABORTED : ret;
	}
	*out = s;
	return 0;
}

static int rv_accept(struct rp_listener *l, const char *token, int timeout_ms,
		     struct rp_stream **out)
{
	uint64_t deadline = rv_deadline(timeout_ms);
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	int ret;

	if (!token || strlen(token) > RV_TOKEN_MAX)
		return -EINVAL;
	for (;;) {
		ret = rv_get_event(l->ch, deadline, &ev);
		if (ret) /* callers poll in slices: not worth a message */
			return ret;
		if (ev->event != RDMA_CM_EVENT_CONNECT_REQUEST) {
			rdma_ack_cm_event(ev);
			continue;
		}
		if (rv_token_ok(ev, token))
			return rv_take_request(l, ev, out);
		id = ev->id;
		rdma_reject(id, NULL, 0);
		rdma_ack_cm_event(ev);
		rdma_destroy_id(id);
	}
}

/* ---- connection: client ------------------------------------------------- */

static int rv_endpoint_port(const cJSON *endpoint, char *port, size_t len)
{
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(endpoint, "port");

	if (!cJSON_IsNumber(p) || p->valuedouble < 1 ||
	    p->valuedouble > 65535 || p->valuedouble != (int)p->valuedouble) {
		fprintf(stderr, "rdma: the server's endpoint has no valid "
				"\"port\"\n");
		return -EPROTO;
	}
	snprintf(port, len, "%d", (int)p->valuedouble);
	return 0;
}

static int rv_resolve(struct rp_stream *s, const char *host,
		      const cJSON *endpoint, uint64_t deadline_ns)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICSERV,
				  .ai_socktype = SOCK_STREAM };
	struct addrinfo *ai = NULL;
	char port[8];
	int ret;

	ret = rv_endpoint_port(endpoint, port, sizeof(port));
	if (ret)
		return ret;
	ret = getaddrinfo(host, port, &hints, &ai);
	if (ret) {
		fprintf(stderr, "rdma: cannot resolve %s: %s\n", host,
			gai_strerror(ret));
		return -EHOSTUNREACH;
	}
	ret = rdma_resolve_addr(s->id, NULL, ai->ai_addr,
				rv_ms_left(deadline_ns) + 1);
	freeaddrinfo(ai);
	if (ret)
		return rv_fail("rdma_resolve_addr");
	ret = rv_expect(s->ch, RDMA_CM_EVENT_ADDR_RESOLVED, deadline_ns,
			"resolving the server's address");
	if (!ret && rdma_resolve_route(s->id, rv_ms_left(deadline_ns) + 1))
		ret = rv_fail("rdma_resolve_route");
	if (!ret)
		ret = rv_expect(s->ch, RDMA_CM_EVENT_ROUTE_RESOLVED,
				deadline_ns, "resolving the route");
	return ret;
}

static int rv_client_connect(struct rp_stream *s, const char *token,
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

	if (rdma_connect(s->id, &cp))
		return rv_fail("rdma_connect");
	return rv_established(s, deadline_ns, "connecting");
}

static int rv_connect(const struct rp_spec *spec,
		      const struct rp_xport_params *p, const char *host,
		      const cJSON *endpoint, const char *token, int timeout_ms,
		      struct rp_stream **out)
{
	uint64_t deadline = rv_deadline(timeout_ms);
	struct rp_stream *s;
	struct rv_opts o;
	int ret;

	if (!token || strlen(token) > RV_TOKEN_MAX || !host)
		return -EINVAL;
	ret = rv_check_spec(spec);
	if (ret)
		return ret;
	rv_opts_init(&o, p);
	ret = rv_stream_new(spec, &o, false, &s);
	if (ret)
		return ret;
	ret = rv_channel_create(&s->ch);
	if (!ret && rdma_create_id(s->ch, &s->id, s, RDMA_PS_TCP))
		ret = rv_fail("rdma_create_id");
	if (!ret)
		ret = rv_resolve(s, host, endpoint, deadline);
	if (!ret)
		ret = rv_setup(s);
	if (!ret)
		ret = rv_client_connect(s, token, deadline);
	if (ret) {
		rv_close(s);
		return ret;
	}
	*out = s;
	return 0;
}

/* ---- peer information --------------------------------------------------- */

static bool rv_add_num(cJSON *o, const char *name, double v)
{
	return cJSON_AddNumberToObject(o, name, v) != NULL;
}

static int rv_local_info(struct rp_stream *s, cJSON *info)
{
	char addr[24];
	bool ok;

	snprintf(addr, sizeof(addr), "%" PRIu64, (uint64_t)(uintptr_t)s->buf);
	ok = cJSON_AddStringToObject(info, "addr", addr) &&
	     rv_add_num(info, "rkey", s->mr->rkey) &&
	     rv_add_num(info, "len", (double)s->buf_len) &&
	     cJSON_AddStringToObject(
		     info, "device",
		     ibv_get_device_name(s->id->verbs->device)) &&
	     rv_add_num(info, "port", s->id->port_num) &&
	     rv_add_num(info, "mtu", s->mtu_bytes) &&
	     rv_add_num(info, "max_inline", s->inline_max);
	if (ok && s->gid_index >= 0)
		ok = rv_add_num(info, "gid_index", s->gid_index);
	return ok ? 0 : -ENOMEM;
}

/* A u64 given as a decimal string, or as a number below 2^53. */
static int rv_json_u64(const cJSON *o, const char *name, uint64_t max,
		       uint64_t *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
	unsigned long long x;
	char *end;

	if (cJSON_IsString(v) && v->valuestring[0] >= '0' &&
	    v->valuestring[0] <= '9') {
		errno = 0;
		x = strtoull(v->valuestring, &end, 10);
		if (errno || *end)
			return -EPROTO;
	} else if (cJSON_IsNumber(v) && v->valuedouble >= 0 &&
		   v->valuedouble < 9007199254740992.0) {
		x = (unsigned long long)v->valuedouble;
		if ((double)x != v->valuedouble)
			return -EPROTO;
	} else {
		return -EPROTO;
	}
	if (x > max)
		return -EPROTO;
	*out = x;
	return 0;
}

/* How much of the peer's buffer this side's operations reach. */
static uint64_t rv_peer_need(const struct rp_stream *s)
{
	if (s->spec.op == RP_OP_SEND)
		return 0;
	if (s->server)
		return s->spec.op == RP_OP_WRITE ||
				       s->spec.op == RP_OP_WRITE_IMM
			       ? 2 * s->size
			       : 0;
	return (uint64_t)s->depth * s->size;
}

static void rv_set_remote(struct rp_stream *s)
{
	uint32_t i, n = s->server ? 1 : s->depth;
	uint64_t base = s->peer_addr + (s->server ? s->size : 0);
	struct ibv_send_wr *w;

	for (i = 0; i < n; i++) {
		w = &s->wr[i];
		if (rv_is_atomic(s->spec.op)) {
			w->wr.atomic.remote_addr = base + i * s->size;
			w->wr.atomic.rkey = s->peer_rkey;
			w->wr.atomic.compare_add = 1; /* fetch_add: add 1 */
		} else {
			w->wr.rdma.remote_addr = base + i * s->size;
			w->wr.rdma.rkey = s->peer_rkey;
		}
	}
}

static int rv_set_peer(struct rp_stream *s, const cJSON *info)
{
	uint64_t addr, len, rkey;

	if (rv_json_u64(info, "addr", UINT64_MAX, &addr) ||
	    rv_json_u64(info, "rkey", UINT32_MAX, &rkey) ||
	    rv_json_u64(info, "len", UINT64_MAX, &len)) {
		fprintf(stderr, "rdma: the peer's addr, rkey or len is "
				"missing or malformed\n");
		return -EPROTO;
	}
	if (len < rv_peer_need(s)) {
		fprintf(stderr,
			"rdma: the peer's buffer has %" PRIu64 " bytes, the "
			"test needs %" PRIu64 "\n",
			len, rv_peer_need(s));
		return -EPROTO;
	}
	s->peer_addr = addr;
	s->peer_rkey = (uint32_t)rkey;
	s->peer_len = len;
	rv_set_remote(s);
	return 0;
}

/* ---- payload checks ----------------------------------------------------- */

/* The seq a payload's first 8 bytes claim, in either byte order (@i 0/1). */
static uint64_t rv_header_seq(const uint8_t *p, int i)
{
	uint64_t raw;

	memcpy(&raw, p, sizeof(raw));
	return i ? le64toh(raw) : be64toh(raw);
}

/* Does @p hold the pattern of some seq that goes to @slot? */
static bool rv_slot_wellformed(const struct rp_stream *s, const uint8_t *p,
			       uint32_t slot)
{
	uint64_t h;
	int i;

	for (i = 0; i < 2; i++) {
		h = rv_header_seq(p, i);
		if (h % s->depth == slot && !rp_payload_check(p, s->size, h))
			return true;
	}
	return false;
}

static bool rv_all_zero(const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i])
			return false;
	return true;
}

/* Write, end of a phase: every slot written holds a whole message. Slots
 * of fewer than 8 bytes cannot name their seq and are not checked. */
static void rv_check_slots(struct rp_stream *s, struct rp_side_stats *st)
{
	const uint8_t *p;
	uint32_t slot;

	if (s->size < 8)
		return;
	for (slot = 0; slot < s->depth; slot++) {
		p = s->buf + slot * s->size;
		if (!rv_all_zero(p, s->size) && !rv_slot_wellformed(s, p, slot))
			st->verify_errors++;
	}
}

/* Write_imm: the client may already be writing a later lap into the slot
 * (its completion can precede our look); that is not an error. A message
 * of 8 bytes or more names its seq, so any later lap is recognised; a
 * shorter one only by trying the laps. Each write_imm takes one of our
 * posted receives, so the client is at most nrecv messages ahead. */
static int rv_check_landed(const struct rp_stream *s, uint32_t slot,
			   uint64_t seq)
{
	const uint8_t *p = s->buf + slot * s->size;
	uint64_t k, h;
	uint64_t laps = s->size < 8 ? s->nrecv / s->depth + 1 : RV_LATE_LAPS;
	int i;

	if (!rp_payload_check(p, s->size, seq))
		return 0;
	for (k = 1; k <= laps; k++)
		if (!rp_payload_check(p, s->size, seq + k * s->depth))
			return 0;
	for (i = 0; s->size >= 8 && i < 2; i++) {
		h = rv_header_seq(p, i);
		if (h > seq && h % s->depth == slot)
			return 0;
	}
	return -EIO;
}

/* The full seq of a message whose low 32 bits came as the immediate. */
static uint64_t rv_widen(uint64_t last, uint32_t lo)
{
	uint64_t v = (last & ~0xffffffffULL) | lo;

	if (v + 0x80000000ULL < last)
		v += 1ULL << 32;
	return v;
}

static void rv_check_recv(struct rp_stream *s, enum rp_phase phase,
			  const struct ibv_wc *wc, struct rp_side_stats *st)
{
	uint64_t seq = rv_widen(s->rx_seq, be32toh(wc->imm_data));
	const uint8_t *p;
	uint32_t slot;
	bool bad;

	s->rx_seq = seq;
	if (s->spec.op == RP_OP_SEND) {
		p = (const uint8_t *)(uintptr_t)s->rsge[wc->wr_id].addr;
		bad = !(wc->wc_flags & IBV_WC_WITH_IMM) ||
		      wc->byte_len != s->size ||
		      rp_payload_check(p, s->size, seq);
	} else {
		slot = phase == RP_PHASE_LATENCY ? 0 : seq % s->depth;
		bad = rv_check_landed(s, slot, seq) != 0;
	}
	if (bad)
		st->verify_errors++;
}

/* Client, after an operation on @slot completed. */
static void rv_check_done(struct rp_stream *s, uint32_t slot)
{
	const uint8_t *p = s->buf + slot * s->size;
	uint64_t got, due;

	if (s->spec.op == RP_OP_READ) {
		if (s->spec.verify && rp_payload_check(p, s->size, slot))
			s->verify_errors++;
		return;
	}
	if (!rv_is_atomic(s->spec.op))
		return;
	memcpy(&got, p, sizeof(got));
	due = s->atom_next[slot];
	if (got != due && be64toh(got) != due) {
		if (s->spec.verify)
			s->verify_errors++;
		/* cmp_swap: compare with what is there from now on */
		s->atom_next[slot] =
			s->spec.op == RP_OP_CMP_SWAP ? got : due + 1;
		return;
	}
	s->atom_next[slot] = due + 1;
}

/* ---- client hot path ---------------------------------------------------- */

/* Ready slot @slot's work request for operation @seq. */
static struct ibv_send_wr *rv_prep(struct rp_stream *s, uint32_t slot,
				   uint64_t seq)
{
	struct ibv_send_wr *w = &s->wr[slot];
	uint8_t *p = s->buf + slot * s->size;

	w->wr_id = seq;
	w->next = NULL;
	w->imm_data = htobe32((uint32_t)seq);
	if (s->spec.op == RP_OP_CMP_SWAP) {
		w->wr.atomic.compare_add = s->atom_next[slot];
		w->wr.atomic.swap = s->atom_next[slot] + 1;
	}
	if (!s->spec.verify || rv_is_atomic(s->spec.op))
		return w;
	if (s->spec.op == RP_OP_READ) /* a read that lands nothing fails */
		memset(p, 0, s->size < 8 ? s->size : 8);
	else
		rp_payload_fill(p, s->size, seq);
	return w;
}

static int rv_post(struct rp_stream *s, uint64_t seq, uint32_t count)
{
	struct ibv_send_wr *first, *prev, *bad;
	uint32_t i;
	int ret;

	if (!count)
		return 0;
	if (count > s->depth)
		return -EINVAL;
	first = prev = rv_prep(s, (uint32_t)(seq % s->depth), seq);
	for (i = 1; i < count; i++) {
		prev->next =
			rv_prep(s, (uint32_t)((seq + i) % s->depth), seq + i);
		prev = prev->next;
	}
	ret = ibv_post_send(s->qp, first, &bad);
	return ret ? rv_neg(ret) : 0;
}

static int rv_poll(struct rp_stream *s)
{
	struct ibv_wc wc[RV_BATCH];
	int n, i;

	n = ibv_poll_cq(s->scq, RV_BATCH, wc);
	if (n < 0)
		return rv_cq_failed(s);
	for (i = 0; i < n; i++) {
		if (wc[i].status != IBV_WC_SUCCESS)
			return rv_wc_failed(s, &wc[i]);
		rv_check_done(s, (uint32_t)(wc[i].wr_id % s->depth));
	}
	return n;
}

static uint64_t rv_verify_errors(struct rp_stream *s)
{
	return s->verify_errors;
}

/* Latency: reap at most one completion of @cq; @done set when one came. */
static int rv_reap_one(struct rp_stream *s, struct ibv_cq *cq, bool *done)
{
	struct ibv_wc wc;
	int n = ibv_poll_cq(cq, 1, &wc);

	if (n < 0)
		return rv_cq_failed(s);
	if (!n)
		return 0;
	if (wc.status != IBV_WC_SUCCESS)
		return rv_wc_failed(s, &wc);
	if (cq == s->scq)
		rv_check_done(s, 0);
	*done = true;
	return 0;
}

/* Latency: spin until the operation (if @signaled) and the echo (@recv,
 * or @flag showing @mark, when given) completed, or @deadline_ns. */
static int rv_ping_wait(struct rp_stream *s, bool signaled, bool recv,
			const volatile uint8_t *flag, uint8_t mark,
			uint64_t deadline_ns)
{
	bool sent = !signaled, got = !recv;
	int ret;

	for (;;) {
		ret = sent ? 0 : rv_reap_one(s, s->scq, &sent);
		if (!ret && !got)
			ret = rv_reap_one(s, s->rcq, &got);
		if (ret)
			return ret;
		if (sent && got && (!flag || *flag == mark))
			return 0;
		if (rp_clock_ns() >= deadline_ns)
			return -ETIMEDOUT;
	}
}

static int rv_ping_post(struct rp_stream *s, struct ibv_send_wr *w)
{
	struct ibv_send_wr *bad;
	int ret = ibv_post_send(s->qp, w, &bad);

	return ret ? rv_neg(ret) : 0;
}

/* Post a ping; like perftest, only every RV_PING_SIGNAL-th asks for a
 * completion (the send queue must still be reaped): what is timed is the
 * echo, which implies the peer got ours, not a completion of our own. */
static int rv_ping_post_some(struct rp_stream *s, struct ibv_send_wr *w,
			     uint64_t seq, bool *signaled)
{
	int ret;

	*signaled = seq % RV_PING_SIGNAL == RV_PING_SIGNAL - 1;
	if (!*signaled)
		w->send_flags &= ~(unsigned int)IBV_SEND_SIGNALED;
	ret = rv_ping_post(s, w);
	w->send_flags |= IBV_SEND_SIGNALED; /* the post copied the request */
	return ret;
}

/* Send, write_imm: the server echoes the message into our slot 1. */
static int rv_ping_echo(struct rp_stream *s, uint64_t seq, uint64_t deadline)
{
	struct ibv_recv_wr *bad;
	bool signaled;
	int ret;

	s->rwr[0].next = NULL;
	ret = ibv_post_recv(s->qp, &s->rwr[0], &bad);
	if (ret)
		return rv_neg(ret);
	ret = rv_ping_post_some(s, rv_prep(s, 0, seq), seq, &signaled);
	if (!ret)
		ret = rv_ping_wait(s, signaled, true, NULL, 0, deadline);
	if (!ret && s->spec.verify &&
	    rp_payload_check(s->buf + s->size, s->size, seq))
		s->verify_errors++;
	return ret;
}

/* Write: the server writes our marker back into slot 1 (perftest). */
static int rv_ping_write(struct rp_stream *s, uint64_t seq, uint64_t deadline)
{
	struct ibv_send_wr *w = rv_prep(s, 0, seq);
	bool signaled;
	int ret;

	s->marker = (uint8_t)(s->marker % 255 + 1); /* never 0 */
	s->buf[s->size - 1] = s->marker;
	s->buf[2 * s->size - 1] = 0; /* no echo in flight: drop the stale */
	ret = rv_ping_post_some(s, w, seq, &signaled);
	if (ret)
		return ret;
	return rv_ping_wait(s, signaled, false, s->buf + 2 * s->size - 1,
			    s->marker, deadline);
}

static int rv_ping(struct rp_stream *s, uint64_t seq, uint64_t deadline_ns)
{
	int ret;

	switch (s->spec.op) {
	case RP_OP_WRITE:
		return rv_ping_write(s, seq, deadline_ns);
	case RP_OP_SEND:
	case RP_OP_WRITE_IMM:
		return rv_ping_echo(s, seq, deadline_ns);
	default:
		ret = rv_ping_post(s, rv_prep(s, 0, seq));
		return ret ? ret
			   : rv_ping_wait(s, true, false, NULL, 0, deadline_ns);
	}
}

/* ---- server ------------------------------------------------------------- */

static void rv_idle(const volatile int *stop)
{
	struct timespec ts = { .tv_nsec = RV_IDLE_NS };

	while (!*stop)
		nanosleep(&ts, NULL);
}

static int rv_reap_echoes(struct rp_stream *s)
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

/* Latency: send @len bytes at @addr back to the client (see the top). */
static int rv_echo(struct rp_stream *s, uint64_t addr, uint32_t len,
		   uint32_t imm, const volatile int *stop)
{
	struct ibv_send_wr *bad;
	int ret;

	while (s->echo_out >= s->sq_size) {
		if (*stop) /* the client is done: nobody waits for it */
			return 0;
		ret = rv_reap_echoes(s);
		if (ret)
			return ret;
	}
	s->sge[0].addr = addr;
	s->sge[0].length = len;
	s->wr[0].imm_data = imm;
	s->wr[0].next = NULL;
	ret = ibv_post_send(s->qp, &s->wr[0], &bad);
	if (ret)
		return rv_neg(ret);
	s->echo_out++;
	return 0;
}

static void rv_chain_recv(struct rp_stream *s, struct ibv_recv_wr *w)
{
	w->next = NULL;
	if (s->rtail)
		s->rtail->next = w;
	else
		s->rhead = w;
	s->rtail = w;
}

static int rv_repost(struct rp_stream *s)
{
	struct ibv_recv_wr *bad;
	int ret;

	if (!s->rhead)
		return 0;
	ret = ibv_post_recv(s->qp, s->rhead, &bad);
	s->rhead = s->rtail = NULL;
	return ret ? rv_neg(ret) : 0;
}

/* One arrived send or write_imm: count, check, echo (latency), repost. */
static int rv_serve_wc(struct rp_stream *s, enum rp_phase phase,
		       const struct ibv_wc *wc, const volatile int *stop,
		       struct rp_side_stats *st)
{
	bool send = s->spec.op == RP_OP_SEND;
	uint64_t addr;
	int ret;

	if (wc->status != IBV_WC_SUCCESS)
		return rv_wc_failed(s, wc);
	if (wc->wr_id >= s->nrecv)
		return -EPROTO;
	st->messages++;
	st->bytes += send ? wc->byte_len : s->size;
	if (s->spec.verify)
		rv_check_recv(s, phase, wc, st);
	if (phase == RP_PHASE_LATENCY) {
		addr = send ? s->rsge[wc->wr_id].addr : (uintptr_t)s->buf;
		ret = rv_echo(s, addr, send ? wc->byte_len : (uint32_t)s->size,
			      wc->imm_data, stop);
		if (ret)
			return ret;
	}
	rv_chain_recv(s, &s->rwr[wc->wr_id]);
	return 0;
}

/* One batch of arrivals; returns how many, or -errno. */
static int rv_serve_batch(struct rp_stream *s, enum rp_phase phase,
			  const volatile int *stop, struct rp_side_stats *st)
{
	struct ibv_wc wc[RV_BATCH];
	int n, i, ret;

	n = ibv_poll_cq(s->rcq, RV_BATCH, wc);
	if (n < 0)
		return rv_cq_failed(s);
	for (i = 0; i < n; i++) {
		ret = rv_serve_wc(s, phase, &wc[i], stop, st);
		if (ret)
			return ret;
	}
	ret = rv_repost(s);
	if (!ret)
		ret = rv_reap_echoes(s);
	return ret ? ret : n;
}

/* Send, write_imm: spin on arrivals. Once stop is seen, everything the
 * client completed in this phase is in the CQ: drain it, so that no message
 * is counted in (or echoed by) the next phase. */
static int rv_serve_recv(struct rp_stream *s, enum rp_phase phase,
			 const volatile int *stop, struct rp_side_stats *st)
{
	int n = 0;

	s->rx_seq = 0; /* the engine numbers each phase from 0 */
	while (n >= 0 && !*stop)
		n = rv_serve_batch(s, phase, stop, st);
	while (n >= 0) {
		n = rv_serve_batch(s, phase, stop, st);
		if (n == 0)
			return 0;
	}
	return n;
}

/* Write latency: spin on the last byte of slot 0 for the client's marker. */
static int rv_serve_write_lat(struct rp_stream *s, const volatile int *stop)
{
	const volatile uint8_t *flag = s->buf + s->size - 1;
	uint8_t seen = 0, b;
	int ret = 0;

	while (!ret && !*stop) {
		b = *flag;
		if (b != seen) {
			seen = b;
			ret = rv_echo(s, (uintptr_t)s->buf, (uint32_t)s->size,
				      0, stop);
		}
		if (!ret)
			ret = rv_reap_echoes(s);
	}
	return ret;
}

static int rv_serve(struct rp_stream *s, enum rp_phase phase,
		    const volatile int *stop, struct rp_side_stats *st)
{
	int ret = 0;

	switch (s->spec.op) {
	case RP_OP_SEND:
	case RP_OP_WRITE_IMM:
		return rv_serve_recv(s, phase, stop, st);
	case RP_OP_WRITE:
		if (phase == RP_PHASE_LATENCY)
			ret = rv_serve_write_lat(s, stop);
		else
			rv_idle(stop);
		if (phase != RP_PHASE_LATENCY && s->spec.verify)
			rv_check_slots(s, st);
		/* the client is done: a zero slot 0 is ready for the next
		 * latency phase's markers, and "not written" to the check */
		memset(s->buf, 0, s->size);
		return ret;
	default: /* read, atomics: the server's CPU takes no part */
		rv_idle(stop);
		return 0;
	}
}

/* ---- probe and the ops table -------------------------------------------- */

static int rv_probe(char *why, size_t len)
{
	struct rdma_event_channel *ch;
	struct ibv_device **list;
	int n = 0;

	list = ibv_get_device_list(&n);
	if (list)
		ibv_free_device_list(list);
	if (!list || n <= 0) {
		if (why && len)
			snprintf(why, len,
				 "no RDMA device found (ibv_get_device_list "
				 "returned none); try -x tcp");
		return -ENODEV;
	}
	ch = rdma_create_event_channel();
	if (!ch) {
		if (why && len)
			snprintf(why, len,
				 "rdma_cm is not available (%s): load "
				 "rdma_ucm, or try -x tcp",
				 strerror(errno));
		return -ENODEV;
	}
	rdma_destroy_event_channel(ch);
	return 0;
}

const struct rp_xport_ops rp_xport_rdma = {
	.name = "rdma",
	.probe = rv_probe,
	.listen = rv_listen,
	.accept = rv_accept,
	.unlisten = rv_unlisten,
	.connect = rv_connect,
	.local_info = rv_local_info,
	.set_peer = rv_set_peer,
	.serve = rv_serve,
	.ping = rv_ping,
	.post = rv_post,
	.poll = rv_poll,
	.verify_errors = rv_verify_errors,
	.close = rv_close,
};
