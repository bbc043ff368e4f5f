// SPDX-License-Identifier: MIT
/*
 * The --matrix planner (core/plan.c): for N = 2 .. 64, odd and even, with
 * and without --serial, every ordered pair exactly once, no rank twice in
 * a round, the round count the circle method promises, and the lookups
 * (rp_plan_round, rp_plan_role) agree with the list.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/plan.h"

#define MAX_N 64

/* Each ordered pair once, no self pair, rounds in order. */
static void check_pairs(const struct rp_plan *p, uint32_t n)
{
	static unsigned char seen[MAX_N][MAX_N];
	size_t i;

	memset(seen, 0, sizeof(seen));
	assert_int_equal(p->n, (size_t)n * (n - 1));
	for (i = 0; i < p->n; i++) {
		const struct rp_pair *x = &p->pairs[i];

		assert_true(x->client < n && x->server < n);
		assert_int_not_equal(x->client, x->server);
		assert_int_equal(seen[x->client][x->server]++, 0);
		assert_true(x->round < p->rounds);
		if (i)
			assert_true(x->round >= p->pairs[i - 1].round);
	}
}

/* No rank in two pairs of one round; the lookups agree with the list. */
static void check_rounds(const struct rp_plan *p, uint32_t n, bool serial)
{
	size_t first, len, i, total = 0;
	uint32_t r, k, busy[MAX_N];
	long at;

	for (r = 0; r < p->rounds; r++) {
		len = rp_plan_round(p, r, &first);
		assert_int_equal(len, serial ? 1 : n / 2);
		assert_int_equal(first, total);
		total += len;
		memset(busy, 0, sizeof(busy));
		for (i = first; i < first + len; i++) {
			assert_int_equal(p->pairs[i].round, r);
			assert_int_equal(busy[p->pairs[i].client]++, 0);
			assert_int_equal(busy[p->pairs[i].server]++, 0);
		}
		for (k = 0; k < n; k++) {
			at = rp_plan_role(p, r, k);
			assert_true(busy[k] ? at >= (long)first : at == -1);
			if (at >= 0)
				assert_true(p->pairs[at].client == k ||
					    p->pairs[at].server == k);
		}
	}
	assert_int_equal(total, p->n);
}

static void test_every_n(void **state)
{
	struct rp_plan p;
	uint32_t n, m;
	int serial;

	(void)state;
	for (n = 2; n <= MAX_N; n++) {
		for (serial = 0; serial < 2; serial++) {
			assert_int_equal(rp_plan_make(&p, n, serial), 0);
			m = n + (n & 1);
			assert_int_equal(p.rounds,
					 serial ? n * (n - 1) : 2 * (m - 1));
			check_pairs(&p, n);
			check_rounds(&p, n, serial);
			rp_plan_free(&p);
		}
	}
}

/* Two ranks: 0 -> 1, then 1 -> 0; four: 6 rounds of 2 pairs. */
static void test_small(void **state)
{
	struct rp_plan p;

	(void)state;
	assert_int_equal(rp_plan_make(&p, 2, false), 0);
	assert_int_equal(p.rounds, 2);
	assert_int_equal(p.pairs[0].client, p.pairs[1].server);
	assert_int_equal(p.pairs[0].server, p.pairs[1].client);
	rp_plan_free(&p);
	assert_int_equal(rp_plan_make(&p, 4, false), 0);
	assert_int_equal(p.rounds, 6);
	assert_int_equal(p.n, 12);
	rp_plan_free(&p);
	assert_int_equal(rp_plan_make(&p, 3, false), 0);
	assert_int_equal(p.rounds, 6); /* 3 x 1 pair, a bye each, twice */
	rp_plan_free(&p);
}

static void test_refused(void **state)
{
	struct rp_plan p;

	(void)state;
	assert_int_equal(rp_plan_make(&p, 0, false), -EINVAL);
	assert_int_equal(rp_plan_make(&p, 1, false), -EINVAL);
	assert_int_equal(rp_plan_make(&p, RP_PLAN_MAX_RANKS + 1, true),
			 -EINVAL);
	assert_null(p.pairs);
	rp_plan_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_n),
		cmocka_unit_test(test_small),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
