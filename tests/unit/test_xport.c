// SPDX-License-Identifier: MIT
/*
 * Unit tests of xport/: the registry, the --verify payload pattern, and the
 * TCP stream transport for real on 127.0.0.1 inside this process. The client
 * side runs in the test thread as the engine would (post up to the queue
 * depth, poll, ping); the server side's serve() runs in a thread stopped by
 * its flag, as run/server.c does. Every phase must be counted exactly on
 * both ends, per phase, with no payload error.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/clock.h"
#include "xport/sock/sock.h"
#include "xport/xport.h"

#define TOKEN	   "test-token-0123456789abcdef"
#define TIMEOUT_MS 5000
#define PHASE_NS   (20 * RP_NS_PER_SEC) /* a phase that stalls fails */
#define TOKEN_LEN  32			/* what a connection presents */

static const struct rp_xport_ops *tcp; /* rp_xport_find("tcp"), by main */

/* Registry */

static void test_registry(void **state)
{
	size_t i, n = rp_xport_count();

	(void)state;
	assert_true(n >= 1);
	assert_ptr_equal(rp_xport_find("tcp"), rp_xport_tcp);
	assert_null(rp_xport_find("nosuch"));
	assert_null(rp_xport_find(""));
	assert_null(rp_xport_find("tcpx"));
	assert_null(rp_xport_at(n));
	for (i = 0; i < n; i++) {
		assert_non_null(rp_xport_at(i));
		assert_ptr_equal(rp_xport_find(rp_xport_at(i)->name),
				 rp_xport_at(i));
	}
}

static void test_tcp_ops_complete(void **state)
{
	struct rp_err why = { "" };

	(void)state;
	assert_string_equal(tcp->name, "tcp");
	assert_non_null(tcp->probe);
	assert_non_null(tcp->listen);
	assert_non_null(tcp->accept);
	assert_non_null(tcp->unlisten);
	assert_non_null(tcp->connect);
	assert_non_null(tcp->local_info);
	assert_non_null(tcp->set_peer);
	assert_non_null(tcp->serve);
	assert_non_null(tcp->ping);
	assert_non_null(tcp->post);
	assert_non_null(tcp->poll);
	assert_non_null(tcp->verify_errors);
	assert_non_null(tcp->close);
	assert_int_equal(tcp->probe(tcp, &why), 0);
	tcp->close(NULL);
	tcp->unlisten(NULL);
}

/* Payload pattern */

static const size_t lens[] = { 1, 7, 8, 9, 63, 256, 257, 4096 };
static const uint64_t seqs[] = {
	0, 1, 2, 255, 256, 65537, 0x0123456789abcdefULL, UINT64_MAX,
};

#define N_LENS (sizeof(lens) / sizeof(*lens))
#define N_SEQS (sizeof(seqs) / sizeof(*seqs))

static void test_payload_round_trip(void **state)
{
	uint8_t buf[4096 + 1];
	size_t i, k, b;

	(void)state;
	for (i = 0; i < N_LENS; i++) {
		for (k = 0; k < N_SEQS; k++) {
			buf[lens[i]] = 0xee; /* past the end: left alone */
			rp_payload_fill(buf, lens[i], seqs[k]);
			assert_int_equal(
				rp_payload_check(buf, lens[i], seqs[k]), 0);
			assert_int_equal(buf[lens[i]], 0xee);
			/* The first 8 bytes hold seq, low byte first. */
			for (b = 0; b < 8 && b < lens[i]; b++)
				assert_int_equal(buf[b],
						 (uint8_t)(seqs[k] >> (8 * b)));
		}
	}
	rp_payload_fill(buf, 0, 7);
	assert_int_equal(rp_payload_check(buf, 0, 7), 0);
}

static void test_payload_flip_detected(void **state)
{
	static const uint8_t flips[] = { 0x01, 0x80, 0xff };
	uint8_t buf[4096];
	size_t i, k, pos, f;

	(void)state;
	for (i = 0; i < N_LENS; i++) {
		for (k = 0; k < N_SEQS; k++) {
			rp_payload_fill(buf, lens[i], seqs[k]);
			for (pos = 0; pos < lens[i]; pos++) {
				for (f = 0; f < sizeof(flips); f++) {
					buf[pos] ^= flips[f];
					if (rp_payload_check(buf, lens[i],
							     seqs[k]) != -EIO)
						fail_msg("len %zu seq %llu: "
							 "flip at %zu missed",
							 lens[i],
							 (unsigned long long)
								 seqs[k],
							 pos);
					buf[pos] ^= flips[f];
				}
			}
		}
	}
}

