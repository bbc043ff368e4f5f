// SPDX-License-Identifier: MIT
/*
 * Unit tests of run/repeat: a result's figures as a repetition's row
 * (failed, no throughput phase), the median repetition kept, when the
 * intervals are narrow enough for --confidence, and the document's form:
 * figures, the paired ratio against the first transport, the warnings.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "run/repeat.h"

static struct rp_result result(double gbps, double p50_us)
{
	struct rp_result r;

	memset(&r, 0, sizeof(r));
	r.has_bandwidth = true;
	r.flow.bits_per_second = gbps * 1e9;
	r.flow.messages_per_second = gbps * 1e9 / 8 / 4096;
	r.flow.seconds = 1;
	r.flow.messages = 100000;
	r.has_unloaded = true;
	r.unloaded.p50 = p50_us * 1e3;
	r.unloaded.count = 1000;
	return r;
}

static const cJSON *at(const cJSON *o, const char *a, const char *b)
{
	o = cJSON_GetObjectItemCaseSensitive(o, a);
	return b ? cJSON_GetObjectItemCaseSensitive(o, b) : o;
}

static void test_rows_and_median(void **state)
{
	static struct rp_repeat rep;
	const double g[] = { 40, 10, 30, 20, 50 };
	struct rp_result r;
	unsigned int i;

	(void)state;
	memset(&rep, 0, sizeof(rep));
	for (i = 0; i < 5; i++) {
		r = result(g[i], 2);
		rp_repeat_add(&rep, &r, NULL);
	}
	assert_int_equal(rep.n, 5);
	assert_true(rep.v[1][RP_FIG_THROUGHPUT] == 10e9);
	assert_true(isnan(rep.v[0][RP_FIG_P50])); /* no latency under load */
	assert_int_equal(rp_repeat_median_row(&rep), 2); /* 30 */
	r = result(60, 2);
	rp_repeat_add(&rep, &r, NULL); /* six: the lower median, 30 */
	assert_int_equal(rp_repeat_median_row(&rep), 2);
	r.failed = true; /* a failed repetition: measured nothing */
	rp_repeat_add(&rep, &r, NULL);
	assert_true(isnan(rep.v[6][RP_FIG_THROUGHPUT]));
	assert_int_equal(rp_repeat_median_row(&rep), 2);
	/* no throughput phase: by unloaded latency */
	memset(&rep, 0, sizeof(rep));
	for (i = 0; i < 3; i++) {
		r = result(0, 3 - i);
		r.has_bandwidth = false;
		rp_repeat_add(&rep, &r, NULL);
	}
	assert_int_equal(rp_repeat_median_row(&rep), 1);
}

static void test_narrow(void **state)
{
	static struct rp_repeat rep;
	struct rp_result r;
	unsigned int i;

	(void)state;
	memset(&rep, 0, sizeof(rep));
	r = result(40, 2);
	rp_repeat_add(&rep, &r, NULL);
	assert_false(rp_repeat_narrow(&rep, 0.95, 0.5)); /* no interval */
	for (i = 0; i < 4; i++) {
		r = result(40 + 0.01 * i, 2 + 0.001 * i);
		rp_repeat_add(&rep, &r, NULL);
	}
	assert_true(rp_repeat_narrow(&rep, 0.95, 0.01));
	r = result(80, 2); /* one outlier widens throughput's interval */
	rp_repeat_add(&rep, &r, NULL);
	assert_false(rp_repeat_narrow(&rep, 0.95, 0.01));
	assert_true(rp_repeat_narrow(&rep, 0.95, 10));
	/* a wild tail is reported, not waited on */
	memset(&rep, 0, sizeof(rep));
	for (i = 0; i < 4; i++) {
		r = result(40 + 0.01 * i, 2 + 0.001 * i);
		r.flow.has_latency = true;
		r.flow.latency.p50 = 1000 + i;
		r.flow.latency.p99_9 = i % 2 ? 1e6 : 1e3;
		rp_repeat_add(&rep, &r, NULL);
	}
	assert_true(rp_repeat_narrow(&rep, 0.95, 0.01));
	rep.v[3][RP_FIG_P50] = 3000; /* the median under load is judged */
	assert_false(rp_repeat_narrow(&rep, 0.95, 0.01));
}

