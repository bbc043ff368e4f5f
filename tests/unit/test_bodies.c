// SPDX-License-Identifier: MIT
/*
 * Unit tests of proto/bodies: START, STOP and DONE as they go on the wire
 * (the exact text), every field through encode and decode unchanged,
 * each of START's refusals with its errno and reason, and what STOP and
 * DONE read leniently from a body that is wrong.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/json.h"
#include "core/spec.h"
#include "proto/bodies.h"

/* ---- helpers --------------------------------------------------------- */

/* @o printed as it goes on the wire (rp_proto_send's print); frees @o. */
static void assert_wire(cJSON *o, const char *want)
{
	char *text;

	assert_non_null(o);
	text = cJSON_PrintUnformatted(o);
	assert_non_null(text);
	assert_string_equal(text, want);
	free(text);
	cJSON_Delete(o);
}

static cJSON *parse(const char *text)
{
	cJSON *o = cJSON_Parse(text);

	assert_non_null(o);
	return o;
}

/* @o as the peer gets it: printed, sent, parsed again; frees @o. cJSON
 * prints a number of more than 15 significant digits rounded to 15, so
 * the figures below stay within that (as they do on the wire). */
static cJSON *wire(cJSON *o)
{
	char *text;
	cJSON *back;

	assert_non_null(o);
	text = cJSON_PrintUnformatted(o);
	assert_non_null(text);
	cJSON_Delete(o);
	back = parse(text);
	free(text);
	return back;
}

static const struct rp_start_bounds lim = {
	.size_bytes = 4096,
	.queue_depth = 16,
	.max_duration_ns = 60000000000ULL,
};

/* ---- START ----------------------------------------------------------- */

static void test_start_wire(void **state)
{
	const struct rp_start_body b = {
		.phase = RP_PHASE_BANDWIDTH,
		.size_bytes = 4096,
		.queue_depth = 16,
		.iterations = 1000,
		.duration_ns = 2000000000,
		.rate = 50000,
	};

	(void)state;
	assert_wire(rp_proto_start_encode(&b),
		    "{\"phase\":\"bandwidth\",\"size\":4096,\"depth\":16,"
		    "\"iterations\":1000,\"duration_ns\":2000000000,"
		    "\"rate\":50000}");
}

static void test_start_round_trip(void **state)
{
	const struct rp_start_bounds wide = {
		.size_bytes = 1ULL << 30,
		.queue_depth = 4096,
		.max_duration_ns = 1ULL << 50,
	};
	struct rp_start_body in = {
		.size_bytes = 12345,
		.queue_depth = 77,
		.iterations = RP_SPEC_MAX_ITERS,
		.duration_ns = 999999999999999ULL,
		.rate = RP_SPEC_MAX_RATE,
	};
	struct rp_start_body out;
	char err[200] = "";
	cJSON *o;
	int p;

	(void)state;
	for (p = 0; p < RP_PHASE__COUNT; p++) {
		in.phase = (enum rp_phase)p;
		o = wire(rp_proto_start_encode(&in));
		memset(&out, 0xa5, sizeof(out));
		assert_int_equal(
			rp_proto_start_decode(o, &wide, &out, err, sizeof(err)),
			0);
		assert_int_equal(out.phase, in.phase);
		assert_int_equal(out.size_bytes, in.size_bytes);
		assert_int_equal(out.queue_depth, in.queue_depth);
		assert_int_equal(out.iterations, in.iterations);
		assert_int_equal(out.duration_ns, in.duration_ns);
		assert_int_equal(out.rate, in.rate);
		cJSON_Delete(o);
	}
}

/* Left out (a 1.x client's START has no rate, a 1.0 one no length): the
 * test's size and depth, 0 for the others; numbers may be strings. */
