// SPDX-License-Identifier: MIT
/* The all-pairs plan of a --matrix run (plan.h): the circle method. */
#include <errno.h>
#include <stdlib.h>

#include "core/plan.h"

/* The unordered pairs of round @r of the tournament of @m (even) slots,
 * written to @out as (a, b); pairs with a slot >= @ranks (the bye) left
 * out. Slot m - 1 stays put, the others turn one place per round. */
static size_t circle_round(uint32_t m, uint32_t ranks, uint32_t r,
			   struct rp_pair *out)
{
	uint32_t k, a, b, turn = m - 1;
	size_t n = 0;

	for (k = 0; k < m / 2; k++) {
		a = k == 0 ? m - 1 : (r + k) % turn;
		b = (r + turn - k) % turn;
		if (a >= ranks || b >= ranks)
			continue;
		/* alternate which end is first so neither slot is always
		 * the client in the first pass */
		if ((r + k) & 1)
			out[n++] = (struct rp_pair){ b, a, 0 };
		else
			out[n++] = (struct rp_pair){ a, b, 0 };
	}
	return n;
}

static void number_rounds(struct rp_plan *p, bool serial,
			  const size_t *round_len, uint32_t rounds)
{
	size_t i = 0, k;
	uint32_t r;

	for (r = 0; r < rounds; r++)
		for (k = 0; k < round_len[r]; k++, i++)
			p->pairs[i].round = serial ? (uint32_t)i : r;
	p->rounds = serial ? (uint32_t)p->n : rounds;
}

int rp_plan_make(struct rp_plan *p, uint32_t ranks, bool serial)
{
	uint32_t m = ranks + (ranks & 1), turns = m - 1, r;
	size_t *len, half = 0, k;

	*p = (struct rp_plan){ .ranks = ranks };
	if (ranks < 2 || ranks > RP_PLAN_MAX_RANKS)
		return -EINVAL;
	p->pairs = calloc((size_t)ranks * (ranks - 1), sizeof(*p->pairs));
	len = calloc(2 * (size_t)turns, sizeof(*len));
	if (!p->pairs || !len) {
		free(len);
		rp_plan_free(p);
		return -ENOMEM;
	}
	for (r = 0; r < turns; r++) {
		len[r] = circle_round(m, ranks, r, &p->pairs[half]);
		len[turns + r] = len[r];
		half += len[r];
	}
	for (k = 0; k < half; k++) /* the second pass, ends swapped */
		p->pairs[half + k] = (struct rp_pair){ p->pairs[k].server,
						       p->pairs[k].client, 0 };
	p->n = 2 * half;
	number_rounds(p, serial, len, 2 * turns);
	free(len);
	return 0;
}

void rp_plan_free(struct rp_plan *p)
{
	free(p->pairs);
	p->pairs = NULL;
	p->n = 0;
	p->rounds = 0;
}

size_t rp_plan_round(const struct rp_plan *p, uint32_t round, size_t *first)
{
	size_t lo = 0, hi = p->n, mid, end;

	while (lo < hi) { /* the first pair of a round >= @round */
		mid = lo + (hi - lo) / 2;
		if (p->pairs[mid].round < round)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; end < p->n && p->pairs[end].round == round; end++)
		;
	*first = lo;
	return end - lo;
}

long rp_plan_role(const struct rp_plan *p, uint32_t round, uint32_t rank)
{
	size_t first, n = rp_plan_round(p, round, &first), i;

	for (i = first; i < first + n; i++)
		if (p->pairs[i].client == rank || p->pairs[i].server == rank)
			return (long)i;
	return -1;
}
