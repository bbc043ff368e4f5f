// SPDX-License-Identifier: MIT
/*
 * Unit tests of core/spec: defaults, every validation rule at its bounds and
 * just outside them (with a message naming the field), operation names.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/spec.h"

#define MAX_DURATION_NS (RP_SPEC_MAX_SECONDS * 1000000000ULL)

static char err[256];

static void accept_spec(const struct rp_spec *s)
{
	err[0] = '\0';
	if (rp_spec_validate(s, err, sizeof(err)))
		fail_msg("rejected: %s", err);
}

static void reject_spec(const struct rp_spec *s, const char *field)
{
	err[0] = '\0';
	assert_int_equal(rp_spec_validate(s, err, sizeof(err)), -EINVAL);
	if (!strstr(err, field))
		fail_msg("message \"%s\" does not name \"%s\"", err, field);
}

static struct rp_spec defaults(void)
{
	struct rp_spec s;

	rp_spec_defaults(&s);
	return s;
}

static void test_defaults(void **state)
{
	struct rp_spec s = defaults();

	(void)state;
	accept_spec(&s);
	assert_string_equal(s.transport, "tcp");
	assert_int_equal(s.op, RP_OP_WRITE);
	assert_int_equal(s.size_bytes, 65536);
	assert_int_equal(s.queue_depth, 16);
	assert_int_equal(s.iterations, 10000);
	assert_int_equal(s.duration_ns, 0);
	assert_int_equal(s.warmup, 1000);
	assert_int_equal(s.lat_iterations, 1000);
	assert_true(s.latency);
	assert_true(s.bandwidth);
	assert_false(s.verify);
	assert_int_equal(rp_spec_validate(&s, NULL, 0), 0);
}

static void test_size(void **state)
{
	struct rp_spec s = defaults();

	(void)state;
	s.queue_depth = 1;
	s.size_bytes = 1;
	accept_spec(&s);
	s.size_bytes = RP_SPEC_MAX_SIZE;
	accept_spec(&s);
	s.size_bytes = RP_SPEC_MAX_SIZE + 1;
	reject_spec(&s, "size");
	s.size_bytes = 0;
	reject_spec(&s, "size");
	assert_string_equal(err,
			    "size 0 out of range: accepted 1 to 1073741824 "
			    "bytes");
	assert_int_equal(rp_spec_validate(&s, NULL, 0), -EINVAL);
}

static void test_queue_depth(void **state)
{
	struct rp_spec s = defaults();

	(void)state;
	s.queue_depth = 1;
	accept_spec(&s);
	s.queue_depth = RP_SPEC_MAX_DEPTH;
	accept_spec(&s);
	s.queue_depth = RP_SPEC_MAX_DEPTH + 1;
	reject_spec(&s, "queue_depth");
	s.queue_depth = 0;
	reject_spec(&s, "queue_depth");
	s.queue_depth = UINT32_MAX;
	reject_spec(&s, "queue_depth");
}

static void test_memory(void **state)
{
	struct rp_spec s = defaults();

	(void)state;
	s.size_bytes = RP_SPEC_MAX_SIZE;
	s.queue_depth = RP_SPEC_MAX_MEM / RP_SPEC_MAX_SIZE;
	accept_spec(&s);
	s.queue_depth++;
	reject_spec(&s, "size * queue_depth");
	s.queue_depth = RP_SPEC_MAX_DEPTH;
	s.size_bytes = RP_SPEC_MAX_MEM / RP_SPEC_MAX_DEPTH;
	accept_spec(&s);
	s.size_bytes++;
	reject_spec(&s, "size * queue_depth");
	s.size_bytes = RP_SPEC_MAX_SIZE;
	reject_spec(&s, "size * queue_depth");
}

static void test_iterations(void **state)
{
	struct rp_spec s = defaults();

	(void)state;
	s.duration_ns = 0;
	s.iterations = 1;
	accept_spec(&s);
	s.iterations = RP_SPEC_MAX_ITERS;
	accept_spec(&s);
	s.iterations = RP_SPEC_MAX_ITERS + 1;
	reject_spec(&s, "iterations");
	s.iterations = 0;
	reject_spec(&s, "duration_ns"); /* neither given */
	reject_spec(&s, "iterations");
	s.iterations = 1;
	s.duration_ns = 1;
	reject_spec(&s, "duration_ns"); /* both given */
	reject_spec(&s, "iterations");
}

static void test_duration(void **state)
{
	struct rp_spec s = defaults();

	(void)state;
	s.iterations = 0;
	s.duration_ns = 1;
	accept_spec(&s);
	s.duration_ns = MAX_DURATION_NS;
	accept_spec(&s);
	s.duration_ns = MAX_DURATION_NS + 1;
	reject_spec(&s, "duration_ns");
	s.duration_ns = UINT64_MAX;
	reject_spec(&s, "duration_ns");
}

static void test_no_bandwidth(void **state)
{
	struct rp_spec s = defaults();

	(void)state;
	s.bandwidth = false;
	s.iterations = 0;
	s.duration_ns = 0;
	accept_spec(&s);
	s.iterations = RP_SPEC_MAX_ITERS;
	s.duration_ns = MAX_DURATION_NS;
	accept_spec(&s);
	s.iterations = RP_SPEC_MAX_ITERS + 1;
	reject_spec(&s, "iterations");
	s.iterations = 0;
	s.duration_ns = MAX_DURATION_NS + 1;
	reject_spec(&s, "duration_ns");
	s.duration_ns = 0;
	s.latency = false;
	reject_spec(&s, "latency");
	reject_spec(&s, "bandwidth");
}

