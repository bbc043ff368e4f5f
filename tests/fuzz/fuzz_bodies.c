// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the message bodies a peer sends: every decoder the
 * client or the server runs on a body it received. The first input byte
 * chooses the message and a variant of the test it belongs to (below); the
 * remaining bytes are the body as it came off the wire, parsed with
 * rp_proto_body_parse from an exact-size copy.
 *
 *   sel  message  decoded by
 *   0    HELLO    the client: the server's host object, into the report
 *   1    TEST     the server: rp_proto_spec_decode; a spec that decodes
 *                 survives encode and decode unchanged, every field
 *   2    SETUP    the client: token and endpoint (rp_endpoint_port)
 *   3    START    the server: rp_proto_start_decode within the test's
 *                 point and the server's limits; a START that decodes
 *                 survives encode and decode unchanged
 *   4    STOP     the server: rp_proto_stop_decode (abort, the counts of
 *                 "sent"), and encode and decode again
 *   5    DONE     the client: rp_proto_done_decode, encode and decode
 *                 again, rp_direction_from_json (--bidir), then every
 *                 reporter
 *   6    ERROR    either side: rp_proto_error_text
 *   7    STREAMS  either side: one object per stream, into the report
 *   8    AUTH     the server under --auth-key: the client's HELLO and
 *                 then its AUTH (or ERROR), both this body, through
 *                 rp_auth_server over a socket
 *   9    AUTH     the client under --auth-key: the server's answer to
 *                 HELLO (AUTH, ERROR or HELLO), through rp_auth_client
 *
 * The selector is the first byte modulo N_BODIES; the quotient is the
 * variant: bits 0-1 the operation (write, read, send, fetch_add), bit 2
 * --bidir, bits 3-4 the streams - 1; bit 0 also picks tight server limits
 * (TEST, START) or another message type (AUTH).
 *
 * Every decoder here is the one that ships (proto/, run/flow.h, core/):
 * none is copied.
 *
 * Built with clang -fsanitize=fuzzer for fuzzing, or with replay.c as a plain
 * program that CTest runs over the seed corpus.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/cpu.h"
#include "core/json.h"
#include "proto/auth.h"
#include "proto/bodies.h"
#include "proto/proto.h"
#include "run/flow.h"
#include "run/limits.h"
#include "xport/sock/sock.h"
#include "common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define N_BODIES	10
#define AUTH_TIMEOUT_MS 1000

/* One test's shape, from the selector byte's upper bits. */
static void variant_spec(unsigned int v, struct rp_spec *sp)
{
	static const enum rp_op ops[4] = { RP_OP_WRITE, RP_OP_READ, RP_OP_SEND,
					   RP_OP_FETCH_ADD };

	rp_spec_defaults(sp);
	sp->op = ops[v & 3];
	if (rp_op_is_atomic(sp->op))
		sp->size_bytes = 8;
	sp->bidir = v & 4;
	sp->streams = 1 + (v >> 3);
}

static void result_init(struct rp_result *r, const struct rp_spec *sp)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->transport, sizeof(r->transport), "%s", sp->transport);
	r->spec = *sp;
}

/* Every reporter over @r (which it frees), as the client would print. */
static void render(struct rp_result *r)
{
	struct rp_config cfg;

	fuzz_config(&cfg);
	cfg.test.spec = r->spec;
	free(fuzz_render(&cfg.test, r, 1));
	rp_result_fini(r);
}

/* ---- HELLO: the client keeps the server's reply as its host ---------- */

static void body_hello(cJSON *body, unsigned int v)
{
	struct rp_result r;
	struct rp_spec sp;

	variant_spec(v, &sp);
	result_init(&r, &sp);
	cJSON_DeleteItemFromObjectCaseSensitive(body, "proto");
	r.server_host = cJSON_Duplicate(body, 1);
	render(&r);
}

/* ---- TEST ------------------------------------------------------------ */

/* A server's --max-*: the defaults, or (odd variants) tight ones. */
static void limits_of(unsigned int v, struct rp_limits *l)
{
	*l = (struct rp_limits){
		.max_memory = v & 1 ? 1u << 20 : RP_SPEC_MAX_MEM,
		.max_streams = v & 1 ? 4 : RP_SPEC_MAX_STREAMS,
		.max_size = v & 1 ? 65536 : RP_SPEC_MAX_SIZE,
		.max_time_ns =
			(v & 1 ? 1 : RP_LIMIT_TIME_DEFAULT_S) * 1000000000ULL,
	};
}