/*
 * Another message's pattern does not pass: from 8 bytes on, the seq itself
 * is in the message. (Below 8 bytes only seq's top bytes fit; see the
 * report: neighbouring seqs there look alike.)
 */
static void test_payload_wrong_seq(void **state)
{
	static const int64_t deltas[] = { 1, -1, 2, 256, 1 << 16, 1LL << 40 };
	uint8_t buf[4096];
	uint64_t seq, other;
	size_t i, k, d;

	(void)state;
	for (i = 0; i < N_LENS; i++) {
		if (lens[i] < 8)
			continue;
		for (k = 0; k < N_SEQS; k++) {
			seq = seqs[k];
			rp_payload_fill(buf, lens[i], seq);
			for (d = 0; d < sizeof(deltas) / sizeof(*deltas); d++) {
				other = seq + (uint64_t)deltas[d];
				if (rp_payload_check(buf, lens[i], other) !=
				    -EIO)
					fail_msg("len %zu: seq %llu passes "
						 "for %llu",
						 lens[i],
						 (unsigned long long)seq,
						 (unsigned long long)other);
			}
		}
	}
	/* Past the first 8 bytes the pattern itself depends on seq. */
	rp_payload_fill(buf, 64, 5);
	memset(buf, 0, 8);
	rp_payload_fill(buf + 64, 64, 6);
	assert_memory_not_equal(buf + 8, buf + 64 + 8, 56);
}

/* A pair of TCP streams on 127.0.0.1 */

struct pair {
	struct rp_xport_params params;
	cJSON *endpoint;
	struct rp_listener *l;
	struct rp_stream *srv;
	struct rp_stream *cli;
};

static struct rp_spec make_spec(enum rp_op op, uint64_t size, uint32_t depth,
				bool verify)
{
	struct rp_spec s;

	rp_spec_defaults(&s);
	s.op = op;
	s.size_bytes = size;
	s.queue_depth = depth;
	s.verify = verify;
	return s;
}

/* Listen through @ops (tcp, or a stand-in over other socket calls). */
static void pair_listen_on(struct pair *p, const struct rp_xport_ops *ops,
			   const struct rp_spec *spec)
{
	struct rp_err why = { "" };
	const cJSON *port;

	memset(p, 0, sizeof(*p));
	p->params.bind = "127.0.0.1";
	p->params.gid_index = -1;
	p->params.inline_bytes = -1;
	p->endpoint = cJSON_CreateObject();
	assert_non_null(p->endpoint);
	assert_int_equal(
		ops->listen(ops, spec, &p->params, p->endpoint, &p->l, &why),
		0);
	port = cJSON_GetObjectItemCaseSensitive(p->endpoint, "port");
	assert_true(cJSON_IsNumber(port));
	assert_in_range(port->valueint, 1, 65535);
}

static void pair_listen(struct pair *p, const struct rp_spec *spec)
{
	pair_listen_on(p, tcp, spec);
}

static int pair_connect(struct pair *p, const struct rp_spec *spec,
			const char *token, struct rp_stream **out)
{
	struct rp_err why = { "" };

	return tcp->connect(tcp, spec, &p->params, "127.0.0.1", p->endpoint,
			    token, TIMEOUT_MS, out, &why);
}

/* Listen with @srv, connect with @cli, accept: both streams ready. */
static void pair_open2(struct pair *p, const struct rp_spec *srv,
		       const struct rp_spec *cli)
{
	cJSON *info;

	pair_listen(p, srv);
	/* Non-blocking connect: the kernel's backlog completes it. */
	assert_int_equal(pair_connect(p, cli, TOKEN, &p->cli), 0);
	assert_int_equal(tcp->accept(p->l, TOKEN, TIMEOUT_MS, &p->srv), 0);
	info = cJSON_CreateObject();
	assert_int_equal(tcp->local_info(p->srv, info), 0);
	assert_int_equal(tcp->set_peer(p->cli, info), 0);
	assert_int_equal(tcp->local_info(p->cli, info), 0);
	assert_int_equal(tcp->set_peer(p->srv, info), 0);
	cJSON_Delete(info);
}

