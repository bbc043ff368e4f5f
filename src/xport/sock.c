// SPDX-License-Identifier: MIT
/*
 * Stream transport over a table of socket calls (TCP, rsockets).
 *
 * A data connection starts with the client presenting the test's token
 * (RP_TOKEN_LEN bytes). After that each direction carries either messages
 * (exactly size bytes each, back to back) or counters (8 bytes, big-endian,
 * cumulative over the connection's life):
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
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "xport/sock.h"

#define RP_TOKEN_LEN	  32
#define SPIN_BEFORE_SLEEP 256 /* empty polls before a side sleeps */
#define SERVER_SLEEP_MS	  10
#define MAX_RECV_CHUNK	  (1u << 20)

struct rp_listener {
	const struct rp_sock_calls *c;
	int fd;
	struct rp_spec spec;
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

struct rp_stream {
	const struct rp_sock_calls *c;
	int fd;
	struct rp_spec spec;
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

static uint64_t be64_load(const uint8_t *b)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < 8; i++)
		v = v << 8 | b[i];
	return v;
}

static void be64_store(uint8_t *b, uint64_t v)
{
	int i;

	for (i = 7; i >= 0; i--, v >>= 8)
		b[i] = (uint8_t)v;
}

static int io_err(void)
{
	return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR
		       ? 0
		       : -errno;
}

/* Send what the counter owes; 0 when done or blocked, -errno on error. */
static int ctr_push(struct rp_stream *s)
{
	struct ctr_tx *t = &s->ctx;
	ssize_t n;

	for (;;) {
		if (t->off == 8) {
			if (t->sent == t->want)
				return 0;
			t->sent = t->want;
			be64_store(t->buf, t->sent);
			t->off = 0;
		}
		n = s->c->send(s->fd, t->buf + t->off, 8 - t->off,
			       MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0)
			return io_err();
		t->off += (size_t)n;
		if (t->off < 8)
			return 0;
	}
}

/* Read counters; keeps the latest complete value. 1 if it moved. */
static int ctr_pull(struct rp_stream *s)
{
	struct ctr_rx *r = &s->crx;
	uint8_t tmp[8 * 64];
	uint64_t old = r->val;
	ssize_t n;
	size_t i;

	n = s->c->recv(s->fd, tmp, sizeof(tmp), MSG_DONTWAIT);
	if (n == 0)
		return -ECONNRESET;
	if (n < 0)
		return io_err();
	for (i = 0; i < (size_t)n; i++) {
		r->buf[r->len++] = tmp[i];
		if (r->len == 8) {
			r->val = be64_load(r->buf);
			r->len = 0;
		}
	}
	return r->val != old;
}

static void check_messages(struct rp_stream *s, uint64_t from, uint64_t to)
{
	uint64_t m;
	size_t sz = s->spec.size_bytes;

	for (m = from; m < to; m++) {
		uint8_t *slot = s->ring + (m % s->spec.queue_depth) * sz;

		if (rp_payload_check(slot, sz, m))
			s->verify_errors++;
	}
}

/* Receive message bytes into the ring; completes whole messages. */
static int data_pull(struct rp_stream *s)
{
	size_t pos = s->rx_bytes % s->ring_len;
	size_t len = s->ring_len - pos;
	uint64_t done;
	ssize_t n;

	if (len > MAX_RECV_CHUNK)
		len = MAX_RECV_CHUNK;
	n = s->c->recv(s->fd, s->ring + pos, len, MSG_DONTWAIT);
	if (n == 0)
		return -ECONNRESET;
	if (n < 0)
		return io_err();
	s->rx_bytes += (uint64_t)n;
	done = s->rx_bytes / s->spec.size_bytes;
	if (s->spec.verify)
		check_messages(s, s->completed, done);
	s->completed = done;
	return 1;
}

/* Send ring bytes from stream offset *@sent up to @target, until done or
 * blocked; the ring maps stream offset o to ring offset o % ring_len. */
