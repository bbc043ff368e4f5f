// SPDX-License-Identifier: MIT
/*
 * Unit tests of run/slo: the search for the highest rate meeting a latency
 * target, on a made-up system whose latency at rate r is an M/M/1 queue's,
 * base / (1 - r / cap), and whose closed loop is bounded by its queue
 * depth (50 x base): convergence within the tolerance, with and without
 * noise, a glitch that makes one step fail (an unlucky hi) or pass (a
 * lucky lo), the target met at the maximum, never met, a saturated rate
 * that fails whatever its latency, a failing step, the steps' bound, and
 * the document's form.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "run/slo.h"

#define CAP  1e6   /* ops/s the closed loop achieves */
#define BASE 10e3  /* ns of latency without load */
#define SIZE 4096u /* bytes a message, for the bits */

struct sys {
	double noise;	 /* +- this share of the latency; 0: none */
	uint64_t seed;	 /* the noise's */
	int glitch_call; /* this call reports glitch_ns; -1: none */
	double glitch_ns;
	int fail_call;	/* this call fails; -1: none */
	double sat_ops; /* above it an open loop saturates; 0: CAP */
	double sat_ns;	/* and then reports this latency */
	int calls;
};

static double uniform(struct sys *y) /* [0, 1), a 64-bit LCG's top bits */
{
	y->seed = y->seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(y->seed >> 11) / 9007199254740992.0;
}

static int run(void *ctx, double offered, struct rp_slo_step *st)
{
	struct sys *y = ctx;
	double sat = y->sat_ops > 0 ? y->sat_ops : CAP, lat;
	int call = y->calls++;

	if (call == y->fail_call)
		return -EIO;
	if (offered == 0) { /* the closed loop: the queue always full */
		st->achieved = CAP;
		lat = 50 * BASE;
	} else if (offered > sat) {
		st->achieved = sat;
		st->saturated = true;
		lat = y->sat_ns;
	} else {
		st->achieved = offered;
		lat = BASE / (1 - offered / CAP);
	}
	lat *= 1 + y->noise * (2 * uniform(y) - 1);
	st->measured = call == y->glitch_call ? y->glitch_ns : lat;
	return 0;
}

static struct sys calm(void)
{
	return (struct sys){ .glitch_call = -1, .fail_call = -1, .seed = 1 };
}

static void params(struct rp_slo_params *p, const char *target)
{
	struct rp_expect e;
	char err[256];

	assert_int_equal(rp_expect_parse(target, &e, err, sizeof(err)), 0);
	rp_slo_defaults(p, &e.t[0]);
}

/* The rate at which latency reaches @lim_ns, noise aside. */
static double edge(double lim_ns)
{
	return CAP * (1 - BASE / lim_ns);
}

/* What holds of every walk: each step judged by its own figures, the
 * closed loop first, then the floor, the bounds kept. */
static void check_walk(const struct rp_slo *s)
{
	uint32_t i;

	assert_true(s->n >= 1 && s->n <= RP_SLO_MAX_WALK);
	assert_true(s->bisects <= s->p.max_steps);
	assert_int_equal(s->step[0].kind, RP_SLO_STEP_MAX);
	assert_true(s->step[0].offered == 0);
	for (i = 0; i < s->n; i++)
		assert_true(s->step[i].pass ==
			    rp_slo_judge(&s->p.target, &s->step[i]));
	if (s->n > 1 && s->step[1].kind == RP_SLO_STEP_FLOOR)
		assert_true(s->step[1].offered == ceil(CAP * RP_SLO_FLOOR));
}

/* A settled, narrow bracket around the edge, and the run kept for it
 * the median of lo's confirmation, passing. */
static void check_found(const struct rp_slo *s, double lo_edge, double hi_edge)
{
	const struct rp_slo_step *k = &s->step[s->kept];

	check_walk(s);
	assert_int_equal(s->status, RP_SLO_FOUND);
	assert_true(s->settled && s->narrow);
	assert_true(s->found == s->lo && s->hi > s->lo);
	assert_true(s->hi <= s->lo * (1 + s->p.tolerance));
	assert_true(s->lo >= lo_edge * (1 - s->p.tolerance));
	assert_true(s->lo <= hi_edge);
	assert_int_equal(k->kind, RP_SLO_STEP_EDGE);
	assert_true(k->offered == s->found && k->pass);
}

