/* SPDX-License-Identifier: MIT */
/*
 * The test specification: what the client asks of the server. It travels over
 * the control connection (proto/), so both ends validate it against the same
 * limits, which also protect a server from a hostile client.
 */
#ifndef RP_CORE_SPEC_H
#define RP_CORE_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/fields.h"
#include "platform/mem.h"

enum rp_op {
	RP_OP_WRITE,
	RP_OP_READ,
	RP_OP_SEND,
	RP_OP_WRITE_IMM,
	RP_OP_FETCH_ADD,
	RP_OP_CMP_SWAP,
	RP_OP__COUNT
};

#define RP_SPEC_MAX_SIZE    (1ULL << 30)   /* 1 GiB per message */
#define RP_SPEC_MAX_DEPTH   4096	   /* operations in flight */
#define RP_SPEC_MAX_MEM	    (1ULL << 31)   /* size * depth a server allocates */
#define RP_SPEC_MAX_ITERS   (1ULL << 40)   /* operations in a phase */
#define RP_SPEC_MAX_SECONDS (24ULL * 3600) /* duration of a phase */
#define RP_SPEC_NAME_LEN    16
#define RP_NOTE_LEN	    256 /* a transport's notes for the user, with NUL */
#define RP_SPEC_MAX_STREAMS 128 /* streams (-P) of one test, per direction */
#define RP_SPEC_MAX_THREADS 64	/* threads (-T) on each side */
#define RP_SPEC_MAX_RATE    4000000000ULL /* --rate: operations per second */
#define RP_SPEC_MAX_TOS	    255		  /* --tos: one byte */
#define RP_SPEC_MAX_SRQ	    65536	  /* --srq-size: receives */
#define RP_SPEC_MAX_SL	    15		  /* --sl: an IB service level */
#define RP_SPEC_MAX_FLOW    0xfffff	  /* --flow-label: 20 bits */
#define RP_SPEC_MAX_MTU	    4096	  /* --mtu: IB's largest */
#define RP_SPEC_MAX_RAILS   8		  /* --rails: NICs of one test */
#define RP_SPEC_GROUP_LEN   48		  /* --mcast: an IPv4 or IPv6 group */

/* How a side waits for completions: spinning, or asleep on an event (the
 * verbs completion channel, poll() on a socket). Both ends use the same. */
enum rp_wait { RP_WAIT_BUSY, RP_WAIT_EVENT, RP_WAIT__COUNT };

/* The queue pair's transport type (--qp), perftest's -c: reliable or
 * unreliable connected, unreliable datagram. The rdma transport alone has
 * a choice. */
enum rp_qp { RP_QP_RC, RP_QP_UC, RP_QP_UD, RP_QP__COUNT };

/* The libfabric endpoint type (--ep-type, ofi): auto lets the server pick
 * (FI_EP_MSG where the provider's grants the test, else FI_EP_RDM). */
enum rp_ep_type { RP_EP_AUTO, RP_EP_MSG, RP_EP_RDM, RP_EP__COUNT };

struct rp_spec {
	char transport[RP_SPEC_NAME_LEN]; /* "tcp", "rdma", "rsocket" */
	enum rp_op op;
	/* One message, and operations in flight in the throughput phase; in a
	 * sweep, the largest point's (buffers are sized for them once, each
	 * point then runs at its own size and depth: rp_xport_ops.set_point).
	 */
	uint64_t size_bytes;
	uint32_t queue_depth;
	uint64_t iterations;	 /* throughput phase; 0 in time mode */
	uint64_t duration_ns;	 /* throughput phase in time mode, else 0 */
	uint64_t warmup;	 /* warm-up operations, results discarded */
	uint64_t lat_iterations; /* ping-pongs in the latency phase */
	bool latency;		 /* run the latency phase */
	bool bandwidth;		 /* run the throughput phase */
	bool verify;		 /* receiver checks every payload */
	uint32_t streams;	 /* streams per direction (-P), >= 1 */
	uint32_t threads;	 /* threads per role on each side (-T) */
	bool bidir;		 /* both ends initiate at once */
	enum rp_wait wait;	 /* both ends */
	/* Open loop (--rate): operations per second offered by all the
	 * streams of one direction together, each stream on a fixed
	 * schedule of its share; 0: closed loop (as fast as depth allows). */
	uint64_t rate;
	/* One signaled completion (verbs) or acknowledgement (streams) per
	 * this many operations; 0 and 1: every one (rp_spec_signal). */
	uint32_t signal;
	/* Work requests per post call (verbs); 0: as many as there is room
	 * for. */
	uint32_t post_list;
	/* --zerocopy (tcp): the side that sends messages sends those of at
	 * least RP_ZC_MIN_BYTES with MSG_ZEROCOPY where the kernel can. */
	bool zerocopy;
	/* --tos: the IP TOS byte (DSCP << 2 | ECN) both ends mark their data
	 * traffic with (tcp: IP_TOS or IPV6_TCLASS; rdma: rdma_cm's TOS, the
	 * traffic class of RoCE's GRH and its IP header); 0: the system's. */
	uint32_t tos;
	/* --mem: what both ends' message buffers are (platform/mem.h);
	 * file: the client's PATH, the server a temporary file of its own. */
	enum rp_mem_kind mem;
	/* --qp: the rdma transport's queue pair type (UC: write, write_imm
	 * and send, no acknowledgements) */
	enum rp_qp qp;
	/* --tagged (ofi): sends are tagged messages (fi_tsend, fi_trecv) */
	bool tagged;
	/* --ep-type (ofi): the endpoint type asked for */
	enum rp_ep_type ep_type;
	/* --srq (rdma): the server's responders take their receives from one
	 * shared receive queue of srq_size receives (0: the transport's
	 * default) */
	bool srq;
	uint32_t srq_size;
	/* --sl, --flow-label (rdma): the service level and the GRH's flow
	 * label both ends' queue pairs are moved to RTR with, in place of
	 * what rdma_cm's path has (0: the path's, asked for nothing). UD:
	 * the address handles'. Each makes the streams drive their own QPs
	 * (xport/verbs/path.c), as --mtu does. */
	uint32_t sl;
	uint32_t flow_label;
	/* --mtu (rdma, RC and UC): the path MTU in bytes both ends' queue
	 * pairs take at RTR, 256 to 4096 (0: the path's) */
	uint32_t path_mtu;
	/* --rails: the NICs the streams are spread over (0: the route's
	 * one); stream k of each direction runs on rail k % rails, so
	 * streams is a multiple of it. rail_numa (--rail-map numa): each
	 * side orders its rails by NUMA node before rail i meets rail i. */
	uint32_t rails;
	bool rail_numa;
	/* --mcast (rdma, qp ud, send, one stream): the IP multicast group
	 * the client sends to and each receiving server joins ("": none) */
	char mcast[RP_SPEC_GROUP_LEN];
};

