/* SPDX-License-Identifier: MIT */
/*
 * Stream transports (TCP, rsockets): one implementation over a table of
 * socket calls. A transport is a const struct rp_sock_xport, its ops table
 * (RP_SOCK_OPS) beside the calls it runs on; listen() and connect() find
 * the calls from the ops they were called through, streams and listeners
 * keep a pointer to them.
 *
 * A data connection starts with the connecting side presenting the test's
 * token (RP_TOKEN_LEN bytes, the token's text padded with zeros), whatever
 * its role. After that each direction carries either messages (exactly
 * size bytes each, back to back) or counters (8 bytes, big-endian,
 * cumulative since the point began, see below):
 *
 *   op          initiator -> responder    responder -> initiator
 *   write/send  messages                  acks: messages received so far
 *               (latency phase: echoed byte for byte instead of acked)
 *   read        credits: messages wanted  messages
 *
 * The role (rp_role) chooses the direction, not who connected: under
 * --bidir the server's accepted stream may be the initiator and the
 * client's the responder. An operation completes when the initiator holds
 * the ack (write, send) or the whole message (read), so the queue depth
 * bounds the messages in flight as on verbs. Both ends keep a ring of depth
 * message slots; message m lives in slot m % depth, so a stream offset maps
 * to the same ring offset on both sides and --verify can check every
 * message in place.
 *
 * Points (set_point). The ring is allocated once for the setup's size and
 * depth (the largest point of a sweep). Between phases, with nothing in
 * flight (every posted message completed, every counter and echoed byte
 * delivered and taken), both ends move to a point of size S and depth D,
 * each at most the setup's. Then every count restarts at 0 on both ends:
 * message bytes posted, sent and received, the echo offset, message
 * numbers (the next message is 0, in slot 0 of a ring of D slots of S
 * bytes) and the counters (the next ack or credit counts from the point's
 * start). Nothing is on the wire then, so both ends rebase at the same
 * stream position; a side that still sees something in flight refuses
 * (-EBUSY). Within a point, phases keep counting on (cumulative). Only
 * --verify's error count lives as long as the stream.
 *
 * Waiting (spec.wait, the same on both ends):
 *   busy   the initiator spins, and sleeps 1 ms in poll() only after
 *          SPIN_BEFORE_SLEEP empty polls in a row; the responder spins
 *          SPIN_BEFORE_SLEEP empty rounds over its streams, then sleeps in
 *          one poll() over all of them (at most 10 ms, to see the stop
 *          flag), except in the latency phase, where it always spins.
 *   event  the initiator's poll() never sleeps; arm() hands the engine the
 *          socket with POLLIN (and POLLOUT while posted bytes or counters
 *          wait to go out) and always returns 0: readiness is
 *          level-triggered, so nothing can slip between the last poll()
 *          and the sleep. ping() sleeps in the calls' poll() up to its
 *          deadline. serve() sleeps as soon as a round over its streams
 *          finds nothing to do, in every phase.
 * rsockets wait the same way, in rpoll() through rsocket.c's wrapper,
 * which never hands librdmacm a timeout that can run out (see there).
 *
 * Zero copy (spec.zerocopy, tcp only): the side that sends messages (a
 * write or send initiator, a read responder) sets SO_ZEROCOPY and sends
 * the messages of a point of at least RP_ZC_MIN_BYTES with MSG_ZEROCOPY;
 * echoes and counters go copied. The kernel then sends from the ring's
 * pages, so a slot must not change until its send is notified: only
 * --verify writes into a sending ring, and the two are exclusive. The
 * notifications are taken off the error queue at every push while any
 * are owed (the queue also makes poll() report POLLERR, which must not be
 * left standing); a send refused for want of option memory (ENOBUFS) is
 * made again copied once they have been taken.
 *
 * Files: listen.c (listen, accept, token check), connect.c, stream.c (a
 * stream's life, points, setup-time I/O, waiting), io.c (counters, ring,
 * verify), serve.c (the responder's loop), client.c (the initiator: post,
 * poll, ping, arm), tcp.c and rsocket.c (the transports).
 */
