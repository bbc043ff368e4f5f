// SPDX-License-Identifier: MIT
/* Jain's fairness index (core/stats), a direction's figures built from
 * its streams (run/flow), and the repetitions' statistics: Student's t
 * against its tables, a series' summary, the interval's coverage over
 * simulated runs, and the paired ratio. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/stats.h"
#include "run/flow.h"

static void assert_near(double a, double b)
{
	if (fabs(a - b) > 1e-9 * (fabs(b) > 1 ? fabs(b) : 1))
		fail_msg("%.12g != %.12g", a, b);
}

static void test_jain_equal(void **state)
{
	const double x[] = { 5, 5, 5, 5 };

	(void)state;
	assert_near(rp_stats_jain(x, 4), 1.0);
}

static void test_jain_one_takes_all(void **state)
{
	const double x[] = { 0, 9, 0, 0, 0 };

	(void)state;
	assert_near(rp_stats_jain(x, 5), 1.0 / 5);
}

/* (1 + 2 + 3)^2 / (3 * (1 + 4 + 9)) = 36 / 42 */
static void test_jain_uneven(void **state)
{
	const double x[] = { 1, 2, 3 };

	(void)state;
	assert_near(rp_stats_jain(x, 3), 36.0 / 42);
}

static void test_jain_edges(void **state)
{
	const double zero[] = { 0, 0, 0 }, neg[] = { -4, 2, 2 };

	(void)state;
	assert_near(rp_stats_jain(NULL, 0), 1.0);
	assert_near(rp_stats_jain(zero, 1), 1.0);
	assert_near(rp_stats_jain(zero, 3), 1.0);
	/* a negative figure counts as 0: (0 + 2 + 2)^2 / (3 * 8) */
	assert_near(rp_stats_jain(neg, 3), 16.0 / 24);
}

/* Two streams, stream 1 twice as fast: per stream, the sum over the whole
 * span, the latency of both merged, and the fairness of their rates. */
static void test_direction_build(void **state)
{
	struct rp_engine_stream es[2] = { 0 };
	struct rp_direction d = { 0 };
	struct rp_hist *scratch;
	int i;

	(void)state;
	assert_int_equal(rp_hist_create(&scratch), 0);
	for (i = 0; i < 2; i++) {
		assert_int_equal(rp_hist_create(&es[i].hist), 0);
		es[i].out.first_post_ns = 1000000000;
		es[i].out.last_done_ns = 2000000000; /* 1 s */
	}
	es[0].out.messages = 100;
	es[1].out.messages = 200;
	es[1].out.last_done_ns = 2500000000ULL; /* 1.5 s: the span */
	rp_hist_record(es[0].hist, 1000);
	rp_hist_record(es[1].hist, 3000);
	rp_hist_record(es[1].hist, 5000);
	assert_int_equal(rp_direction_build(&d, es, 2, 2, 1024, scratch), 0);
	assert_int_equal(d.n_streams, 2);
	assert_int_equal(d.per_stream[1].thread, 1);
	assert_int_equal(d.per_stream[0].flow.bytes, 100 * 1024);
	assert_near(d.per_stream[1].flow.seconds, 1.5);
	assert_int_equal(d.flow.messages, 300);
	assert_int_equal(d.flow.bytes, 300 * 1024);
	assert_near(d.flow.seconds, 1.5);
	assert_near(d.flow.messages_per_second, 200);
	assert_int_equal(d.flow.latency.count, 3);
	assert_near(d.flow.latency.min, 1000);
	assert_near(d.flow.latency.max, 5000);
	/* rates 100/s and 133.3/s */
	{
		double x[2] = { 100 * 1024 * 8.0, 200 * 1024 * 8.0 / 1.5 };

		assert_near(d.fairness, rp_stats_jain(x, 2));
	}
	rp_direction_fini(&d);
	for (i = 0; i < 2; i++)
		rp_hist_destroy(es[i].hist);
	rp_hist_destroy(scratch);
}

