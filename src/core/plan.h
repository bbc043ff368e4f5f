/* SPDX-License-Identifier: MIT */
/*
 * The all-pairs plan of a --matrix run: every ordered pair of N ranks
 * (client, server) exactly once, in rounds in which no rank is in two
 * pairs, so the pairs of a round can run at once without sharing a node.
 *
 * A round-robin tournament (the circle method): with M = N rounded up to
 * even, M - 1 rounds of M / 2 unordered pairs cover every unordered pair
 * once (with N odd, the pair with the extra slot is a bye); the plan runs
 * the tournament twice, the second time with client and server swapped:
 * 2 (M - 1) rounds, N (N - 1) pairs. Serial: one pair per round.
 */
#ifndef RP_CORE_PLAN_H
#define RP_CORE_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The most ranks a matrix takes: 4096 x 4095 pairs. */
#define RP_PLAN_MAX_RANKS 4096

struct rp_pair {
	uint32_t client; /* rank that runs the client, the initiator */
	uint32_t server; /* rank whose server it tests */
	uint32_t round;	 /* 0.. */
};

struct rp_plan {
	uint32_t ranks;
	uint32_t rounds;
	size_t n; /* pairs, sorted by round */
	struct rp_pair *pairs;
};

/**
 * rp_plan_make - the plan for @ranks ranks (2 to RP_PLAN_MAX_RANKS); one
 * pair per round when @serial. Return: 0, -EINVAL for a count outside the
 * range, -ENOMEM.
 */
int rp_plan_make(struct rp_plan *p, uint32_t ranks, bool serial);

/** rp_plan_free - free what rp_plan_make() allocated. */
void rp_plan_free(struct rp_plan *p);

/**
 * rp_plan_role - @rank's pair in @round: the index into p->pairs, or -1
 * when it sits the round out.
 */
long rp_plan_role(const struct rp_plan *p, uint32_t round, uint32_t rank);

/** rp_plan_round - the pairs of @round: p->pairs[*first .. *first + n),
 *  found by binary search (the pairs of a round are consecutive). */
size_t rp_plan_round(const struct rp_plan *p, uint32_t round, size_t *first);

#endif