#ifndef RP_XPORT_SOCK_SOCK_H
#define RP_XPORT_SOCK_SOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "platform/mem.h"
#include "platform/net.h"
#include "xport/xport.h"

#define RP_TOKEN_LEN	  32  /* bytes a data connection presents first */
#define SPIN_BEFORE_SLEEP 256 /* empty polls before a side sleeps */
#define SPIN_CHECK	  64  /* spins between two looks at the clock */

/** A stream transport: its ops and the socket calls it runs on. */
struct rp_sock_xport {
	struct rp_xport_ops ops; /* first: what the registry hands out */
	const struct rp_sock_calls *calls;
};

/* A data connection accepted, its token not yet taken (listen.c). */
struct sock_pending {
	rp_sock_t fd;
	uint8_t got[RP_TOKEN_LEN];
	size_t len; /* bytes of the token in so far */
	char peer[RP_NET_ADDR_LEN];
};

struct sock_listener {
	struct rp_listener base;
	const struct rp_sock_calls *c;
	rp_sock_t fd;
	bool (*admit)(const void *ctx, const struct sockaddr *peer);
	const void *admit_ctx;
	uint8_t (*tokens)[RP_TOKEN_LEN]; /* the test's; NULL: not known */
	unsigned int n_tokens;
	struct sock_pending *pend; /* oldest first */
	unsigned int n_pend, max_pend;
	struct pollfd *pfd;	/* 1 + max_pend: the listener, then ... */
	unsigned int *pfd_pend; /* ... the pending connection of each */
	unsigned int n_pfd;	/* in the last wait */
};

/* A cumulative 8-byte counter, being sent or being received. */
struct ctr_tx {
	uint64_t want; /* latest value to send */
	uint64_t sent; /* value whose bytes are (being) sent */
	uint8_t buf[8];
	size_t off; /* bytes of buf already sent; 8 when idle */
};

struct ctr_rx {
	uint64_t val;
	uint8_t buf[8];
	size_t len;
};

/* What a responder stream had counted when serve() began. */
struct serve_mark {
	uint64_t messages;
	uint64_t bytes;
	uint64_t verify_errors;
};

struct sock_stream {
	struct rp_stream base;
	const struct rp_sock_calls *c;
	rp_sock_t fd;
	uint8_t *ring;
	struct rp_mem ring_mem; /* what ring is: --mem's kind */
	size_t ring_len;	/* the point's depth * size */
	uint64_t max_size;	/* what the stream was set up for */
	uint32_t max_depth;
	uint64_t tx_bytes;   /* message bytes sent */
	uint64_t tx_target;  /* message bytes posted */
	uint64_t rx_bytes;   /* message bytes received */
	uint64_t echo_bytes; /* responder: received bytes echoed back */
	uint8_t *echo;	     /* initiator: landing area of echoed bytes */
	uint64_t completed;  /* messages complete, as seen by this side */
	uint64_t reported;   /* completions handed to the engine */
	struct ctr_tx ctx;
	struct ctr_rx crx;
	uint64_t credit_seen; /* read responder: the last credit taken */
	uint64_t verify_errors;
	bool zc;       /* sends messages with SO_ZEROCOPY set */
	bool accepted; /* this end accepted the connection (the server's) */
	struct rp_zc_count zc_count;
	unsigned int idle;	/* initiator: empty polls in a row */
	struct serve_mark mark; /* responder: counts at serve()'s start */
};

static inline struct sock_stream *sock_stream(struct rp_stream *s)
{
	return rp_container_of(s, struct sock_stream, base);
}

static inline struct sock_listener *sock_listener(struct rp_listener *l)
{
	return rp_container_of(l, struct sock_listener, base);
}

/* The socket calls of the transport whose ops table is @self. */
static inline const struct rp_sock_calls *
sock_calls_of(const struct rp_xport_ops *self)
{
	return rp_container_of(self, struct rp_sock_xport, ops)->calls;
}

