/* SPDX-License-Identifier: MIT */
/*
 * Transports behind one ops table. The engine (run/) drives every transport
 * the same way; a transport never sees the control connection, only JSON
 * objects the engine carries for it.
 *
 * Server                                    Client
 *   listen(spec)  -> endpoint JSON  ~~SETUP~~>  connect(host, endpoint,
 *   accept(token, role) -> stream                       token, role) x N
 *   local_info(stream) <~~~~~~~~~~ STREAMS ~~~~~~~~~~> local_info(stream)
 *   set_peer(stream, peer info)                  set_peer(stream, peer info)
 *   per sweep point: set_point(size, depth)      set_point(size, depth)
 *   per phase (between START and STOP), whichever side holds the role:
 *   responder: serve(streams, phase, stop)       initiator: ping() x N
 *                                                (latency), post()/poll()
 *                                                (throughput), arm() to
 *                                                sleep under --wait event
 *   close(stream)                                close(stream)
 *
 * Roles: the initiator posts operations and is timed; the responder serves
 * them. Who connected does not decide it: under --bidir half the streams
 * a client connects have the server as their initiator. Streams of one
 * test are connected one after the other, so the i-th accept() gets the
 * i-th connect(); both ends pass the same role for it.
 *
 * Objects: every transport's stream embeds a struct rp_stream first (its
 * ops, its spec, why it failed) and gets back to its own struct with
 * rp_container_of(), as rdma-core's providers do; so does a listener. A
 * transport's ops table may likewise be embedded in a struct of its own
 * (the stream transports keep their socket calls beside it): listen() and
 * connect() receive the table they were called through.
 *
 * Semantics every transport keeps: operations on one stream complete in the
 * order they were posted (except where poll_seqs() says which completed:
 * a file's CQEs come in any order); an operation completes when the initiator
 * knows the peer holds it (verbs: the work completion; streams: the receiver's
 * cumulative acknowledgement). All functions return 0 (or a count) on
 * success and a negative errno on failure, print nothing, and say why they
 * failed in the struct rp_err of the object (or the one passed in, for the
 * calls that create one); notes (a setting that could not be applied) go to
 * the stream's note.
 *
 * Sweeps: a stream is set up for spec.size_bytes and spec.queue_depth, the
 * largest point; set_point() then moves both ends to a point at or below
 * them, between phases, with nothing in flight. The stream's spec holds the
 * current point's size and depth.
 *
 * Waiting: under spec.wait == RP_WAIT_EVENT both roles sleep instead of
 * spinning: serve() and ping() inside the transport, the initiator's engine
 * through arm() and poll(2) over all the streams of its thread.
 *
 * Phases: the engine's sequence numbers restart at 0 in each phase; serve()
 * may still drain work after *stop, and the next phase starts only after it
 * returned. verify_errors() is cumulative over the stream's life. A server
 * cannot see one-sided operations (rdma write, read, atomics): its stats
 * count 0 messages for them. accept()'s timeout bounds the wait for a
 * connection request; a handshake under way gets its own bounded time.
 * gid_index and mtu are best effort where rdma_cm decides; what is in use
 * is reported by local_info().
 *
 * Payload under --verify (rp_payload_fill): the first 8 bytes hold the
 * message's sequence number, least significant byte first; the rest is a
 * pattern seeded by it.
 */
#ifndef RP_XPORT_XPORT_H
#define RP_XPORT_XPORT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "core/counters.h"
#include "core/err.h"
#include "core/phase.h"
#include "core/spec.h"
#include "core/zc.h"
#include "platform/wait.h"

/* The struct that embeds @member at @ptr (rdma-core's container_of). */
#define rp_container_of(ptr, type, member)                                     \
	((type *)((char *)(ptr)-offsetof(type, member)))

/* Which end of a stream's operations this side is. */
enum rp_role {
	RP_ROLE_INITIATOR, /* posts operations, is timed */
	RP_ROLE_RESPONDER, /* serves them */
};

