/* SPDX-License-Identifier: MIT */
/*
 * Stream transports (TCP, rsockets): one implementation over a table of
 * socket calls. A transport is a const struct rp_sock_xport, its ops table
 * (RP_SOCK_OPS) beside the calls it runs on; listen() and connect() find
 * the calls from the ops they were called through, streams and listeners
 * keep a pointer to them.
 *
 * A data connection starts with the client presenting the test's token
 * (RP_TOKEN_LEN bytes, the token's text padded with zeros). After that each
 * direction carries either messages (exactly size bytes each, back to back)
 * or counters (8 bytes, big-endian, cumulative over the connection's life):
 *
 *   op          client -> server          server -> client
 *   write/send  messages                  acks: messages received so far
 *               (latency phase: echoed byte for byte instead of acked)
 *   read        credits: messages wanted  messages
 *
 * An operation completes when the client holds the ack (write, send) or the
 * whole message (read), so the queue depth bounds the messages in flight as
 * on verbs. Both ends keep a ring of queue_depth message slots; message m
 * lives in slot m % depth, so a stream offset maps to the same ring offset
 * on both sides and --verify can check every message in place.
 *
 * The client busy-polls (it is the side being timed); the server spins for
 * a short while, then sleeps in poll() so its CPU figure means something.
 *
 * Files: listen.c (listen, accept, token check), connect.c, stream.c (a
 * stream's life and setup-time I/O), io.c (counters, ring, verify),
 * serve.c (the server loop), client.c (post, poll, ping), tcp.c and
 * rsocket.c (the transports).
 */
#ifndef RP_XPORT_SOCK_SOCK_H
#define RP_XPORT_SOCK_SOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "platform/net.h"
#include "xport/xport.h"

#define RP_TOKEN_LEN	  32  /* bytes a data connection presents first */
#define SPIN_BEFORE_SLEEP 256 /* empty polls before a side sleeps */

/** A stream transport: its ops and the socket calls it runs on. */
struct rp_sock_xport {
	struct rp_xport_ops ops; /* first: what the registry hands out */
	const struct rp_sock_calls *calls;
};

struct sock_listener {
	struct rp_listener base;
	const struct rp_sock_calls *c;
	int fd;
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

struct sock_stream {
	struct rp_stream base;
	const struct rp_sock_calls *c;
	int fd;
	uint8_t *ring;
	size_t ring_len;
	uint64_t tx_bytes;   /* message bytes sent */
	uint64_t tx_target;  /* message bytes posted */
	uint64_t rx_bytes;   /* message bytes received */
	uint64_t echo_bytes; /* server: received bytes echoed back */
	uint8_t *echo;	     /* client: landing area of echoed bytes */
	uint64_t completed;  /* messages complete, as seen by this side */
	uint64_t reported;   /* completions handed to the engine */
	struct ctr_tx ctx;
	struct ctr_rx crx;
	uint64_t verify_errors;
	unsigned int idle; /* client: empty polls in a row */
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

/* The ops (listen.c, connect.c, stream.c, serve.c, client.c). */
int rp_sock_listen(const struct rp_xport_ops *self, const struct rp_spec *spec,
		   const struct rp_xport_params *p, cJSON *endpoint,
		   struct rp_listener **out, struct rp_err *why);
int rp_sock_accept(struct rp_listener *l, const char *token, int timeout_ms,
		   struct rp_stream **out);
void rp_sock_unlisten(struct rp_listener *l);
int rp_sock_connect(const struct rp_xport_ops *self, const struct rp_spec *spec,
		    const struct rp_xport_params *p, const char *host,
		    const cJSON *endpoint, const char *token, int timeout_ms,
		    struct rp_stream **out, struct rp_err *why);
int rp_sock_local_info(struct rp_stream *s, cJSON *info);
int rp_sock_set_peer(struct rp_stream *s, const cJSON *info);
int rp_sock_serve(struct rp_stream *s, enum rp_phase phase,
		  const atomic_int *stop, struct rp_side_stats *st);
int rp_sock_ping(struct rp_stream *s, uint64_t seq, uint64_t deadline_ns);
int rp_sock_post(struct rp_stream *s, uint64_t seq, uint32_t count);
int rp_sock_poll(struct rp_stream *s);
uint64_t rp_sock_verify_errors(struct rp_stream *s);
void rp_sock_close(struct rp_stream *s);

/* The ops table of a stream transport; @LOOPBACK may be NULL. */
#define RP_SOCK_OPS(NAME, PROBE, LOOPBACK)                                     \
	{                                                                      \
		.name = NAME, .probe = PROBE, .listen = rp_sock_listen,        \
		.accept = rp_sock_accept, .unlisten = rp_sock_unlisten,        \
		.connect = rp_sock_connect, .local_info = rp_sock_local_info,  \
		.set_peer = rp_sock_set_peer, .serve = rp_sock_serve,          \
		.ping = rp_sock_ping, .post = rp_sock_post,                    \
		.poll = rp_sock_poll, .verify_errors = rp_sock_verify_errors,  \
		.close = rp_sock_close, .loopback_addr = LOOPBACK,             \
	}

/* stream.c: a stream's life and the I/O of setup. */

/**
 * rp_sock_stream_create - a stream of transport @ops over connected socket
 * @fd (not closed on failure), with its ring, TCP_NODELAY set and @fd made
 * non-blocking. Return: 0, -ENOMEM or -errno of fcntl.
 */
int rp_sock_stream_create(const struct rp_xport_ops *ops,
			  const struct rp_spec *spec, int fd,
			  struct sock_stream **out);

/** rp_sock_token - the RP_TOKEN_LEN bytes that present @token. */
void rp_sock_token(uint8_t buf[RP_TOKEN_LEN], const char *token);

/**
 * rp_sock_idle_wait - nothing to do: sleep until the socket is ready for
 * what is owed, at most @ms (or the calls' idle_sleep_us).
 * Return: 0, -ETIMEDOUT, or -errno with a reason in @s.
 */
int rp_sock_idle_wait(struct sock_stream *s, int ms);

/* io.c: the hot path. All return 0 when done or blocked, -errno (with a
 * reason in the stream) on error; the pulls 1 when something arrived. */

int rp_sock_ctr_push(struct sock_stream *s);
int rp_sock_ctr_pull(struct sock_stream *s);
int rp_sock_data_pull(struct sock_stream *s);
int rp_sock_ring_send(struct sock_stream *s, uint64_t *sent, uint64_t target);
int rp_sock_data_push(struct sock_stream *s);
void rp_sock_data_queue(struct sock_stream *s, uint64_t count);

/**
 * rp_sock_io_result - the outcome of a send or recv that returned @n:
 * 0 for "would block" or an interrupted call, -ECONNRESET for a receive of
 * 0 bytes (the peer closed), else -errno; the reason goes to @s.
 */
int rp_sock_io_result(struct sock_stream *s, ssize_t n, bool tx);

#endif