static void test_json(void **state)
{
	static struct rp_repeat a, b;
	struct rp_result r;
	const cJSON *w;
	unsigned int i, cov = 0;
	cJSON *j;

	(void)state;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	for (i = 0; i < 4; i++) {
		r = result(10 + i, 2);
		rp_repeat_add(&a, &r, NULL);
		r = result(2 * (10 + i), 2); /* twice a, round by round */
		r.flow.seconds = 0.05;	     /* too short */
		rp_repeat_add(&b, &r, NULL);
	}
	j = rp_repeat_json(&b, 0.95, 0, "count", &a, "tcp");
	assert_non_null(j);
	assert_true(at(j, "n", NULL)->valuedouble == 4);
	assert_true(at(j, "level", NULL)->valuedouble == 95);
	assert_string_equal(at(j, "stopped", NULL)->valuestring, "count");
	assert_null(at(j, "target_pct", NULL)); /* no --confidence width */
	assert_true(fabs(at(at(j, "figures", "throughput"), "mean", NULL)
				 ->valuedouble -
			 23) < 1e-9);
	assert_int_equal(cJSON_GetArraySize(at(at(j, "figures", "throughput"),
					       "values", NULL)),
			 4);
	assert_null(at(j, "figures", "p50")); /* never measured */
	assert_string_equal(at(j, "against", "transport")->valuestring, "tcp");
	w = at(at(j, "against", "figures"), "throughput", NULL);
	assert_true(fabs(at(w, "ratio", NULL)->valuedouble - 2) < 1e-9);
	assert_true(cJSON_IsTrue(at(w, "significant", NULL)));
	/* unloaded p50 the same in both: a ratio of 1, its interval a point:
	 * not significant */
	w = at(at(j, "against", "figures"), "unloaded_p50", NULL);
	assert_true(fabs(at(w, "ratio", NULL)->valuedouble - 1) < 1e-12);
	assert_false(cJSON_IsTrue(at(w, "significant", NULL)));
	cJSON_ArrayForEach(w, at(j, "warnings", NULL))
	{
		cov += !strcmp(at(w, "kind", NULL)->valuestring, "cov");
		if (!strcmp(at(w, "kind", NULL)->valuestring, "short"))
			assert_true(at(w, "value", NULL)->valuedouble == 50);
	}
	assert_int_equal(cov, 2); /* throughput, msg rate: CoV 11% */
	cJSON_Delete(j);
	j = rp_repeat_json(&a, 0.95, 0.05, "confidence", NULL, NULL);
	assert_null(at(j, "against", NULL));
	assert_true(fabs(at(j, "target_pct", NULL)->valuedouble - 5) < 1e-9);
	cJSON_Delete(j);
}

/* The rounds' conditions: a CPU 20% slower at times, a clock 2000 ppm
 * off, each a warning with its figure; steady ones none. */