/*
 * A transport's own options. Each transport that has any describes them in
 * a struct rp_xport_options (its folder's params.c, compiled in every build
 * so that one without the transport still names them and refuses them
 * clearly); cli/ builds getopt's tables, --help and the man page's section
 * from these, and each option's parser fills the transport's own block in
 * struct rp_xport_params, which the transport alone reads.
 */
struct rp_xport_opt {
	const char *name; /* the long option, without "--" */
	int flag;	  /* its short flag, 0: none */
	bool has_arg;
	bool server;	  /* a server takes it too: it shapes its side */
	const char *meta; /* the argument's name in --help ("N"), or NULL */
	const char *help; /* --help's line */
	const char *man;  /* the man page's paragraph (roff) */
	/* @arg (NULL without one) into @own, the transport's block; a bad one
	 * gets a one-line reason naming the option as @flag ("-d/--device").
	 * Return: 0 or -EINVAL. */
	int (*parse)(void *own, const char *flag, const char *arg, char *err,
		     size_t errlen);
};

/* The most bytes of a transport's block, and of blocks (registry.c). */
#define RP_XPORT_OWN_BYTES 128
#define RP_XPORT_MAX_OWN   4

struct rp_xport_options {
	const char *transport; /* the -x name they belong to */
	const char *absent;    /* a build without it: what it lacks */
	bool local;	       /* its -x entries are NAME:PATH (ops.local) */
	const struct rp_xport_opt *opts;
	size_t n_opts;
	size_t size; /* of the block: RP_XPORT_OWN_BYTES at most */
	void (*defaults)(void *own); /* what no option sets; NULL: zeroes */
	/* A client whose -x names the transport, once every option is read:
	 * what the block cannot do with @s, as a one-line reason.
	 * NULL: nothing. Return: 0 or -EINVAL. */
	int (*check)(const void *own, const struct rp_spec *s, char *err,
		     size_t errlen);
};

/* A transport's block: any struct of RP_XPORT_OWN_BYTES or less. */
union rp_xport_own {
	max_align_t align;
	unsigned char bytes[RP_XPORT_OWN_BYTES];
};

/** Local options of one side (not sent to the peer). */
struct rp_xport_params {
	const char *bind; /* server: address to listen on, NULL for any */
	/* Server: whether a data connection from @peer may join (--allow);
	 * NULL admits every peer. A refused one is closed (rejected) before
	 * anything is read from it. */
	bool (*admit)(const void *ctx, const struct sockaddr *peer);
	const void *admit_ctx;
	/* Server: the tokens the test's streams present, one each, so that
	 * a listener can drop any other at once; NULL: it cannot tell. */
	const char *const *tokens;
	unsigned int n_tokens;
	/* A local transport (-x file:PATH): */
	const char *path;    /* the file; the client sets it per transport */
	unsigned int stream; /* the stream connect() opens: 0 owns PATH */
	/* --mem file:PATH, this side's (spec.mem says the kind); NULL: a
	 * temporary file (a server's always) */
	const char *mem_path;
	/* Client, --rails: the local address this stream connects from (its
	 * rail's); NULL: the route's */
	const char *src;
	/* Each transport's own block, in rp_xport_options_at()'s order
	 * (rp_xport_own) */
	union rp_xport_own own[RP_XPORT_MAX_OWN];
};

/** What the responder (server) saw in one phase. */
struct rp_side_stats {
	uint64_t messages;
	uint64_t bytes;
	uint64_t verify_errors;
};

struct rp_xport_ops;

/** The generic part of every transport's listener, embedded first. */
struct rp_listener {
	const struct rp_xport_ops *ops;
	struct rp_spec spec;
	struct rp_err err; /* why accept() failed */
	/* Connections the listener turned away (not admitted, a wrong
	 * token, gone before their token, crowded out), over its life, and
	 * the latest one's peer and reason: for the server's log. */
	unsigned int dropped;
	char drop_note[RP_NOTE_LEN];
};

/** rp_listener_drop - count a connection @l turned away, and say why. */
__attribute__((format(printf, 2, 3))) void
rp_listener_drop(struct rp_listener *l, const char *fmt, ...);