static void test_converges(void **state)
{
	static struct rp_slo s;
	struct rp_slo_params p;
	struct sys y = calm();
	double r = edge(40e3);

	(void)state;
	params(&p, "p99<=40us");
	assert_int_equal(rp_slo_search(&s, &p, run, &y), 0);
	check_found(&s, r, r);
	/* noise aside, the edge lies in the bracket: lo meets, hi does not */
	assert_true(s.lo <= r && r < s.hi);
	assert_int_equal(s.rounds, 2); /* lo and hi, each confirmed once */
	assert_int_equal(s.n, 2 + s.bisects + 2 * RP_SLO_REPS);
	assert_true(s.max_ops == CAP);
	/* a tighter tolerance: a narrower bracket, more steps */
	y = calm();
	p.tolerance = 0.01;
	assert_int_equal(rp_slo_search(&s, &p, run, &y), 0);
	check_found(&s, r, r);
	assert_true(s.hi <= s.lo * 1.01 && s.lo <= r && r < s.hi);
	assert_true(s.bisects > 6);
}

/* The run kept is the median of its edge's runs (the lower of two). */
static void check_median(const struct rp_slo *s)
{
	double v[RP_SLO_MAX_REPS], t;
	uint32_t i, j, n = 0;

	for (i = 0; i < s->n; i++)
		if (s->step[i].kind == RP_SLO_STEP_EDGE &&
		    s->step[i].offered == s->step[s->kept].offered)
			v[n++] = s->step[i].measured;
	assert_int_equal(n, s->p.reps);
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && v[j - 1] > v[j]; j--) {
			t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	assert_true(s->step[s->kept].measured == v[(n - 1) / 2]);
}

/* Latency +-20% at random: the walk is not monotone, the edge lies where
 * the noise band crosses the target, and the median of each edge's runs
 * must still land it there, over many seeds. */
static void test_noise(void **state)
{
	static struct rp_slo s;
	struct rp_slo_params p;
	struct sys y;
	uint64_t seed;

	(void)state;
	params(&p, "p99<=40us");
	for (seed = 1; seed <= 50; seed++) {
		y = calm();
		y.noise = 0.2;
		y.seed = seed;
		assert_int_equal(rp_slo_search(&s, &p, run, &y), 0);
		check_walk(&s);
		assert_int_equal(s.status, RP_SLO_FOUND);
		/* 1.2 x latency meets it below this, 0.8 x above this */
		assert_true(s.found >= CAP * (1 - 1.2 * BASE / 40e3) * 0.95);
		assert_true(s.found <= CAP * (1 - 0.8 * BASE / 40e3));
		assert_true(s.step[s.kept].pass);
		if (s.settled)
			check_median(&s);
	}
}

/* One step's latency is a glitch, far above the target, on the second
 * bisection step: the walk closes in below it, the confirmation of hi
 * passes, and the bracket moves back up to the real edge. */
static void test_unlucky_hi(void **state)
{
	static struct rp_slo s;
	struct rp_slo_params p;
	struct sys y = calm();
	double r = edge(40e3);
	uint32_t i, up = 0;

	(void)state;
	y.glitch_call = 3;
	y.glitch_ns = 1e9;
	params(&p, "p99<=40us");
	assert_int_equal(rp_slo_search(&s, &p, run, &y), 0);
	check_found(&s, r, r);
	assert_true(s.lo <= r && r < s.hi);
	assert_true(!s.step[3].pass && s.step[3].offered < r);
	for (i = 0; i < s.n; i++) /* steps above the glitch's rate */
		up += s.step[i].kind == RP_SLO_STEP_BISECT &&
		      s.step[i].offered > s.step[3].offered;
	assert_true(up > 0);
	assert_true(s.rounds >= 3); /* a confirmation disagreed */
}