static inline bool sock_is_read(const struct sock_stream *s)
{
	return s->base.spec.op == RP_OP_READ;
}

static inline bool sock_is_initiator(const struct sock_stream *s)
{
	return s->base.role == RP_ROLE_INITIATOR;
}

/* Whether this end sends the messages: a write or send initiator, a read
 * responder. */
static inline bool sock_sends_messages(const struct sock_stream *s)
{
	return sock_is_initiator(s) != sock_is_read(s);
}

/* The ops (listen.c, connect.c, stream.c, serve.c, client.c). */
int rp_sock_listen(const struct rp_xport_ops *self, const struct rp_spec *spec,
		   const struct rp_xport_params *p, cJSON *endpoint,
		   struct rp_listener **out, struct rp_err *why);
int rp_sock_accept(struct rp_listener *l, const char *token, enum rp_role role,
		   int timeout_ms, struct rp_stream **out);
void rp_sock_unlisten(struct rp_listener *l);
int rp_sock_connect(const struct rp_xport_ops *self, const struct rp_spec *spec,
		    const struct rp_xport_params *p, const char *host,
		    const cJSON *endpoint, const char *token, enum rp_role role,
		    int timeout_ms, struct rp_stream **out, struct rp_err *why);
int rp_sock_local_info(struct rp_stream *s, cJSON *info);
int rp_sock_set_peer(struct rp_stream *s, const cJSON *info);
int rp_sock_set_point(struct rp_stream *s, uint64_t size_bytes, uint32_t depth);
int rp_sock_serve(struct rp_stream *const *s, unsigned int n,
		  enum rp_phase phase, const atomic_int *stop,
		  struct rp_side_stats *st);
int rp_sock_ping(struct rp_stream *s, uint64_t seq, uint64_t deadline_ns);
int rp_sock_post(struct rp_stream *s, uint64_t seq, uint32_t count, bool last);
int rp_sock_poll(struct rp_stream *s);
int rp_sock_arm(struct rp_stream *s, rp_sock_t *fd, short *events);
uint64_t rp_sock_verify_errors(struct rp_stream *s);
void rp_sock_zerocopy(struct rp_stream *s, struct rp_zc_count *out);
/* link.c: the netdev of the socket's local address; TCP's counters, the
 * host's and the connection's own. */
cJSON *rp_sock_link_facts(struct rp_stream *s);
int rp_sock_counters(struct rp_stream *s, struct rp_counters *out);
int rp_sock_stream_counters(struct rp_stream *s, struct rp_counters *acc);
void rp_sock_close(struct rp_stream *s);

/* What a byte stream can do: no immediate data, no atomics. */
#define RP_SOCK_OP_MASK                                                        \
	(RP_OP_BIT(RP_OP_WRITE) | RP_OP_BIT(RP_OP_READ) | RP_OP_BIT(RP_OP_SEND))

/* The ops table of a stream transport; @LOOPBACK and @WAIT_POLL (what the
 * engine sleeps on arm()'s descriptors with) may be NULL. */
#define RP_SOCK_OPS(NAME, PROBE, LOOPBACK, WAIT_POLL, TOS)                     \
	{                                                                      \
		.name = NAME, .op_mask = RP_SOCK_OP_MASK, .tos = TOS,          \
		.rails = true, /* connect.c binds the rail's address */        \
			.mem_kinds = RP_MEM_MAPPED, .probe = PROBE,            \
		.listen = rp_sock_listen, .accept = rp_sock_accept,            \
		.unlisten = rp_sock_unlisten, .connect = rp_sock_connect,      \
		.local_info = rp_sock_local_info,                              \
		.set_peer = rp_sock_set_peer, .set_point = rp_sock_set_point,  \
		.serve = rp_sock_serve, .ping = rp_sock_ping,                  \
		.post = rp_sock_post, .poll = rp_sock_poll,                    \
		.arm = rp_sock_arm, .wait_poll = WAIT_POLL,                    \
		.verify_errors = rp_sock_verify_errors,                        \
		.zerocopy = rp_sock_zerocopy,                                  \
		.link_facts = rp_sock_link_facts,                              \
		.counters = rp_sock_counters,                                  \
		.stream_counters = rp_sock_stream_counters,                    \
		.close = rp_sock_close, .loopback_addr = LOOPBACK,             \
	}

