// SPDX-License-Identifier: MIT
/*
 * --matrix --pattern's planner (core/pattern.c): the names, each
 * pattern's flows round by round for 2 to 16 ranks, the most flows into
 * one server, and a pattern file's rounds and every error it names.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/pattern.h"

static void test_parse(void **state)
{
	static const char *const bad[] = { "incast",
					   "incast:",
					   "incast:0",
					   "incast:x",
					   "incast:3x",
					   "incast:-1",
					   "one-to-many",
					   "all-to-all:2",
					   "file:",
					   "ring",
					   "",
					   "incast:4096" };
	struct rp_pattern p;
	char why[300], name[300];
	size_t i;

	(void)state;
	assert_int_equal(rp_pattern_parse("incast:3", &p, why, sizeof(why)), 0);
	assert_int_equal(p.kind, RP_PATTERN_INCAST);
	assert_int_equal(p.n, 3);
	rp_pattern_name(&p, name, sizeof(name));
	assert_string_equal(name, "incast:3");
	assert_int_equal(
		rp_pattern_parse("one-to-many:2", &p, why, sizeof(why)), 0);
	assert_int_equal(p.kind, RP_PATTERN_ONE_TO_MANY);
	assert_int_equal(rp_pattern_parse("file:/tmp/p", &p, why, sizeof(why)),
			 0);
	rp_pattern_name(&p, name, sizeof(name));
	assert_string_equal(name, "file:/tmp/p");
	assert_int_equal(rp_pattern_parse("bisection", &p, why, sizeof(why)),
			 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		assert_int_equal(rp_pattern_parse(bad[i], &p, why, sizeof(why)),
				 -EINVAL);
		assert_non_null(strstr(why, "--pattern"));
	}
}

/* Rounds in order, no self flow, no flow twice in a round. */
static void check_plan(const struct rp_plan *p, uint32_t ranks)
{
	size_t i, j;

	for (i = 0; i < p->n; i++) {
		assert_true(p->pairs[i].client < ranks);
		assert_true(p->pairs[i].server < ranks);
		assert_true(p->pairs[i].client != p->pairs[i].server);
		assert_true(p->pairs[i].round < p->rounds);
		if (i)
			assert_true(p->pairs[i - 1].round <= p->pairs[i].round);
		for (j = i + 1;
		     j < p->n && p->pairs[j].round == p->pairs[i].round; j++)
			assert_false(p->pairs[j].client == p->pairs[i].client &&
				     p->pairs[j].server == p->pairs[i].server);
	}
}

static void plan_of(const char *spec, uint32_t ranks, struct rp_plan *p)
{
	struct rp_pattern pt;
	char why[300];

	assert_int_equal(rp_pattern_parse(spec, &pt, why, sizeof(why)), 0);
	assert_int_equal(rp_pattern_plan(&pt, ranks, NULL, p, why, sizeof(why)),
			 0);
	check_plan(p, ranks);
}

static void test_kinds(void **state)
{
	struct rp_plan p;
	size_t first, k;
	uint32_t r, n;
	char spec[32];

	(void)state;
	for (r = 2; r <= 16; r++) {
		for (n = 1; n < r; n++) {
			snprintf(spec, sizeof(spec), "incast:%u", n);
			plan_of(spec, r, &p);
			/* round s: the N ranks after s into s */
			assert_int_equal(p.rounds, r);
			assert_int_equal(p.n, (size_t)r * n);
			assert_int_equal(rp_plan_most_served(&p), n);
			for (k = 0; k < p.n; k++)
				assert_int_equal(p.pairs[k].server,
						 p.pairs[k].round);
			rp_plan_free(&p);
			snprintf(spec, sizeof(spec), "one-to-many:%u", n);
			plan_of(spec, r, &p);
			assert_int_equal(rp_plan_most_served(&p), 1);
			assert_int_equal(rp_plan_round(&p, 0, &first), n);
			rp_plan_free(&p);
		}
		plan_of("all-to-all", r, &p);
		assert_int_equal(p.rounds, 1);
		assert_int_equal(p.n, (size_t)r * (r - 1));
		assert_int_equal(rp_plan_most_served(&p), r - 1);
		rp_plan_free(&p);
		plan_of("bisection", r, &p);
		assert_int_equal(p.rounds, 2);
		assert_int_equal(p.n, 2 * (size_t)(r / 2));
		for (k = 0; k < p.n / 2; k++) {
			assert_int_equal(p.pairs[k].server,
					 p.pairs[k].client + r / 2);
			assert_int_equal(p.pairs[p.n / 2 + k].client,
					 p.pairs[k].server);
		}
		rp_plan_free(&p);
	}
}

static void test_too_few_ranks(void **state)
{
	struct rp_pattern pt;
	struct rp_plan p;
	char why[300];

	(void)state;
	assert_int_equal(rp_pattern_parse("incast:4", &pt, why, sizeof(why)),
			 0);
	assert_int_equal(rp_pattern_plan(&pt, 4, NULL, &p, why, sizeof(why)),
			 -EINVAL);
	assert_string_equal(why,
			    "--pattern incast:4 needs 5 ranks; this job has 4");
	assert_int_equal(rp_pattern_plan(&pt, 1, NULL, &p, why, sizeof(why)),
			 -EINVAL);
}

static void text_fails(const char *text, uint32_t ranks, const char *want)
{
	struct rp_plan p;
	char why[300] = "";

	assert_int_equal(
		rp_pattern_plan_text(text, ranks, &p, why, sizeof(why)),
		-EINVAL);
	if (!strstr(why, want))
		fail_msg("%s: want '%s' in '%s'", text, want, why);
}

static void test_file(void **state)
{
	struct rp_plan p;
	char why[300];

	(void)state;
	assert_int_equal(rp_pattern_plan_text("# incast\n1->0, 2->0,3->0\n"
					      "\n  \t\n0->1 0->2 # fan\n"
					      "2->1",
					      4, &p, why, sizeof(why)),
			 0);
	check_plan(&p, 4);
	assert_int_equal(p.rounds, 3);
	assert_int_equal(p.n, 6);
	assert_int_equal(rp_plan_most_served(&p), 3);
	assert_int_equal(p.pairs[5].client, 2);
	assert_int_equal(p.pairs[5].round, 2);
	rp_plan_free(&p);
	text_fails("0->1\n1->4\n", 4, "line 2: 1->4: a rank beyond");
	text_fails("0->1\n\n2->2\n", 4, "line 3: 2->2: a rank to itself");
	text_fails("0->1 1->0 0->1\n", 4, "line 1: 0->1 twice in a round");
	text_fails("0-1\n", 4, "line 1: not a flow");
	text_fails("0->\n", 4, "line 1: not a flow");
	text_fails("0->1x\n", 4, "line 1: not a flow");
	text_fails("# nothing\n\n", 4, "no flow");
	text_fails("", 4, "no flow");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_too_few_ranks),
		cmocka_unit_test(test_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