static void pair_open(struct pair *p, const struct rp_spec *spec)
{
	pair_open2(p, spec, spec);
}

static void pair_close(struct pair *p)
{
	tcp->close(p->cli);
	tcp->close(p->srv);
	tcp->unlisten(p->l);
	cJSON_Delete(p->endpoint);
	memset(p, 0, sizeof(*p));
}

/* The server side of one phase, in its own thread. */
struct server {
	pthread_t thread;
	struct rp_stream *s;
	enum rp_phase phase;
	atomic_int stop;
	struct rp_side_stats st;
	int rc;
};

static void *server_main(void *arg)
{
	struct server *sv = arg;

	sv->rc = tcp->serve(sv->s, sv->phase, &sv->stop, &sv->st);
	return NULL;
}

static void server_start(struct server *sv, struct rp_stream *s,
			 enum rp_phase phase)
{
	memset(sv, 0, sizeof(*sv));
	sv->s = s;
	sv->phase = phase;
	sv->rc = -EINPROGRESS;
	atomic_init(&sv->stop, 0);
	assert_int_equal(pthread_create(&sv->thread, NULL, server_main, sv), 0);
}

static void server_stop(struct server *sv)
{
	atomic_store(&sv->stop, 1);
	assert_int_equal(pthread_join(sv->thread, NULL), 0);
	assert_int_equal(sv->rc, 0);
}

/*
 * Client, throughput: @n operations, at most the queue depth in flight and
 * at most @batch posted at once. Each poll may report only operations that
 * are in flight; in all they must be exactly @n.
 */
static void client_stream(struct rp_stream *s, uint32_t depth, uint64_t seq0,
			  uint64_t n, uint32_t batch)
{
	uint64_t posted = 0, done = 0, room;
	uint64_t deadline = rp_clock_ns() + PHASE_NS;
	int c;

	while (done < n) {
		room = depth - (posted - done);
		if (room > n - posted)
			room = n - posted;
		if (room > batch)
			room = batch;
		if (room) {
			assert_int_equal(
				tcp->post(s, seq0 + posted, (uint32_t)room), 0);
			posted += room;
		}
		c = tcp->poll(s);
		if (c < 0)
			fail_msg("poll: %s", strerror(-c));
		if ((uint64_t)c > posted - done)
			fail_msg("poll reported %d, only %llu in flight", c,
				 (unsigned long long)(posted - done));
		done += (uint64_t)c;
		if (rp_clock_ns() > deadline)
			fail_msg("stalled: %llu of %llu done, %llu posted",
				 (unsigned long long)done,
				 (unsigned long long)n,
				 (unsigned long long)posted);
	}
	assert_int_equal(tcp->poll(s), 0);
}

static void check_stats(const struct rp_side_stats *st, const char *what,
			uint64_t n, uint64_t size, uint64_t verify_errors)
{
	if (st->messages != n)
		fail_msg("%s: server counted %llu messages, client sent %llu",
			 what, (unsigned long long)st->messages,
			 (unsigned long long)n);
	assert_int_equal(st->bytes, n * size);
	assert_int_equal(st->verify_errors, verify_errors);
}

/* Run a throughput (or warm-up) phase of @n; the server's stats to @st. */
static void phase_stream(struct pair *p, enum rp_phase phase,
			 const struct rp_spec *spec, uint64_t seq0, uint64_t n,
			 uint32_t batch, struct rp_side_stats *st)
{
	struct server sv;

	server_start(&sv, p->srv, phase);
	client_stream(p->cli, spec->queue_depth, seq0, n, batch);
	server_stop(&sv);
	*st = sv.st;
}

/* Run a latency phase of @n ping-pongs; the server's stats to @st. */
static void phase_ping(struct pair *p, uint64_t seq0, uint64_t n,
		       struct rp_side_stats *st)
{
	struct server sv;
	uint64_t i;
	int err;