/* stream.c: a stream's life and the I/O of setup. */

/**
 * rp_sock_stream_create - a stream of transport @ops over connected socket
 * @fd (not closed on failure), this side taking @role, with its ring of
 * spec.mem's kind (file: @mem_path, NULL for a temporary file) and, for an
 * initiator, the landing area of echoed bytes; TCP_NODELAY and --tos set
 * and @fd made non-blocking. Return: 0, or -errno with a reason in @why
 * where there is more to say than the errno.
 */
int rp_sock_stream_create(const struct rp_xport_ops *ops,
			  const struct rp_spec *spec, enum rp_role role,
			  rp_sock_t fd, const char *mem_path,
			  struct sock_stream **out, struct rp_err *why);

/**
 * rp_sock_reserve - take one of the process's max_open slots of @c before
 * a stream is dialled or accepted (no limit: always 0); the stream owns it
 * once created (rp_sock_close gives it back), rp_sock_unreserve gives back
 * one that no stream took. Return: 0, or -EUSERS with the calls' reason.
 */
int rp_sock_reserve(const struct rp_sock_calls *c, struct rp_err *why);

/**
 * rp_sock_fits - whether a test of @spec (its streams, doubled by --bidir)
 * stays within @c's max_open, checked before any stream is opened, so that
 * neither end starts a setup it cannot finish. Return: 0, or -EUSERS with
 * the calls' reason in @why.
 */
int rp_sock_fits(const struct rp_sock_calls *c, const struct rp_spec *spec,
		 struct rp_err *why);
void rp_sock_unreserve(const struct rp_sock_calls *c);

/** rp_sock_token - the RP_TOKEN_LEN bytes that present @token. */
void rp_sock_token(uint8_t buf[RP_TOKEN_LEN], const char *token);

/** rp_sock_wanted_events - the poll() events that mean progress for @s:
 *  POLLIN, plus POLLOUT while bytes or a counter wait to go out. */
short rp_sock_wanted_events(const struct sock_stream *s);

/**
 * rp_sock_event_wait - sleep in the calls' poll() until the socket is ready
 * for rp_sock_wanted_events() or @deadline_ns passes.
 * Return: 0, -ETIMEDOUT, or -errno with a reason in @s.
 */
int rp_sock_event_wait(struct sock_stream *s, uint64_t deadline_ns);

/**
 * rp_sock_idle_wait - nothing to do: sleep until the socket is ready for
 * what is owed, at most @ms.
 * Return: 0, -ETIMEDOUT, or -errno with a reason in @s.
 */
int rp_sock_idle_wait(struct sock_stream *s, int ms);

/* io.c: the hot path. All return 0 when done or blocked, -errno (with a
 * reason in the stream) on error; the pulls 1 when something arrived. */

int rp_sock_ctr_push(struct sock_stream *s);
int rp_sock_ctr_pull(struct sock_stream *s);
int rp_sock_data_pull(struct sock_stream *s);
int rp_sock_ring_send(struct sock_stream *s, uint64_t *sent, uint64_t target,
		      bool zc);
int rp_sock_data_push(struct sock_stream *s);
void rp_sock_data_queue(struct sock_stream *s, uint64_t count);

/**
 * rp_sock_zc_reap - account every zero-copy notification @s's error queue
 * holds. Return: 0, or -errno with a reason in @s.
 */
int rp_sock_zc_reap(struct sock_stream *s);

/**
 * rp_sock_io_result - the outcome of a send or recv that returned @n:
 * 0 for "would block" or an interrupted call, -ECONNRESET for a receive of
 * 0 bytes (the peer closed), else -errno; the reason goes to @s.
 */
int rp_sock_io_result(struct sock_stream *s, ssize_t n, bool tx);

#endif
