// SPDX-License-Identifier: MIT
/*
 * A stream transport's stream: creation, close, the point it runs at, the
 * I/O of setup, waiting, what it tells the peer and the report.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "platform/clock.h"
#include "platform/cpu.h"
#include "platform/os.h"
#include "platform/wait.h"
#include "xport/sock/sock.h"

/* The ring, of --mem's kind, and an initiator's echo landing area,
 * zeroed. 0 or -errno, the reason in @why. */
static int stream_alloc(struct sock_stream *s, const struct rp_spec *spec,
			const char *mem_path, struct rp_err *why)
{
	int err;

	s->ring_len = spec->size_bytes * spec->queue_depth;
	err = rp_mem_map(&s->ring_mem, spec->mem, mem_path, s->ring_len, why);
	if (err)
		return err;
	s->ring = s->ring_mem.p;
	if (sock_is_initiator(s)) {
		s->echo = malloc(spec->size_bytes);
		if (!s->echo)
			return -ENOMEM;
	}
	return 0;
}

static void stream_free(struct sock_stream *s)
{
	free(s->echo);
	rp_mem_unmap(&s->ring_mem);
	free(s);
}

/* --zerocopy, on the side that sends messages: SO_ZEROCOPY, or a note
 * saying why not (the messages then go copied). */
static void zc_setup(struct sock_stream *s)
{
	int err = -EOPNOTSUPP;

	if (!s->base.spec.zerocopy || !sock_sends_messages(s))
		return;
	if (s->c == &rp_sock_kernel)
		err = rp_net_zc_enable(s->fd);
	if (err) {
		rp_stream_note(&s->base,
			       "SO_ZEROCOPY refused (%s): messages sent copied",
			       strerror(-err));
		return;
	}
	s->zc = true;
}

/* --tos: the connection is marked already (dial and listen set it before
 * the handshake); set it again on this socket, which may not have
 * inherited it, and say so where the kernel marks otherwise (Linux keeps
 * TCP's ECN bits its own). 0 or -errno. */
static int tos_mark(struct sock_stream *s, uint32_t tos)
{
	int got, err = rp_net_set_tos(s->c, s->fd, (int)tos, &got);

	if (!err && got != (int)tos)
		rp_stream_note(&s->base,
			       "TOS 0x%02x asked, the kernel marks 0x%02x "
			       "(TCP's ECN bits are its own)",
			       (unsigned int)tos, (unsigned int)got);
	return err;
}

int rp_sock_stream_create(const struct rp_xport_ops *ops,
			  const struct rp_spec *spec, enum rp_role role,
			  rp_sock_t fd, const char *mem_path,
			  struct sock_stream **out, struct rp_err *why)
{
	const struct rp_sock_calls *c = sock_calls_of(ops);
	struct sock_stream *s = calloc(1, sizeof(*s));
	int one = 1, err;

	if (!s)
		return -ENOMEM;
	rp_stream_init(&s->base, ops, spec, role);
	s->c = c;
	s->fd = fd;
	s->ctx.off = 8;
	s->max_size = spec->size_bytes;
	s->max_depth = spec->queue_depth;
	err = stream_alloc(s, spec, mem_path, why);
	if (!err)
		err = rp_net_set_nonblock(c, fd);
	if (!err && spec->tos)
		err = tos_mark(s, spec->tos);
	if (err) {
		stream_free(s);
		return err;
	}
	c->setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	zc_setup(s);
	*out = s;
	return 0;
}

/* Streams open at once on calls that cap them (rsockets, see rsocket.c). */
static atomic_uint capped_open;

int rp_sock_reserve(const struct rp_sock_calls *c, struct rp_err *why)
{
	if (!c->max_open || atomic_fetch_add(&capped_open, 1) < c->max_open)
		return 0;
	atomic_fetch_sub(&capped_open, 1);
	return rp_errf(why, -EUSERS, "%s", c->max_open_why);
}

