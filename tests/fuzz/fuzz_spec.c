// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the spec's gate, rp_spec_validate, on a spec whose
 * every field comes from the input, raw (little-endian, missing bytes are
 * zeros):
 *
 *   0   transport  16 bytes, NUL-terminated or not
 *   16  op         i32        20 size_bytes   u64    28 queue_depth u32
 *   32  iterations u64        40 duration_ns  u64    48 warmup      u64
 *   56  lat_iter.  u64        64 flags: latency 1, bandwidth 2, verify 4,
 *                                bidir 8
 *   65  streams    u32        69 threads      u32    73 wait        i32
 *
 * It checks rp_spec_validate against the limits as spec.h states them (an
 * oracle written from the header, not from spec.c), that a refusal names
 * a reason that fits any buffer, and that a valid spec survives
 * rp_proto_spec_encode and rp_proto_spec_decode unchanged while an invalid
 * one is refused by the decoder too.
 *
 * Built with clang -fsanitize=fuzzer for fuzzing, or with replay.c as a plain
 * program that CTest runs over the seed corpus.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/clock.h"
#include "proto/proto.h"
#include "common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct reader {
	const uint8_t *p;
	size_t left;
};

/* @n bytes little-endian; zeros past the end of the input. */
static uint64_t take(struct reader *r, unsigned int n)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		uint64_t b = r->left ? *r->p : 0;

		if (r->left) {
			r->p++;
			r->left--;
		}
		v |= b << (8 * i);
	}
	return v;
}

static void spec_from_bytes(const uint8_t *data, size_t size, struct rp_spec *s)
{
	struct reader r = { data, size };
	unsigned int i, flags;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < RP_SPEC_NAME_LEN; i++)
		s->transport[i] = (char)take(&r, 1);
	s->op = (enum rp_op)(int32_t)take(&r, 4);
	s->size_bytes = take(&r, 8);
	s->queue_depth = (uint32_t)take(&r, 4);
	s->iterations = take(&r, 8);
	s->duration_ns = take(&r, 8);
	s->warmup = take(&r, 8);
	s->lat_iterations = take(&r, 8);
	flags = (unsigned int)take(&r, 1);
	s->latency = flags & 1;
	s->bandwidth = flags & 2;
	s->verify = flags & 4;
	s->bidir = flags & 8;
	s->streams = (uint32_t)take(&r, 4);
	s->threads = (uint32_t)take(&r, 4);
	s->wait = (enum rp_wait)(int32_t)take(&r, 4);
}

/* ---- the oracle: spec.h's limits, one rule per line ------------------- */

static bool transport_ok(const char *t)
{
	size_t n = strnlen(t, RP_SPEC_NAME_LEN), i, colons = 0;

	if (n == 0 || n == RP_SPEC_NAME_LEN)
		return false;
	for (i = 0; i < n; i++) {
		/* NAME:VARIANT (ofi:tcp): one ':' with a name on each side */
		if (t[i] == ':' && i > 0 && i + 1 < n && !colons++)
			continue;
		if (!strchr("abcdefghijklmnopqrstuvwxyz0123456789_", t[i]))
			return false;
	}
	return true;
}

/* size * queue_depth * streams (* 2 under bidir), without overflow */
static bool mem_ok(const struct rp_spec *s)
{
	uint64_t mem;

	if (__builtin_mul_overflow(s->size_bytes, (uint64_t)s->queue_depth,
				   &mem) ||
	    __builtin_mul_overflow(mem, (uint64_t)s->streams, &mem) ||
	    __builtin_mul_overflow(mem, (uint64_t)(s->bidir ? 2 : 1), &mem))
		return false;
	return mem <= RP_SPEC_MAX_MEM;
}

static bool shape_ok(const struct rp_spec *s)
{
	return transport_ok(s->transport) &&
	       (unsigned int)s->op < RP_OP__COUNT && s->size_bytes >= 1 &&
	       s->size_bytes <= RP_SPEC_MAX_SIZE && s->queue_depth >= 1 &&
	       s->queue_depth <= RP_SPEC_MAX_DEPTH && s->streams >= 1 &&
	       s->streams <= RP_SPEC_MAX_STREAMS && mem_ok(s) &&
	       (!rp_op_is_atomic(s->op) || s->size_bytes == 8);
}

static bool run_ok(const struct rp_spec *s)
{
	return s->threads >= 1 && s->threads <= RP_SPEC_MAX_THREADS &&
	       s->threads <= s->streams &&
	       (unsigned int)s->wait < RP_WAIT__COUNT;
}

static bool phases_ok(const struct rp_spec *s)
{
	uint64_t max_ns = RP_SPEC_MAX_SECONDS * RP_NS_PER_SEC;

	if (!s->latency && !s->bandwidth)
		return false;
	if (s->bandwidth && !s->iterations == !s->duration_ns)
		return false;
	return s->iterations <= RP_SPEC_MAX_ITERS && s->duration_ns <= max_ns &&
	       s->warmup <= RP_SPEC_MAX_ITERS &&
	       s->lat_iterations <= RP_SPEC_MAX_ITERS &&
	       (!s->latency || s->lat_iterations >= 1);
}

static bool oracle(const struct rp_spec *s)
{
	return shape_ok(s) && run_ok(s) && phases_ok(s);
}

/* ---- checks ------------------------------------------------------------ */

/* A refusal's reason: non-empty, and cut to fit a buffer of any size. */
static void check_reasons(const struct rp_spec *s)
{
	char err[256], small[5];

	memset(err, 'x', sizeof(err));
	FUZZ_CHECK(rp_spec_validate(s, err, sizeof(err)) < 0, "refused");
	FUZZ_CHECK(err[0] && memchr(err, '\0', sizeof(err)),
		   "a refusal says why, NUL-terminated");
	memset(small, 'x', sizeof(small));
	rp_spec_validate(s, small, sizeof(small));
	FUZZ_CHECK(memchr(small, '\0', sizeof(small)), "reason truncated");
	rp_spec_validate(s, NULL, 0);
}

static void check_wire(const struct rp_spec *s, bool valid)
{
	struct rp_spec again;
	char err[256];
	cJSON *enc = rp_proto_spec_encode(s);
	int ret;

	if (!enc)
		return;
	ret = rp_proto_spec_decode(enc, &again, err, sizeof(err));
	cJSON_Delete(enc);
	if (valid) {
		FUZZ_CHECK(!ret, "a valid spec decodes from its encoding");
		FUZZ_CHECK(fuzz_spec_equal(s, &again), "spec round trip");
	} else {
		FUZZ_CHECK(ret || !fuzz_spec_equal(s, &again),
			   "the decoder refuses what validate refuses");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rp_spec s;
	bool valid;

	spec_from_bytes(data, size, &s);
	valid = !rp_spec_validate(&s, NULL, 0);
	if (valid != oracle(&s)) {
		fprintf(stderr, "rp_spec_validate says %s, spec.h says %s\n",
			valid ? "valid" : "invalid",
			valid ? "invalid" : "valid");
		FUZZ_CHECK(false, "rp_spec_validate agrees with spec.h");
	}
	if (!valid)
		check_reasons(&s);
	check_wire(&s, valid);
	return 0;
}