/** The generic part of every transport's stream, embedded first. */
struct rp_stream {
	const struct rp_xport_ops *ops;
	struct rp_spec spec; /* size_bytes, queue_depth: the point's */
	enum rp_role role;
	struct rp_err err;	/* why the last call failed */
	char note[RP_NOTE_LEN]; /* what the user should know; "" if nothing */
	/* A responder's signs of life for the session that watches it:
	 * serve() bumps activity when something moved; blind is set while
	 * the op is one-sided, when the responder cannot see progress. */
	atomic_uint_least64_t activity;
	atomic_int blind;
	/* A responder's due: the operations the initiator said at STOP it
	 * completed on this stream in the phase (0: it did not say), set
	 * before the stop flag. serve()'s drain waits for those still on
	 * their way (an iWARP send completes once it has left), at most
	 * RP_DRAIN_MS. */
	atomic_uint_least64_t due;
};

/* How long a responder's drain after stop waits for operations the
 * initiator completed that have not arrived (rp_stream.due). */
#define RP_DRAIN_MS 5000

/* ping(): the ping or its answer was lost (UD), see rp_xport_ops.ping. */
#define RP_PING_LOST 1

/* A responder in the latency phase spins for the next ping; after this
 * long without one, the client has gone quiet: it naps between looks. */
#define RP_LAT_IDLE_NS (20ULL * 1000000ULL)

/** rp_stream_active - serve() moved something on @s (a relaxed bump). */
static inline void rp_stream_active(struct rp_stream *s)
{
	atomic_fetch_add_explicit(&s->activity, 1, memory_order_relaxed);
}

/* A set of operations, one bit per enum rp_op (rp_xport_ops.op_mask). */
#define RP_OP_BIT(op)  (1u << (op))
#define RP_OP_MASK_ALL (RP_OP_BIT(RP_OP__COUNT) - 1)
/* A set of kinds of memory, one bit per enum rp_mem_kind (mem_kinds). */
#define RP_MEM_BIT(k) (1u << (k))
#define RP_MEM_MAPPED                                                          \
	(RP_MEM_BIT(RP_MEM_HOST) | RP_MEM_BIT(RP_MEM_HUGE) |                   \
	 RP_MEM_BIT(RP_MEM_FILE))