	server_start(&sv, p->srv, RP_PHASE_LATENCY);
	for (i = 0; i < n; i++) {
		err = tcp->ping(p->cli, seq0 + i, rp_clock_ns() + PHASE_NS);
		if (err)
			fail_msg("ping %llu: %s", (unsigned long long)i,
				 strerror(-err));
	}
	/* Pings complete on their own: nothing is left for poll. */
	assert_int_equal(tcp->poll(p->cli), 0);
	server_stop(&sv);
	*st = sv.st;
}

static void stream_case(enum rp_op op, uint64_t size, uint32_t depth,
			uint64_t n, uint32_t batch)
{
	struct rp_spec spec = make_spec(op, size, depth, true);
	struct rp_side_stats st;
	struct pair p;

	pair_open(&p, &spec);
	phase_stream(&p, RP_PHASE_BANDWIDTH, &spec, 0, n, batch, &st);
	check_stats(&st, "bandwidth", n, size, 0);
	assert_int_equal(tcp->verify_errors(p.cli), 0);
	pair_close(&p);
}

static void test_write_stream(void **state)
{
	(void)state;
	stream_case(RP_OP_WRITE, 64, 4, 1000, 4);
	stream_case(RP_OP_WRITE, 64, 4, 1001, 1);
	stream_case(RP_OP_WRITE, 1, 1, 500, 1);
	/* Messages larger than a socket buffer: partial sends, ring wrap. */
	stream_case(RP_OP_WRITE, 100000, 3, 200, 3);
	stream_case(RP_OP_SEND, 4096, 16, 2000, 16);
}

static void test_read_stream(void **state)
{
	(void)state;
	stream_case(RP_OP_READ, 64, 4, 1000, 4);
	stream_case(RP_OP_READ, 64, 4, 1001, 1);
	stream_case(RP_OP_READ, 1, 1, 500, 1);
	stream_case(RP_OP_READ, 100000, 3, 200, 3);
}

static void ping_case(enum rp_op op, uint64_t size, uint32_t depth, uint64_t n)
{
	struct rp_spec spec = make_spec(op, size, depth, true);
	struct rp_side_stats st;
	struct pair p;

	pair_open(&p, &spec);
	phase_ping(&p, 0, n, &st);
	check_stats(&st, "latency", n, size, 0);
	assert_int_equal(tcp->verify_errors(p.cli), 0);
	pair_close(&p);
}

static void test_ping(void **state)
{
	(void)state;
	ping_case(RP_OP_WRITE, 64, 4, 300);
	ping_case(RP_OP_WRITE, 1, 1, 100);
	ping_case(RP_OP_WRITE, 100000, 2, 20);
	ping_case(RP_OP_READ, 64, 4, 300);
	ping_case(RP_OP_READ, 100000, 2, 20);
}

/*
 * The phases of a real run on one connection: warm-up, latency, throughput.
 * Each serve() counts its own phase only.
 */
static void sequence_case(enum rp_op op, uint64_t size, uint32_t depth)
{
	struct rp_spec spec = make_spec(op, size, depth, true);
	struct rp_side_stats st[3];
	struct pair p;

	pair_open(&p, &spec);
	phase_stream(&p, RP_PHASE_WARMUP, &spec, 0, 50, depth, &st[0]);
	phase_ping(&p, 50, 20, &st[1]);
	phase_stream(&p, RP_PHASE_BANDWIDTH, &spec, 70, 333, depth, &st[2]);
	assert_int_equal(tcp->verify_errors(p.cli), 0);
	pair_close(&p);

	check_stats(&st[0], "warmup", 50, size, 0);
	check_stats(&st[1], "latency", 20, size, 0);
	check_stats(&st[2], "bandwidth", 333, size, 0);
}

static void test_sequence_write(void **state)
{
	(void)state;
	sequence_case(RP_OP_WRITE, 64, 4);
	sequence_case(RP_OP_WRITE, 100000, 3);
}

static void test_sequence_read(void **state)
{
	(void)state;
	sequence_case(RP_OP_READ, 64, 4);
}

