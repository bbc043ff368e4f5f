/* SPDX-License-Identifier: MIT */
/*
 * The "rdma" transport's private header: one connected queue pair per
 * stream (RC, or UC with --qp uc: its id is made in rdma_cm's IB port
 * space, cm.c; or UD with --qp ud, ud.c), set up with rdma_cm, driven with
 * libibverbs.
 *
 *   Server                                        Client
 *   listen: bind port 0, rdma_listen
 *     endpoint {"port": N}  ~~~~~~~~~~~~~~~~~~~~>  resolve_addr, resolve_route
 *                                                  setup (PD, CQs, QP, MR, WRs,
 *                                                  a responder's receives)
 *   CONNECT_REQUEST  <~~~ private data: token ~~~  rdma_connect
 *     another token: rdma_reject, keep waiting
 *     setup (a responder's receives too),
 *     rdma_accept  ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~>  ESTABLISHED
 *   ESTABLISHED
 *   ... set_point, phases ...
 *   close: rdma_disconnect, wait for DISCONNECTED (2 s), free: both sides
 *
 * Roles: each stream has an initiator (posts, is timed) and a responder
 * (serves); which end connected does not matter. Everything per side
 * (rv_ops[].initiator / .responder, slots, receives, queue sizes, echo
 * work request, atomic resources) follows base.role: a responder offers
 * responder_resources and an initiator initiator_depth, the other is 0,
 * and the accepting end takes the minimum of both offers. A responder
 * posts its receives before rdma_accept or rdma_connect (the QP is in
 * INIT by then).
 *
 * Memory: each side registers one buffer of "slots", once, for the setup
 * point (spec.size_bytes and queue_depth at connect: the sweep's largest).
 * The slot stride stays slot_bytes (the setup size) and the number of slots
 * the setup depth for the stream's life. At a point (set_point) of size S
 * and depth D, operation seq goes from the initiator's slot seq % D to the
 * responder's slot seq % D, S bytes each at the start of the slot (send:
 * into whichever receive the responder posted; the responder keeps at least
 * depth + RV_RECV_MARGIN receives posted, one slot each, see
 * rv_responder_recvs()). The initiator has at least two slots: slot 1 is
 * where latency echoes land. Both ends make the same set_point call, so
 * they agree on the mapping.
 *
 * Waiting (spec.wait): busy polls the CQs. Event gives the stream a
 * completion channel (non-blocking) for both CQs: the initiator's engine
 * sleeps through arm() on the send CQ; ping() sleeps on the CQ it waits
 * for; a responder sleeps on its receive CQs in slices of RV_EVENT_MS.
 * `armed` holds the CQs notified and whose event is not yet taken: sleeping
 * is safe while a CQ's bit is set. Every event taken is acknowledged at
 * once, so none is left unacknowledged when the CQs are destroyed. Write
 * latency under event: see ping.c.
 *
 * What differs per operation is one entry of rv_ops[] (ops.c); nothing else
 * tests the operation. Files: cm.c (rdma_cm events), stream.c (a stream's
 * life), setup.c (device, limits, PD/CQ/QP/MR), wr.c (work requests,
 * set_point), events.c (--wait event), listen.c and connect.c (the two ends
 * of a connection), peer.c (what the sides swap), post.c (throughput),
 * ping.c (latency), serve.c (responder), verify.c (--verify), credits.c
 * (iWARP sends), srq.c (--srq: the server responders' shared receive
 * queue), errors.c (reasons), ops.c (the per-operation table), verbs.c
 * (the ops table, probe).
 */
#ifndef RP_XPORT_VERBS_VERBS_H
#define RP_XPORT_VERBS_VERBS_H

#include <poll.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "xport/verbs/params.h"
#include "platform/mem.h"
#include "xport/xport.h"

