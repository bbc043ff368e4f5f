// SPDX-License-Identifier: MIT
/*
 * A server session's --mcast test, after TEST (session.c): this server is
 * one receiver of the group the client sends to.
 *
 *   SETUP   joined: the address, device, MTU and receives posted
 *   TIME*   the client's clock probes, each answered with this clock
 *   START   {"clock_offset_ns": this clock minus the client's}: READY,
 *           then every datagram that arrives is counted until
 *   STOP    DONE {received, bytes, duplicates, reordered, foreign,
 *           highest_seq, first/last arrival, latency (send to arrival,
 *           on the client's clock moved by the offset)}
 *   BYE
 *
 * Nothing is acknowledged: what never arrived is the client's sent minus
 * this received. The bound is --max-time (and the client's connection).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hist.h"
#include "platform/clock.h"
#include "platform/net.h"
#include "proto/proto.h"
#include "run/server.h"
#include "xport/mcast.h"

#define RECV_MIN      2048
#define RECV_MAX      4096
#define RECV_SLICE_MS 50
#define SEEN_BITS     (1u << 20) /* duplicates told within this window */

struct tally {
	uint64_t received, bytes, duplicates, reordered, foreign, negative;
	uint64_t highest, first_ns, last_ns;
	bool any;
	uint8_t *seen; /* SEEN_BITS bits, by seq modulo */
	struct rp_hist *lat;
	int64_t offset_ns;
};

static uint32_t recv_depth(const struct rp_spec *sp)
{
	uint64_t d = (uint64_t)sp->queue_depth * 4;

	return d < RECV_MIN ? RECV_MIN : d > RECV_MAX ? RECV_MAX : (uint32_t)d;
}

/* A new highest @seq: the window's bits from the last highest to it
 * held older sequence numbers; clear them (each bit once a lap). */
static void forget(struct tally *t, uint64_t seq)
{
	uint64_t q = t->any ? t->highest + 1 : 0, bit;

	if (seq - q >= SEEN_BITS) {
		memset(t->seen, 0, SEEN_BITS / 8);
		return;
	}
	for (; q <= seq; q++) {
		bit = q % SEEN_BITS;
		t->seen[bit / 8] &= (uint8_t) ~(1u << (bit % 8));
	}
}

static void count(struct tally *t, const struct rp_mcast_arrival *a)
{
	uint64_t bit = a->seq % SEEN_BITS;
	int64_t lat;

	if (a->bad) {
		t->foreign++;
		return;
	}
	if (t->any && a->seq <= t->highest) {
		if (a->seq + SEEN_BITS > t->highest &&
		    t->seen[bit / 8] & (1u << (bit % 8))) {
			t->duplicates++;
			return;
		}
	} else {
		forget(t, a->seq);
	}
	t->seen[bit / 8] |= (uint8_t)(1u << (bit % 8));
	if (t->any && a->seq < t->highest)
		t->reordered++;
	if (!t->any || a->seq > t->highest)
		t->highest = a->seq;
	if (!t->any)
		t->first_ns = a->arrived_ns;
	t->any = true;
	t->last_ns = a->arrived_ns;
	t->received++;
	t->bytes += a->len;
	lat = (int64_t)(a->arrived_ns - a->sent_ns) - t->offset_ns;
	if (lat < 0) /* within the offset's uncertainty */
		t->negative++;
	rp_hist_record(t->lat, lat < 0 ? 0 : (uint64_t)lat);
}

static cJSON *done_body(const struct tally *t)
{
	cJSON *o = cJSON_CreateObject(), *l;
	struct rp_hist_summary h;

	if (!o)
		return NULL;
	cJSON_AddNumberToObject(o, "received", (double)t->received);
	cJSON_AddNumberToObject(o, "bytes", (double)t->bytes);
	cJSON_AddNumberToObject(o, "duplicates", (double)t->duplicates);
	cJSON_AddNumberToObject(o, "reordered", (double)t->reordered);
	cJSON_AddNumberToObject(o, "foreign", (double)t->foreign);
	cJSON_AddNumberToObject(o, "highest_seq",
				t->any ? (double)t->highest : -1);
	cJSON_AddNumberToObject(
		o, "seconds",
		t->any ? (double)(t->last_ns - t->first_ns) / 1e9 : 0);
	cJSON_AddNumberToObject(o, "below_offset", (double)t->negative);
	rp_hist_summarize(t->lat, &h);
	l = cJSON_AddObjectToObject(o, "latency_ns");
	if (l && h.count) {
		cJSON_AddNumberToObject(l, "min", h.min);
		cJSON_AddNumberToObject(l, "mean", h.mean);
		cJSON_AddNumberToObject(l, "p50", h.p50);
		cJSON_AddNumberToObject(l, "p99", h.p99);
		cJSON_AddNumberToObject(l, "max", h.max);
	}
	return o;
}

/* Datagrams until STOP: the control connection is looked at between
 * slices of receiving. */
static int receive(struct session *s, struct rp_mcast *m, struct tally *t)
{
	const struct rp_limits *l = &s->srv->cfg->limits;
	struct pollfd pfd = { .fd = s->fd, .events = POLLIN };
	struct rp_mcast_arrival a[32];
	struct rp_err why = { "" };
	cJSON *body = NULL;
	int n, i, err;

	for (;;) {
		n = rp_mcast_recv(m, a, 32, RECV_SLICE_MS, &why);
		if (n < 0)
			return session_refuse(s, n, "transport", why.msg);
		for (i = 0; i < n; i++)
			count(t, &a[i]);
		if (n == 32)
			continue; /* more waiting: the socket after */
		if (session_stopping(s))
			return session_refuse(s, -ESHUTDOWN, "shutdown", "");
		if (rp_clock_ns() - s->started_ns > l->max_time_ns)
			return session_refuse(s, -ETIMEDOUT, "limit",
					      "the test ran past this "
					      "server's --max-time");
		if (rp_poll(&pfd, 1, 0) <= 0)
			continue;
		err = session_expect(s, RP_MSG_STOP, RP_CTRL_TIMEOUT_MS, &body);
		cJSON_Delete(body);
		return err;
	}
}

