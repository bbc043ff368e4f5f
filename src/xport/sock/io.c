// SPDX-License-Identifier: MIT
/*
 * The hot path of the stream transports: cumulative counters, the message
 * ring going out and coming in, and --verify's check of what landed. Every
 * call is non-blocking; see sock.h for the protocol.
 */
#include <errno.h>
#include <string.h>

#include "xport/sock/sock.h"

#define MAX_RECV_CHUNK (1u << 20)

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

int rp_sock_io_result(struct sock_stream *s, ssize_t n, bool tx)
{
	int err = errno;

	if (n == 0)
		return tx ? 0
			  : rp_stream_fail(&s->base, -ECONNRESET,
					   "peer closed the data connection");
	if (err == EAGAIN || err == EWOULDBLOCK || err == EINTR)
		return 0;
	return rp_stream_fail(&s->base, -err, "%s the data connection: %s",
			      tx ? "sending on" : "receiving from",
			      strerror(err));
}

/* Send what the counter owes; 0 when done or blocked, -errno on error. */
int rp_sock_ctr_push(struct sock_stream *s)
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
			       RP_MSG_DONTWAIT | RP_MSG_NOSIGNAL);
		if (n < 0)
			return rp_sock_io_result(s, n, true);
		t->off += (size_t)n;
		if (t->off < 8)
			return 0;
	}
}

/* Read counters; keeps the latest complete value. 1 if it moved. */
int rp_sock_ctr_pull(struct sock_stream *s)
{
	struct ctr_rx *r = &s->crx;
	uint8_t tmp[8 * 64];
	uint64_t old = r->val;
	ssize_t n;
	size_t i;

	n = s->c->recv(s->fd, tmp, sizeof(tmp), RP_MSG_DONTWAIT);
	if (n <= 0)
		return rp_sock_io_result(s, n, false);
	for (i = 0; i < (size_t)n; i++) {
		r->buf[r->len++] = tmp[i];
		if (r->len == 8) {
			r->val = be64_load(r->buf);
			r->len = 0;
		}
	}
	return r->val != old;
}

/* Message @m lives in ring slot m % depth. */
static uint8_t *slot_of(struct sock_stream *s, uint64_t m)
{
	return s->ring +
	       (m % s->base.spec.queue_depth) * s->base.spec.size_bytes;
}

static void check_messages(struct sock_stream *s, uint64_t from, uint64_t to)
{
	uint64_t m;

	for (m = from; m < to; m++)
		if (rp_payload_check(slot_of(s, m), s->base.spec.size_bytes, m))
			s->verify_errors++;
}

/* Receive message bytes into the ring; completes whole messages. */
int rp_sock_data_pull(struct sock_stream *s)
{
	size_t pos = s->rx_bytes % s->ring_len;
	size_t len = s->ring_len - pos;
	uint64_t done;
	ssize_t n;

	if (len > MAX_RECV_CHUNK)
		len = MAX_RECV_CHUNK;
	/* A read initiator takes no byte it did not ask for: a server that
	 * sends ahead of the credits must not complete reads never posted. */
	if (sock_is_initiator(s) &&
	    s->ctx.want * s->base.spec.size_bytes - s->rx_bytes < len)
		len = (size_t)(s->ctx.want * s->base.spec.size_bytes -
			       s->rx_bytes);
	if (!len)
		return 0;
	n = s->c->recv(s->fd, s->ring + pos, len, RP_MSG_DONTWAIT);
	if (n <= 0)
		return rp_sock_io_result(s, n, false);
	s->rx_bytes += (uint64_t)n;
	done = s->rx_bytes / s->base.spec.size_bytes;
	if (s->base.spec.verify)
		check_messages(s, s->completed, done);
	s->completed = done;
	return 1;
}

int rp_sock_zc_reap(struct sock_stream *s)
{
	uint32_t lo, hi;
	bool copied;
	int r = 0;

	while (rp_zc_pending(&s->zc_count) &&
	       (r = rp_net_zc_reap(s->fd, &lo, &hi, &copied)) > 0)
		rp_zc_notified(&s->zc_count, lo, hi, copied);
	if (r < 0)
		return rp_stream_fail(&s->base, r,
				      "taking zero-copy notifications off the "
				      "data connection: %s",
				      strerror(-r));
	return 0;
}

/* One send of ring bytes, with MSG_ZEROCOPY when @zc: 0 and the bytes sent
 * in *@done (0: blocked), or -errno. Out of option memory (ENOBUFS: the
 * notifications not taken yet hold it), take them and send copied. */
static int ring_send_one(struct sock_stream *s, const uint8_t *buf, size_t len,
			 bool zc, size_t *done)
{
	int flags = RP_MSG_DONTWAIT | RP_MSG_NOSIGNAL, err;
	ssize_t n;

	*done = 0;
	n = s->c->send(s->fd, buf, len, flags | (zc ? RP_MSG_ZEROCOPY : 0));
	if (n < 0 && zc && errno == ENOBUFS) {
		err = rp_sock_zc_reap(s);
		if (err)
			return err;
		zc = false;
		n = s->c->send(s->fd, buf, len, flags);
	}
	if (n < 0)
		return rp_sock_io_result(s, n, true);
	if (n > 0 && zc)
		s->zc_count.issued++;
	*done = (size_t)n;
	return 0;
}

/* Send ring bytes from stream offset *@sent up to @target, until done or
 * blocked, with MSG_ZEROCOPY when @zc; the ring maps stream offset o to
 * ring offset o % ring_len. */
int rp_sock_ring_send(struct sock_stream *s, uint64_t *sent, uint64_t target,
		      bool zc)
{
	while (*sent < target) {
		size_t pos = *sent % s->ring_len;
		size_t len = s->ring_len - pos, n;
		int err;

		if (len > target - *sent)
			len = (size_t)(target - *sent);
		err = ring_send_one(s, s->ring + pos, len, zc, &n);
		if (err || !n)
			return err;
		*sent += (uint64_t)n;
	}
	return 0;
}

/* Send posted message bytes (zero copy for a point's large messages), then
 * take the notifications owed. */
int rp_sock_data_push(struct sock_stream *s)
{
	bool zc = s->zc && s->base.spec.size_bytes >= RP_ZC_MIN_BYTES;
	int err = rp_sock_ring_send(s, &s->tx_bytes, s->tx_target, zc);

	if (!err && rp_zc_pending(&s->zc_count))
		err = rp_sock_zc_reap(s);
	return err;
}

/* Queue messages for sending, filling their slots under --verify. */
void rp_sock_data_queue(struct sock_stream *s, uint64_t count)
{
	size_t sz = s->base.spec.size_bytes;
	uint64_t first = s->tx_target / sz, m;

	if (s->base.spec.verify)
		for (m = first; m < first + count; m++)
			rp_payload_fill(slot_of(s, m), sz, m);
	s->tx_target += count * sz;
}