static void test_round_warnings(void **state)
{
	static struct rp_repeat rep;
	struct rp_round c = { 1.0, 1.01, 0, 0, 3 };
	struct rp_result r;
	const cJSON *w;
	unsigned int i, speed = 0, drift = 0;
	cJSON *j;

	(void)state;
	memset(&rep, 0, sizeof(rep));
	for (i = 0; i < 3; i++) {
		r = result(40, 2);
		rp_repeat_add(&rep, &r, &c);
	}
	j = rp_repeat_json(&rep, 0.95, 0, "count", NULL, NULL);
	cJSON_ArrayForEach(w, at(j, "warnings", NULL))
	{
		assert_string_not_equal(at(w, "kind", NULL)->valuestring,
					"cpu_speed");
		assert_string_not_equal(at(w, "kind", NULL)->valuestring,
					"clock_drift");
	}
	cJSON_Delete(j);
	c.speed_end = 1.2;
	c.drift_ppm = -2000;
	r = result(40, 2);
	rp_repeat_add(&rep, &r, &c);
	j = rp_repeat_json(&rep, 0.95, 0, "count", NULL, NULL);
	cJSON_ArrayForEach(w, at(j, "warnings", NULL))
	{
		if (!strcmp(at(w, "kind", NULL)->valuestring, "cpu_speed")) {
			speed++;
			assert_true(fabs(at(w, "value", NULL)->valuedouble -
					 20) < 1e-9);
			assert_true(at(w, "limit", NULL)->valuedouble == 10);
		}
		if (!strcmp(at(w, "kind", NULL)->valuestring, "clock_drift")) {
			drift++;
			assert_true(at(w, "value", NULL)->valuedouble == -2000);
		}
	}
	assert_int_equal(speed, 1);
	assert_int_equal(drift, 1);
	cJSON_Delete(j);
}

/* Other work on a side's pinned CPU: 80% of it busy with what is not
 * the server's own time, while the whole host looks 55% busy elsewhere;
 * the higher share is the figure. */
static void test_busy_pinned(void **state)
{
	static struct rp_repeat rep;
	struct rp_result r = result(40, 2);
	const cJSON *w;
	double busy = -1;
	cJSON *j;

	(void)state;
	memset(&rep, 0, sizeof(rep));
	r.client.present = r.server.present = true;
	r.client.cpu.user_s = 0.5; /* the client: CPU 0, its own */
	r.client.cpu.has_host = true;
	r.client.cpu.host = (struct rp_cpu_host){ -1, 0, 0, 0, 0, 1.6, 0.8 };
	r.server.cpu.sys_s = 0.2; /* the server: CPU 1, busy all along */
	r.server.cpu.n_cpus = 1;
	r.server.cpu.per_cpu[0] = (struct rp_cpu_host){ 1, 0, 0, 0, 0, 1, 1 };
	rp_repeat_add(&rep, &r, NULL);
	/* another host: only the client's time is its own on this one */
	assert_true(fabs(rep.other_busy[0] - 0.8) < 1e-9);
	rp_repeat_add(&rep, &r, NULL);
	j = rp_repeat_json(&rep, 0.95, 0, "count", NULL, NULL);
	cJSON_ArrayForEach(w, at(j, "warnings", NULL))
	{
		if (!strcmp(at(w, "kind", NULL)->valuestring, "host_busy"))
			busy = at(w, "value", NULL)->valuedouble;
	}
	assert_true(fabs(busy - 80) < 1e-9);
	cJSON_Delete(j);
	/* the host alone: (1.6 - 0.5) of 2 CPU-seconds */
	r.server.cpu.n_cpus = 0;
	memset(&rep, 0, sizeof(rep));
	rp_repeat_add(&rep, &r, NULL);
	assert_true(fabs(rep.other_busy[0] - 0.55) < 1e-9);
}

/* The probe itself: a time per operation, and one a clock can tell. */
static void test_speed_probe(void **state)
{
	struct rp_round c;

	(void)state;
	rp_repeat_round_begin(&c);
	rp_repeat_round_end(&c);
	assert_true(c.speed_begin > 0 && isfinite(c.speed_begin));
	assert_true(c.speed_end > 0 && isfinite(c.speed_end));
	/* a dependent multiply-add is a few cycles: between 0.1 and 100 ns */
	assert_true(c.speed_begin > 0.1 && c.speed_begin < 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows_and_median),
		cmocka_unit_test(test_narrow),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_round_warnings),
		cmocka_unit_test(test_busy_pinned),
		cmocka_unit_test(test_speed_probe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