static int handshake(struct session *s, struct tally *t)
{
	char text[64];
	cJSON *body = NULL, *r;
	uint16_t type;
	const cJSON *off;
	int err;

	for (;;) { /* TIME*, then START */
		err = rp_proto_recv(s->fd, RP_SETUP_TIMEOUT_MS, &type, &body);
		if (err)
			return session_refuse(s, err, "protocol",
					      rp_proto_strerror(err));
		if (type != RP_MSG_TIME)
			break;
		cJSON_Delete(body);
		r = cJSON_CreateObject();
		snprintf(text, sizeof(text), "%llu",
			 (unsigned long long)rp_clock_ns());
		err = r && cJSON_AddStringToObject(r, "ns", text)
			      ? rp_proto_send(s->fd, RP_MSG_TIME, r,
					      RP_CTRL_TIMEOUT_MS)
			      : -ENOMEM;
		cJSON_Delete(r);
		if (err)
			return err;
	}
	off = cJSON_GetObjectItemCaseSensitive(body, "clock_offset_ns");
	if (type != RP_MSG_START || !cJSON_IsNumber(off) ||
	    off->valuedouble != off->valuedouble || off->valuedouble > 9.2e18 ||
	    off->valuedouble < -9.2e18) {
		cJSON_Delete(body);
		if (type == RP_MSG_ERROR)
			return -ECONNABORTED;
		return session_refuse(s, -EPROTO, "protocol",
				      "--mcast: expected TIME, or START "
				      "with its clock_offset_ns");
	}
	t->offset_ns = (int64_t)off->valuedouble;
	cJSON_Delete(body);
	return rp_proto_send(s->fd, RP_MSG_READY, NULL, RP_CTRL_TIMEOUT_MS);
}

static int setup(struct session *s, struct rp_mcast **m, char *addr, size_t len)
{
	struct rp_err why = { "" };
	uint32_t depth = recv_depth(&s->spec);
	cJSON *r, *o;
	int err;

	err = rp_net_sock_addr(s->fd, false, addr, len);
	if (err)
		return session_refuse(s, err, "server",
				      "cannot tell the control connection's "
				      "local address");
	err = rp_mcast_open(addr, s->spec.mcast, false, depth,
			    (uint32_t)s->spec.size_bytes, m, &why);
	if (err)
		return session_refuse(s, err,
				      err == -EOPNOTSUPP ? "unsupported"
							 : "transport",
				      rp_err_text(&why, err));
	session_log(s, "joined %s on %s (%s)", s->spec.mcast,
		    rp_mcast_device(*m), addr);
	r = cJSON_CreateObject();
	o = r ? cJSON_AddObjectToObject(r, "mcast") : NULL;
	if (!o)
		err = -ENOMEM;
	else if (!cJSON_AddStringToObject(o, "address", addr) ||
		 !cJSON_AddStringToObject(o, "device", rp_mcast_device(*m)) ||
		 !cJSON_AddNumberToObject(o, "mtu", rp_mcast_mtu(*m)) ||
		 !cJSON_AddNumberToObject(o, "receives", depth))
		err = -ENOMEM;
	if (!err)
		err = rp_proto_send(s->fd, RP_MSG_SETUP, r, RP_CTRL_TIMEOUT_MS);
	cJSON_Delete(r);
	return err;
}

int session_mcast(struct session *s)
{
	char addr[RP_NET_ADDR_LEN];
	struct rp_mcast *m = NULL;
	struct tally t = { 0 };
	cJSON *done = NULL, *body = NULL;
	int err;

	if (strcmp(s->spec.transport, "rdma")) {
		err = session_refuse(s, -EOPNOTSUPP, "unsupported",
				     "--mcast is for the rdma transport");
		goto out;
	}
	if (!rp_mcast_group_ok(s->spec.mcast)) {
		err = session_refuse(s, -EINVAL, "spec",
				     "mcast: not a multicast address");
		goto out;
	}
	t.seen = calloc(SEEN_BITS / 8, 1);
	if (!t.seen || rp_hist_create(&t.lat)) {
		err = session_refuse(s, -ENOMEM, "server", "out of memory");
		goto out;
	}
	err = setup(s, &m, addr, sizeof(addr));
	if (!err) {
		atomic_fetch_add(&s->srv->tests, 1);
		s->counted = true;
		err = handshake(s, &t);
	}
	if (!err)
		err = receive(s, m, &t);
	if (!err) {
		done = done_body(&t);
		err = done ? rp_proto_send(s->fd, RP_MSG_DONE, done,
					   RP_CTRL_TIMEOUT_MS)
			   : -ENOMEM;
		session_log(s,
			    "%s: %llu datagrams received (%llu duplicate, "
			    "%llu foreign)",
			    s->spec.mcast, (unsigned long long)t.received,
			    (unsigned long long)t.duplicates,
			    (unsigned long long)t.foreign);
	}
	if (!err) /* BYE, or the client's ERROR */
		err = session_expect(s, RP_MSG_BYE, RP_CTRL_TIMEOUT_MS, &body);
out:
	cJSON_Delete(body);
	cJSON_Delete(done);
	rp_mcast_close(m);
	rp_hist_destroy(t.lat);
	free(t.seen);
	return err;
}
