// SPDX-License-Identifier: MIT
/*
 * The file transport's offsets: sequential or random slots of a region
 * (plan.h). The random generator is xorshift64* (Vigna): fast, full period
 * over the non-zero 64-bit states, good enough to spread operations.
 */
#include "xport/file/plan.h"
#include "xport/xport.h"

#define SEED 0x9e3779b97f4a7c15ULL /* 2^64 / golden ratio */

void rp_file_plan_init(struct rp_file_plan *p, uint64_t region_bytes,
		       uint64_t size_bytes, bool random, unsigned int stream,
		       unsigned int streams)
{
	p->slots = region_bytes / size_bytes;
	if (!p->slots)
		p->slots = 1;
	p->random = random;
	p->next = streams > 1 ? p->slots / streams * stream : 0;
	p->rng = SEED * (stream + 1ULL);
}

static uint64_t xorshift64s(uint64_t *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 0x2545f4914f6cdd1dULL;
}

uint64_t rp_file_plan_next(struct rp_file_plan *p)
{
	uint64_t slot;

	if (p->random)
		return xorshift64s(&p->rng) % p->slots;
	slot = p->next;
	p->next = slot + 1 == p->slots ? 0 : slot + 1;
	return slot;
}

void rp_file_fill_slots(uint8_t *buf, uint64_t size_bytes, uint64_t first,
			uint64_t n)
{
	uint64_t i;

	for (i = 0; i < n; i++)
		rp_payload_fill(buf + i * size_bytes, (size_t)size_bytes,
				first + i);
}