/* What the server checks next: the spec within its limits. */
static void check_limits(const struct rp_spec *s, unsigned int v)
{
	struct rp_limits l;
	char why[200] = "";

	limits_of(v, &l);
	if (rp_limits_check(&l, s, why, sizeof(why))) {
		FUZZ_CHECK(why[0], "a spec over a limit says which");
		return;
	}
	FUZZ_CHECK(s->size_bytes <= l.max_size && s->streams <= l.max_streams &&
			   rp_limits_memory(s) <= l.max_memory &&
			   s->duration_ns <= l.max_time_ns,
		   "a spec within the limits is within them");
}

static void body_test(cJSON *body, unsigned int v)
{
	struct rp_spec s, again;
	char err[200];
	cJSON *enc;

	if (rp_proto_spec_decode(body, &s, err, sizeof(err))) {
		FUZZ_CHECK(memchr(err, '\0', sizeof(err)) && err[0],
			   "a refused spec has a reason");
		return;
	}
	FUZZ_CHECK(!rp_spec_validate(&s, NULL, 0), "decoded spec is valid");
	check_limits(&s, v);
	enc = rp_proto_spec_encode(&s);
	if (!enc)
		return;
	FUZZ_CHECK(!rp_proto_spec_decode(enc, &again, err, sizeof(err)),
		   "an encoded spec decodes");
	FUZZ_CHECK(fuzz_spec_equal(&s, &again), "spec round trip");
	cJSON_Delete(enc);
}

/* ---- SETUP: client.c setup(), then connect's rp_endpoint_port -------- */

static void body_setup(cJSON *body, unsigned int v)
{
	const cJSON *token = cJSON_GetObjectItemCaseSensitive(body, "token");
	const cJSON *ep = cJSON_GetObjectItemCaseSensitive(body, "endpoint");
	uint8_t presented[RP_TOKEN_LEN];
	struct rp_err why = { "" };
	uint16_t port = 0;

	(void)v;
	if (!cJSON_IsString(token) || !cJSON_IsObject(ep))
		return;
	rp_sock_token(presented, token->valuestring);
	if (rp_endpoint_port(ep, &port, &why))
		FUZZ_CHECK(why.msg[0], "a refused endpoint has a reason");
	else
		FUZZ_CHECK(port > 0, "an accepted port is 1..65535");
}

/* ---- START: what server_phase.c's parse_start decodes --------------- */

static bool start_equal(const struct rp_start_body *a,
			const struct rp_start_body *b)
{
	return a->phase == b->phase && a->size_bytes == b->size_bytes &&
	       a->queue_depth == b->queue_depth &&
	       a->iterations == b->iterations &&
	       a->duration_ns == b->duration_ns && a->rate == b->rate;
}

static void body_start(cJSON *body, unsigned int v)
{
	struct rp_start_bounds lim;
	struct rp_start_body p, again;
	struct rp_limits l;
	struct rp_spec sp;
	char err[200];
	cJSON *enc;

	variant_spec(v, &sp);
	limits_of(v, &l);
	lim = (struct rp_start_bounds){ .size_bytes = sp.size_bytes,
					.queue_depth = sp.queue_depth,
					.max_duration_ns = l.max_time_ns,
					.atomic = rp_op_is_atomic(sp.op) };
	if (rp_proto_start_decode(body, &lim, &p, err, sizeof(err))) {
		FUZZ_CHECK(memchr(err, '\0', sizeof(err)) && err[0],
			   "a refused START has a reason");
		return;
	}
	FUZZ_CHECK((unsigned int)p.phase < RP_PHASE__COUNT, "phase in range");
	FUZZ_CHECK(p.size_bytes >= 1 && p.size_bytes <= sp.size_bytes,
		   "START size");
	FUZZ_CHECK(!lim.atomic || p.size_bytes == 8, "START atomic size");
	FUZZ_CHECK(p.queue_depth >= 1 && p.queue_depth <= sp.queue_depth,
		   "START depth");
	FUZZ_CHECK(p.iterations <= RP_SPEC_MAX_ITERS, "START iterations");
	FUZZ_CHECK(p.duration_ns <= l.max_time_ns, "START duration_ns");
	FUZZ_CHECK(p.rate <= RP_SPEC_MAX_RATE, "START rate");
	FUZZ_CHECK(!strcmp(rp_phase_name(p.phase),
			   cJSON_GetObjectItemCaseSensitive(body, "phase")
				   ->valuestring),
		   "phase name round trip");
	enc = rp_proto_start_encode(&p);
	if (!enc)
		return;
	FUZZ_CHECK(!rp_proto_start_decode(enc, &lim, &again, err, sizeof(err)),
		   "an encoded START decodes");
	FUZZ_CHECK(start_equal(&p, &again), "START round trip");
	cJSON_Delete(enc);
}