static void test_start_defaults(void **state)
{
	struct rp_start_body out;
	cJSON *o = parse("{\"phase\":\"warmup\"}");

	(void)state;
	assert_int_equal(rp_proto_start_decode(o, &lim, &out, NULL, 0), 0);
	assert_int_equal(out.phase, RP_PHASE_WARMUP);
	assert_int_equal(out.size_bytes, 4096);
	assert_int_equal(out.queue_depth, 16);
	assert_int_equal(out.iterations, 0);
	assert_int_equal(out.duration_ns, 0);
	assert_int_equal(out.rate, 0);
	cJSON_Delete(o);
	o = parse("{\"phase\":\"latency\",\"size\":\"64\",\"depth\":1,"
		  "\"future\":[1]}");
	assert_int_equal(rp_proto_start_decode(o, &lim, &out, NULL, 0), 0);
	assert_int_equal(out.size_bytes, 64);
	assert_int_equal(out.queue_depth, 1);
	cJSON_Delete(o);
}

struct start_case {
	const char *body;
	int err;
	const char *why; /* the reason, whole */
};

#define NO_PHASE "START without a phase"
#define BOUNDS                                                                 \
	"START: size 1 to 4096, depth 1 to 16, iterations and duration_ns "    \
	"within the spec's limits"
#define RATE "START: rate 0 to 4e9 operations/s"

static const struct start_case start_cases[] = {
	/* missing key, wrong type, unknown value */
	{ "{}", -EBADMSG, NO_PHASE },
	{ "{\"size\":8}", -EBADMSG, NO_PHASE },
	{ "{\"phase\":1}", -EBADMSG, NO_PHASE },
	{ "{\"phase\":null}", -EBADMSG, NO_PHASE },
	{ "{\"phase\":\"sprint\"}", -EBADMSG, NO_PHASE },
	/* size */
	{ "{\"phase\":\"warmup\",\"size\":0}", -EINVAL, BOUNDS },
	{ "{\"phase\":\"warmup\",\"size\":4097}", -EINVAL, BOUNDS },
	{ "{\"phase\":\"warmup\",\"size\":-1}", -EINVAL, BOUNDS },
	{ "{\"phase\":\"warmup\",\"size\":1.5}", -EINVAL, BOUNDS },
	{ "{\"phase\":\"warmup\",\"size\":true}", -EINVAL, BOUNDS },
	{ "{\"phase\":\"warmup\",\"size\":null}", -EINVAL, BOUNDS },
	{ "{\"phase\":\"warmup\",\"size\":\"x\"}", -EINVAL, BOUNDS },
	/* depth */
	{ "{\"phase\":\"warmup\",\"depth\":0}", -EINVAL, BOUNDS },
	{ "{\"phase\":\"warmup\",\"depth\":17}", -EINVAL, BOUNDS },
	{ "{\"phase\":\"warmup\",\"depth\":[16]}", -EINVAL, BOUNDS },
	/* iterations, duration_ns */
	{ "{\"phase\":\"warmup\",\"iterations\":1099511627777}", -EINVAL,
	  BOUNDS },
	{ "{\"phase\":\"warmup\",\"iterations\":{}}", -EINVAL, BOUNDS },
	{ "{\"phase\":\"warmup\",\"duration_ns\":60000000001}", -EINVAL,
	  BOUNDS },
	{ "{\"phase\":\"warmup\",\"duration_ns\":\"soon\"}", -EINVAL, BOUNDS },
	/* rate */
	{ "{\"phase\":\"bandwidth\",\"rate\":4000000001}", -EINVAL, RATE },
	{ "{\"phase\":\"bandwidth\",\"rate\":-5}", -EINVAL, RATE },
	{ "{\"phase\":\"bandwidth\",\"rate\":false}", -EINVAL, RATE },
	/* a bad size is named before a bad rate */
	{ "{\"phase\":\"bandwidth\",\"rate\":-5,\"size\":0}", -EINVAL, BOUNDS },
};

static void test_start_errors(void **state)
{
	struct rp_start_body out, before;
	char err[200];
	size_t i;
	cJSON *o;

	(void)state;
	for (i = 0; i < sizeof(start_cases) / sizeof(start_cases[0]); i++) {
		o = parse(start_cases[i].body);
		memset(&out, 0x5a, sizeof(out));
		before = out;
		err[0] = '\0';
		assert_int_equal(
			rp_proto_start_decode(o, &lim, &out, err, sizeof(err)),
			start_cases[i].err);
		assert_string_equal(err, start_cases[i].why);
		assert_memory_equal(&out, &before, sizeof(out));
		/* no room for a reason is no reason to crash */
		assert_int_equal(rp_proto_start_decode(o, &lim, &out, NULL, 0),
				 start_cases[i].err);
		cJSON_Delete(o);
	}
}

