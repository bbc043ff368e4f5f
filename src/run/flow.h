/* SPDX-License-Identifier: MIT */
/*
 * Figures of a set of operations: from what the engine saw on each stream
 * to a direction's per-stream and aggregate flows, and the JSON a server
 * sends them in (its initiator's direction, under --bidir).
 */
#ifndef RP_RUN_FLOW_H
#define RP_RUN_FLOW_H

#include "run/engine.h"
#include "run/run.h"

/** rp_flow_rates - bits, MiB and messages per second of @f's bytes,
 *  messages and seconds (0 when no time passed). */
void rp_flow_rates(struct rp_flow *f);

/**
 * rp_direction_build - @d from the @n engine streams of @es, stream i
 * driven by thread i % @threads, messages of @size bytes: per stream and
 * the sum (bytes, messages, first post to last completion over all
 * streams, the latency of every operation merged through @scratch).
 * Return: 0 or -ENOMEM.
 */
int rp_direction_build(struct rp_direction *d,
		       const struct rp_engine_stream *es, unsigned int n,
		       unsigned int threads, uint64_t size,
		       struct rp_hist *scratch);

/** rp_direction_fini - free @d's per-stream array; @d may be zeroed. */
void rp_direction_fini(struct rp_direction *d);

/** rp_direction_to_json - @d for the wire. Return: NULL on no memory. */
cJSON *rp_direction_to_json(const struct rp_direction *d);

/**
 * rp_direction_from_json - @d from what a peer sent: at most @max_streams
 * streams; every missing or mistyped number reads as 0 (hostile input
 * gives nonsense figures, never a crash). Return: 0 or -ENOMEM.
 */
int rp_direction_from_json(const cJSON *o, uint32_t max_streams,
			   struct rp_direction *d);

#endif