#define RV_INLINE_AUTO	 256	    /* inline size asked for when automatic */
#define RV_RECV_MARGIN	 16	    /* responder receives beyond the depth, */
#define RV_RECV_MAX	 512	    /* or more, up to this many in all, */
#define RV_RECV_BYTES	 (8u << 20) /* as long as they fit in this */
#define RV_MIN_RNR_TIMER 12	    /* 0.64 ms; rdma_cm leaves 0: 655 ms */
#define RV_BATCH	 16	    /* work completions per ibv_poll_cq */
#define RV_TOKEN_MAX	 56	    /* private data of an RC connect request */
#define RV_RD_ATOMIC_MAX 16	    /* reads and atomics in flight, at most */
#define RV_CLOSE_MS	 2000	    /* wait for the peer's disconnect */
#define RV_HANDSHAKE_MS	 15000	    /* accept: request in hand to ESTABLISHED */
#define RV_PING_SIGNAL	 1  /* write ping-pong: one signaled in this many */
#define RV_SPIN_CHECK	 64 /* spins on an echo between slower checks */
/* Spins between clock reads (a deadline, an idle spell): a read can be a
 * system call, and one on the way to an answer delays it. */
#define RV_CLOCK_CHECK	16384
#define RV_RESPONDER_SQ 4	/* responder sends: latency echoes only */
#define RV_INITIATOR_RQ 2	/* initiator receives: latency echoes only */
#define RV_LATE_LAPS	8	/* write_imm: later laps a slot may hold */
#define RV_IDLE_NS	1000000 /* quiet initiator: sleep between stop checks */
#define RV_IDLE_MAX_MS	100	/* idle responder: the longest wait on stop */
#define RV_EVENT_MS	5  /* --wait event responder: sleep between checks */
#define RV_GRH_BYTES	40 /* before every UD datagram received (ud.c) */
#define RV_UD_PING_MS	RP_UD_PING_MS /* UD: no echo by then: lost */
#define RV_UD_DRAIN_MS	200	      /* UD: how long the last sends may take */

struct rv_srq; /* --srq (srq.c) */

struct rv_listener {
	struct rp_listener base; /* first: rp_container_of */
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	struct rv_opts opts;
	struct rv_srq *srq; /* --srq: made at the first responder's request */
	bool (*admit)(const void *ctx, const struct sockaddr *peer);
	const void *admit_ctx;
};

/* ---- iWARP send credits (credits.c) ------------------------------------- */

/*
 * iWARP has no "receiver not ready" retry: a send that finds no receive
 * posted ends the connection. So, as perftest does on iWARP, the sender is
 * paced by the receiver: the responder counts the receives it has posted
 * again (reposted) and, every RV_CREDIT_STEP-th of its receives and at the
 * end of each phase, RDMA-writes that count into a word of the initiator's
 * (a 4-byte write, in order on the connection); the initiator posts a send
 * only while sent - credit < peer_nrecv, keeping the operations the engine
 * gave it in order until there is room (they are timed from the engine's
 * post: the wait for credit is part of their latency, as an RNR retry's
 * is on InfiniBand). Counts run over the stream's life, modulo 2^32. Only
 * where both ends offered it (an older peer: not used). The latency phase
 * needs no pacing (one message at a time) and writes no credit but the
 * one at its end, so that its echo path is the same as on other devices.
 */
#define RV_CREDIT_STEP 4 /* a credit write per nrecv / this receives */

struct rv_credits {
	bool on;	       /* both ends agreed */
	uint32_t *word;	       /* initiator: the count, written by the peer;
				* responder: the write's source */
	struct ibv_mr *mr;     /* of word (64 bytes, its own allocation) */
	uint32_t peer_nrecv;   /* initiator: the responder's receives */
	uint32_t sent;	       /* initiator: sends posted */
	uint64_t next_seq;     /* initiator: the first operation waiting */
	uint32_t waiting;      /* initiator: operations the engine posted that
				* wait for credit, from next_seq */
	uint64_t sig_last;     /* initiator: the waiting one to signal */
	uint32_t reposted;     /* responder: receives posted again */
	uint32_t told;	       /* responder: the count last written */
	uint32_t step;	       /* responder: write after this many more */
	struct ibv_send_wr wr; /* responder: the credit write */
	struct ibv_sge sge;
};