/* An atomic moves exactly 8 bytes: the test's size when START leaves it
 * out, or the one it names. */
static void test_start_atomic(void **state)
{
	struct rp_start_bounds a = lim;
	struct rp_start_body out;
	char err[200] = "";
	cJSON *o;

	(void)state;
	a.atomic = true;
	o = parse("{\"phase\":\"latency\"}");
	assert_int_equal(rp_proto_start_decode(o, &a, &out, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "START: atomics move exactly 8 bytes");
	cJSON_Delete(o);
	o = parse("{\"phase\":\"latency\",\"size\":8}");
	assert_int_equal(rp_proto_start_decode(o, &a, &out, err, sizeof(err)),
			 0);
	assert_int_equal(out.size_bytes, 8);
	cJSON_Delete(o);
}

/* ---- STOP ------------------------------------------------------------ */

static void test_stop_wire(void **state)
{
	static const uint64_t sent[3] = { 3, 0, 123456789012345ULL };
	struct rp_stop_body b = { .phase = RP_PHASE_BANDWIDTH,
				  .abort = true,
				  .has_sent = true,
				  .n_sent = 3,
				  .sent = sent };

	(void)state;
	assert_wire(rp_proto_stop_encode(&b),
		    "{\"phase\":\"bandwidth\",\"abort\":true,"
		    "\"sent\":[3,0,123456789012345]}");
	b = (struct rp_stop_body){ .phase = RP_PHASE_LATENCY };
	assert_wire(rp_proto_stop_encode(&b), "{\"phase\":\"latency\"}");
	b = (struct rp_stop_body){ .phase = RP_PHASE_WARMUP, .has_sent = true };
	assert_wire(rp_proto_stop_encode(&b),
		    "{\"phase\":\"warmup\",\"sent\":[]}");
}

static void test_stop_round_trip(void **state)
{
	static const uint64_t sent[4] = { 1, 999999999999999ULL, 0, 123456789 };
	struct rp_stop_body in = { .has_sent = true,
				   .n_sent = 4,
				   .sent = sent };
	struct rp_stop_body out;
	uint64_t got[4];
	int p, abort_flag;
	cJSON *o;

	(void)state;
	for (p = 0; p < RP_PHASE__COUNT; p++) {
		for (abort_flag = 0; abort_flag < 2; abort_flag++) {
			in.phase = (enum rp_phase)p;
			in.abort = abort_flag;
			o = wire(rp_proto_stop_encode(&in));
			assert_int_equal(
				rp_proto_stop_decode(o, 4, got, &out, NULL, 0),
				0);
			assert_int_equal(out.phase, in.phase);
			assert_int_equal(out.abort, in.abort);
			assert_true(out.has_sent);
			assert_int_equal(out.n_sent, 4);
			assert_ptr_equal(out.sent, got);
			assert_memory_equal(got, sent, sizeof(sent));
			cJSON_Delete(o);
		}
	}
}

/* What an older client sends, or a broken one: never an error; the dues
 * it cannot give read 0. */
static void test_stop_lenient(void **state)
{
	struct rp_stop_body out;
	uint64_t got[7];
	char err[64] = "";
	cJSON *o;

	(void)state;
	o = parse("{}");
	memset(got, 0xff, sizeof(got));
	assert_int_equal(rp_proto_stop_decode(o, 3, got, &out, NULL, 0), 0);
	assert_int_equal(out.phase, RP_PHASE__COUNT);
	assert_false(out.abort);
	assert_false(out.has_sent);
	assert_int_equal(out.n_sent, 0);
	assert_int_equal(got[0] | got[1] | got[2], 0);
	cJSON_Delete(o);

	/* a wrong length counts for nothing */
	o = parse("{\"phase\":\"warmup\",\"sent\":[1,2]}");
	memset(got, 0xff, sizeof(got));
	assert_int_equal(rp_proto_stop_decode(o, 3, got, &out, NULL, 0), 0);
	assert_false(out.has_sent);
	assert_int_equal(got[0] | got[1] | got[2], 0);
	cJSON_Delete(o);

	/* each count that is not a whole number up to 2^53 reads 0 */
	o = parse("{\"phase\":\"nap\",\"abort\":\"true\",\"sent\":"
		  "[-1,1.5,\"7\",9007199254740994,null,42,9007199254740992]}");
	assert_int_equal(rp_proto_stop_decode(o, 7, got, &out, NULL, 0), 0);
	assert_int_equal(out.phase, RP_PHASE__COUNT);
	assert_false(out.abort);
	assert_true(out.has_sent);
	assert_int_equal(got[0] | got[1] | got[2] | got[3] | got[4], 0);
	assert_int_equal(got[5], 42);
	assert_int_equal(got[6], 1ULL << 53);
	cJSON_Delete(o);

	o = parse("{\"abort\":1,\"sent\":{\"0\":5}}");
	assert_int_equal(rp_proto_stop_decode(o, 1, got, &out, NULL, 0), 0);
	assert_false(out.abort);
	assert_false(out.has_sent);
	cJSON_Delete(o);

	o = parse("[]");
	assert_int_equal(
		rp_proto_stop_decode(o, 1, got, &out, err, sizeof(err)),
		-EBADMSG);
	assert_string_equal(err, "STOP: not an object");
	cJSON_Delete(o);
}

/* ---- DONE ------------------------------------------------------------ */

/* A usage with every field of its wire form set, each exact in JSON. */
static void odd_cpu(struct rp_cpu_usage *u)
{
	rp_cpu_usage_from_json(NULL, u); /* zeroed, "none", host.cpu -1 */
	u->user_s = 1.25;
	u->sys_s = 0.5;
	u->us_per_kib = 3.75;
	u->cycles_per_kib = 1234.5;
	u->hz = 2.5e9;
	u->hz_source = "tsc";
	u->host_busy_s = 2.0;
	u->host_util = 0.625;
	u->has_host = true;
	u->host = (struct rp_cpu_host){ -1, 1, 2, 0.25, 0.125, 3.5, 0.75 };
	u->n_cpus = 2;
	u->per_cpu[0] = (struct rp_cpu_host){ 3, 0.5, 0.25, 0, 0, 0.75, 0.5 };
	u->per_cpu[1] = (struct rp_cpu_host){ 7, 1, 0, 0.5, 0, 1.5, 1 };
	u->n_threads = 1;
	u->threads[0] = (struct rp_cpu_thread){ 3, 0.875, 0.125 };
}

static void test_done_wire(void **state)
{
	struct rp_done_body b = { .messages = 5,
				  .bytes = 20480,
				  .verify_errors = 2,
				  .has_zc = true,
				  .zc = { 4, 3, 1 } };
	cJSON *dir = parse("{\"streams\":1,\"bytes\":8}");
	const char *head =
		"{\"direction\":{\"streams\":1,\"bytes\":8},"
		"\"messages\":5,\"bytes\":20480,\"verify_errors\":2,"
		"\"zerocopy\":{\"issued\":4,\"sends\":3,\"copied\":1},"
		"\"cpu\":{";
	cJSON *o;
	char *text;

	(void)state;
	odd_cpu(&b.cpu);
	b.direction = dir;
	o = rp_proto_done_encode(&b);
	assert_non_null(o);
	text = cJSON_PrintUnformatted(o);
	assert_non_null(text);
	assert_memory_equal(text, head, strlen(head));
	free(text);
	cJSON_Delete(o);
	cJSON_Delete(dir);

	/* no --bidir, no --zerocopy: neither key travels */
	b.direction = NULL;
	b.has_zc = false;
	o = rp_proto_done_encode(&b);
	assert_non_null(o);
	assert_null(cJSON_GetObjectItemCaseSensitive(o, "direction"));
	assert_null(cJSON_GetObjectItemCaseSensitive(o, "zerocopy"));
	assert_string_equal(o->child->string, "messages");
	cJSON_Delete(o);
}

static void test_done_round_trip(void **state)
{
	struct rp_done_body in = { .messages = 999999999999999ULL,
				   .bytes = 987654321012ULL,
				   .verify_errors = 17,
				   .has_zc = true,
				   .zc = { 1000, 999, 12 } };
	struct rp_done_body out;
	cJSON *dir = parse("{\"streams\":2,\"per_stream\":[{\"stream\":0}]}");
	cJSON *o;

	(void)state;
	odd_cpu(&in.cpu);
	in.direction = dir;
	o = wire(rp_proto_done_encode(&in));
	assert_int_equal(rp_proto_done_decode(o, &out, NULL, 0), 0);
	assert_int_equal(out.messages, in.messages);
	assert_int_equal(out.bytes, in.bytes);
	assert_int_equal(out.verify_errors, in.verify_errors);
	assert_true(out.has_zc);
	assert_memory_equal(&out.zc, &in.zc, sizeof(in.zc));
	assert_string_equal(out.cpu.hz_source, in.cpu.hz_source);
	out.cpu.hz_source = in.cpu.hz_source;
	assert_memory_equal(&out.cpu, &in.cpu, sizeof(in.cpu));
	assert_non_null(out.direction);
	assert_true(cJSON_Compare(out.direction, dir, 1));
	assert_ptr_equal(out.direction,
			 cJSON_GetObjectItemCaseSensitive(o, "direction"));
	cJSON_Delete(o);
	cJSON_Delete(dir);

	/* without the optional parts */
	in.has_zc = false;
	in.direction = NULL;
	o = wire(rp_proto_done_encode(&in));
	assert_int_equal(rp_proto_done_decode(o, &out, NULL, 0), 0);
	assert_false(out.has_zc);
	assert_int_equal(out.zc.issued | out.zc.sends | out.zc.copied, 0);
	assert_null(out.direction);
	cJSON_Delete(o);
}

/* Figures a peer reports: what is missing or malformed reads 0 (a server
 * older than --zerocopy has no "zerocopy"). */
static void test_done_lenient(void **state)
{
	struct rp_done_body out;
	char err[64] = "";
	cJSON *o;

	(void)state;
	o = parse("{\"messages\":-1,\"bytes\":\"12\",\"verify_errors\":true,"
		  "\"zerocopy\":[1],\"cpu\":7,\"direction\":[]}");
	assert_int_equal(rp_proto_done_decode(o, &out, NULL, 0), 0);
	assert_int_equal(out.messages, 0);
	assert_int_equal(out.bytes, 12);
	assert_int_equal(out.verify_errors, 0);
	assert_false(out.has_zc);
	assert_string_equal(out.cpu.hz_source, "none");
	assert_true(out.cpu.user_s == 0);
	assert_null(out.direction);
	cJSON_Delete(o);

	o = parse("{\"zerocopy\":{\"issued\":2.5,\"sends\":1}}");
	assert_int_equal(rp_proto_done_decode(o, &out, NULL, 0), 0);
	assert_true(out.has_zc);
	assert_int_equal(out.zc.issued, 0);
	assert_int_equal(out.zc.sends, 1);
	assert_int_equal(out.messages, 0);
	cJSON_Delete(o);

	o = parse("\"done\"");
	assert_int_equal(rp_proto_done_decode(o, &out, err, sizeof(err)),
			 -EBADMSG);
	assert_string_equal(err, "DONE: not an object");
	cJSON_Delete(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_start_wire),
		cmocka_unit_test(test_start_round_trip),
		cmocka_unit_test(test_start_defaults),
		cmocka_unit_test(test_start_errors),
		cmocka_unit_test(test_start_atomic),
		cmocka_unit_test(test_stop_wire),
		cmocka_unit_test(test_stop_round_trip),
		cmocka_unit_test(test_stop_lenient),
		cmocka_unit_test(test_done_wire),
		cmocka_unit_test(test_done_round_trip),
		cmocka_unit_test(test_done_lenient),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
