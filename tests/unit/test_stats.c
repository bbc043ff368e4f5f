// SPDX-License-Identifier: MIT
/* Jain's fairness index (core/stats), and a direction's figures built
 * from its streams (run/flow): per stream, summed, merged, fairness. */
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_jain_equal),
		cmocka_unit_test(test_jain_one_takes_all),
		cmocka_unit_test(test_jain_uneven),
		cmocka_unit_test(test_jain_edges),
		cmocka_unit_test(test_direction_build),
		cmocka_unit_test(test_direction_wire),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