struct rv_op_info;

struct rv_stream {
	struct rp_stream base;	     /* first: rp_container_of */
	const struct rv_op_info *op; /* rv_ops[base.spec.op] */
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *scq; /* send queue completions */
	struct ibv_cq *rcq; /* receive queue completions */
	struct ibv_qp *qp;
	bool own_qp; /* --sl, --flow-label: ibv_create_qp's (path.c) */
	struct ibv_comp_channel *cchan; /* --wait event: the CQs' events */
	struct ibv_mr *mr;
	uint8_t *buf;
	size_t buf_len;
	struct rp_mem mem;    /* what buf is: spec.mem's kind */
	const char *mem_path; /* --mem file:PATH, the client's; else NULL */
	struct rv_opts opts;
	bool connected;
	uint64_t slot_bytes; /* slot stride: the setup size, the largest */
	uint32_t max_depth;  /* the setup depth: slots, queues, the largest */
	uint64_t size;	     /* bytes per operation: the point's */
	uint32_t depth; /* slots the operations cycle through: the point's */
	unsigned int armed; /* --wait event: RV_ARMED_*, see above */
	uint32_t sq_size;   /* send work requests */
	uint32_t nrecv;	    /* receive work requests */
	uint32_t inline_max;
	uint8_t rd_atom;   /* responder resources we grant */
	uint8_t init_atom; /* reads/atomics we may have in flight */
	int mtu_bytes;
	int gid_index;
	/* what the QP's address vector (UD: the address handle) holds */
	bool path_known;
	uint8_t path_sl;
	uint8_t path_tclass;
	uint32_t path_flow;
	uint64_t peer_addr;
	uint64_t peer_len;
	uint32_t peer_rkey;
	struct ibv_send_wr *wr; /* initiator: one per slot; responder: echo */
	struct ibv_sge *sge;
	struct ibv_recv_wr *rwr;
	struct ibv_sge *rsge;
	struct ibv_recv_wr *rhead; /* completed receives, to repost */
	struct ibv_recv_wr *rtail;
	uint64_t *atom_next; /* initiator atomics: old value due, per slot */
	uint64_t rx_seq;     /* responder: seq of the last message received */
	uint64_t rx_next;    /* responder without immediates: the next seq */
	bool no_imm;	     /* the device has no immediate data (iWARP): a send
			      * under --verify goes plain, its seq counted in order */
	uint32_t echo_out;   /* responder: echoes not yet completed */
	uint8_t marker; /* write latency: marker of the last ping (initiator),
			 * the last one seen (responder) */
	uint32_t ping_unsig; /* pings posted unsignaled since a signaled one */
	uint64_t reaped;     /* initiator: operations of the phase completed */
	uint64_t verify_errors;
	struct rv_credits cr; /* iWARP sends (credits.c) */
	/* --srq, a server responder: the shared receive queue its receives
	 * come from (its PD is the stream's; rwr and rsge are its) */
	struct rv_srq *srq;
	uint32_t srq_batches; /* batches served: when to read its events */
	/* --qp ud (ud.c): the handle the sends go through (the client's from
	 * rdma_cm's path, a responder's from the first ping), the peer's QP;
	 * where the GRHs of the receives land (buf + grh_off, one each, the
	 * first of each receive's two scatter entries) */
	struct ibv_ah *ah;
	uint32_t ud_qpn;
	uint64_t ud_strays;  /* datagrams from any other QP, dropped */
	bool ud_echo_posted; /* initiator: its echo receive is posted */
	size_t grh_off;
};

static inline bool rv_ud(const struct rv_stream *s)
{
	return s->base.spec.qp == RP_QP_UD;
}

/* Receive @i's message scatter entry (UD: after its GRH's). */
static inline const struct ibv_sge *rv_recv_sge(const struct rv_stream *s,
						uint64_t i)
{
	return rv_ud(s) ? &s->rsge[2 * i + 1] : &s->rsge[i];
}