/* What a server sends for its direction comes back the same; a hostile
 * body gives zeros, never more streams than asked for. */
static void test_direction_wire(void **state)
{
	struct rp_direction d = { 0 }, back;
	struct rp_stream_result ps[3] = { 0 };
	cJSON *o, *bad;
	int i;

	(void)state;
	for (i = 0; i < 3; i++) {
		ps[i].stream = (uint32_t)i;
		ps[i].thread = (uint32_t)i % 2;
		ps[i].flow.bytes = 4096 * (uint64_t)(i + 1);
		ps[i].flow.messages = (uint64_t)i + 1;
		ps[i].flow.seconds = 0.5;
	}
	d.present = true;
	d.n_streams = 3;
	d.per_stream = ps;
	d.flow.bytes = 6 * 4096;
	d.flow.messages = 6;
	d.flow.seconds = 0.5;
	o = rp_direction_to_json(&d);
	assert_non_null(o);
	assert_int_equal(rp_direction_from_json(o, 2, &back), 0);
	assert_int_equal(back.n_streams, 2); /* cut at the streams asked */
	assert_int_equal(back.flow.bytes, 6 * 4096);
	assert_near(back.flow.messages_per_second, 12);
	assert_int_equal(back.per_stream[1].flow.bytes, 8192);
	assert_int_equal(back.per_stream[1].thread, 1);
	rp_direction_fini(&back);
	cJSON_Delete(o);
	bad = cJSON_Parse("{\"bytes\":\"x\",\"seconds\":-1,"
			  "\"per_stream\":[1,{\"bytes\":1e300}]}");
	assert_int_equal(rp_direction_from_json(bad, 8, &back), 0);
	assert_int_equal(back.flow.bytes, 0);
	assert_near(back.flow.seconds, 0);
	assert_true(back.n_streams <= 2);
	rp_direction_fini(&back);
	cJSON_Delete(bad);
}

static void assert_close(double a, double b, double rel)
{
	if (!(fabs(a - b) <= rel * fabs(b)))
		fail_msg("%.9g is not within %g of %.9g", a, rel, b);
}

/* Student's t quantiles from the tables (to their 4-6 digits). */
static void test_t_quantile(void **state)
{
	(void)state;
	assert_close(rp_stat_t_quantile(0.975, 1), 12.7062, 1e-5);
	assert_close(rp_stat_t_quantile(0.975, 4), 2.776445, 1e-6);
	assert_close(rp_stat_t_quantile(0.975, 9), 2.262157, 1e-6);
	assert_close(rp_stat_t_quantile(0.995, 10), 3.169273, 1e-6);
	assert_close(rp_stat_t_quantile(0.95, 2), 2.919986, 1e-6);
	assert_close(rp_stat_t_quantile(0.975, 1000), 1.962339, 1e-6);
	assert_close(rp_stat_t_quantile(0.025, 4), -2.776445, 1e-6);
	assert_close(rp_stat_t_cdf(0, 3), 0.5, 1e-12);
	assert_true(isnan(rp_stat_t_quantile(1, 4)));
	assert_true(isnan(rp_stat_t_quantile(0.5, 0)));
}

static void test_summary(void **state)
{
	const double x[] = { 38.3, 47.7, 43.0, NAN };
	const double one[] = { 7 };
	struct rp_stat s;

	(void)state;
	assert_true(rp_stat_summarize(x, 4, 0.95, &s));
	assert_int_equal(s.n, 3);
	assert_close(s.mean, 43.0, 1e-12);
	assert_close(s.median, 43.0, 1e-12);
	assert_close(s.sd, 4.7, 1e-12);
	assert_close(s.cov, 4.7 / 43.0, 1e-12);
	assert_true(s.has_ci);
	/* 43 +- 4.302653 * 4.7 / sqrt(3) */
	assert_close(s.hi - s.mean, 4.302653 * 4.7 / sqrt(3), 1e-6);
	assert_close(s.mean - s.lo, s.hi - s.mean, 1e-12);
	assert_close(s.half_width, (s.hi - s.mean) / 43.0, 1e-12);
	assert_true(s.min == 38.3 && s.max == 47.7);
	assert_true(rp_stat_summarize(one, 1, 0.95, &s));
	assert_false(s.has_ci);
	assert_true(s.median == 7 && s.sd == 0);
	assert_false(rp_stat_summarize(x + 3, 1, 0.95, &s)); /* NAN only */
}