/* --verify finds messages that do not hold their pattern. */
static void test_verify_catches(void **state)
{
	struct rp_spec on = make_spec(RP_OP_WRITE, 64, 4, true);
	struct rp_spec off = make_spec(RP_OP_WRITE, 64, 4, false);
	struct rp_side_stats st;
	struct pair p;

	(void)state;
	/* write: the client sends zeros, the server checks. */
	pair_open2(&p, &on, &off);
	phase_stream(&p, RP_PHASE_BANDWIDTH, &on, 0, 100, 4, &st);
	check_stats(&st, "write", 100, 64, 100);
	pair_close(&p);

	/* read: the server sends zeros, the client checks. */
	on.op = off.op = RP_OP_READ;
	pair_open2(&p, &off, &on);
	phase_stream(&p, RP_PHASE_BANDWIDTH, &on, 0, 100, 4, &st);
	check_stats(&st, "read", 100, 64, 0);
	assert_int_equal(tcp->verify_errors(p.cli), 100);
	pair_close(&p);
}

/* Tokens */

static uint64_t ms_since(uint64_t t0)
{
	return (rp_clock_ns() - t0) / RP_NS_PER_MS;
}

/* The server drops a stream; the client notices within a second. */
static void assert_dropped(struct rp_stream *s)
{
	uint64_t deadline = rp_clock_ns() + RP_NS_PER_SEC;
	int n;

	do {
		n = tcp->poll(s);
	} while (n == 0 && rp_clock_ns() < deadline);
	assert_true(n < 0);
}

static void test_token_wrong(void **state)
{
	struct rp_spec spec = make_spec(RP_OP_WRITE, 64, 4, false);
	struct rp_stream *bad = NULL, *srv = NULL;
	struct pair p;
	uint64_t t0;

	(void)state;
	pair_listen(&p, &spec);
	assert_int_equal(pair_connect(&p, &spec, "not-the-token", &bad), 0);
	t0 = rp_clock_ns();
	assert_int_equal(tcp->accept(p.l, TOKEN, 300, &srv), -ETIMEDOUT);
	assert_null(srv);
	assert_in_range(ms_since(t0), 250, 1500);
	assert_dropped(bad);
	tcp->close(bad);
	pair_close(&p);
}

/* A wrong token is dropped and accept goes on to the right one. */
static void test_token_wrong_then_right(void **state)
{
	struct rp_spec spec = make_spec(RP_OP_WRITE, 64, 4, true);
	struct rp_stream *bad = NULL;
	struct rp_side_stats st;
	struct pair p;
	char long_token[2 * TOKEN_LEN + 1];

	(void)state;
	pair_listen(&p, &spec);
	assert_int_equal(pair_connect(&p, &spec, "", &bad), 0);
	assert_int_equal(pair_connect(&p, &spec, TOKEN, &p.cli), 0);
	assert_int_equal(tcp->accept(p.l, TOKEN, TIMEOUT_MS, &p.srv), 0);
	assert_dropped(bad);
	tcp->close(bad);
	/* The stream accepted is the right one: it works. */
	phase_stream(&p, RP_PHASE_BANDWIDTH, &spec, 0, 10, 4, &st);
	check_stats(&st, "bandwidth", 10, 64, 0);
	pair_close(&p);

	/* A token of exactly the length presented passes whole. */
	memset(long_token, 'x', TOKEN_LEN);
	long_token[TOKEN_LEN] = '\0';
	pair_listen(&p, &spec);
	assert_int_equal(pair_connect(&p, &spec, long_token, &p.cli), 0);
	assert_int_equal(tcp->accept(p.l, long_token, TIMEOUT_MS, &p.srv), 0);
	pair_close(&p);
}

/* Nobody connects: accept gives up on time. */
static void test_accept_timeout(void **state)
{
	struct rp_spec spec = make_spec(RP_OP_WRITE, 64, 4, false);
	struct rp_stream *srv = NULL;
	struct pair p;
	uint64_t t0;

	(void)state;
	pair_listen(&p, &spec);
	t0 = rp_clock_ns();
	assert_int_equal(tcp->accept(p.l, TOKEN, 200, &srv), -ETIMEDOUT);
	assert_null(srv);
	assert_in_range(ms_since(t0), 150, 1200);
	pair_close(&p);
}