struct rp_xport_ops {
	const char *name;
	/** The operations it can do (RP_OP_BIT of each): both ends refuse
	 *  any other before a test starts (rp_xport_check_op). */
	uint32_t op_mask;
	/** A local transport (-x file:PATH): no server and no responder.
	 *  The client connect()s its initiators itself (host, endpoint and
	 *  token NULL, the path in the params); ping() times one whole
	 *  operation; a server refuses it. */
	bool local;
	/** Its -x entries may name a variant, NAME:VARIANT (ofi:tcp, the
	 *  provider): what a variant is, for --help ("PROVIDER"); NULL:
	 *  none. rp_xport_find() finds the transport by NAME or
	 *  NAME:VARIANT, and spec.transport carries the whole entry to the
	 *  server. */
	const char *variant;
	/** It marks its data traffic with spec.tos (--tos), both ends;
	 *  a client refuses --tos with any transport that does not. */
	bool tos;
	/** It connects each stream from a rail's address to the peer's
	 *  rail (--rails, xport/rails.h): params' src, a wildcard listener.
	 *  @qp_types transports take RDMA devices as rails, others any
	 *  interface. */
	bool rails;
	/** The kinds of memory (RP_MEM_BIT of each, platform/mem.h) its
	 *  message buffers can be, --mem; 0: host memory alone. */
	uint32_t mem_kinds;
	/** It can run --qp uc and ud (unreliable connected queue pairs,
	 *  datagrams); a client refuses them with any transport that cannot. */
	bool qp_types;
	/** It can send tagged messages, --tagged (ofi: fi_tsend). */
	bool tagged;
	/** It has a choice of endpoint type, --ep-type (ofi). */
	bool ep_types;
	/** Its server's responders can share a receive queue, --srq (rdma). */
	bool srq;
	/** Optional (NULL: none), server, a responder stream: how many times
	 *  its shared receive queue reached its limit (nearly empty) over
	 *  the stream's life. */
	uint64_t (*srq_limit_events)(struct rp_stream *s);
	/** Optional: the bytes one of its streams takes beyond its message
	 *  buffers, allocated by a library it runs on (ofi_rxm's bounce
	 *  buffers), which a server's --max-memory counts with them; NULL:
	 *  none worth counting. */
	uint64_t (*stream_memory)(const struct rp_spec *spec);
	/** Can this transport run on this host? @why gets the reason if not. */
	int (*probe)(const struct rp_xport_ops *self, struct rp_err *why);
	/** Client, before anything is set up (NULL: nothing to check): can
	 *  the way to @host do @spec's operation? -EOPNOTSUPP with @why when
	 *  it cannot (the test is refused, exit 2); 0 otherwise, also when
	 *  it cannot tell (the connection then says what is wrong). */
	int (*preflight)(const struct rp_xport_ops *self,
			 const struct rp_spec *spec,
			 const struct rp_xport_params *p, const char *host,
			 struct rp_err *why);
	/** Server: open a listener for @spec; describe it in @endpoint. */
	int (*listen)(const struct rp_xport_ops *self,
		      const struct rp_spec *spec,
		      const struct rp_xport_params *p, cJSON *endpoint,
		      struct rp_listener **out, struct rp_err *why);
	/** Server: accept the stream that presents @token (each stream has
	 *  its own: rp_auth_stream_token), this side taking @role in it;
	 *  -ETIMEDOUT when it did not come within @timeout_ms (the reason,
	 *  and what was turned away meanwhile, in the listener's err). A
	 *  connection that presents another stream's token is kept for the
	 *  accept() that asks for it. */
	int (*accept)(struct rp_listener *l, const char *token,
		      enum rp_role role, int timeout_ms,
		      struct rp_stream **out);
	/** Server: close the listener (not the accepted streams); NULL ok. */
	void (*unlisten)(struct rp_listener *l);
	/** Client: connect to @host as described by @endpoint, this side
	 *  taking @role in the stream. */
	int (*connect)(const struct rp_xport_ops *self,
		       const struct rp_spec *spec,
		       const struct rp_xport_params *p, const char *host,
		       const cJSON *endpoint, const char *token,
		       enum rp_role role, int timeout_ms,
		       struct rp_stream **out, struct rp_err *why);
	/** Either side: what the peer needs (buffer address, key, ...) and
	 *  what a report shows (device, MTU, inline size), into @info. */
	int (*local_info)(struct rp_stream *s, cJSON *info);
	/** Either side: take the peer's local_info. */
	int (*set_peer)(struct rp_stream *s, const cJSON *info);
	/** Either side, between phases, nothing in flight: run the next
	 *  operations at @size_bytes and at most @depth in flight (each at
	 *  most what the stream was set up for); sequence numbers restart.
	 *  Both ends make the same call before the next phase. */
	int (*set_point)(struct rp_stream *s, uint64_t size_bytes,
			 uint32_t depth);
	/** Responder: serve the @n streams @s (all of this transport, all
	 *  responders) until *@stop is set, then drain (to s[i]->due where
	 *  the transport counts arrivals); count what arrived on s[i] in
	 *  st[i]. Must notice @stop within ~10 ms. On error, the
	 *  reason is in the failing stream's err. */
	int (*serve)(struct rp_stream *const *s, unsigned int n,
		     enum rp_phase phase, const atomic_int *stop,
		     struct rp_side_stats *st);
	/** Initiator: one ping-pong round trip (depth 1), spinning or asleep
	 *  as spec.wait says, giving up with -ETIMEDOUT at @deadline_ns
	 *  (rp_clock_ns time). An unreliable transport (--qp ud) may return
	 *  RP_PING_LOST instead: no answer came in its own time, nothing of
	 *  the ping is left in flight, the next may go. */
	int (*ping)(struct rp_stream *s, uint64_t seq, uint64_t deadline_ns);
	/** Initiator: post @count operations numbered @seq.. (fewer than the
	 *  queue depth are in flight: the engine guarantees it). Operation
	 *  k completes (is signaled, or acknowledged) at the latest with the
	 *  next one where (k + 1) % rp_spec_signal(spec) == 0, and, when
	 *  @last, with seq + count - 1: nothing may follow it soon. poll()
	 *  counts every operation a completion covers. */
	int (*post)(struct rp_stream *s, uint64_t seq, uint32_t count,
		    bool last);
	/** Initiator: make progress, never sleeping; return how many
	 *  operations completed, in posting order, since the last call (0 if
	 *  none), or -errno. Under --wait event it also takes the events
	 *  that woke the engine (and acknowledges them). */
	int (*poll)(struct rp_stream *s);
	/** Optional, initiator: for a transport whose operations complete in
	 *  any order (a file's CQEs), poll() as it comes: how many completed
	 *  since the last call, each one's sequence number into @seqs (room
	 *  for @max, the queue depth), or -errno. The engine then times each
	 *  operation from its own post and refills the queue as soon as any
	 *  completes (the oldest out may lag a few depths behind). */
	int (*poll_seqs)(struct rp_stream *s, uint64_t *seqs, uint32_t max);
	/** Initiator, --wait event: about to sleep. Arm the stream's
	 *  notification and give the descriptor and poll(2) events that
	 *  wake the engine when there is progress. Return: 0 (armed: sleep),
	 *  1 (progress may already be there: poll() again, do not sleep),
	 *  or -errno. */
	int (*arm)(struct rp_stream *s, rp_sock_t *fd, short *events);
	/** The poll(2) to sleep on arm()'s descriptors with (rsockets:
	 *  rpoll); NULL: rp_poll (poll(2), WSAPoll). */
	rp_poll_fn wait_poll;
	/** Initiator: after a phase, errors found by --verify on this side. */
	uint64_t (*verify_errors)(struct rp_stream *s);
	/** Optional (NULL: never zero copy), either side, between phases:
	 *  the stream's zero-copy sends (--zerocopy) over its life, after
	 *  taking the notifications that have come. */
	void (*zerocopy)(struct rp_stream *s, struct rp_zc_count *out);
	/** Optional (NULL: none), either side, once connected: the facts of
	 *  the link the stream runs on (xport/link.h's rp_link_rdma or
	 *  rp_link_netdev form), or NULL. The caller owns the object. */
	cJSON *(*link_facts)(struct rp_stream *s);
	/** Optional (NULL: none), either side, between phases: a snapshot
	 *  of the counters of the port or netdev the stream runs on (every
	 *  stream of a test runs on one). Return: 0, or -errno when there
	 *  are none to read. */
	int (*counters)(struct rp_stream *s, struct rp_counters *out);
	/** Optional (NULL: none), either side, between phases: add what the
	 *  kernel counts for @s's own connection alone (TCP_INFO's
	 *  retransmissions) into @acc, group RP_COUNTERS_SOCKET, summed over
	 *  the test's streams. Return: 0, or -errno when it cannot. */
	int (*stream_counters)(struct rp_stream *s, struct rp_counters *acc);
	/** Either side: disconnect cleanly and free; NULL ok. */
	void (*close)(struct rp_stream *s);
	/** Optional (NULL: 127.0.0.1 serves): an address of this host that
	 *  reaches the transport's device (of @p->device, if given), for a
	 *  client and server in one process (--loopback). rdma_cm cannot
	 *  reach a device through 127.0.0.1. Return: 0, or -ENODEV. */
	int (*loopback_addr)(const struct rp_xport_params *p, char *buf,
			     size_t len);
};