static void test_lat_iterations(void **state)
{
	struct rp_spec s = defaults();

	(void)state;
	s.lat_iterations = 1;
	accept_spec(&s);
	s.lat_iterations = RP_SPEC_MAX_ITERS;
	accept_spec(&s);
	s.lat_iterations = RP_SPEC_MAX_ITERS + 1;
	reject_spec(&s, "lat_iterations");
	s.lat_iterations = 0;
	reject_spec(&s, "lat_iterations");
	s.latency = false;
	accept_spec(&s);
	s.lat_iterations = RP_SPEC_MAX_ITERS + 1;
	reject_spec(&s, "lat_iterations");
}

static void test_warmup(void **state)
{
	struct rp_spec s = defaults();

	(void)state;
	s.warmup = 0;
	accept_spec(&s);
	s.warmup = RP_SPEC_MAX_ITERS;
	accept_spec(&s);
	s.warmup = RP_SPEC_MAX_ITERS + 1;
	reject_spec(&s, "warmup");
}

static void test_atomics(void **state)
{
	static const enum rp_op ops[] = { RP_OP_FETCH_ADD, RP_OP_CMP_SWAP };
	struct rp_spec s = defaults();
	size_t i;

	(void)state;
	for (i = 0; i < 2; i++) {
		s.op = ops[i];
		s.size_bytes = 8;
		accept_spec(&s);
		s.size_bytes = 7;
		reject_spec(&s, "size");
		s.size_bytes = 9;
		reject_spec(&s, "size");
		reject_spec(&s, rp_op_name(ops[i]));
	}
	s.op = RP_OP_SEND;
	accept_spec(&s);
}

static void test_transport(void **state)
{
	static const char *const good[] = { "tcp", "rdma", "rsocket", "a_9",
					    "abcdefghijklmno" };
	static const char *const bad[] = { "", "TCP", "tc-p", "t p", "tcp\n" };
	struct rp_spec s = defaults();
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		strcpy(s.transport, good[i]);
		accept_spec(&s);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		strcpy(s.transport, bad[i]);
		reject_spec(&s, "transport");
	}
	memset(s.transport, 'a', sizeof(s.transport)); /* no NUL */
	reject_spec(&s, "transport");
}

/* --zerocopy: tcp only, never with verify. */
static void test_zerocopy(void **state)
{
	struct rp_spec s = defaults();

	(void)state;
	strcpy(s.transport, "tcp");
	s.zerocopy = true;
	accept_spec(&s);
	s.verify = true;
	reject_spec(&s, "zerocopy");
	s.verify = false;
	strcpy(s.transport, "rsocket");
	reject_spec(&s, "zerocopy");
}

static void test_op_range(void **state)
{
	struct rp_spec s = defaults();

	(void)state;
	s.op = RP_OP_CMP_SWAP;
	s.size_bytes = 8;
	accept_spec(&s);
	s.op = RP_OP__COUNT;
	reject_spec(&s, "op");
	s.op = (enum rp_op) - 1;
	reject_spec(&s, "op");
}

static void expect_op(const char *text, enum rp_op want)
{
	enum rp_op op = RP_OP__COUNT;

	if (rp_op_parse(text, &op))
		fail_msg("\"%s\" not parsed", text);
	assert_int_equal(op, want);
}

static void test_op_names(void **state)
{
	static const char *const names[] = { "write",	  "read",
					     "send",	  "write_imm",
					     "fetch_add", "cmp_swap" };
	enum rp_op op;
	int i;

	(void)state;
	for (i = 0; i < RP_OP__COUNT; i++) {
		assert_string_equal(rp_op_name((enum rp_op)i), names[i]);
		expect_op(names[i], (enum rp_op)i);
	}
	assert_string_equal(rp_op_name(RP_OP__COUNT), "unknown");
	expect_op("WRITE", RP_OP_WRITE);
	expect_op("Fetch_Add", RP_OP_FETCH_ADD);
	expect_op("fadd", RP_OP_FETCH_ADD);
	expect_op("cswap", RP_OP_CMP_SWAP);
	assert_int_equal(rp_op_parse("", &op), -EINVAL);
	assert_int_equal(rp_op_parse("x", &op), -EINVAL);
	assert_int_equal(rp_op_parse("writes", &op), -EINVAL);
	assert_int_equal(rp_op_parse(NULL, &op), -EINVAL);
}

static void test_op_letters(void **state)
{
	(void)state;
	expect_op("W", RP_OP_WRITE);
	expect_op("w", RP_OP_WRITE);
	expect_op("R", RP_OP_READ);
	expect_op("r", RP_OP_READ);
	expect_op("S", RP_OP_SEND);
	expect_op("s", RP_OP_SEND);
}

static void test_op_atomic(void **state)
{
	(void)state;
	assert_true(rp_op_is_atomic(RP_OP_FETCH_ADD));
	assert_true(rp_op_is_atomic(RP_OP_CMP_SWAP));
	assert_false(rp_op_is_atomic(RP_OP_WRITE));
	assert_false(rp_op_is_atomic(RP_OP_READ));
	assert_false(rp_op_is_atomic(RP_OP_SEND));
	assert_false(rp_op_is_atomic(RP_OP_WRITE_IMM));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_size),
		cmocka_unit_test(test_queue_depth),
		cmocka_unit_test(test_memory),
		cmocka_unit_test(test_iterations),
		cmocka_unit_test(test_duration),
		cmocka_unit_test(test_no_bandwidth),
		cmocka_unit_test(test_lat_iterations),
		cmocka_unit_test(test_warmup),
		cmocka_unit_test(test_atomics),
		cmocka_unit_test(test_transport),
		cmocka_unit_test(test_op_range),
		cmocka_unit_test(test_op_names),
		cmocka_unit_test(test_op_letters),
		cmocka_unit_test(test_op_atomic),
		cmocka_unit_test(test_zerocopy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
