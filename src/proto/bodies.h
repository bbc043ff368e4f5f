/* SPDX-License-Identifier: MIT */
/*
 * The bodies of START, STOP and DONE (proto/proto.h draws where each
 * travels): a struct each, encoded into the JSON object that goes on the
 * wire and decoded from the one a peer sent. Pure functions: no I/O, no
 * state. The keys and their order are the wire format:
 *
 *   START {phase, size, depth, iterations, duration_ns, rate}
 *   STOP  {phase, abort (only when true), sent (outside the latency phase)}
 *   DONE  {direction (--bidir), messages, bytes, verify_errors,
 *          zerocopy (--zerocopy), cpu, counters (where the server's link
 *          has them)}
 *
 * START is checked against the test and the server's limits; STOP and
 * DONE are read leniently, as every peer has sent them: a missing or
 * malformed member reads as absent, never as an error.
 */
#ifndef RP_PROTO_BODIES_H
#define RP_PROTO_BODIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "core/cpu.h"
#include "core/zc.h"
#include "xport/xport.h" /* enum rp_phase */

/** START: the phase, the point, how long the server's initiators run. */
struct rp_start_body {
	enum rp_phase phase;
	uint64_t size_bytes;
	uint32_t queue_depth;
	uint64_t iterations;  /* the server's own initiators (--bidir) */
	uint64_t duration_ns; /* likewise; both 0: no length (a 1.0 client) */
	uint64_t rate;	      /* --rate, operations/s; 0: closed loop */
};

/** What a START may ask for: the test's point and the server's limits. */
struct rp_start_bounds {
	uint64_t size_bytes;	  /* the test's size: the default, the most */
	uint32_t queue_depth;	  /* the test's depth: the default, the most */
	uint64_t max_duration_ns; /* the server's --max-time */
	bool atomic;		  /* the test's op is an atomic: 8 bytes */
};

/** STOP: the phase ends; what the client's initiators completed. */
struct rp_stop_body {
	enum rp_phase phase; /* decoded: RP_PHASE__COUNT when absent, unknown */
	bool abort;	     /* the client was interrupted */
	bool has_sent;	     /* "sent" travels (not in the latency phase) */
	unsigned int n_sent;
	const uint64_t *sent; /* per client-initiated stream, n_sent */
};

/** DONE: the server's side of the phase. */
struct rp_done_body {
	uint64_t messages; /* what the responders saw of the client's */
	uint64_t bytes;
	uint64_t verify_errors;
	/* --srq: times the server's shared receive queue reached its limit
	 * over the phase (has_srq: the server said; an older one does not) */
	bool has_srq;
	uint64_t srq_limit_events;
	bool has_zc; /* --zerocopy: the server's counts over the test */
	struct rp_zc_count zc;
	struct rp_cpu_usage cpu;
	/* --bidir outside the latency phase: the server's own direction, as
	 * run/flow.h's rp_direction_to_json writes it and
	 * rp_direction_from_json reads it; NULL: none. Decoded, it points
	 * into the decoded object. */
	const cJSON *direction;
	/* What the server's port or netdev counted over the phase, in
	 * core/counters.h's rp_counters_json form; NULL: none (no counters,
	 * or an older server). Decoded, it points into the decoded object. */
	const cJSON *counters;
};

/**
 * rp_proto_start_encode - @b as START's body.
 * Return: the object (caller deletes it), or NULL on no memory.
 */
cJSON *rp_proto_start_encode(const struct rp_start_body *b);

/**
 * rp_proto_start_decode - START's body from @obj, within @lim: a known
 * phase is required; size (1 to lim->size_bytes, exactly 8 for an
 * atomic), depth (1 to lim->queue_depth), iterations (to
 * RP_SPEC_MAX_ITERS), duration_ns (to lim->max_duration_ns) and rate (to
 * RP_SPEC_MAX_RATE) may be left out: the test's size and depth, 0 for
 * the others. A number may be a whole JSON number or a decimal string.
 * @err: a one-line reason, for the client, on failure.
 * Return: 0; -EBADMSG without a phase; -EINVAL for a value out of bounds.
 */
int rp_proto_start_decode(const cJSON *obj, const struct rp_start_bounds *lim,
			  struct rp_start_body *out, char *err, size_t errlen);

/**
 * rp_proto_stop_encode - @b as STOP's body: "abort" only when true,
 * "sent" only with b->has_sent.
 * Return: the object (caller deletes it), or NULL on no memory.
 */
cJSON *rp_proto_stop_encode(const struct rp_stop_body *b);

/**
 * rp_proto_stop_decode - STOP's body from @obj. Lenient: an unknown
 * phase reads RP_PHASE__COUNT, anything but true reads as no abort, and
 * "sent" counts only as an array of exactly @n_streams: then out->has_sent
 * and each count in @sent[i], 0 for one that is not a whole number up to
 * 2^53; otherwise (an older client's nothing, a wrong length) no
 * has_sent and @sent all 0. out->sent points to @sent.
 * @sent: room for @n_streams counts.
 * Return: 0; -EBADMSG (with @err) when @obj is not an object.
 */
int rp_proto_stop_decode(const cJSON *obj, unsigned int n_streams,
			 uint64_t *sent, struct rp_stop_body *out, char *err,
			 size_t errlen);

/**
 * rp_proto_done_encode - @b as DONE's body: "direction" (a copy of
 * b->direction) when there is one, "zerocopy" only with b->has_zc,
 * "counters" (a copy) when there are some.
 * Return: the object (caller deletes it), or NULL on no memory.
 */
cJSON *rp_proto_done_encode(const struct rp_done_body *b);

/**
 * rp_proto_done_decode - DONE's body from @obj. Lenient, as figures a peer
 * reports are: a missing or malformed count reads 0, the CPU as
 * rp_cpu_usage_from_json reads it, out->has_zc when "zerocopy" is an
 * object, out->direction when "direction" is one (else NULL), and
 * out->counters likewise.
 * Return: 0; -EBADMSG (with @err) when @obj is not an object.
 */
int rp_proto_done_decode(const cJSON *obj, struct rp_done_body *out, char *err,
			 size_t errlen);

#endif