/*
 * A listener's endpoint is what the client needs to connect: a JSON object
 * with at least its "port". The two ends agree on it here.
 */

/** rp_stream_add_link - put @s's link_facts (if its transport has them)
 *  into its local @info as "link". Return: 0, or -ENOMEM. */
int rp_stream_add_link(const struct rp_xport_ops *ops, struct rp_stream *s,
		       cJSON *info);

/** rp_endpoint_set_port - put @port into @endpoint. Return: 0 or -ENOMEM
 *  (with a reason in @why). */
int rp_endpoint_set_port(cJSON *endpoint, int port, struct rp_err *why);

/** rp_endpoint_port - the "port" of a server's @endpoint, 1 to 65535.
 *  Return: 0, or -EBADMSG with a reason in @why. */
int rp_endpoint_port(const cJSON *endpoint, uint16_t *port, struct rp_err *why);

/** rp_stream_init - fill the generic part of a new stream. */
void rp_stream_init(struct rp_stream *s, const struct rp_xport_ops *ops,
		    const struct rp_spec *spec, enum rp_role role);

/** rp_role_name - "initiator", "responder". */
const char *rp_role_name(enum rp_role role);

/** rp_listener_init - fill the generic part of a new listener. */
void rp_listener_init(struct rp_listener *l, const struct rp_xport_ops *ops,
		      const struct rp_spec *spec);