int rp_sock_fits(const struct rp_sock_calls *c, const struct rp_spec *spec,
		 struct rp_err *why)
{
	uint64_t n = (uint64_t)spec->streams * (spec->bidir ? 2 : 1);

	if (!c->max_open || n <= c->max_open)
		return 0;
	return rp_errf(why, -EUSERS, "%s", c->max_open_why);
}

void rp_sock_unreserve(const struct rp_sock_calls *c)
{
	if (c->max_open)
		atomic_fetch_sub(&capped_open, 1);
}

/* The accepting end, on calls that ask for it: read and drop what is
 * left until the peer's end of stream (its close), or for
 * close_after_eof_ms at most. */
static void sock_await_eof(struct sock_stream *s)
{
	uint64_t deadline = rp_deadline_ns(s->c->close_after_eof_ms);
	uint8_t scrap[4096];
	ssize_t n;

	for (;;) {
		n = s->c->recv(s->fd, scrap, sizeof(scrap), 0);
		if (n == 0 || (n < 0 && errno != EAGAIN &&
			       errno != EWOULDBLOCK && errno != EINTR))
			return;
		if (n < 0 && rp_wait_fd(s->c->poll, s->fd, POLLIN, deadline))
			return;
		if (rp_clock_ns() >= deadline)
			return;
	}
}

void rp_sock_close(struct rp_stream *base)
{
	struct sock_stream *s;

	if (!base)
		return;
	s = sock_stream(base);
	if (rp_sock_valid(s->fd) && s->accepted && s->c->close_after_eof_ms)
		sock_await_eof(s);
	if (rp_sock_valid(s->fd))
		s->c->close(s->fd);
	rp_sock_unreserve(s->c);
	stream_free(s);
}

void rp_sock_token(uint8_t buf[RP_TOKEN_LEN], const char *token)
{
	memset(buf, 0, RP_TOKEN_LEN);
	memcpy(buf, token, strnlen(token, RP_TOKEN_LEN));
}

/* Points */

/* Messages the initiator has posted. */
static uint64_t posted(const struct sock_stream *s)
{
	return sock_is_read(s) ? s->ctx.want
			       : s->tx_target / s->base.spec.size_bytes;
}

/* What this side still sees in flight; NULL when nothing. */
static const char *in_flight(const struct sock_stream *s)
{
	if (s->tx_bytes != s->tx_target)
		return "message bytes wait to be sent";
	if (s->rx_bytes % s->base.spec.size_bytes)
		return "a message is partly received";
	if (s->ctx.off != 8 || s->ctx.sent != s->ctx.want)
		return "a counter waits to be sent";
	if (s->crx.len)
		return "a counter is partly received";
	if (!sock_is_initiator(s))
		return s->echo_bytes < s->rx_bytes ? "bytes wait to be echoed"
						   : NULL;
	if (s->completed != posted(s))
		return "operations have not completed";
	return s->reported != s->completed ? "completions were not polled"
					   : NULL;
}

/* Both ends restart every count at the point's start (sock.h). */
static void rebase(struct sock_stream *s, uint64_t size_bytes, uint32_t depth)
{
	s->base.spec.size_bytes = size_bytes;
	s->base.spec.queue_depth = depth;
	s->ring_len = (size_t)size_bytes * depth;
	s->tx_bytes = s->tx_target = s->rx_bytes = s->echo_bytes = 0;
	s->completed = s->reported = 0;
	s->ctx.want = s->ctx.sent = 0;
	s->ctx.off = 8;
	s->crx.val = 0;
	s->credit_seen = 0;
	s->crx.len = 0;
	s->idle = 0;
}

