// SPDX-License-Identifier: MIT
/*
 * Unit tests of xport/: the registry, the --verify payload pattern, and the
 * TCP stream transport for real on 127.0.0.1 inside this process. The
 * initiator runs in the test thread as the engine would (post up to the
 * queue depth, poll, ping; under --wait event, arm and sleep in poll(2));
 * the responder's serve() runs in a thread stopped by its flag, over one
 * stream or several, as run/ does. Either end of a connection may take
 * either role. Every phase must be counted exactly on both ends, per phase
 * and per stream, with no payload error, also after set_point() moved the
 * stream to a smaller point of a sweep and back.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
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

#include "platform/clock.h"
#include "platform/cpu.h"
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

/* What each transport can do, and the reason for what it cannot. */
static void test_op_mask(void **state)
{
	const struct rp_xport_ops *t = rp_xport_find("tcp");
	struct rp_err why = { "" };
	size_t i;

	(void)state;
	assert_int_equal(rp_xport_check_op(t, RP_OP_WRITE, &why), 0);
	assert_int_equal(rp_xport_check_op(t, RP_OP_READ, &why), 0);
	assert_int_equal(rp_xport_check_op(t, RP_OP_SEND, &why), 0);
	assert_string_equal(why.msg, "");
	assert_int_equal(rp_xport_check_op(t, RP_OP_FETCH_ADD, &why),
			 -EOPNOTSUPP);
	assert_string_equal(why.msg, "transport tcp cannot do fetch_add; "
				     "it does write, read, send");
	assert_int_equal(rp_xport_check_op(t, RP_OP_WRITE_IMM, NULL),
			 -EOPNOTSUPP);
	for (i = 0; i < rp_xport_count(); i++) {
		const struct rp_xport_ops *x = rp_xport_at(i);

		assert_true(x->op_mask & RP_OP_BIT(RP_OP_WRITE));
		assert_true((x->op_mask & ~RP_OP_MASK_ALL) == 0);
		if (!strcmp(x->name, "rdma"))
			assert_int_equal(x->op_mask, RP_OP_MASK_ALL);
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
	assert_non_null(tcp->set_point);
	assert_non_null(tcp->serve);
	assert_non_null(tcp->ping);
	assert_non_null(tcp->post);
	assert_non_null(tcp->poll);
	assert_non_null(tcp->arm);
	assert_null(tcp->wait_poll); /* TCP sleeps in poll(2) itself */
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

#define MAX_SERVED 4 /* streams one serve() takes in these tests */

struct pair {
	struct rp_xport_params params;
	cJSON *endpoint;
	struct rp_listener *l;
	struct rp_stream *srv; /* accepted */
	struct rp_stream *cli; /* connected */
	struct rp_stream *ini; /* whichever of the two initiates */
	struct rp_stream *rsp; /* and the other */
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

static enum rp_role other_role(enum rp_role role)
{
	return role == RP_ROLE_INITIATOR ? RP_ROLE_RESPONDER
					 : RP_ROLE_INITIATOR;
}

/* The tokens the next listener knows (as the server's session tells
 * its listener every stream's); TOKEN unless a test says otherwise. */
static const char *listen_tokens[2] = { TOKEN, NULL };
static unsigned int n_listen_tokens = 1;

/* Listen through @ops (tcp, or a stand-in over other socket calls). */
static void pair_listen_on(struct pair *p, const struct rp_xport_ops *ops,
			   const struct rp_spec *spec)
{
	struct rp_err why = { "" };
	const cJSON *port;

	memset(p, 0, sizeof(*p));
	rp_xport_params_defaults(&p->params);
	p->params.bind = "127.0.0.1";
	p->params.tokens = listen_tokens;
	p->params.n_tokens = n_listen_tokens;
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

/* Connect, this side taking @role. */
static int pair_connect_as(struct pair *p, const struct rp_spec *spec,
			   const char *token, enum rp_role role,
			   struct rp_stream **out)
{
	struct rp_err why = { "" };

	return tcp->connect(tcp, spec, &p->params, "127.0.0.1", p->endpoint,
			    token, role, TIMEOUT_MS, out, &why);
}

static int pair_connect(struct pair *p, const struct rp_spec *spec,
			const char *token, struct rp_stream **out)
{
	return pair_connect_as(p, spec, token, RP_ROLE_INITIATOR, out);
}

/* What local_info() says of @s; the caller deletes it. */
static cJSON *info_of(struct rp_stream *s)
{
	cJSON *info = cJSON_CreateObject();
	const cJSON *v;

	assert_non_null(info);
	assert_int_equal(tcp->local_info(s, info), 0);
	v = cJSON_GetObjectItemCaseSensitive(info, "role");
	assert_true(cJSON_IsString(v));
	assert_string_equal(v->valuestring, rp_role_name(s->role));
	v = cJSON_GetObjectItemCaseSensitive(info, "wait");
	assert_true(cJSON_IsString(v));
	assert_string_equal(v->valuestring, rp_wait_name(s->spec.wait));
	v = cJSON_GetObjectItemCaseSensitive(info, "buffer_numa_node");
	assert_true(cJSON_IsNumber(v));
	assert_true(v->valueint >= -1);
	return info;
}

/* Both ends tell each other their local_info, as run/ does. */
static void exchange_info(struct rp_stream *a, struct rp_stream *b)
{
	cJSON *ia = info_of(a), *ib = info_of(b);

	assert_int_equal(tcp->set_peer(b, ia), 0);
	assert_int_equal(tcp->set_peer(a, ib), 0);
	cJSON_Delete(ia);
	cJSON_Delete(ib);
}

/* One more stream on @p's listener: the connecting side takes @cli_role,
 * the accepting side the other. */
static void pair_add(struct pair *p, const struct rp_spec *srv,
		     const struct rp_spec *cli, enum rp_role cli_role,
		     struct rp_stream **s_srv, struct rp_stream **s_cli)
{
	(void)srv; /* the listener's spec */
	/* Non-blocking connect: the kernel's backlog completes it. */
	assert_int_equal(pair_connect_as(p, cli, TOKEN, cli_role, s_cli), 0);
	assert_int_equal(tcp->accept(p->l, TOKEN, other_role(cli_role),
				     TIMEOUT_MS, s_srv),
			 0);
	assert_int_equal((*s_cli)->role, cli_role);
	assert_int_equal((*s_srv)->role, other_role(cli_role));
	exchange_info(*s_srv, *s_cli);
}

/* Listen with @srv, connect with @cli taking @cli_role, accept. */
static void pair_open_as(struct pair *p, const struct rp_spec *srv,
			 const struct rp_spec *cli, enum rp_role cli_role)
{
	pair_listen(p, srv);
	pair_add(p, srv, cli, cli_role, &p->srv, &p->cli);
	p->ini = cli_role == RP_ROLE_INITIATOR ? p->cli : p->srv;
	p->rsp = cli_role == RP_ROLE_INITIATOR ? p->srv : p->cli;
}

static void pair_open2(struct pair *p, const struct rp_spec *srv,
		       const struct rp_spec *cli)
{
	pair_open_as(p, srv, cli, RP_ROLE_INITIATOR);
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

/* The responder side of one phase, in its own thread, over 1 or more
 * streams at once. */
struct server {
	pthread_t thread;
	struct rp_stream *s[MAX_SERVED];
	unsigned int n;
	enum rp_phase phase;
	atomic_int stop;
	struct rp_side_stats st[MAX_SERVED];
	int rc;
};

static void *server_main(void *arg)
{
	struct server *sv = arg;

	sv->rc = tcp->serve(sv->s, sv->n, sv->phase, &sv->stop, sv->st);
	return NULL;
}

static void server_start_n(struct server *sv, struct rp_stream *const *s,
			   unsigned int n, enum rp_phase phase)
{
	assert_in_range(n, 1, MAX_SERVED);
	memset(sv, 0, sizeof(*sv));
	memcpy(sv->s, s, n * sizeof(*s));
	sv->n = n;
	sv->phase = phase;
	sv->rc = -EINPROGRESS;
	atomic_init(&sv->stop, 0);
	assert_int_equal(pthread_create(&sv->thread, NULL, server_main, sv), 0);
}

static void server_start(struct server *sv, struct rp_stream *s,
			 enum rp_phase phase)
{
	server_start_n(sv, &s, 1, phase);
}

static void server_stop(struct server *sv)
{
	atomic_store(&sv->stop, 1);
	assert_int_equal(pthread_join(sv->thread, NULL), 0);
	assert_int_equal(sv->rc, 0);
}

/* The initiator's side of one stream in a throughput phase. */
struct flow {
	struct rp_stream *s;
	uint64_t seq0;
	uint64_t n;
	uint64_t posted;
	uint64_t done;
};

static struct flow flow_of(struct rp_stream *s, uint64_t seq0, uint64_t n)
{
	return (struct flow){ .s = s, .seq0 = seq0, .n = n };
}

/*
 * Post what fits (the stream's queue depth in flight, at most @batch at
 * once), then poll: how many completed. A poll may report only operations
 * that are in flight.
 */
static uint64_t flow_turn(struct flow *f, uint32_t batch)
{
	uint64_t room = f->s->spec.queue_depth - (f->posted - f->done);
	int c;

	if (room > f->n - f->posted)
		room = f->n - f->posted;
	if (room > batch)
		room = batch;
	if (room) {
		assert_int_equal(tcp->post(f->s, f->seq0 + f->posted,
					   (uint32_t)room, true),
				 0);
		f->posted += room;
	}
	c = tcp->poll(f->s);
	if (c < 0)
		fail_msg("poll: %s", strerror(-c));
	if ((uint64_t)c > f->posted - f->done)
		fail_msg("poll reported %d, only %llu in flight", c,
			 (unsigned long long)(f->posted - f->done));
	f->done += (uint64_t)c;
	return (uint64_t)c;
}

/* --wait event, nothing moved: sleep in poll(2) on what arm() gives, as
 * the engine does. Return: how many descriptors were ready. */
static int flows_sleep(struct flow *f, unsigned int nf)
{
	struct pollfd pfd[MAX_SERVED];
	nfds_t k = 0;
	unsigned int i;
	int ready;

	for (i = 0; i < nf; i++) {
		if (f[i].done >= f[i].n)
			continue;
		assert_int_equal(tcp->arm(f[i].s, &pfd[k].fd, &pfd[k].events),
				 0);
		assert_true(pfd[k].fd >= 0);
		assert_true(pfd[k].events & POLLIN);
		k++;
	}
	ready = poll(pfd, k, 1000);
	assert_true(ready >= 0);
	return ready;
}

/* Drive @nf streams until each completed its @n, as the engine does: every
 * turn visits every stream; under --wait event, a turn where nothing
 * completed sleeps. */
static void drive(struct flow *f, unsigned int nf, uint32_t batch)
{
	uint64_t deadline = rp_clock_ns() + PHASE_NS, moved;
	bool event = f[0].s->spec.wait == RP_WAIT_EVENT, busy = true;
	unsigned int i;

	while (busy) {
		busy = false;
		moved = 0;
		for (i = 0; i < nf; i++) {
			if (f[i].done < f[i].n)
				moved += flow_turn(&f[i], batch);
			busy |= f[i].done < f[i].n;
		}
		if (busy && event && !moved)
			flows_sleep(f, nf);
		if (rp_clock_ns() > deadline)
			fail_msg("stalled: %llu of %llu done, %llu posted",
				 (unsigned long long)f[0].done,
				 (unsigned long long)f[0].n,
				 (unsigned long long)f[0].posted);
	}
	for (i = 0; i < nf; i++)
		assert_int_equal(tcp->poll(f[i].s), 0);
}

static void check_stats(const struct rp_side_stats *st, const char *what,
			uint64_t n, uint64_t size, uint64_t verify_errors)
{
	if (st->messages != n)
		fail_msg("%s: responder counted %llu messages, initiator "
			 "sent %llu",
			 what, (unsigned long long)st->messages,
			 (unsigned long long)n);
	assert_int_equal(st->bytes, n * size);
	assert_int_equal(st->verify_errors, verify_errors);
}

/* Run a throughput (or warm-up) phase of @n; the responder's stats to
 * @st. */
static void phase_stream(struct pair *p, enum rp_phase phase, uint64_t seq0,
			 uint64_t n, uint32_t batch, struct rp_side_stats *st)
{
	struct flow f = flow_of(p->ini, seq0, n);
	struct server sv;

	server_start(&sv, p->rsp, phase);
	drive(&f, 1, batch);
	server_stop(&sv);
	*st = sv.st[0];
}

static void ping_n(struct rp_stream *s, uint64_t seq0, uint64_t n)
{
	uint64_t i;
	int err;

	for (i = 0; i < n; i++) {
		err = tcp->ping(s, seq0 + i, rp_clock_ns() + PHASE_NS);
		if (err)
			fail_msg("ping %llu: %s", (unsigned long long)i,
				 strerror(-err));
	}
	/* Pings complete on their own: nothing is left for poll. */
	assert_int_equal(tcp->poll(s), 0);
}

/* Run a latency phase of @n ping-pongs; the responder's stats to @st. */
static void phase_ping(struct pair *p, uint64_t seq0, uint64_t n,
		       struct rp_side_stats *st)
{
	struct server sv;

	server_start(&sv, p->rsp, RP_PHASE_LATENCY);
	ping_n(p->ini, seq0, n);
	server_stop(&sv);
	*st = sv.st[0];
}

static void stream_case(enum rp_op op, uint64_t size, uint32_t depth,
			uint64_t n, uint32_t batch)
{
	struct rp_spec spec = make_spec(op, size, depth, true);
	struct rp_side_stats st;
	struct pair p;

	pair_open(&p, &spec);
	phase_stream(&p, RP_PHASE_BANDWIDTH, 0, n, batch, &st);
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
static void sequence_on(struct pair *p, uint64_t size, uint32_t depth)
{
	struct rp_side_stats st[3];

	phase_stream(p, RP_PHASE_WARMUP, 0, 50, depth, &st[0]);
	phase_ping(p, 50, 20, &st[1]);
	phase_stream(p, RP_PHASE_BANDWIDTH, 70, 333, depth, &st[2]);
	assert_int_equal(tcp->verify_errors(p->ini), 0);
	check_stats(&st[0], "warmup", 50, size, 0);
	check_stats(&st[1], "latency", 20, size, 0);
	check_stats(&st[2], "bandwidth", 333, size, 0);
}

static void sequence_case(enum rp_op op, uint64_t size, uint32_t depth)
{
	struct rp_spec spec = make_spec(op, size, depth, true);
	struct pair p;

	pair_open(&p, &spec);
	sequence_on(&p, size, depth);
	pair_close(&p);
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
	/* write: the initiator sends zeros, the responder checks. */
	pair_open2(&p, &on, &off);
	phase_stream(&p, RP_PHASE_BANDWIDTH, 0, 100, 4, &st);
	check_stats(&st, "write", 100, 64, 100);
	pair_close(&p);

	/* read: the responder sends zeros, the initiator checks. */
	on.op = off.op = RP_OP_READ;
	pair_open2(&p, &off, &on);
	phase_stream(&p, RP_PHASE_BANDWIDTH, 0, 100, 4, &st);
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
	assert_int_equal(tcp->accept(p.l, TOKEN, RP_ROLE_RESPONDER, 300, &srv),
			 -ETIMEDOUT);
	assert_null(srv);
	assert_in_range(ms_since(t0), 250, 1500);
	/* the wait in vain says what came instead */
	assert_string_equal(p.l->err.msg,
			    "no connection presented the stream's token; 0 "
			    "waiting (0 without a whole token), 1 dropped (the "
			    "last: data connection from 127.0.0.1 dropped: a "
			    "wrong token)");
	assert_int_equal(p.l->dropped, 1);
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
	assert_int_equal(
		tcp->accept(p.l, TOKEN, RP_ROLE_RESPONDER, TIMEOUT_MS, &p.srv),
		0);
	assert_dropped(bad);
	tcp->close(bad);
	/* The stream accepted is the right one: it works. */
	p.ini = p.cli;
	p.rsp = p.srv;
	phase_stream(&p, RP_PHASE_BANDWIDTH, 0, 10, 4, &st);
	check_stats(&st, "bandwidth", 10, 64, 0);
	pair_close(&p);

	/* A token of exactly the length presented passes whole. */
	memset(long_token, 'x', TOKEN_LEN);
	long_token[TOKEN_LEN] = '\0';
	listen_tokens[0] = long_token;
	pair_listen(&p, &spec);
	listen_tokens[0] = TOKEN;
	assert_int_equal(pair_connect(&p, &spec, long_token, &p.cli), 0);
	assert_int_equal(tcp->accept(p.l, long_token, RP_ROLE_RESPONDER,
				     TIMEOUT_MS, &p.srv),
			 0);
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
	assert_int_equal(tcp->accept(p.l, TOKEN, RP_ROLE_RESPONDER, 200, &srv),
			 -ETIMEDOUT);
	assert_null(srv);
	assert_in_range(ms_since(t0), 150, 1200);
	assert_null(strstr(p.l->err.msg, "dropped"));
	pair_close(&p);
}

/* A raw connection to @p's listener, presenting nothing yet. */
static int raw_connect(const struct pair *p)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	int fd;

	sin.sin_port = htons(
		(uint16_t)cJSON_GetObjectItemCaseSensitive(p->endpoint, "port")
			->valueint);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(fd >= 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	return fd;
}

static void raw_token(int fd, const char *token)
{
	uint8_t buf[TOKEN_LEN] = { 0 };

	memcpy(buf, token, strnlen(token, TOKEN_LEN));
	assert_int_equal(send(fd, buf, sizeof(buf), 0), (ssize_t)sizeof(buf));
}

/* Accept as the server's session does: slices of 200 ms until @ms. */
static int accept_slices(struct pair *p, const char *token, int ms,
			 struct rp_stream **out)
{
	uint64_t deadline = rp_clock_ns() + (uint64_t)ms * RP_NS_PER_MS;
	int err = -ETIMEDOUT;

	while (err == -ETIMEDOUT && rp_clock_ns() < deadline)
		err = tcp->accept(p->l, token, RP_ROLE_RESPONDER, 200, out);
	return err;
}

/* A connection that never presents a token holds nothing: accept gives
 * up at its own time and says who is still waiting. */
static void test_accept_timeout_silent_peer(void **state)
{
	struct rp_spec spec = make_spec(RP_OP_WRITE, 64, 4, false);
	struct rp_stream *srv = NULL;
	struct pair p;
	uint64_t t0, ms;
	int fd;

	(void)state;
	pair_listen(&p, &spec);
	fd = raw_connect(&p);
	t0 = rp_clock_ns();
	assert_int_equal(tcp->accept(p.l, TOKEN, RP_ROLE_RESPONDER, 300, &srv),
			 -ETIMEDOUT);
	ms = ms_since(t0);
	assert_string_equal(p.l->err.msg,
			    "no connection presented the stream's token; 1 "
			    "waiting (1 without a whole token), 0 dropped");
	close(fd);
	pair_close(&p);
	assert_null(srv);
	assert_in_range(ms, 250, 1500);
}

/* Silent strays ahead of the real stream delay it by nothing (each one
 * held accept for 2 s before). */
static void test_accept_strays_cost_nothing(void **state)
{
	struct rp_spec spec = make_spec(RP_OP_WRITE, 64, 4, false);
	int fd[4], i;
	struct pair p;
	uint64_t t0;

	(void)state;
	pair_listen(&p, &spec);
	for (i = 0; i < 4; i++)
		fd[i] = raw_connect(&p);
	assert_int_equal(pair_connect(&p, &spec, TOKEN, &p.cli), 0);
	t0 = rp_clock_ns();
	assert_int_equal(accept_slices(&p, TOKEN, TIMEOUT_MS, &p.srv), 0);
	assert_in_range(ms_since(t0), 0, 500);
	for (i = 0; i < 4; i++)
		close(fd[i]);
	pair_close(&p);
}

/* A real stream whose token comes 2.5 s late (a loaded host) is still
 * taken: it waits as long as the caller does (it was dropped at 2 s,
 * and the next connection taken in its place). */
static void test_accept_late_token(void **state)
{
	struct rp_spec spec = make_spec(RP_OP_WRITE, 64, 4, false);
	struct timespec late = { .tv_sec = 2, .tv_nsec = 500000000 };
	struct rp_stream *srv = NULL;
	struct pair p;
	int fd;

	(void)state;
	pair_listen(&p, &spec);
	fd = raw_connect(&p);
	assert_int_equal(tcp->accept(p.l, TOKEN, RP_ROLE_RESPONDER, 200, &srv),
			 -ETIMEDOUT);
	nanosleep(&late, NULL);
	raw_token(fd, TOKEN);
	assert_int_equal(accept_slices(&p, TOKEN, TIMEOUT_MS, &srv), 0);
	assert_int_equal(p.l->dropped, 0);
	tcp->close(srv);
	close(fd);
	pair_close(&p);
}

/* Streams land in their places whatever the order their tokens come in:
 * the second stream's connection, first in, waits for its accept. */
static void test_accept_out_of_order(void **state)
{
	struct rp_spec spec = make_spec(RP_OP_WRITE, 64, 4, false);
	struct rp_stream *a = NULL, *b = NULL;
	struct pair p;
	int fa, fb;

	(void)state;
	spec.streams = 2;
	listen_tokens[0] = "tok.0";
	listen_tokens[1] = "tok.1";
	n_listen_tokens = 2;
	pair_listen(&p, &spec);
	listen_tokens[0] = TOKEN;
	n_listen_tokens = 1;
	fb = raw_connect(&p);
	raw_token(fb, "tok.1");
	fa = raw_connect(&p);
	raw_token(fa, "tok.0");
	assert_int_equal(accept_slices(&p, "tok.0", TIMEOUT_MS, &a), 0);
	assert_int_equal(accept_slices(&p, "tok.1", TIMEOUT_MS, &b), 0);
	assert_int_equal(p.l->dropped, 0);
	/* each is its own connection: b's end is fb's */
	assert_int_equal(write(fb, "x", 1), 1);
	assert_true(sock_stream(b)->fd >= 0);
	assert_int_equal(poll(&(struct pollfd){ .fd = sock_stream(b)->fd,
						.events = POLLIN },
			      1, 1000),
			 1);
	tcp->close(a);
	tcp->close(b);
	close(fa);
	close(fb);
	pair_close(&p);
}

static bool admit_none(const void *ctx, const struct sockaddr *peer)
{
	(void)ctx;
	(void)peer;
	return false;
}

/* A peer --allow does not admit is closed before a byte is read, and the
 * wait in vain says so. */
static void test_accept_not_admitted(void **state)
{
	struct rp_spec spec = make_spec(RP_OP_WRITE, 64, 4, false);
	struct rp_stream *bad = NULL, *srv = NULL;
	struct rp_err why = { "" };
	struct pair p;

	(void)state;
	memset(&p, 0, sizeof(p));
	p.params.bind = "127.0.0.1";
	p.params.admit = admit_none;
	p.endpoint = cJSON_CreateObject();
	assert_int_equal(
		tcp->listen(tcp, &spec, &p.params, p.endpoint, &p.l, &why), 0);
	assert_int_equal(pair_connect(&p, &spec, TOKEN, &bad), 0);
	assert_int_equal(tcp->accept(p.l, TOKEN, RP_ROLE_RESPONDER, 300, &srv),
			 -ETIMEDOUT);
	assert_non_null(strstr(p.l->err.msg, "from 127.0.0.1 refused: not in "
					     "--allow"));
	assert_dropped(bad);
	tcp->close(bad);
	pair_close(&p);
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
				      RP_ROLE_INITIATOR, TIMEOUT_MS, &s, &why),
			 -EBADMSG);
	cJSON_AddNumberToObject(ep, "port", 0);
	assert_int_equal(tcp->connect(tcp, &spec, NULL, "127.0.0.1", ep, TOKEN,
				      RP_ROLE_INITIATOR, TIMEOUT_MS, &s, &why),
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
				      RP_ROLE_INITIATOR, TIMEOUT_MS, &s, &why),
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
	err = emfile.ops.accept(p.l, TOKEN, RP_ROLE_RESPONDER, 300, &srv);
	ms = ms_since(t0);
	assert_int_equal(err, -EMFILE);
	assert_null(srv);
	assert_in_range(ms, 250, 1999);
	assert_non_null(strstr(p.l->err.msg, strerror(EMFILE)));
	pair_close(&p);
}

/*
 * Calls with close_after_eof_ms (rsocket's): the accepting end's close
 * waits for the peer's end of stream, that long at most, so that the two
 * ends' closes do not cross; the connecting end's never waits, nor does
 * either on calls without it (tcp).
 */
static void test_close_after_eof(void **state)
{
	static struct rp_sock_calls calls;
	static struct rp_sock_xport eof;
	struct rp_spec spec = make_spec(RP_OP_WRITE, 64, 4, false);
	uint64_t t0;
	struct pair p;

	(void)state;
	calls = rp_sock_kernel;
	calls.close_after_eof_ms = 400;
	eof.ops = *tcp;
	eof.calls = &calls;
	/* the peer still open: the full wait, then the close */
	pair_listen_on(&p, &eof.ops, &spec);
	assert_int_equal(pair_connect(&p, &spec, TOKEN, &p.cli), 0);
	assert_int_equal(eof.ops.accept(p.l, TOKEN, RP_ROLE_RESPONDER,
					TIMEOUT_MS, &p.srv),
			 0);
	t0 = rp_clock_ns();
	eof.ops.close(p.srv);
	p.srv = NULL;
	assert_in_range(ms_since(t0), 350, 1999);
	/* the connecting end: no wait, its peer already closed or not */
	t0 = rp_clock_ns();
	eof.ops.close(p.cli);
	p.cli = NULL;
	assert_in_range(ms_since(t0), 0, 200);
	pair_close(&p);
	/* the peer closed first: its end of stream ends the wait at once */
	pair_listen_on(&p, &eof.ops, &spec);
	assert_int_equal(pair_connect(&p, &spec, TOKEN, &p.cli), 0);
	assert_int_equal(eof.ops.accept(p.l, TOKEN, RP_ROLE_RESPONDER,
					TIMEOUT_MS, &p.srv),
			 0);
	eof.ops.close(p.cli);
	p.cli = NULL;
	t0 = rp_clock_ns();
	eof.ops.close(p.srv);
	p.srv = NULL;
	assert_in_range(ms_since(t0), 0, 200);
	pair_close(&p);
	/* tcp: the accepting end closes at once, its peer still open */
	pair_open(&p, &spec);
	t0 = rp_clock_ns();
	tcp->close(p.srv);
	p.srv = NULL;
	assert_in_range(ms_since(t0), 0, 200);
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
				      RP_ROLE_INITIATOR, TIMEOUT_MS, &s, &why),
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
				      RP_ROLE_INITIATOR, TIMEOUT_MS, &s, &why),
			 -EBADMSG);
	assert_non_null(strstr(why.msg, "\"port\""));
	cJSON_Delete(ep);
	pair_close(&p);
}

/* serve() returns soon after its atomic stop flag is set, in every phase
 * and both ways of waiting, whether it is sleeping (idle) or spinning
 * (latency phase, busy). */
static void test_serve_stops(void **state)
{
	static const enum rp_op ops[] = { RP_OP_WRITE, RP_OP_READ };
	const struct timespec idle = { .tv_nsec = 50 * 1000 * 1000 };
	const size_t per_wait = 2 * RP_PHASE__COUNT;
	struct rp_spec spec;
	struct server sv;
	struct pair p;
	uint64_t t0;
	size_t i;
	int ph;

	(void)state;
	for (i = 0; i < RP_WAIT__COUNT * per_wait; i++) {
		ph = (int)(i % RP_PHASE__COUNT);
		spec = make_spec(ops[i % per_wait / RP_PHASE__COUNT], 64, 4,
				 false);
		spec.wait = (enum rp_wait)(i / per_wait);
		pair_open(&p, &spec);
		server_start(&sv, p.srv, (enum rp_phase)ph);
		nanosleep(&idle, NULL);
		t0 = rp_clock_ns();
		server_stop(&sv);
		assert_in_range(ms_since(t0), 0, 500);
		assert_int_equal(sv.st[0].messages, 0);
		pair_close(&p);
	}
}

/* Roles */

/*
 * The accepted stream initiates and the connected one responds (--bidir's
 * server-to-client streams): messages, acks, echoes and credits all flow
 * by role. The connecting side still presents the token.
 */
static void swapped_case(enum rp_op op, uint64_t size, uint32_t depth)
{
	struct rp_spec spec = make_spec(op, size, depth, true);
	struct rp_side_stats st[2];
	struct pair p;

	pair_open_as(&p, &spec, &spec, RP_ROLE_RESPONDER);
	assert_ptr_equal(p.ini, p.srv);
	assert_ptr_equal(p.rsp, p.cli);
	phase_stream(&p, RP_PHASE_BANDWIDTH, 0, 500, depth, &st[0]);
	phase_ping(&p, 500, 20, &st[1]);
	assert_int_equal(tcp->verify_errors(p.srv), 0);
	pair_close(&p);
	check_stats(&st[0], "bandwidth", 500, size, 0);
	check_stats(&st[1], "latency", 20, size, 0);
}

static void test_roles_swapped(void **state)
{
	struct rp_spec spec = make_spec(RP_OP_WRITE, 64, 4, false);
	atomic_int stop = 1;
	struct rp_side_stats st;
	struct pair p;

	(void)state;
	swapped_case(RP_OP_WRITE, 64, 4);
	swapped_case(RP_OP_WRITE, 100000, 3);
	swapped_case(RP_OP_READ, 64, 4);
	swapped_case(RP_OP_READ, 100000, 3);

	/* serve() takes responders only, and says why. */
	pair_open_as(&p, &spec, &spec, RP_ROLE_RESPONDER);
	assert_int_equal(tcp->serve(&p.srv, 1, RP_PHASE_BANDWIDTH, &stop, &st),
			 -EINVAL);
	assert_non_null(strstr(p.srv->err.msg, "initiates"));
	pair_close(&p);
}

/* Points of a sweep */

static void set_point_both(struct pair *p, uint64_t size, uint32_t depth)
{
	assert_int_equal(tcp->set_point(p->ini, size, depth), 0);
	assert_int_equal(tcp->set_point(p->rsp, size, depth), 0);
	assert_int_equal(p->ini->spec.size_bytes, size);
	assert_int_equal(p->rsp->spec.queue_depth, depth);
}

/*
 * A stream set up for the largest point runs smaller ones, then the
 * largest again: every phase counted exactly, every payload checked in
 * place (message m of the point in slot m % depth on both ends).
 */
static void point_case(enum rp_op op, enum rp_role cli_role)
{
	struct rp_spec spec = make_spec(op, 4096, 16, true);
	struct rp_side_stats st;
	struct pair p;

	pair_open_as(&p, &spec, &spec, cli_role);
	phase_stream(&p, RP_PHASE_BANDWIDTH, 0, 101, 16, &st);
	check_stats(&st, "largest point", 101, 4096, 0);
	/* A size that does not divide what went before. */
	set_point_both(&p, 100, 3);
	sequence_on(&p, 100, 3);
	set_point_both(&p, 1, 1);
	sequence_on(&p, 1, 1);
	set_point_both(&p, 4096, 16);
	sequence_on(&p, 4096, 16);
	assert_int_equal(tcp->verify_errors(p.rsp), 0);
	pair_close(&p);
}

static void test_set_point(void **state)
{
	(void)state;
	point_case(RP_OP_WRITE, RP_ROLE_INITIATOR);
	point_case(RP_OP_READ, RP_ROLE_INITIATOR);
	point_case(RP_OP_WRITE, RP_ROLE_RESPONDER);
	point_case(RP_OP_READ, RP_ROLE_RESPONDER);
}

static void expect_bad_point(struct rp_stream *s, uint64_t size, uint32_t depth)
{
	rp_err_clear(&s->err);
	assert_int_equal(tcp->set_point(s, size, depth), -EINVAL);
	assert_non_null(strstr(s->err.msg, "does not fit"));
	assert_int_equal(s->spec.size_bytes, 64);
	assert_int_equal(s->spec.queue_depth, 4);
}

/* Points beyond the setup, or with operations in flight, are refused. */
static void test_set_point_rejects(void **state)
{
	struct rp_spec spec = make_spec(RP_OP_WRITE, 64, 4, false);
	struct pair p;

	(void)state;
	pair_open(&p, &spec);
	expect_bad_point(p.ini, 65, 4);
	expect_bad_point(p.ini, 64, 5);
	expect_bad_point(p.ini, 0, 4);
	expect_bad_point(p.rsp, 64, 0);
	rp_err_clear(&p.ini->err);
	assert_int_equal(tcp->post(p.ini, 0, 1, true), 0);
	assert_int_equal(tcp->set_point(p.ini, 32, 2), -EBUSY);
	assert_non_null(strstr(p.ini->err.msg, "not completed"));
	pair_close(&p);
}

/* Several streams in one serve() */

#define N_TWO 2

/*
 * One thread serves two streams while the test drives both, as an engine
 * thread with two streams does; each stream is counted on its own.
 */
static void two_case(enum rp_op op, enum rp_wait wait)
{
	static const uint64_t n[N_TWO] = { 500, 333 };
	struct rp_spec spec = make_spec(op, 256, 8, true);
	struct rp_stream *srv[N_TWO], *cli[N_TWO];
	struct flow f[N_TWO];
	struct server sv;
	struct pair p;
	int i;

	spec.wait = wait;
	pair_listen(&p, &spec);
	for (i = 0; i < N_TWO; i++) {
		pair_add(&p, &spec, &spec, RP_ROLE_INITIATOR, &srv[i], &cli[i]);
		f[i] = flow_of(cli[i], 0, n[i]);
	}
	server_start_n(&sv, srv, N_TWO, RP_PHASE_BANDWIDTH);
	drive(f, N_TWO, 8);
	server_stop(&sv);
	for (i = 0; i < N_TWO; i++)
		check_stats(&sv.st[i], "bandwidth", n[i], 256, 0);

	server_start_n(&sv, srv, N_TWO, RP_PHASE_LATENCY);
	for (i = 0; i < 20; i++)
		ping_n(cli[i % N_TWO], n[i % N_TWO] + (uint64_t)i / N_TWO, 1);
	server_stop(&sv);
	for (i = 0; i < N_TWO; i++) {
		check_stats(&sv.st[i], "latency", 10, 256, 0);
		assert_int_equal(tcp->verify_errors(cli[i]), 0);
		tcp->close(cli[i]);
		tcp->close(srv[i]);
	}
	pair_close(&p);
}

static void test_serve_two_streams(void **state)
{
	(void)state;
	two_case(RP_OP_WRITE, RP_WAIT_BUSY);
	two_case(RP_OP_READ, RP_WAIT_BUSY);
	two_case(RP_OP_WRITE, RP_WAIT_EVENT);
	two_case(RP_OP_READ, RP_WAIT_EVENT);
}

/* --wait event */

/* arm() on a stream with nothing under way: only POLLIN, and poll(2) on it
 * does not wake up for nothing. */
static void expect_quiet(struct rp_stream *s)
{
	struct pollfd pfd = { .fd = -1 };

	assert_int_equal(tcp->arm(s, &pfd.fd, &pfd.events), 0);
	assert_true(pfd.fd >= 0);
	assert_int_equal(pfd.events, POLLIN);
	assert_int_equal(poll(&pfd, 1, 50), 0);
}

/* One operation, the test asleep in poll(2) until it completes. */
static void one_asleep(struct rp_stream *s, uint64_t seq)
{
	struct flow f = flow_of(s, seq, 1);
	int sleeps = 0, n;

	assert_int_equal(tcp->post(s, seq, 1, true), 0);
	f.posted = 1;
	while ((n = tcp->poll(s)) == 0) {
		assert_true(flows_sleep(&f, 1) > 0); /* woken, not timed out */
		assert_true(++sleeps < 1000);
	}
	assert_int_equal(n, 1);
}

static void event_case(enum rp_op op, uint64_t size, uint32_t depth)
{
	struct rp_spec spec = make_spec(op, size, depth, true);
	struct rp_side_stats st;
	struct server sv;
	struct pair p;

	spec.wait = RP_WAIT_EVENT;
	pair_open(&p, &spec);
	expect_quiet(p.ini);
	server_start(&sv, p.rsp, RP_PHASE_BANDWIDTH);
	one_asleep(p.ini, 0);
	one_asleep(p.ini, 1);
	server_stop(&sv);
	check_stats(&sv.st[0], "armed", 2, size, 0);
	expect_quiet(p.ini);
	/* Whole phases: ping asleep, serve asleep, the engine asleep. */
	sequence_on(&p, size, depth);
	phase_stream(&p, RP_PHASE_BANDWIDTH, 0, 300, 1, &st);
	check_stats(&st, "one at a time", 300, size, 0);
	pair_close(&p);
}

static void test_event_mode(void **state)
{
	(void)state;
	event_case(RP_OP_WRITE, 64, 4);
	event_case(RP_OP_WRITE, 100000, 3);
	event_case(RP_OP_READ, 64, 4);
	event_case(RP_OP_READ, 100000, 3);
}

/* What local_info() adds for the report; set_peer() takes it back. */
static void test_local_info(void **state)
{
	struct rp_spec spec = make_spec(RP_OP_READ, 64, 4, false);
	struct pair p;
	cJSON *info;

	(void)state;
	spec.wait = RP_WAIT_EVENT;
	pair_open_as(&p, &spec, &spec, RP_ROLE_RESPONDER);
	info = info_of(p.cli);
	assert_string_equal(
		cJSON_GetObjectItemCaseSensitive(info, "role")->valuestring,
		"responder");
	assert_string_equal(
		cJSON_GetObjectItemCaseSensitive(info, "wait")->valuestring,
		"event");
	assert_int_equal(tcp->set_peer(p.srv, info), 0);
	cJSON_Delete(info);
	info = info_of(p.srv);
	assert_string_equal(
		cJSON_GetObjectItemCaseSensitive(info, "role")->valuestring,
		"initiator");
	cJSON_Delete(info);
	pair_close(&p);
}

/*
 * platform/cpu.c may not provide rp_os_mem_node yet; this stand-in says
 * "no NUMA" (local_info reports -1). A real definition, once linked in,
 * takes its place.
 */
__attribute__((weak)) int rp_os_mem_node(const void *addr)
{
	(void)addr;
	return -ENOSYS;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registry),
		cmocka_unit_test(test_op_mask),
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
		cmocka_unit_test(test_accept_strays_cost_nothing),
		cmocka_unit_test(test_accept_late_token),
		cmocka_unit_test(test_accept_out_of_order),
		cmocka_unit_test(test_accept_not_admitted),
		cmocka_unit_test(test_connect_errors),
		cmocka_unit_test(test_peer_gone),
		cmocka_unit_test(test_accept_emfile),
		cmocka_unit_test(test_close_after_eof),
		cmocka_unit_test(test_connect_refused_reason),
		cmocka_unit_test(test_serve_stops),
		cmocka_unit_test(test_roles_swapped),
		cmocka_unit_test(test_set_point),
		cmocka_unit_test(test_set_point_rejects),
		cmocka_unit_test(test_serve_two_streams),
		cmocka_unit_test(test_event_mode),
		cmocka_unit_test(test_local_info),
	};

	tcp = rp_xport_find("tcp");
	if (!tcp) {
		fprintf(stderr, "no tcp transport in the registry\n");
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