/* ---- STOP: what server_phase.c's take_stop decodes ------------------- */

#define MAX_SENT 32 /* more than variant_spec's streams */

static void check_stop(const struct rp_stop_body *s, unsigned int n)
{
	unsigned int i;

	FUZZ_CHECK((unsigned int)s->phase <= RP_PHASE__COUNT, "STOP phase");
	FUZZ_CHECK(s->n_sent == (s->has_sent ? n : 0), "STOP sent's length");
	for (i = 0; i < n; i++)
		FUZZ_CHECK(s->sent[i] <= (uint64_t)RP_JSON_MAX_EXACT &&
				   (s->has_sent || !s->sent[i]),
			   "STOP counts: whole numbers up to 2^53, else 0");
}

static void body_stop(cJSON *body, unsigned int v)
{
	uint64_t sent[MAX_SENT], back[MAX_SENT];
	struct rp_stop_body s, again;
	struct rp_spec sp;
	unsigned int n;
	cJSON *enc;

	variant_spec(v, &sp);
	n = sp.streams; /* the client's own, which STOP counts */
	FUZZ_CHECK(n <= MAX_SENT, "streams within the fuzzer's array");
	FUZZ_CHECK(!rp_proto_stop_decode(body, n, sent, &s, NULL, 0),
		   "a STOP object always decodes");
	check_stop(&s, n);
	FUZZ_CHECK(s.abort ==
			   (bool)cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
				   body, "abort")),
		   "STOP abort only when true");
	enc = rp_proto_stop_encode(&s);
	if (!enc)
		return;
	FUZZ_CHECK(!rp_proto_stop_decode(enc, n, back, &again, NULL, 0),
		   "an encoded STOP decodes");
	FUZZ_CHECK(again.phase == s.phase && again.abort == s.abort &&
			   again.has_sent == s.has_sent &&
			   !memcmp(back, sent, n * sizeof(sent[0])),
		   "STOP round trip");
	cJSON_Delete(enc);
}

/* ---- DONE: what client_phase.c's bandwidth_results decodes ---------- */

static void check_cpu(const struct rp_cpu_usage *u)
{
	unsigned int i;

	FUZZ_CHECK(u->hz_source, "hz_source set");
	FUZZ_CHECK(u->n_cpus <= RP_CPU_MAX_LIST, "per_cpu within its array");
	FUZZ_CHECK(u->n_threads <= RP_CPU_MAX_LIST, "threads within array");
	FUZZ_CHECK(u->user_s >= 0 && u->sys_s >= 0 && u->hz >= 0,
		   "cpu seconds and hz not negative, not NaN");
	FUZZ_CHECK(u->host_util >= 0 && u->host_util <= 1, "host_util 0..1");
	for (i = 0; i < u->n_cpus; i++)
		FUZZ_CHECK(u->per_cpu[i].cpu >= -1, "per_cpu cpu >= -1");
	for (i = 0; i < u->n_threads; i++)
		FUZZ_CHECK(u->threads[i].cpu >= -1, "thread cpu >= -1");
}

/* Figures a peer sent whose wire form is exact (whole numbers of at
 * most 2^53): only those come back unchanged from the JSON a double
 * holds. */
static bool flow_exact(const struct rp_flow *f)
{
	return f->bytes <= (uint64_t)RP_JSON_MAX_EXACT &&
	       f->messages <= (uint64_t)RP_JSON_MAX_EXACT &&
	       f->latency.count <= (uint64_t)RP_JSON_MAX_EXACT;
}

static bool flow_equal(const struct rp_flow *a, const struct rp_flow *b)
{
	return a->bytes == b->bytes && a->messages == b->messages &&
	       a->seconds == b->seconds && a->has_latency == b->has_latency &&
	       !memcmp(&a->latency, &b->latency, sizeof(a->latency));
}