/* The message's length in completion @wc (UD: less the GRH). */
static inline uint32_t rv_recv_len(const struct rv_stream *s,
				   const struct ibv_wc *wc)
{
	return rv_ud(s) && wc->byte_len >= RV_GRH_BYTES
		       ? wc->byte_len - RV_GRH_BYTES
		       : wc->byte_len;
}

/* path.c: --sl, --flow-label, --mtu. */
/* an ibv_mtu in bytes (0: not one) */
int rv_mtu_bytes(enum ibv_mtu m);
/* Does the stream drive its own QP (RC, UC with either flag)? */
bool rv_hand_path(const struct rv_stream *s);
/* The asked SL and flow label into @ah (a GRH's, where it has one). */
void rv_path_ah(const struct rv_stream *s, struct ibv_ah_attr *ah);
/* What the stream's path holds, for its "qp_path" information. */
void rv_path_took(struct rv_stream *s, const struct ibv_ah_attr *ah);
/* ibv_create_qp and INIT (-errno, no QP, if the create failed). */
int rv_path_create_qp(struct rv_stream *s, struct ibv_qp_init_attr *a);
/* RTR with the asked path, then RTS: the server, before rdma_accept. */
int rv_path_ready(struct rv_stream *s);
/* A note where the QP holds other than what was asked (rv_connected). */
void rv_path_check(struct rv_stream *s);
int rv_path_info(const struct rv_stream *s, cJSON *info);

/* ud.c: --qp ud. */
/* Is @size within the path MTU of @ctx's @port? Its MTU into @mtu_bytes
 * (if not NULL); -EMSGSIZE with the MTU in @why if not. */
int rv_ud_mtu(struct ibv_context *ctx, uint8_t port, uint64_t size,
	      int *mtu_bytes, struct rp_err *why);
int rv_ud_connect(struct rv_stream *s, const char *token, uint64_t deadline_ns);
int rv_ud_accept(struct rv_stream *s);
int rv_ud_info(const struct rv_stream *s, cJSON *info);
int rv_ud_peer(struct rv_stream *s, const cJSON *info);
bool rv_ud_stray(struct rv_stream *s, const struct ibv_wc *wc);
int rv_ud_reply_to(struct rv_stream *s, const struct ibv_wc *wc);
int rv_ping_ud(struct rv_stream *s, uint64_t seq, uint64_t deadline_ns);

/* --srq (srq.c): the server responders' shared receive queue. */
#define RV_SRQ_POLL_BATCHES 64
int rv_srq_join(struct rv_listener *l, struct rv_stream *s);
void rv_srq_put(struct rv_srq *q);
struct ibv_pd *rv_srq_pd(const struct rv_srq *q);
struct ibv_srq *rv_srq_queue(const struct rv_srq *q);
uint32_t rv_srq_size(const struct rv_srq *q);
uint32_t rv_srq_lkey(const struct rv_srq *q);
void rv_srq_wrs(const struct rv_srq *q, struct ibv_recv_wr **rwr,
		struct ibv_sge **rsge);
int rv_srq_repost(struct rv_stream *s, struct ibv_recv_wr *head);
void rv_srq_poll(struct rv_srq *q);
uint64_t rv_srq_limit_events(struct rp_stream *bs);
int rv_srq_info(const struct rv_stream *s, cJSON *info);

/* iWARP send credits (struct rv_credits) */
int rv_credits_setup(struct rv_stream *s);
void rv_credits_free(struct rv_stream *s);
int rv_credits_info(struct rv_stream *s, cJSON *info);
int rv_credits_peer(struct rv_stream *s, const cJSON *info);
/* initiator: how many sends may be posted now */
uint32_t rv_credit_room(const struct rv_stream *s);
/* responder, after adding to cr.reposted: write the count when due (or
 * whenever it moved, with @flush) */