/* One step passes that should not (a low latency at a rate beyond the
 * edge): the confirmation of that lo fails and the walk steps down. */
static void test_lucky_lo(void **state)
{
	static struct rp_slo s;
	struct rp_slo_params p;
	struct sys y = calm();
	double r = edge(20e3); /* 500k: the first middle, 100k, is below */

	(void)state;
	params(&p, "p99<=20us");
	y.glitch_call = 3; /* the second middle, 316k... */
	y.glitch_ns = 1e3;
	assert_int_equal(rp_slo_search(&s, &p, run, &y), 0);
	check_found(&s, r, r);
	assert_true(s.lo <= r && r < s.hi);
	assert_true(s.rounds >= 2);
	/* ...then a third, above the edge, made lucky */
	y = calm();
	y.glitch_call = 4;
	y.glitch_ns = 1e3;
	assert_int_equal(rp_slo_search(&s, &p, run, &y), 0);
	assert_true(s.step[4].offered > r && s.step[4].pass);
	check_found(&s, r, r);
	assert_true(s.lo <= r && r < s.hi);
	assert_true(s.rounds >= 3); /* the lucky lo confirmed, failing */
}

static void test_met_at_max(void **state)
{
	static struct rp_slo s;
	struct rp_slo_params p;
	struct sys y = calm();
	uint32_t i;

	(void)state;
	params(&p, "p99<1ms");
	assert_int_equal(rp_slo_search(&s, &p, run, &y), 0);
	check_walk(&s);
	assert_int_equal(s.status, RP_SLO_MET_AT_MAX);
	assert_true(s.found == CAP && s.hi == 0 && s.settled);
	assert_int_equal(s.n, 1 + RP_SLO_REPS); /* the max, confirmed */
	for (i = 0; i < s.n; i++)
		assert_true(s.step[i].offered == 0);
	assert_int_equal(s.step[s.kept].kind, RP_SLO_STEP_EDGE);
	/* met once at the max, not by the median of its confirmation: the
	 * search goes on below it */
	y = calm();
	params(&p, "p99<=40us");
	y.glitch_call = 0;
	y.glitch_ns = 1e3;
	assert_int_equal(rp_slo_search(&s, &p, run, &y), 0);
	check_found(&s, edge(40e3), edge(40e3));
}

static void test_never_met(void **state)
{
	static struct rp_slo s;
	struct rp_slo_params p;
	struct sys y = calm();

	(void)state;
	params(&p, "p50<=5us"); /* below the latency without load */
	assert_int_equal(rp_slo_search(&s, &p, run, &y), 0);
	check_walk(&s);
	assert_int_equal(s.status, RP_SLO_NOT_MET);
	assert_true(s.found == 0 && s.lo == 0);
	assert_true(s.hi == ceil(CAP * RP_SLO_FLOOR));
	assert_int_equal(s.n, 2 + RP_SLO_REPS); /* max, floor, confirmed */
	assert_int_equal(s.step[s.kept].kind, RP_SLO_STEP_EDGE);
	assert_true(s.step[s.kept].offered == s.floor_ops);
	assert_true(s.settled);
}

/* Above 300k ops/s the open loop saturates and reports a low latency
 * (the queue depth bounds what it sees): such a step fails. */
static void test_saturated(void **state)
{
	static struct rp_slo s;
	struct rp_slo_params p;
	struct sys y = calm();

	(void)state;
	y.sat_ops = 300e3;
	y.sat_ns = BASE;
	params(&p, "p99<=40us"); /* met up to 750k, were it not saturated */
	assert_int_equal(rp_slo_search(&s, &p, run, &y), 0);
	check_found(&s, 300e3, 300e3);
	assert_true(s.lo <= 300e3 && 300e3 < s.hi);
}

static void test_failure(void **state)
{
	static struct rp_slo s;
	struct rp_slo_params p;
	struct sys y = calm();

	(void)state;
	y.fail_call = 3;
	params(&p, "p99<=40us");
	assert_int_equal(rp_slo_search(&s, &p, run, &y), -EIO);
	assert_int_equal(s.status, RP_SLO_FAILED);
	assert_int_equal(s.err, -EIO);
	assert_int_equal(s.n, 4);
	assert_int_equal(s.kept, 3);
	assert_true(s.found == 0);
}