/* What the server sent comes back the same from rp_direction_to_json. */
static void direction_round_trip(const struct rp_direction *d, uint32_t max)
{
	struct rp_direction again;
	cJSON *j = rp_direction_to_json(d);
	uint32_t i;

	if (!j || rp_direction_from_json(j, max, &again)) {
		cJSON_Delete(j);
		return;
	}
	FUZZ_CHECK(again.n_streams == d->n_streams, "direction streams");
	FUZZ_CHECK(flow_equal(&again.flow, &d->flow), "direction flow");
	for (i = 0; i < d->n_streams; i++) {
		FUZZ_CHECK(again.per_stream[i].thread ==
				   d->per_stream[i].thread,
			   "stream thread round trip");
		FUZZ_CHECK(!flow_exact(&d->per_stream[i].flow) ||
				   flow_equal(&again.per_stream[i].flow,
					      &d->per_stream[i].flow),
			   "stream flow round trip");
	}
	rp_direction_fini(&again);
	cJSON_Delete(j);
}

static void check_direction(const struct rp_direction *d, uint32_t max)
{
	uint32_t i;

	FUZZ_CHECK(d->present, "a direction read is present");
	FUZZ_CHECK(d->n_streams <= max, "at most the test's streams");
	FUZZ_CHECK(!(d->fairness < 0) && !(d->fairness > 1 + 1e-9),
		   "fairness 0..1");
	for (i = 0; i < d->n_streams; i++) {
		FUZZ_CHECK(d->per_stream[i].stream == i, "streams in order");
		FUZZ_CHECK(d->per_stream[i].thread < 65536, "thread < 65536");
		FUZZ_CHECK(d->per_stream[i].flow.seconds >= 0,
			   "stream seconds >= 0");
	}
	if (flow_exact(&d->flow))
		direction_round_trip(d, max);
}

/* What a DONE decoded to comes back the same from its encode. */
static void done_round_trip(const struct rp_done_body *d)
{
	struct rp_done_body again;
	cJSON *enc = rp_proto_done_encode(d);

	if (!enc)
		return;
	FUZZ_CHECK(!rp_proto_done_decode(enc, &again, NULL, 0),
		   "an encoded DONE decodes");
	FUZZ_CHECK(again.messages == d->messages && again.bytes == d->bytes &&
			   again.verify_errors == d->verify_errors,
		   "DONE counts round trip");
	FUZZ_CHECK(again.has_zc == d->has_zc &&
			   !memcmp(&again.zc, &d->zc, sizeof(d->zc)),
		   "DONE zerocopy round trip");
	FUZZ_CHECK(
		!again.direction == !d->direction &&
			(!d->direction ||
			 fuzz_json_same(again.direction, d->direction, true)),
		"DONE direction round trip");
	FUZZ_CHECK(!strcmp(again.cpu.hz_source, d->cpu.hz_source),
		   "DONE hz_source round trip");
	again.cpu.hz_source = d->cpu.hz_source;
	FUZZ_CHECK(!memcmp(&again.cpu, &d->cpu, sizeof(d->cpu)),
		   "DONE cpu round trip");
	cJSON_Delete(enc);
}

static void body_done(cJSON *body, unsigned int v)
{
	struct rp_done_body done;
	uint32_t n_rev;
	struct rp_result r;
	struct rp_spec sp;

	variant_spec(v, &sp);
	n_rev = sp.bidir ? sp.streams : 0;
	FUZZ_CHECK(!rp_proto_done_decode(body, &done, NULL, 0),
		   "a DONE object always decodes");
	FUZZ_CHECK(!done.direction || cJSON_IsObject(done.direction),
		   "DONE direction is an object");
	done_round_trip(&done);
	result_init(&r, &sp);
	if (n_rev && done.direction) {
		if (rp_direction_from_json(done.direction, n_rev,
					   &r.dir[RP_DIR_S2C])) {
			rp_result_fini(&r);
			return;
		}
		check_direction(&r.dir[RP_DIR_S2C], n_rev);
		r.flow.bytes = r.dir[RP_DIR_S2C].flow.bytes;
		r.flow.messages = r.dir[RP_DIR_S2C].flow.messages;
		r.flow.seconds = r.dir[RP_DIR_S2C].flow.seconds;
	}
	r.has_bandwidth = r.flow.has_latency = true;
	r.server.present = true;
	r.server.messages = done.messages;
	r.server.bytes = done.bytes;
	r.server.verify_errors = done.verify_errors;
	r.server.cpu = done.cpu;
	r.server.has_zc = done.has_zc;
	r.server.zc = done.zc;
	check_cpu(&r.server.cpu);
	r.server.cpu.us_per_kib = rp_cpu_service_demand(
		r.server.cpu.user_s, r.server.cpu.sys_s, r.flow.bytes);
	r.server.cpu.cycles_per_kib =
		rp_cpu_cycles_per_kib(r.server.cpu.user_s, r.server.cpu.sys_s,
				      r.flow.bytes, r.server.cpu.hz);
	render(&r);
}