/* A fixed-seed generator (xorshift64*) and Box-Muller: normal noise the
 * same on every machine. */
static double uniform(uint64_t *st)
{
	*st ^= *st >> 12;
	*st ^= *st << 25;
	*st ^= *st >> 27;
	return ((double)((*st * 2685821657736338717ULL) >> 11) + 0.5) /
	       9007199254740992.0;
}

static double normal(uint64_t *st)
{
	double u = uniform(st), v = uniform(st);

	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/* 1,000 simulated runs of 5 repetitions each (mean 40, sd 3): the 95%
 * interval holds the true mean in about 95% of them (binomial sd 0.7%:
 * 93-97% is four of them either way), the 80% in about 80%. */
static void test_coverage(void **state)
{
	uint64_t st = 0x9e3779b97f4a7c15ULL;
	unsigned int run, i, in95 = 0, in80 = 0;
	double x[5];
	struct rp_stat s;

	(void)state;
	for (run = 0; run < 1000; run++) {
		for (i = 0; i < 5; i++)
			x[i] = 40 + 3 * normal(&st);
		assert_true(rp_stat_summarize(x, 5, 0.95, &s));
		in95 += s.lo <= 40 && 40 <= s.hi;
		assert_true(rp_stat_summarize(x, 5, 0.80, &s));
		in80 += s.lo <= 40 && 40 <= s.hi;
	}
	if (in95 < 930 || in95 > 970 || in80 < 760 || in80 > 840)
		fail_msg("coverage: 95%% interval %u of 1000, 80%% %u", in95,
			 in80);
}

/* b is a 10% faster, with drift the rounds share: the paired ratio finds
 * it; the same series against itself shifted by noise alone does not. */
static void test_paired_ratio(void **state)
{
	const double a[] = { 10, 20, 15, 30, 12, 25 };
	double b[6], c[6];
	struct rp_stat_ratio r;
	uint64_t st = 42;
	unsigned int i;

	(void)state;
	for (i = 0; i < 6; i++) {
		b[i] = a[i] * 1.1 * (1 + 0.01 * normal(&st));
		c[i] = a[i] * (1 + 0.01 * normal(&st));
	}
	assert_true(rp_stat_paired_ratio(a, b, 6, 0.95, &r));
	assert_int_equal(r.n, 6);
	assert_close(r.ratio, 1.1, 0.02);
	assert_true(r.has_ci && r.lo > 1 && r.significant);
	assert_true(rp_stat_paired_ratio(a, c, 6, 0.95, &r));
	assert_true(r.lo < 1 && r.hi > 1 && !r.significant);
	/* a ratio and its inverse are symmetric */
	assert_true(rp_stat_paired_ratio(b, a, 6, 0.95, &r));
	assert_close(r.ratio, 1 / 1.1, 0.02);
	c[0] = 0; /* a round without a figure is left out */
	assert_true(rp_stat_paired_ratio(a, c, 6, 0.95, &r));
	assert_int_equal(r.n, 5);
	assert_true(rp_stat_paired_ratio(a, b, 1, 0.95, &r));
	assert_false(r.has_ci || r.significant);
}

/* Two runs measured apart, Welch on the logs. Logs 0,1,2 against
 * 2,3,4,5: the difference 2.5, se^2 = 1/3 + (5/3)/4 = 0.75, df 4.96 by
 * Welch-Satterthwaite, so the quantile lies between t(5)'s 2.5706 and
 * t(4)'s 2.7764; the interval is symmetric around the ratio in logs. */
static void test_unpaired_ratio(void **state)
{
	const double a[] = { 1, M_E, M_E * M_E };
	const double b[] = { exp(2), exp(3), exp(4), exp(5) };
	const double same[] = { 7, 7, 7 }, more[] = { 8, 8 };
	struct rp_stat_ratio r;
	double q;

	(void)state;
	assert_true(rp_stat_unpaired_ratio(a, 3, b, 4, 0.95, &r));
	assert_int_equal(r.n, 3);
	assert_close(log(r.ratio), 2.5, 1e-12);
	assert_true(r.has_ci && r.significant);
	assert_close(log(r.hi) - 2.5, 2.5 - log(r.lo), 1e-9);
	q = (log(r.hi) - 2.5) / sqrt(0.75);
	assert_true(q > 2.5706 && q < 2.7764);
	/* the inverse: the same interval, inverted */
	assert_true(rp_stat_unpaired_ratio(b, 4, a, 3, 0.95, &r));
	assert_close(log(r.ratio), -2.5, 1e-12);
	assert_close(log(r.lo), -2.5 - q * sqrt(0.75), 1e-9);
	/* no spread on either side: the interval is the ratio itself */
	assert_true(rp_stat_unpaired_ratio(same, 3, more, 2, 0.95, &r));
	assert_true(r.has_ci && r.significant && r.lo == r.hi);
	assert_close(r.ratio, 8.0 / 7, 1e-12);
	assert_true(rp_stat_unpaired_ratio(same, 3, same, 3, 0.95, &r));
	assert_false(r.significant);
	/* one value on a side: a ratio, nothing to judge it by */
	assert_true(rp_stat_unpaired_ratio(a, 1, b, 4, 0.95, &r));
	assert_false(r.has_ci || r.significant);
	/* nothing positive on a side */
	assert_false(rp_stat_unpaired_ratio(a, 3, (const double[]){ 0, -1 }, 2,
					    0.95, &r));
}

/* 1,000 simulated pairs of runs, 4 repetitions against 6, spreads 2% and
 * 6% (unequal: what Welch is for), a true ratio of 1.05: the 95% interval
 * holds it in 93-97% of them; 10% apart with 1% noise is significant. */
static void test_unpaired_coverage(void **state)
{
	uint64_t st = 0x2545f4914f6cdd1dULL;
	unsigned int run, i, in = 0;
	double a[6], b[6];
	struct rp_stat_ratio r;

	(void)state;
	for (run = 0; run < 1000; run++) {
		for (i = 0; i < 4; i++)
			a[i] = 40 * exp(0.02 * normal(&st));
		for (i = 0; i < 6; i++)
			b[i] = 42 * exp(0.06 * normal(&st));
		assert_true(rp_stat_unpaired_ratio(a, 4, b, 6, 0.95, &r));
		in += r.lo <= 1.05 && 1.05 <= r.hi;
	}
	if (in < 930 || in > 970)
		fail_msg("unpaired coverage: %u of 1000", in);
	for (i = 0; i < 5; i++) {
		a[i] = 40 * exp(0.01 * normal(&st));
		b[i] = 44 * exp(0.01 * normal(&st));
	}
	assert_true(rp_stat_unpaired_ratio(a, 5, b, 5, 0.95, &r));
	assert_true(r.significant && r.lo > 1.05 && r.hi < 1.15);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_jain_equal),
		cmocka_unit_test(test_jain_one_takes_all),
		cmocka_unit_test(test_jain_uneven),
		cmocka_unit_test(test_jain_edges),
		cmocka_unit_test(test_direction_build),
		cmocka_unit_test(test_direction_wire),
		cmocka_unit_test(test_t_quantile),
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_coverage),
		cmocka_unit_test(test_paired_ratio),
		cmocka_unit_test(test_unpaired_ratio),
		cmocka_unit_test(test_unpaired_coverage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