static void test_steps_bound(void **state)
{
	static struct rp_slo s;
	struct rp_slo_params p;
	struct sys y = calm();
	double r = edge(40e3);

	(void)state;
	params(&p, "p99<=40us");
	p.max_steps = 3;
	p.tolerance = 0.005;
	p.reps = 1;
	assert_int_equal(rp_slo_search(&s, &p, run, &y), 0);
	check_walk(&s);
	assert_int_equal(s.status, RP_SLO_FOUND);
	assert_int_equal(s.bisects, 3);
	assert_false(s.narrow);
	assert_true(s.lo <= r && r < s.hi); /* wide, but right */
	assert_int_equal(s.n, 2 + 3 + 2);   /* one run an edge */
}

static const cJSON *at(const cJSON *o, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

static void test_json(void **state)
{
	static struct rp_slo s;
	struct rp_slo_params p;
	struct sys y = calm();
	const cJSON *st;
	cJSON *j;
	int kept = 0, i = 0;

	(void)state;
	params(&p, "p99<=40us");
	rp_slo_search(&s, &p, run, &y);
	j = rp_slo_json(&s, SIZE);
	assert_non_null(j);
	assert_string_equal(at(j, "target")->valuestring, "p99<=40us");
	assert_string_equal(at(j, "metric")->valuestring, "p99");
	assert_string_equal(at(j, "operator")->valuestring, "<=");
	assert_true(fabs(at(j, "limit_us")->valuedouble - 40) < 1e-9);
	assert_string_equal(at(j, "status")->valuestring, "found");
	assert_string_equal(at(j, "stopped")->valuestring, "tolerance");
	assert_true(at(j, "found_ops_per_second")->valuedouble == s.found);
	assert_true(at(j, "found_bits_per_second")->valuedouble ==
		    s.found * 8 * SIZE);
	assert_true(at(j, "measured_us")->valuedouble ==
		    s.step[s.kept].measured / 1e3);
	assert_true(cJSON_GetArrayItem(at(j, "bracket"), 1)->valuedouble ==
		    s.hi);
	assert_true(fabs(at(j, "width_pct")->valuedouble -
			 100 * (s.hi / s.lo - 1)) < 1e-9);
	assert_true(fabs(at(j, "tolerance_pct")->valuedouble - 5) < 1e-9);
	assert_int_equal(cJSON_GetArraySize(at(j, "steps")), s.n);
	cJSON_ArrayForEach(st, at(j, "steps"))
	{
		kept += cJSON_IsTrue(at(st, "kept"));
		if (i++ == 0) { /* the closed loop offers no rate */
			assert_true(
				cJSON_IsNull(at(st, "offered_ops_per_second")));
			assert_string_equal(at(st, "kind")->valuestring, "max");
		}
	}
	assert_int_equal(kept, 1);
	cJSON_Delete(j);
	y = calm();
	params(&p, "p99<1ms");
	rp_slo_search(&s, &p, run, &y);
	j = rp_slo_json(&s, SIZE);
	assert_string_equal(at(j, "status")->valuestring, "met_at_max");
	assert_string_equal(at(j, "operator")->valuestring, "<");
	assert_string_equal(at(j, "stopped")->valuestring, "range");
	assert_true(cJSON_IsNull(cJSON_GetArrayItem(at(j, "bracket"), 1)));
	assert_true(cJSON_IsNull(at(j, "width_pct")));
	assert_true(cJSON_IsNull(at(j, "floor_ops_per_second")));
	cJSON_Delete(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_converges),
		cmocka_unit_test(test_noise),
		cmocka_unit_test(test_unlucky_hi),
		cmocka_unit_test(test_lucky_lo),
		cmocka_unit_test(test_met_at_max),
		cmocka_unit_test(test_never_met),
		cmocka_unit_test(test_saturated),
		cmocka_unit_test(test_failure),
		cmocka_unit_test(test_steps_bound),
		cmocka_unit_test(test_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
