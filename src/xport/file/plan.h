/* SPDX-License-Identifier: MIT */
/*
 * Where the file transport's operations go: the region of --file-size is
 * cut into slots of the point's size; operation after operation takes the
 * next slot (sequential, wrapping at the region's end) or a pseudo-random
 * one (--random, reproducible: the same seed gives the same slots). Pure
 * logic, no I/O, so that tests/unit/test_file_plan.c checks it.
 */
#ifndef RP_XPORT_FILE_PLAN_H
#define RP_XPORT_FILE_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rp_file_plan {
	uint64_t slots; /* the region's slots of the current size, >= 1 */
	uint64_t next;	/* sequential: the next operation's slot */
	uint64_t rng;	/* random: xorshift64* state, never 0 */
	bool random;
};

/**
 * rp_file_plan_init - the plan of stream @stream of @streams over a region
 * of @region_bytes in slots of @size_bytes (both > 0, size <= region).
 * Sequential streams start at their share of the region (stream i at slot
 * i * slots / streams), random ones from a seed of their own.
 */
void rp_file_plan_init(struct rp_file_plan *p, uint64_t region_bytes,
		       uint64_t size_bytes, bool random, unsigned int stream,
		       unsigned int streams);

/** rp_file_plan_next - the slot of the next operation, below p->slots. */
uint64_t rp_file_plan_next(struct rp_file_plan *p);

/** rp_file_fsync_due - with --fsync-every @every (0: never), does write
 *  number @writes (1 for the first) get an fsync after it? */
static inline bool rp_file_fsync_due(uint64_t writes, uint64_t every)
{
	return every && writes && writes % every == 0;
}

/**
 * rp_file_fill_slots - the pattern of @n slots of @size_bytes from slot
 * @first into @buf (n * size bytes): slot k holds rp_payload_fill() of
 * message k, so a read of slot k checks against message k's pattern.
 */
void rp_file_fill_slots(uint8_t *buf, uint64_t size_bytes, uint64_t first,
			uint64_t n);

#endif