int rv_credit_tell(struct rv_stream *s, bool flush);
/* responder: reap its completed sends (echo_out); 0 or -errno */
int rv_reap_echoes(struct rv_stream *s);

/* ---- the per-operation table (ops.c) ------------------------------------ */

/* A number of message slots: of a side's own buffer, or of the peer's
 * buffer that its operations reach (rv_span_slots()). */
enum rv_span {
	RV_SPAN_NONE,	/* none */
	RV_SPAN_ECHO,	/* slots 0 and 1: latency echoes land in slot 1 */
	RV_SPAN_DEPTH,	/* one per operation in flight */
	RV_SPAN_DEPTH2, /* one per operation in flight, at least two */
	RV_SPAN_RECVS,	/* one per posted receive */
};

/* What one side of an operation needs: the responder or the initiator. */
struct rv_side {
	int access;		/* ibv_reg_mr access: the least it needs */
	enum rv_span slots;	/* slots it registers */
	enum rv_span peer_need; /* slots of the peer's buffer it reaches */
};

/* Initiator: ready slot @slot's work request @w for message @seq. */
typedef void (*rv_prep_fn)(struct rv_stream *s, struct ibv_send_wr *w,
			   uint32_t slot, uint64_t seq);
/* Initiator: one latency round trip (the ping op). */
typedef int (*rv_ping_fn)(struct rv_stream *s, uint64_t seq,
			  uint64_t deadline_ns);
/* Responder: serve @n streams for one phase (the serve op). */
typedef int (*rv_serve_fn)(struct rp_stream *const *s, unsigned int n,
			   enum rp_phase phase, const atomic_int *stop,
			   struct rp_side_stats *st);
/* Initiator: the operation on @slot completed. */
typedef void (*rv_done_fn)(struct rv_stream *s, uint32_t slot);
/* Responder, --verify: message @seq arrived as @wc; true when intact. */
typedef bool (*rv_recv_fn)(struct rv_stream *s, enum rp_phase phase,
			   const struct ibv_wc *wc, uint64_t seq);

/* Everything the transport does differently for one operation (the model:
 * the rxe driver's rxe_wr_opcode_info[]). */
struct rv_op_info {
	enum ibv_wr_opcode opcode; /* initiator's; the responder's echo */
	enum ibv_wr_opcode verify_opcode; /* initiator's under --verify */
	enum ibv_wr_opcode event_echo;	  /* responder's echo, --wait event */
	bool receives;			  /* the responder posts receives */
	bool recv_data;	 /* a receive takes the message (not only an imm) */
	bool can_inline; /* may be posted inline when small enough */
	bool prefill; /* --verify: the responder fills slot i with message i */
	const char *event_note; /* what --wait event measures, if it differs */
	struct rv_side responder;
	struct rv_side initiator;
	rv_prep_fn prep;
	rv_ping_fn ping;
	rv_serve_fn serve;
	rv_done_fn check_done;
	rv_recv_fn check_recv; /* NULL where nothing is received */
};

extern const struct rv_op_info rv_ops[RP_OP__COUNT];

static inline struct rv_stream *rv_of(struct rp_stream *s)
{
	return rp_container_of(s, struct rv_stream, base);
}

static inline struct rv_listener *rv_listener_of(struct rp_listener *l)
{
	return rp_container_of(l, struct rv_listener, base);
}

static inline bool rv_responder(const struct rv_stream *s)
{
	return s->base.role == RP_ROLE_RESPONDER;
}

/* The entry of @s's side of its operation. */
static inline const struct rv_side *rv_side(const struct rv_stream *s)
{
	return rv_responder(s) ? &s->op->responder : &s->op->initiator;
}

static inline bool rv_stopped(const atomic_int *stop)
{
	return atomic_load_explicit(stop, memory_order_relaxed) != 0;
}

/* errors.c: reasons; each returns the negative errno it was given. */
int rv_neg(int err);
int rv_fail(struct rp_err *e, const char *what);