/** rp_stream_fail - record why @s failed (first reason kept); return @err. */
__attribute__((format(printf, 3, 4))) int
rp_stream_fail(struct rp_stream *s, int err, const char *fmt, ...);

/** rp_stream_note - append a note for the user to @s's note. */
__attribute__((format(printf, 2, 3))) void rp_stream_note(struct rp_stream *s,
							  const char *fmt, ...);

/** rp_xport_find - the transport named @name (or NAME:VARIANT for one
 *  with variants), or NULL. */
const struct rp_xport_ops *rp_xport_find(const char *name);

/**
 * rp_xport_check_op - can transport @x do operation @op?
 * Return: 0, or -EOPNOTSUPP with a one-line reason in @why naming the
 * transport and the operations it can do.
 */
int rp_xport_check_op(const struct rp_xport_ops *x, enum rp_op op,
		      struct rp_err *why);

/** rp_op_mask_list - the operations of @mask (RP_OP_BIT each) as
 *  "write, read, send" into @buf of @len bytes; returns @buf. */
const char *rp_op_mask_list(uint32_t mask, char *buf, size_t len);

/** rp_xport_entry_is - does the -x entry @entry name transport @name
 *  ("ofi" for "ofi" and "ofi:tcp")? */
bool rp_xport_entry_is(const char *entry, const char *name);

/** rp_xport_count / rp_xport_at - iterate over the registry. */
size_t rp_xport_count(void);
const struct rp_xport_ops *rp_xport_at(size_t i);

/** rp_xport_options_count / rp_xport_options_at - the transports' option
 *  sets, those of transports this build lacks included. */
size_t rp_xport_options_count(void);
const struct rp_xport_options *rp_xport_options_at(size_t i);

/** rp_xport_params_defaults - @p zeroed, every block at its defaults. */
void rp_xport_params_defaults(struct rp_xport_params *p);

/** rp_xport_own - the block of option set @o in @p; NULL when @p is (the
 *  transport then takes its defaults). */
void *rp_xport_own(struct rp_xport_params *p, const struct rp_xport_options *o);
const void *rp_xport_own_c(const struct rp_xport_params *p,
			   const struct rp_xport_options *o);

/** rp_payload_fill - the pattern of message @seq into @buf (--verify). */
void rp_payload_fill(uint8_t *buf, size_t len, uint64_t seq);

/** rp_payload_check - 0 if @buf holds message @seq's pattern, else -EIO. */
int rp_payload_check(const uint8_t *buf, size_t len, uint64_t seq);

/* The registry's entries, for registry.c (others use rp_xport_find). */
extern const struct rp_xport_ops *const rp_xport_tcp;
#ifdef RP_HAVE_URING
extern const struct rp_xport_ops *const rp_xport_file;
#endif
#ifdef RP_HAVE_RDMA
extern const struct rp_xport_ops *const rp_xport_rdma;
extern const struct rp_xport_ops *const rp_xport_rsocket;
#endif
#ifdef RP_HAVE_OFI
extern const struct rp_xport_ops *const rp_xport_ofi;
#endif
extern const struct rp_xport_options rp_xport_rdma_options;
extern const struct rp_xport_options rp_xport_ofi_options;
extern const struct rp_xport_options rp_xport_file_options;

#endif