/* A connection that never presents a token holds accept no longer. */
static void test_accept_timeout_silent_peer(void **state)
{
	struct rp_spec spec = make_spec(RP_OP_WRITE, 64, 4, false);
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct rp_stream *srv = NULL;
	struct pair p;
	uint64_t t0, ms;
	int fd;

	(void)state;
	pair_listen(&p, &spec);
	sin.sin_port = htons(
		(uint16_t)cJSON_GetObjectItemCaseSensitive(p.endpoint, "port")
			->valueint);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(fd >= 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	t0 = rp_clock_ns();
	assert_int_equal(tcp->accept(p.l, TOKEN, 300, &srv), -ETIMEDOUT);
	ms = ms_since(t0);
	close(fd);
	pair_close(&p);
	assert_in_range(ms, 250, 1500);
}

static void test_connect_errors(void **state)
{
	struct rp_spec spec = make_spec(RP_OP_WRITE, 64, 4, false);
	struct rp_stream *s = NULL;
	cJSON *ep = cJSON_CreateObject();
	struct rp_err why = { "" };
	struct pair p;
	int port;

	(void)state;
	/* No port, or one out of range: a malformed endpoint. */
	assert_int_equal(tcp->connect(tcp, &spec, NULL, "127.0.0.1", ep, TOKEN,
				      TIMEOUT_MS, &s, &why),
			 -EBADMSG);
	cJSON_AddNumberToObject(ep, "port", 0);
	assert_int_equal(tcp->connect(tcp, &spec, NULL, "127.0.0.1", ep, TOKEN,
				      TIMEOUT_MS, &s, &why),
			 -EBADMSG);
	cJSON_Delete(ep);
	assert_null(s);

	/* A port nobody listens on any more. */
	pair_listen(&p, &spec);
	port = cJSON_GetObjectItemCaseSensitive(p.endpoint, "port")->valueint;
	tcp->unlisten(p.l);
	p.l = NULL;
	ep = cJSON_CreateObject();
	cJSON_AddNumberToObject(ep, "port", port);
	assert_int_equal(tcp->connect(tcp, &spec, NULL, "127.0.0.1", ep, TOKEN,
				      TIMEOUT_MS, &s, &why),
			 -ECONNREFUSED);
	assert_null(s);
	cJSON_Delete(ep);
	pair_close(&p);
}

/* The peer closing is an error for poll and for serve, not a hang. */
static void test_peer_gone(void **state)
{
	struct rp_spec spec = make_spec(RP_OP_WRITE, 64, 4, false);
	struct server sv;
	struct pair p;

	(void)state;
	pair_open(&p, &spec);
	tcp->close(p.srv);
	p.srv = NULL;
	assert_dropped(p.cli);
	/* the reason names the data connection, not just an errno */
	assert_non_null(strstr(p.cli->err.msg, "the data connection"));
	pair_close(&p);

	pair_open(&p, &spec);
	server_start(&sv, p.srv, RP_PHASE_BANDWIDTH);
	tcp->close(p.cli);
	p.cli = NULL;
	assert_int_equal(pthread_join(sv.thread, NULL), 0);
	assert_true(sv.rc < 0);
	assert_non_null(strstr(p.srv->err.msg, "the data connection"));
	pair_close(&p);
}

/* Fixes pinned */

/* accept() that always fails as when the process has no descriptor left. */
static int accept_emfile(int fd, struct sockaddr *addr, socklen_t *len)
{
	(void)fd;
	(void)addr;
	(void)len;
	errno = EMFILE;
	return -1;
}

/*
 * A connection is pending (poll says readable) but accept() keeps failing:
 * accept gives up at its deadline, with the accept's error and a reason,
 * instead of spinning on "readable" for ever.
 */
static void test_accept_emfile(void **state)
{
	static struct rp_sock_calls calls;
	static struct rp_sock_xport emfile;
	struct rp_spec spec = make_spec(RP_OP_WRITE, 64, 4, false);
	struct rp_stream *srv = NULL;
	struct pair p;
	uint64_t t0, ms;
	int err;

	(void)state;
	calls = rp_sock_kernel;
	calls.accept = accept_emfile;
	emfile.ops = *tcp;
	emfile.calls = &calls;
	pair_listen_on(&p, &emfile.ops, &spec);
	assert_int_equal(pair_connect(&p, &spec, TOKEN, &p.cli), 0);
	t0 = rp_clock_ns();
	err = emfile.ops.accept(p.l, TOKEN, 300, &srv);
	ms = ms_since(t0);
	assert_int_equal(err, -EMFILE);
	assert_null(srv);
	assert_in_range(ms, 250, 1999);
	assert_non_null(strstr(p.l->err.msg, strerror(EMFILE)));
	pair_close(&p);
}

/* A failed connect says why: the errno and a reason naming the target. */
static void test_connect_refused_reason(void **state)
{
	struct rp_spec spec = make_spec(RP_OP_WRITE, 64, 4, false);
	struct rp_err why = { "" };
	struct rp_stream *s = NULL;
	cJSON *ep = cJSON_CreateObject();
	struct pair p;
	char port[16];

	(void)state;
	pair_listen(&p, &spec);
	snprintf(
		port, sizeof(port), "port %d",
		cJSON_GetObjectItemCaseSensitive(p.endpoint, "port")->valueint);
	cJSON_AddNumberToObject(
		ep, "port",
		cJSON_GetObjectItemCaseSensitive(p.endpoint, "port")->valueint);
	tcp->unlisten(p.l);
	p.l = NULL;
	assert_int_equal(tcp->connect(tcp, &spec, NULL, "127.0.0.1", ep, TOKEN,
				      TIMEOUT_MS, &s, &why),
			 -ECONNREFUSED);
	assert_null(s);
	assert_true(rp_err_set(&why));
	assert_non_null(strstr(why.msg, "127.0.0.1"));
	assert_non_null(strstr(why.msg, port));
	assert_non_null(strstr(why.msg, strerror(ECONNREFUSED)));

	/* A malformed endpoint says so too. */
	rp_err_clear(&why);
	cJSON_DeleteItemFromObject(ep, "port");
	assert_int_equal(tcp->connect(tcp, &spec, NULL, "127.0.0.1", ep, TOKEN,
				      TIMEOUT_MS, &s, &why),
			 -EBADMSG);
	assert_non_null(strstr(why.msg, "\"port\""));
	cJSON_Delete(ep);
	pair_close(&p);
}

/* serve() returns soon after its atomic stop flag is set, in every phase,
 * whether it is sleeping (idle) or spinning (latency phase). */
static void test_serve_stops(void **state)
{
	static const enum rp_op ops[] = { RP_OP_WRITE, RP_OP_READ };
	const struct timespec idle = { .tv_nsec = 50 * 1000 * 1000 };
	struct rp_spec spec;
	struct server sv;
	struct pair p;
	uint64_t t0;
	size_t i;
	int ph;

	(void)state;
	for (i = 0; i < 2 * RP_PHASE__COUNT; i++) {
		ph = (int)(i % RP_PHASE__COUNT);
		spec = make_spec(ops[i / RP_PHASE__COUNT], 64, 4, false);
		pair_open(&p, &spec);
		server_start(&sv, p.srv, (enum rp_phase)ph);
		nanosleep(&idle, NULL);
		t0 = rp_clock_ns();
		server_stop(&sv);
		assert_in_range(ms_since(t0), 0, 500);
		assert_int_equal(sv.st.messages, 0);
		pair_close(&p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registry),
		cmocka_unit_test(test_tcp_ops_complete),
		cmocka_unit_test(test_payload_round_trip),
		cmocka_unit_test(test_payload_flip_detected),
		cmocka_unit_test(test_payload_wrong_seq),
		cmocka_unit_test(test_write_stream),
		cmocka_unit_test(test_read_stream),
		cmocka_unit_test(test_ping),
		cmocka_unit_test(test_sequence_write),
		cmocka_unit_test(test_sequence_read),
		cmocka_unit_test(test_verify_catches),
		cmocka_unit_test(test_token_wrong),
		cmocka_unit_test(test_token_wrong_then_right),
		cmocka_unit_test(test_accept_timeout),
		cmocka_unit_test(test_accept_timeout_silent_peer),
		cmocka_unit_test(test_connect_errors),
		cmocka_unit_test(test_peer_gone),
		cmocka_unit_test(test_accept_emfile),
		cmocka_unit_test(test_connect_refused_reason),
		cmocka_unit_test(test_serve_stops),

	};

	tcp = rp_xport_find("tcp");
	if (!tcp) {
		fprintf(stderr, "no tcp transport in the registry\n");
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