/* caps.c: the operations a device has, by its kind (iWARP, RoCE, IB) */
int rv_caps_check(struct ibv_context *ctx, uint8_t port, enum rp_op op,
		  struct rp_err *why);

/* --qp: whether @ctx's device has queue pairs of that type (iWARP: RC
 * alone). Return: 0, or -EOPNOTSUPP with the reason in @why. */
int rv_qp_check(struct ibv_context *ctx, enum rp_qp qp, struct rp_err *why);

/* --srq: not on iWARP, whose send credits count each stream's receives.
 * Return: 0, or -EOPNOTSUPP with the reason in @why. */
int rv_srq_check(struct ibv_context *ctx, bool srq, struct rp_err *why);
/* --sl, --flow-label, --mtu: not on iWARP (which has none of them), nor
 * an MTU over @port's active one. */
int rv_path_dev_check(struct ibv_context *ctx, uint8_t port,
		      const struct rp_spec *spec, struct rp_err *why);

/** rv_odp_check - --mem odp: can @ctx's RC queue pairs do @op on memory
 *  registered on demand? -EOPNOTSUPP with the capability bits in @why. */
int rv_odp_check(struct ibv_context *ctx, enum rp_op op, struct rp_err *why);
int rv_preflight(const struct rp_xport_ops *self, const struct rp_spec *spec,
		 const struct rp_xport_params *p, const char *host,
		 struct rp_err *why);
int rv_call_failed(struct rv_stream *s, const char *what, int ret);
int rv_wc_failed(struct rv_stream *s, const struct ibv_wc *wc);
int rv_cq_failed(struct rv_stream *s);

/* cm.c: rdma_cm events. */
int rv_channel_create(struct rdma_event_channel **out, struct rp_err *e);
/* A new id on @ch for @qp's queue pairs (RC: the TCP port space; UD: the
 * UDP one; UC: the IB one), bound to @bind if not NULL (UC: to any IPv4 address
 * then). Return: 0 or -errno, the reason in @e. */
int rv_create_id(struct rdma_event_channel *ch, struct rdma_cm_id **id,
		 void *ctx, enum rp_qp qp, const struct sockaddr *bind,
		 struct rp_err *e);
int rv_get_event(struct rdma_event_channel *ch, uint64_t deadline_ns,
		 struct rdma_cm_event **ev);
int rv_expect(struct rdma_event_channel *ch, enum rdma_cm_event_type want,
	      uint64_t deadline_ns, const char *what, struct rp_err *e);
int rv_established(struct rv_stream *s, uint64_t deadline_ns, const char *what);
void rv_disconnect(struct rv_stream *s);
/* what the connection got: path MTU and GID; notes what could not be set */
void rv_connected(struct rv_stream *s);

/* link.c: the link_facts and counters ops. */
cJSON *rv_link_facts(struct rp_stream *bs);
int rv_counters(struct rp_stream *bs, struct rp_counters *out);

/* stream.c: a stream's life. */
int rv_check_spec(const struct rp_spec *spec, struct rp_err *why);
int rv_stream_new(const struct rp_xport_ops *ops, const struct rp_spec *spec,
		  const struct rv_opts *o, enum rp_role role,
		  struct rv_stream **out);
void rv_stream_free(struct rv_stream *s);
void rv_close(struct rp_stream *bs);

/* setup.c, wr.c: everything that needs the device; set_point. */
int rv_setup(struct rv_stream *s);
uint64_t rv_span_slots(const struct rv_stream *s, enum rv_span span);
int rv_build_wrs(struct rv_stream *s);
int rv_post_recvs(struct rv_stream *s);
int rv_set_point(struct rp_stream *bs, uint64_t size_bytes, uint32_t depth);

/* events.c: --wait event. Bits of rv_stream.armed: */
#define RV_ARMED_SEND 1u /* the send CQ */
#define RV_ARMED_RECV 2u /* the receive CQ */
int rv_events_create(struct rv_stream *s);
void rv_events_destroy(struct rv_stream *s);
int rv_arm_cqs(struct rv_stream *s, unsigned int want);
int rv_take_events(struct rv_stream *s);
int rv_sleep(struct rv_stream *s, uint64_t deadline_ns);
int rv_sleep_many(struct rp_stream *const *bs, unsigned int n,
		  struct pollfd *fds);