static int ring_send(struct rp_stream *s, uint64_t *sent, uint64_t target)
{
	while (*sent < target) {
		size_t pos = *sent % s->ring_len;
		size_t len = s->ring_len - pos;
		ssize_t n;

		if (len > target - *sent)
			len = (size_t)(target - *sent);
		n = s->c->send(s->fd, s->ring + pos, len,
			       MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0)
			return io_err();
		*sent += (uint64_t)n;
	}
	return 0;
}

/* Send posted message bytes. */
static int data_push(struct rp_stream *s)
{
	return ring_send(s, &s->tx_bytes, s->tx_target);
}

/* Queue messages for sending, filling their slots under --verify. */
static void data_queue(struct rp_stream *s, uint64_t count)
{
	uint64_t first = s->tx_target / s->spec.size_bytes;
	uint64_t m;

	if (s->spec.verify)
		for (m = first; m < first + count; m++)
			rp_payload_fill(s->ring + (m % s->spec.queue_depth) *
							  s->spec.size_bytes,
					s->spec.size_bytes, m);
	s->tx_target += count * s->spec.size_bytes;
}

static bool is_read(const struct rp_stream *s)
{
	return s->spec.op == RP_OP_READ;
}

static int set_nonblock(struct rp_stream *s)
{
	int fl = s->c->fcntl(s->fd, F_GETFL);

	if (fl < 0 || s->c->fcntl(s->fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

static int stream_create(const struct rp_sock_calls *c,
			 const struct rp_spec *spec, int fd,
			 struct rp_stream **out)
{
	struct rp_stream *s = calloc(1, sizeof(*s));
	int one = 1;

	if (!s)
		return -ENOMEM;
	s->c = c;
	s->fd = fd;
	s->spec = *spec;
	s->ctx.off = 8;
	s->ring_len = spec->size_bytes * spec->queue_depth;
	s->ring = aligned_alloc(4096, (s->ring_len + 4095) & ~(size_t)4095);
	if (!s->ring) {
		free(s);
		return -ENOMEM;
	}
	memset(s->ring, 0, s->ring_len);
	c->setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	*out = s;
	return 0;
}

void rp_sock_close(struct rp_stream *s)
{
	if (!s)
		return;
	if (s->fd >= 0)
		s->c->close(s->fd);
	free(s->echo);
	free(s->ring);
	free(s);
}

/* Wait up to @ms for @events on @fd; 0 ready, -ETIMEDOUT, -errno. */
static int wait_fd(const struct rp_sock_calls *c, int fd, short events, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = events };
	int n = c->poll(&pfd, 1, ms);

	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	return n == 0 ? -ETIMEDOUT : 0;
}

static int remaining_ms(uint64_t deadline)
{
	uint64_t now = rp_clock_ns();

	return now >= deadline ? 0 : (int)((deadline - now) / RP_NS_PER_MS + 1);
}

/* Move exactly @len bytes in or out within the deadline (setup only). */
static int xfer_all(struct rp_stream *s, void *buf, size_t len, bool tx,
		    uint64_t deadline)
{
	size_t off = 0;

	while (off < len) {
		ssize_t n;
		int err;

		n = tx ? s->c->send(s->fd, (uint8_t *)buf + off, len - off,
				    MSG_DONTWAIT | MSG_NOSIGNAL)
		       : s->c->recv(s->fd, (uint8_t *)buf + off, len - off,
				    MSG_DONTWAIT);
		if (n == 0 && !tx)
			return -ECONNRESET;
		if (n > 0) {
			off += (size_t)n;
			continue;
		}
		err = io_err();
		if (err)
			return err;
		err = wait_fd(s->c, s->fd, tx ? POLLOUT : POLLIN,
			      remaining_ms(deadline));
		if (err)
			return err;
	}
	return 0;
}

static int bind_any(const struct rp_sock_calls *c, const char *host, int *fd)
{
	struct addrinfo hints = { .ai_flags = AI_PASSIVE,
				  .ai_socktype = SOCK_STREAM };
	struct addrinfo *res, *ai;
	int err = -EADDRNOTAVAIL, one = 1;

	if (getaddrinfo(host, "0", &hints, &res))
		return -EADDRNOTAVAIL;
	/* Without an address, prefer IPv6 dual-stack: it also takes IPv4. */
	for (ai = res; ai; ai = ai->ai_next) {
		*fd = c->socket(ai->ai_family, SOCK_STREAM, 0);
		if (*fd < 0) {
			err = -errno;
			continue;
		}
		c->setsockopt(*fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (c->bind(*fd, ai->ai_addr, ai->ai_addrlen) == 0 &&
		    c->listen(*fd, 8) == 0) {
			freeaddrinfo(res);
			return 0;
		}
		err = -errno;
		c->close(*fd);
	}
	freeaddrinfo(res);
	return err;
}

static int local_port(const struct rp_sock_calls *c, int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (c->getsockname(fd, (struct sockaddr *)&ss, &len) < 0)
		return -errno;
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

int rp_sock_listen(const struct rp_sock_calls *c, const struct rp_spec *spec,
		   const struct rp_xport_params *p, cJSON *endpoint,
		   struct rp_listener **out)
{
	struct rp_listener *l = calloc(1, sizeof(*l));
	int err, port;

	if (!l)
		return -ENOMEM;
	l->c = c;
	l->spec = *spec;
	err = bind_any(c, p ? p->bind : NULL, &l->fd);
	if (err)
		goto out_free;
	port = local_port(c, l->fd);
	if (port < 0) {
		err = port;
		goto out_close;
	}
	if (!cJSON_AddNumberToObject(endpoint, "port", port)) {
		err = -ENOMEM;
		goto out_close;
	}
	*out = l;
	return 0;
out_close:
	c->close(l->fd);
out_free:
	free(l);
	return err;
}

void rp_sock_unlisten(struct rp_listener *l)
{
	if (!l)
		return;
	l->c->close(l->fd);
	free(l);
}

/* Read the token a new connection presents; 0 if it matches. A silent
 * connection gets at most 2 s, and never past the accept's deadline. */
static int check_token(struct rp_stream *s, const char *token,
		       uint64_t deadline)
{
	char want[RP_TOKEN_LEN] = { 0 }, got[RP_TOKEN_LEN];
	uint64_t cap = rp_clock_ns() + 2 * RP_NS_PER_SEC;
	int err;

	memcpy(want, token, strnlen(token, sizeof(want)));
	err = xfer_all(s, got, sizeof(got), false,
		       deadline < cap ? deadline : cap);
	if (err)
		return err;
	return memcmp(want, got, sizeof(got)) ? -EACCES : 0;
}

int rp_sock_accept(struct rp_listener *l, const char *token, int timeout_ms,
		   struct rp_stream **out)
{
	uint64_t deadline = rp_clock_ns() + (uint64_t)timeout_ms * RP_NS_PER_MS;
	struct rp_stream *s;
	int err, fd;

	for (;;) {
		err = wait_fd(l->c, l->fd, POLLIN, remaining_ms(deadline));
		if (err)
			return err;
		fd = l->c->accept(l->fd, NULL, NULL);
		if (fd < 0)
			continue;
		err = stream_create(l->c, &l->spec, fd, &s);
		if (err) {
			l->c->close(fd);
			return err;
		}
		err = set_nonblock(s);
		if (!err)
			err = check_token(s, token, deadline);
		if (!err) {
			*out = s;
			return 0;
		}
		/* A stray or slow connection: drop it, keep waiting. */
		rp_sock_close(s);
	}
}

static int connect_one(const struct rp_sock_calls *c, struct addrinfo *ai,
		       uint64_t deadline, int *out)
{
	int fd = c->socket(ai->ai_family, SOCK_STREAM, 0), err = 0, fl;
	socklen_t len = sizeof(err);

	if (fd < 0)
		return -errno;
	fl = c->fcntl(fd, F_GETFL);
	c->fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	if (c->connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
		if (errno != EINPROGRESS) {
			err = -errno;
			goto out_close;
		}
		err = wait_fd(c, fd, POLLOUT, remaining_ms(deadline));
		if (err)
			goto out_close;
		if (c->getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
			err = errno;
		err = -err;
		if (err)
			goto out_close;
	}
	*out = fd;
	return 0;
out_close:
	c->close(fd);
	return err;
}

int rp_sock_connect(const struct rp_sock_calls *c, const struct rp_spec *spec,
		    const struct rp_xport_params *p, const char *host,
		    const cJSON *endpoint, const char *token, int timeout_ms,
		    struct rp_stream **out)
{
	uint64_t deadline = rp_clock_ns() + (uint64_t)timeout_ms * RP_NS_PER_MS;
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *ai;
	const cJSON *port = cJSON_GetObjectItemCaseSensitive(endpoint, "port");
	char tok[RP_TOKEN_LEN] = { 0 }, service[16];
	int err = -EHOSTUNREACH, fd = -1;

	(void)p;
	if (!cJSON_IsNumber(port) || port->valuedouble < 1 ||
	    port->valuedouble > 65535)
		return -EBADMSG;
	snprintf(service, sizeof(service), "%d", port->valueint);
	if (getaddrinfo(host, service, &hints, &res))
		return -EHOSTUNREACH;
	for (ai = res; ai && fd < 0; ai = ai->ai_next)
		err = connect_one(c, ai, deadline, &fd);
	freeaddrinfo(res);
	if (fd < 0)
		return err;
	err = stream_create(c, spec, fd, out);
	if (err) {
		c->close(fd);
		return err;
	}
	(*out)->echo = malloc(spec->size_bytes);
	err = (*out)->echo ? 0 : -ENOMEM;
	if (!err)
		err = set_nonblock(*out);
	if (err)
		goto out_close;
	memcpy(tok, token, strnlen(token, sizeof(tok)));
	err = xfer_all(*out, tok, sizeof(tok), true, deadline);
	if (!err)
		return 0;
out_close:
	rp_sock_close(*out);
	*out = NULL;
	return err;
}

int rp_sock_local_info(struct rp_stream *s, cJSON *info)
{
	(void)s;
	(void)info;
	return 0;
}

int rp_sock_set_peer(struct rp_stream *s, const cJSON *info)
{
	(void)s;
	(void)info;
	return 0;
}

uint64_t rp_sock_verify_errors(struct rp_stream *s)
{
	return s->verify_errors;
}

/* Server, read op: send the messages the client's credits ask for. */
static int serve_read_step(struct rp_stream *s)
{
	int moved = ctr_pull(s), err;
	uint64_t wanted;

	if (moved < 0)
		return moved;
	wanted = s->crx.val;
	if (wanted > s->tx_target / s->spec.size_bytes)
		data_queue(s, wanted - s->tx_target / s->spec.size_bytes);
	err = data_push(s);
	return err ? err : moved;
}

/* Server, latency phase: send received bytes back from where they landed. */
static int echo_push(struct rp_stream *s)
{
	return ring_send(s, &s->echo_bytes, s->rx_bytes);
}

/* Server, write/send: take messages in, ack them (or echo the bytes). */
static int serve_sink_step(struct rp_stream *s, bool echo)
{
	int moved, err;

	/* Echo only what fits: never receive over bytes not yet echoed. */
	if (echo && s->echo_bytes < s->rx_bytes) {
		err = echo_push(s);
		if (err || s->echo_bytes < s->rx_bytes)
			return err;
	}
	moved = data_pull(s);
	if (moved < 0)
		return moved;
	if (echo) {
		err = echo_push(s);
	} else {
		s->echo_bytes = s->rx_bytes;
		s->ctx.want = s->completed;
		err = ctr_push(s);
	}
	return err ? err : moved;
}

static short wanted_events(const struct rp_stream *s)
{
	bool tx_owed = s->tx_bytes < s->tx_target || s->ctx.off < 8 ||
		       s->ctx.sent != s->ctx.want ||
		       s->echo_bytes < s->rx_bytes;

	return POLLIN | (tx_owed ? POLLOUT : 0);
}

/* Nothing to do: sleep until the socket is ready, at most @ms. */
static int idle_wait(struct rp_stream *s, int ms)
{
	struct timespec ts = { .tv_nsec = (long)s->c->idle_sleep_us * 1000 };

	if (!s->c->idle_sleep_us)
		return wait_fd(s->c, s->fd, wanted_events(s), ms);
	nanosleep(&ts, NULL);
	return 0;
}

int rp_sock_serve(struct rp_stream *s, enum rp_phase phase,
		  const volatile int *stop, struct rp_side_stats *st)
{
	/* A read server counts what it sent, a sink what it received. */
	uint64_t msgs0 =
		is_read(s) ? s->tx_bytes / s->spec.size_bytes : s->completed;
	uint64_t bytes0 = s->rx_bytes;
	uint64_t verr0 = s->verify_errors;
	unsigned int idle = 0;
	int r = 0;

	while (!*stop) {
		if (is_read(s))
			r = serve_read_step(s);
		else
			r = serve_sink_step(s, phase == RP_PHASE_LATENCY);
		if (r < 0)
			break;
		if (r > 0) {
			idle = 0;
		} else if (phase != RP_PHASE_LATENCY &&
			   ++idle > SPIN_BEFORE_SLEEP) {
			/* Sleep when idle, except in the ping-pong phase:
			 * there a wake-up would be part of every round trip
			 * (CPU is only accounted in the throughput phase). */
			r = idle_wait(s, SERVER_SLEEP_MS);
			r = r == -ETIMEDOUT ? 0 : r;
			if (r < 0)
				break;
		}
	}
	if (is_read(s)) {
		st->messages = s->tx_bytes / s->spec.size_bytes - msgs0;
		st->bytes = st->messages * s->spec.size_bytes;
	} else {
		st->messages = s->completed - msgs0;
		st->bytes = s->rx_bytes - bytes0;
	}
	st->verify_errors = s->verify_errors - verr0;
	return r < 0 ? r : 0;
}

int rp_sock_post(struct rp_stream *s, uint64_t seq, uint32_t count)
{
	int err;

	(void)seq;
	if (is_read(s)) {
		s->ctx.want += count;
		return ctr_push(s);
	}
	data_queue(s, count);
	err = data_push(s);
	return err;
}

int rp_sock_poll(struct rp_stream *s)
{
	uint64_t n;
	int err;

	if (is_read(s)) {
		err = ctr_push(s);
		if (!err)
			err = data_pull(s);
	} else {
		err = data_push(s);
		if (!err)
			err = ctr_pull(s);
		if (s->crx.val > s->completed)
			s->completed = s->crx.val;
	}
	if (err < 0)
		return err;
	n = s->completed - s->reported;
	s->reported = s->completed;
	if (n == 0 && ++s->idle > SPIN_BEFORE_SLEEP) {
		/* Spinning on a blocked socket steals the CPU the peer and the
		 * network stack need: sleep until the socket is ready. */
		err = idle_wait(s, 1);
		s->idle = 0;
		if (err < 0 && err != -ETIMEDOUT)
			return err;
	} else if (n) {
		s->idle = 0;
	}
	return (int)n;
}

/* Client, write/send ping: one message out, its echo back. */
static int ping_echo(struct rp_stream *s, uint64_t deadline)
{
	size_t got = 0, sz = s->spec.size_bytes;
	int err;

	data_queue(s, 1);
	while (got < sz) {
		err = data_push(s);
		if (!err) {
			ssize_t n = s->c->recv(s->fd, s->echo + got, sz - got,
					       MSG_DONTWAIT);
			if (n == 0)
				return -ECONNRESET;
			err = n < 0 ? io_err() : 0;
			if (n > 0)
				got += (size_t)n;
		}
		if (err)
			return err;
		if (rp_clock_ns() > deadline)
			return -ETIMEDOUT;
	}
	s->completed++;
	s->reported = s->completed;
	return 0;
}

int rp_sock_ping(struct rp_stream *s, uint64_t seq, uint64_t deadline_ns)
{
	int n;

	if (!is_read(s))
		return ping_echo(s, deadline_ns);
	n = rp_sock_post(s, seq, 1);
	while (n == 0) {
		n = rp_sock_poll(s);
		if (n == 0 && rp_clock_ns() > deadline_ns)
			return -ETIMEDOUT;
	}
	return n < 0 ? n : 0;
}
