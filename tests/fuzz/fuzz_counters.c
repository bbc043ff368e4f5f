// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for what a peer sends on a stream transport's data
 * connection (xport/sock/sock.h): the 8-byte big-endian cumulative counters
 * (acks to a write or send initiator, credits to a read responder), and the
 * message bytes a read initiator receives and a write responder takes in or
 * echoes. One side of one stream runs over a fake table of socket calls:
 * recv() hands out the input, send() takes what it is given in slices and
 * says "would block" every other call, as a full socket buffer does.
 *
 *   byte 0   mode (bits 0-2), --verify (bit 3), --wait event (bit 4)
 *            0 write initiator   1 send initiator   2 read initiator
 *            3 write ping        4 read ping        5 read responder
 *            6 write responder   7 write responder, latency phase (echo)
 *   byte 1   message size - 1 (1..256 bytes)
 *   byte 2   queue depth - 1, modulo 16 (1..16)
 *   then     chunks: a length byte L and L bytes that one recv() returns
 *            (or fewer, when it asks for fewer: the rest comes next);
 *            L = 0: recv() would block. The end of the input: the peer
 *            closed the connection (recv() returns 0).
 *
 * Invariants, whatever the peer sends (each holds for an honest peer, and
 * a transport that keeps them cannot be driven past its queue depth):
 *   - an initiator never completes more operations than it posted:
 *     rp_sock_poll returns 0..outstanding, a ping completes exactly one;
 *     a failure (a negative return) has its reason in the stream;
 *   - a read responder never queues more than its ring ahead of what it
 *     sent (credits beyond sent + depth are not an honest initiator's),
 *     and its byte counts do not wrap;
 *   - a write responder acks and echoes only what it received.
 * Plus what the sanitizers check: no crash, no undefined behaviour.
 *
 * Built with clang -fsanitize=fuzzer for fuzzing, or with replay.c as a plain
 * program that CTest runs over the seed corpus.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "platform/clock.h"
#include "xport/sock/sock.h"
#include "common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FAKE_FD	     1000
#define SEND_SLICE   4096
#define PING_TIMEOUT 5000 /* ms; the end of the input ends a ping first */

/* ---- the peer: the input, chunk by chunk ------------------------------- */

static struct peer {
	const uint8_t *p;
	size_t left;
	size_t chunk; /* bytes left of the current chunk */
	bool in_chunk;
	unsigned long sends;
	struct sock_stream *s; /* the stream under test */
} peer;

static ssize_t fake_recv(int fd, void *buf, size_t len, int flags)
{
	size_t n;

	(void)fd;
	(void)flags;
	if (!peer.in_chunk) {
		if (!peer.left)
			return 0; /* the peer closed */
		peer.chunk = *peer.p++;
		peer.left--;
		peer.in_chunk = true;
		if (!peer.chunk) {
			peer.in_chunk = false;
			errno = EAGAIN;
			return -1;
		}
	}
	n = peer.chunk < peer.left ? peer.chunk : peer.left;
	n = n < len ? n : len;
	if (!n) {
		peer.in_chunk = false;
		return 0;
	}
	memcpy(buf, peer.p, n);
	peer.p += n;
	peer.left -= n;
	peer.chunk -= n;
	peer.in_chunk = peer.chunk > 0;
	return (ssize_t)n;
}

static void check_responder(const struct sock_stream *s);

/* Takes a slice, then would block: the loops of io.c return in between. */
static ssize_t fake_send(int fd, const void *buf, size_t len, int flags)
{
	(void)fd;
	(void)buf;
	(void)flags;
	if (peer.s && !sock_is_initiator(peer.s))
		check_responder(peer.s);
	if (peer.sends++ % 2) {
		errno = EAGAIN;
		return -1;
	}
	return (ssize_t)(len < SEND_SLICE ? len : SEND_SLICE);
}

/* Always ready for what was asked: nobody sleeps. */
static int fake_poll(struct pollfd *fds, nfds_t n, int timeout)
{
	nfds_t i;

	(void)timeout;
	for (i = 0; i < n; i++)
		fds[i].revents = fds[i].events;
	return (int)n;
}

static int fake_close(int fd)
{
	(void)fd;
	return 0;
}

static int fake_setsockopt(int fd, int level, int name, const void *val,
			   socklen_t len)
{
	(void)fd;
	(void)level;
	(void)name;
	(void)val;
	(void)len;
	return 0;
}

static int fake_nonblock(int fd)
{
	(void)fd;
	return 0;
}

static const struct rp_sock_calls fake_calls = {
	.send = fake_send,
	.recv = fake_recv,
	.poll = fake_poll,
	.close = fake_close,
	.setsockopt = fake_setsockopt,
	.set_nonblock = fake_nonblock,
};

static const struct rp_sock_xport fake_xport = {
	.ops = RP_SOCK_OPS("fuzz", NULL, NULL, NULL, false),
	.calls = &fake_calls,
};

/* ---- invariants ------------------------------------------------------- */

static void check_responder(const struct sock_stream *s)
{
	FUZZ_CHECK(s->tx_bytes <= s->tx_target, "sent no more than queued");
	FUZZ_CHECK(s->tx_target - s->tx_bytes <= s->ring_len,
		   "a read responder queues at most its ring ahead of what "
		   "it sent (credits within sent + depth)");
	FUZZ_CHECK(s->echo_bytes <= s->rx_bytes, "echoed only what came");
	FUZZ_CHECK(s->ctx.want <= s->completed, "acked only what came");
}

/* ---- the sides ---------------------------------------------------------- */

struct mode {
	enum rp_op op;
	enum rp_role role;
	enum rp_phase phase;
	bool ping;
};

static const struct mode modes[8] = {
	{ RP_OP_WRITE, RP_ROLE_INITIATOR, RP_PHASE_BANDWIDTH, false },
	{ RP_OP_SEND, RP_ROLE_INITIATOR, RP_PHASE_BANDWIDTH, false },
	{ RP_OP_READ, RP_ROLE_INITIATOR, RP_PHASE_BANDWIDTH, false },
	{ RP_OP_WRITE, RP_ROLE_INITIATOR, RP_PHASE_LATENCY, true },
	{ RP_OP_READ, RP_ROLE_INITIATOR, RP_PHASE_LATENCY, true },
	{ RP_OP_READ, RP_ROLE_RESPONDER, RP_PHASE_BANDWIDTH, false },
	{ RP_OP_WRITE, RP_ROLE_RESPONDER, RP_PHASE_BANDWIDTH, false },
	{ RP_OP_WRITE, RP_ROLE_RESPONDER, RP_PHASE_LATENCY, false },
};

/* The engine's throughput loop (run/engine.c bw_turn), as far as the
 * transport sees it: post what the depth allows, reap what completed. */
static void initiate(struct rp_stream *s, uint32_t depth)
{
	uint64_t posted = 0, done = 0;
	uint32_t room;
	int n;

	for (;;) {
		room = depth - (uint32_t)(posted - done);
		if (room && rp_sock_post(s, posted, room, false) < 0)
			return;
		posted += room;
		n = rp_sock_poll(s);
		if (n < 0) {
			FUZZ_CHECK(s->err.msg[0], "a failed poll says why");
			return;
		}
		FUZZ_CHECK((uint64_t)n <= posted - done &&
				   sock_stream(s)->completed <= posted,
			   "an initiator completes only what it posted");
		done += (uint64_t)n;
	}
}

/* The engine's latency loop: one operation at a time. */
static void ping(struct rp_stream *s)
{
	uint64_t seq;

	int err;

	for (seq = 0;; seq++) {
		err = rp_sock_ping(s, seq, rp_deadline_ns(PING_TIMEOUT));
		if (err) {
			FUZZ_CHECK(err == -ETIMEDOUT || s->err.msg[0],
				   "a failed ping says why");
			return;
		}
		FUZZ_CHECK(sock_stream(s)->completed == seq + 1,
			   "a ping completes exactly one operation");
	}
}

static void respond(struct rp_stream *s, enum rp_phase phase)
{
	struct rp_side_stats st = { 0 };
	atomic_int stop = 0;

	rp_sock_serve(&s, 1, phase, &stop, &st);
	check_responder(sock_stream(s));
}

static void spec_of(const uint8_t *data, const struct mode *m,
		    struct rp_spec *sp)
{
	rp_spec_defaults(sp);
	sp->op = m->op;
	sp->verify = data[0] & 0x08;
	sp->wait = data[0] & 0x10 ? RP_WAIT_EVENT : RP_WAIT_BUSY;
	sp->size_bytes = 1 + (uint64_t)data[1];
	sp->queue_depth = 1 + data[2] % 16;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct mode *m;
	struct sock_stream *ss;
	struct rp_spec sp;

	if (size < 3)
		return 0;
	m = &modes[data[0] & 7];
	spec_of(data, m, &sp);
	if (rp_sock_stream_create(&fake_xport.ops, &sp, m->role, FAKE_FD, NULL,
				  &ss, NULL))
		return 0;
	peer = (struct peer){ .p = data + 3, .left = size - 3, .s = ss };
	if (m->role == RP_ROLE_RESPONDER)
		respond(&ss->base, m->phase);
	else if (m->ping)
		ping(&ss->base);
	else
		initiate(&ss->base, sp.queue_depth);
	/* what the next point would find; 0 or -EBUSY, nothing else */
	FUZZ_CHECK(rp_sock_set_point(&ss->base, sp.size_bytes,
				     sp.queue_depth) != -EINVAL,
		   "the same point always fits");
	peer.s = NULL;
	rp_sock_close(&ss->base);
	return 0;
}