/* ---- ERROR ----------------------------------------------------------- */

static void check_text(const char *t, size_t len)
{
	size_t n = strnlen(t, len);

	FUZZ_CHECK(n < len, "error text NUL-terminated within its buffer");
	for (; *t; t++)
		FUZZ_CHECK((unsigned char)*t >= 0x20 && *t != 0x7f,
			   "error text on one printable line");
}

static void body_error(cJSON *body, unsigned int v)
{
	char small[8], text[200];
	size_t len = 1 + v % sizeof(small);

	rp_proto_error_text(body, small, len);
	check_text(small, len);
	rp_proto_error_text(body, text, sizeof(text));
	check_text(text, sizeof(text));
	rp_proto_error_text(body, NULL, 0);
}

/* ---- STREAMS: one object per stream, both ways ----------------------- */

static void body_streams(cJSON *body, unsigned int v)
{
	const cJSON *peer = cJSON_GetObjectItemCaseSensitive(body, "streams");
	struct rp_result r;
	struct rp_spec sp;
	unsigned int n;

	variant_spec(v, &sp);
	n = sp.streams * (sp.bidir ? 2 : 1);
	if (!cJSON_IsArray(peer) || (unsigned int)cJSON_GetArraySize(peer) != n)
		return;
	result_init(&r, &sp);
	r.server_info =
		cJSON_DetachItemFromObjectCaseSensitive(body, "streams");
	r.client_info = cJSON_Duplicate(r.server_info, 1);
	render(&r);
}

/* ---- AUTH: both halves of --auth-key, over a socket pair ------------- */

static const uint8_t auth_key[] = "fuzz key";

/* @body framed as @type in @pair[1], which then closes its writing side:
 * what the half under test on @pair[0] receives. Return: 0 or -1. */
static int auth_peer(int pair[2], uint16_t type, const cJSON *body)
{
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair))
		return -1;
	if (rp_proto_send(pair[1], type, body, AUTH_TIMEOUT_MS) ||
	    shutdown(pair[1], SHUT_WR)) {
		close(pair[0]);
		close(pair[1]);
		return -1;
	}
	return 0;
}

/* No proof passes without the key: each covers a fresh random nonce. */
static void check_auth(int err, const struct rp_err *why)
{
	FUZZ_CHECK(err < 0, "no proof passes without the key");
	FUZZ_CHECK(why->msg[0], "a failed proof says why");
}

static void body_auth_server(cJSON *body, unsigned int v)
{
	struct rp_err why = { "" };
	int pair[2];

	if (auth_peer(pair, v & 1 ? RP_MSG_ERROR : RP_MSG_AUTH, body))
		return;
	check_auth(rp_auth_server(pair[0], auth_key, sizeof(auth_key), body,
				  AUTH_TIMEOUT_MS, &why),
		   &why);
	close(pair[0]);
	close(pair[1]);
}

static void body_auth_client(cJSON *body, unsigned int v)
{
	static const uint16_t types[3] = { RP_MSG_AUTH, RP_MSG_ERROR,
					   RP_MSG_HELLO };
	struct rp_err why = { "" };
	cJSON *answer = NULL, *error = NULL;
	int pair[2];

	if (auth_peer(pair, types[v % 3], body))
		return;
	check_auth(rp_auth_client(pair[0], auth_key, sizeof(auth_key),
				  AUTH_TIMEOUT_MS, &answer, &error, &why),
		   &why);
	FUZZ_CHECK(!answer, "no answer to a proof that failed");
	cJSON_Delete(error);
	close(pair[0]);
	close(pair[1]);
}

static void (*const decoders[N_BODIES])(cJSON *body, unsigned int v) = {
	body_hello,	  body_test,	    body_setup, body_start,
	body_stop,	  body_done,	    body_error, body_streams,
	body_auth_server, body_auth_client,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cJSON *body;
	char *copy;

	if (size < 1)
		return 0;
	copy = fuzz_copy(data + 1, size - 1);
	if (!copy)
		return 0;
	if (!rp_proto_body_parse(copy, size - 1, &body)) {
		decoders[data[0] % N_BODIES](body, data[0] / N_BODIES);
		cJSON_Delete(body);
	}
	free(copy);
	return 0;
}