/*
 * The spec's members as the wire has them (core/fields.h), in the order
 * they are sent: rp_proto_spec_encode and rp_proto_spec_decode walk it.
 * The user's document says the spec its own way (report/json/doc.c) with
 * the same enums.
 */
extern const struct rp_field rp_spec_fields[];
extern const size_t rp_spec_n_fields;
extern const struct rp_field_enum rp_spec_op_enum;
extern const struct rp_field_enum rp_spec_wait_enum;
extern const struct rp_field_enum rp_spec_mem_enum;
extern const struct rp_field_enum rp_spec_qp_enum;
extern const struct rp_field_enum rp_spec_ep_type_enum;

/** rp_spec_signal - operations per signaled completion at the spec's
 *  current depth: signal, at least 1, at most queue_depth (a window of
 *  queue_depth operations then always holds a signaled one). */
static inline uint32_t rp_spec_signal(const struct rp_spec *s)
{
	uint32_t n = s->signal ? s->signal : 1;

	return n < s->queue_depth ? n : s->queue_depth;
}

/** rp_spec_defaults - fill @s with the defaults of a client without flags. */
void rp_spec_defaults(struct rp_spec *s);

/**
 * rp_spec_validate - check every field against the limits above and the
 * operation's own rules (atomics move exactly 8 bytes).
 * @err: receives a one-line reason naming the field and the accepted range.
 * Return: 0, or -EINVAL.
 */
int rp_spec_validate(const struct rp_spec *s, char *err, size_t errlen);

/**
 * rp_spec_errf - format a one-line reason into @err (if any).
 * Return: -EINVAL, for `return rp_spec_errf(...)`.
 */
__attribute__((format(printf, 3, 4))) int rp_spec_errf(char *err, size_t errlen,
						       const char *fmt, ...);

/** What every transport agrees on about one operation. */
struct rp_op_info {
	const char *name; /* canonical: "write", "read", ... */
	bool atomic;	  /* fetch_add, cmp_swap: exactly 8 bytes */
	bool rtt_halved;  /* unloaded latency is half the ping-pong */
};

/** rp_op_info - the entry of @op; an "unknown" one when out of range. */
const struct rp_op_info *rp_op_info(enum rp_op op);

/** rp_op_name - canonical name of an operation ("write", "read", ...). */
const char *rp_op_name(enum rp_op op);

/**
 * rp_op_parse - parse an operation: a canonical name or the rPerf letter
 * (W, R, S). Return: 0, or -EINVAL.
 */
int rp_op_parse(const char *s, enum rp_op *out);

/* The operations a queue pair type has: UC has no acknowledgements, so
 * no RDMA read and no atomics (their responses need RC). */
#define RP_QP_UC_OPS                                                           \
	((1u << RP_OP_WRITE) | (1u << RP_OP_WRITE_IMM) | (1u << RP_OP_SEND))
/* UD has sends alone, each message one packet: at most the path MTU, of
 * which the largest there is is 4096 bytes. */
#define RP_QP_UD_OPS	 (1u << RP_OP_SEND)
#define RP_QP_UD_MAX_MSG 4096
/* UD: a ping with no answer within this many ms is counted lost */
#define RP_UD_PING_MS 200

/** rp_qp_ops - the operations (bits of enum rp_op) queue pairs @q have. */
unsigned int rp_qp_ops(enum rp_qp q);

/** rp_qp_name - "rc", "uc", "ud"; "unknown" when out of range. */
const char *rp_qp_name(enum rp_qp q);

/** rp_qp_parse - inverse of rp_qp_name. Return: 0 or -EINVAL. */
int rp_qp_parse(const char *s, enum rp_qp *out);

/** rp_ep_type_name - "auto", "msg", "rdm"; "unknown" when out of range. */
const char *rp_ep_type_name(enum rp_ep_type t);

/** rp_wait_name - "busy", "event"; "unknown" when out of range. */
const char *rp_wait_name(enum rp_wait w);

/** rp_wait_parse - inverse of rp_wait_name. Return: 0 or -EINVAL. */
int rp_wait_parse(const char *s, enum rp_wait *out);

/** rp_op_is_atomic - true for fetch_add and cmp_swap. */
bool rp_op_is_atomic(enum rp_op op);

#endif