int rp_sock_set_point(struct rp_stream *base, uint64_t size_bytes,
		      uint32_t depth)
{
	struct sock_stream *s = sock_stream(base);
	const char *busy;

	if (!size_bytes || !depth || size_bytes > s->max_size ||
	    depth > s->max_depth)
		return rp_stream_fail(
			base, -EINVAL,
			"a point of %llu bytes at depth %u does not fit the "
			"stream, set up for 1 to %llu bytes at depth 1 to %u",
			(unsigned long long)size_bytes, depth,
			(unsigned long long)s->max_size, s->max_depth);
	busy = in_flight(s);
	if (busy)
		return rp_stream_fail(base, -EBUSY,
				      "cannot move to the next point while "
				      "%s",
				      busy);
	rebase(s, size_bytes, depth);
	return 0;
}

/* Waiting */

short rp_sock_wanted_events(const struct sock_stream *s)
{
	bool echo_owed = !sock_is_initiator(s) && s->echo_bytes < s->rx_bytes;
	bool tx_owed = s->tx_bytes < s->tx_target || s->ctx.off < 8 ||
		       s->ctx.sent != s->ctx.want || echo_owed;

	/* a responder owing an echo reads nothing more until it is out:
	 * waking for input then would only spin */
	return (echo_owed ? 0 : POLLIN) | (tx_owed ? POLLOUT : 0);
}

int rp_sock_event_wait(struct sock_stream *s, uint64_t deadline_ns)
{
	int err = rp_wait_fd(s->c->poll, s->fd, rp_sock_wanted_events(s),
			     deadline_ns);

	if (err && err != -ETIMEDOUT)
		return rp_stream_fail(&s->base, err,
				      "waiting on the data connection: %s",
				      strerror(-err));
	return err;
}

int rp_sock_idle_wait(struct sock_stream *s, int ms)
{
	return rp_sock_event_wait(s, rp_deadline_ns(ms));
}

/* Setup */

/* --rails: the address the stream runs from, its rail's. */
static bool local_address(const struct sock_stream *s, cJSON *info)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char addr[RP_NET_ADDR_LEN];

	if (!s->base.spec.rails)
		return true;
	if (s->c->getsockname(s->fd, (struct sockaddr *)&ss, &sl) < 0 ||
	    rp_net_addr_text((struct sockaddr *)&ss, sl, addr, sizeof(addr)))
		return true; /* nothing to say */
	return cJSON_AddStringToObject(info, "local_address", addr) != NULL;
}

int rp_sock_local_info(struct rp_stream *base, cJSON *info)
{
	struct sock_stream *s = sock_stream(base);
	int node = rp_os_mem_node(s->ring);

	if (!cJSON_AddStringToObject(info, "wait",
				     rp_wait_name(base->spec.wait)) ||
	    !cJSON_AddStringToObject(info, "role", rp_role_name(base->role)) ||
	    !cJSON_AddNumberToObject(info, "buffer_numa_node",
				     node < 0 ? -1 : node) ||
	    !local_address(s, info) ||
	    (base->spec.zerocopy && sock_sends_messages(s) &&
	     !cJSON_AddBoolToObject(info, "zerocopy", s->zc)))
		return rp_stream_fail(base, -ENOMEM,
				      "out of memory for the stream's info");
	return 0;
}

/* Nothing of the peer's info is needed: "wait", "role",
 * "buffer_numa_node" and "zerocopy" (--zerocopy, on the side that sends
 * the messages: whether it sends with SO_ZEROCOPY set) are for the
 * report. */
int rp_sock_set_peer(struct rp_stream *s, const cJSON *info)
{
	(void)s;
	(void)info;
	return 0;
}

uint64_t rp_sock_verify_errors(struct rp_stream *s)
{
	return sock_stream(s)->verify_errors;
}

/* The counts of what came: a failure to take the notifications (the error
 * queue of a live socket does not fail) leaves them as they were. */
void rp_sock_zerocopy(struct rp_stream *base, struct rp_zc_count *out)
{
	struct sock_stream *s = sock_stream(base);

	if (s->zc)
		rp_sock_zc_reap(s);
	*out = s->zc_count;
}