int rv_arm(struct rp_stream *bs, int *fd, short *events);

/* listen.c, connect.c, peer.c: the ops of the same names. */
int rv_listen(const struct rp_xport_ops *self, const struct rp_spec *spec,
	      const struct rp_xport_params *p, cJSON *endpoint,
	      struct rp_listener **out, struct rp_err *why);
int rv_accept(struct rp_listener *bl, const char *token, enum rp_role role,
	      int timeout_ms, struct rp_stream **out);
void rv_unlisten(struct rp_listener *bl);
int rv_connect(const struct rp_xport_ops *self, const struct rp_spec *spec,
	       const struct rp_xport_params *p, const char *host,
	       const cJSON *endpoint, const char *token, enum rp_role role,
	       int timeout_ms, struct rp_stream **out, struct rp_err *why);
int rv_local_info(struct rp_stream *bs, cJSON *info);
int rv_set_peer(struct rp_stream *bs, const cJSON *info);

/* post.c: the initiator's throughput path. */
struct ibv_send_wr *rv_prep(struct rv_stream *s, uint32_t slot, uint64_t seq);
void rv_prep_fill(struct rv_stream *s, struct ibv_send_wr *w, uint32_t slot,
		  uint64_t seq);
void rv_prep_read(struct rv_stream *s, struct ibv_send_wr *w, uint32_t slot,
		  uint64_t seq);
void rv_prep_nothing(struct rv_stream *s, struct ibv_send_wr *w, uint32_t slot,
		     uint64_t seq);
void rv_prep_cmp_swap(struct rv_stream *s, struct ibv_send_wr *w, uint32_t slot,
		      uint64_t seq);
int rv_post(struct rp_stream *bs, uint64_t seq, uint32_t count, bool last);
int rv_poll(struct rp_stream *bs);
int rv_post_send(struct rv_stream *s, struct ibv_send_wr *w);

/* ping.c: the initiator's latency round trips. */
int rv_ping_write(struct rv_stream *s, uint64_t seq, uint64_t deadline_ns);
int rv_ping_echo(struct rv_stream *s, uint64_t seq, uint64_t deadline_ns);
int rv_ping_once(struct rv_stream *s, uint64_t seq, uint64_t deadline_ns);

/* serve.c: the responder's loops, over all the streams of a thread. */
int rv_serve_recv(struct rp_stream *const *bs, unsigned int n,
		  enum rp_phase phase, const atomic_int *stop,
		  struct rp_side_stats *st);
int rv_serve_write(struct rp_stream *const *bs, unsigned int n,
		   enum rp_phase phase, const atomic_int *stop,
		   struct rp_side_stats *st);
int rv_serve_idle(struct rp_stream *const *bs, unsigned int n,
		  enum rp_phase phase, const atomic_int *stop,
		  struct rp_side_stats *st);

/* verify.c: --verify checks. */
void rv_check_slots(struct rv_stream *s, struct rp_side_stats *st);
void rv_check_recv(struct rv_stream *s, enum rp_phase phase,
		   const struct ibv_wc *wc, struct rp_side_stats *st);
bool rv_recv_send_ok(struct rv_stream *s, enum rp_phase phase,
		     const struct ibv_wc *wc, uint64_t seq);
bool rv_recv_imm_ok(struct rv_stream *s, enum rp_phase phase,
		    const struct ibv_wc *wc, uint64_t seq);
void rv_done_nothing(struct rv_stream *s, uint32_t slot);
void rv_done_read(struct rv_stream *s, uint32_t slot);
void rv_done_fetch_add(struct rv_stream *s, uint32_t slot);
void rv_done_cmp_swap(struct rv_stream *s, uint32_t slot);

#endif
