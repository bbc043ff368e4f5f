// SPDX-License-Identifier: MIT
/*
 * Unit tests of core/expect: every metric, operator and unit --expect
 * takes, the one-line errors that name the bad token, the verdict on the
 * boundaries, checks that cannot be judged, and the text line.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/expect.h"

static struct rp_expect e;
static char err[400];

static const struct rp_expect_term *one(const char *s)
{
	int rc = rp_expect_parse(s, &e, err, sizeof(err));

	if (rc)
		fail_msg("%s: %s", s, err);
	assert_int_equal(e.n, 1);
	return &e.t[0];
}

static void test_metrics(void **state)
{
	unsigned int m;
	char s[64];

	(void)state;
	for (m = 0; m < RP_EM__COUNT; m++) {
		snprintf(s, sizeof(s), "%s>=1", rp_expect_metric_name(m));
		assert_int_equal(one(s)->metric, m);
	}
	assert_int_equal(one("p99.9<=1ms")->metric, RP_EM_P999);
	assert_int_equal(one("unloaded_p99.9<=1ms")->metric,
			 RP_EM_UNLOADED_P999);
}

static void test_ops_units(void **state)
{
	const struct rp_expect_term *t;

	(void)state;
	assert_int_equal(one("p99>=1")->op, RP_EO_GE);
	assert_int_equal(one("p99<=1")->op, RP_EO_LE);
	assert_int_equal(one("p99>1")->op, RP_EO_GT);
	assert_int_equal(one("p99<1")->op, RP_EO_LT);
	assert_int_equal(one("errors==0")->op, RP_EO_EQ);
	assert_int_equal(one("errors!=0")->op, RP_EO_NE);
	assert_true(one("p99<=5us")->value == 5000);
	assert_true(one("p99<=2.5us")->value == 2500);
	assert_true(one("p99<=1ms")->value == 1e6);
	assert_true(one("p99<=2s")->value == 2e9);
	assert_true(one("p99<=700")->value == 700);
	assert_true(one("p99<=700ns")->value == 700);
	assert_true(one("bw>=180G")->value == 180e9);
	assert_true(one("bw>=180Gbps")->value == 180e9);
	assert_true(one("bw>=180Gb/s")->value == 180e9);
	assert_true(one("bw>=500M")->value == 500e6);
	assert_true(one("bw>=1T")->value == 1e12);
	assert_true(one("bw>=12345")->value == 12345);
	t = one("bw>=90%");
	assert_true(t->percent && t->value == 0.9);
	assert_true(one("msg_rate>=1M")->value == 1e6);
	assert_true(one("msg_rate>=250k")->value == 250e3);
	assert_true(one("retrans==0")->value == 0);
	t = one("  unloaded_p50 <= 2.5us ");
	assert_int_equal(t->metric, RP_EM_UNLOADED_P50);
	assert_string_equal(t->text, "unloaded_p50 <= 2.5us");
}

static void test_list(void **state)
{
	char s[512] = "";
	int i;

	(void)state;
	assert_int_equal(rp_expect_parse("bw>=90%, p99<=5us,errors==0", &e, err,
					 sizeof(err)),
			 0);
	assert_int_equal(e.n, 3);
	assert_int_equal(e.t[1].metric, RP_EM_P99);
	assert_string_equal(e.t[1].text, "p99<=5us");
	for (i = 0; i < RP_EXPECT_MAX + 1; i++)
		strcat(s, i ? ",errors==0" : "errors==0");
	assert_int_equal(rp_expect_parse(s, &e, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "more than 16"));
	assert_int_equal(e.n, 0);
}

/* Each bad expression: -EINVAL, one line that names the token. */
static void test_errors(void **state)
{
	static const struct {
		const char *expr, *names, *lists;
	} bad[] = {
		{ "p99<=5xs", "\"5xs\"", "ns, us, ms, s" },
		{ "foo>=1", "\"foo\"", "unloaded_p50" },
		{ "p99=5us", "p99=5us", ">=, <=" },
		{ "p99 5us", "p99 5us", "operators" },
		{ "p99=>5us", "p99=>5us", "operators" },
		{ ">=5us", "\"\"", "metrics" },
		{ "p99<=", "\"\"", "latency" },
		{ "p99<=-5us", "-5us", "latency" },
		{ "p99>=5%", "5%", "latency" },
		{ "bw>=0%", "0%", "above 0" },
		{ "bw>=101%", "101%", "at most 100" },
		{ "bw>=fast", "fast", "180G" },
		{ "bw>=1Q", "1Q", "bit/s" },
		{ "errors==1.5", "1.5", "whole number" },
		{ "msg_rate>=1Mbps", "1Mbps", "messages/s" },
		{ "bw>=1G,,p99<=1s", "empty", "METRIC OP VALUE" },
		{ "bw>=1G,", "empty", "METRIC OP VALUE" },
		{ "", "nothing", "METRIC OP VALUE" },
		{ "p99<=1000000000000000000000000000000000000000000000000000us",
		  "longer than", "characters" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(err, 'x', sizeof(err));
		err[sizeof(err) - 1] = '\0';
		if (rp_expect_parse(bad[i].expr, &e, err, sizeof(err)) !=
		    -EINVAL)
			fail_msg("%s: parsed", bad[i].expr);
		if (!strstr(err, bad[i].names) || !strstr(err, bad[i].lists) ||
		    strncmp(err, "--expect: ", 10) || strchr(err, '\n'))
			fail_msg("%s: %s", bad[i].expr, err);
	}
	/* a buffer of any size holds a terminated line */
	for (i = 1; i < 12; i++) {
		memset(err, 'x', sizeof(err));
		assert_int_equal(rp_expect_parse("foo>=1", &e, err, i),
				 -EINVAL);
		assert_true(strlen(err) < i);
	}
	assert_int_equal(rp_expect_parse(NULL, &e, NULL, 0), -EINVAL);
}

static struct rp_expect_values values(void)
{
	struct rp_expect_values v = { 0 };

	v.has[RP_EM_BW] = true;
	v.v[RP_EM_BW] = 93.1e9;
	v.has[RP_EM_P99] = true;
	v.v[RP_EM_P99] = 3200;
	v.has[RP_EM_ERRORS] = true;
	v.v[RP_EM_ERRORS] = 0;
	v.rated_bps = 100e9;
	return v;
}

static const cJSON *check_of(const cJSON *verdict, int i)
{
	return cJSON_GetArrayItem(
		cJSON_GetObjectItemCaseSensitive(verdict, "checks"), i);
}

static bool passed(const cJSON *o)
{
	return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "pass"));
}

static cJSON *judge(const char *s, const struct rp_expect_values *v)
{
	assert_int_equal(rp_expect_parse(s, &e, err, sizeof(err)), 0);
	return rp_expect_eval(&e, v);
}

static void test_eval(void **state)
{
	struct rp_expect_values v = values();
	cJSON *j;

	(void)state;
	j = judge("bw>=90%,p99<=5us,errors==0", &v);
	assert_true(passed(j) && rp_expect_verdict_pass(j));
	assert_true(cJSON_GetObjectItemCaseSensitive(check_of(j, 0), "limit")
			    ->valuedouble == 90e9);
	assert_string_equal(
		cJSON_GetObjectItemCaseSensitive(check_of(j, 1), "unit")
			->valuestring,
		"ns");
	cJSON_Delete(j);
	/* the boundaries: >= holds at the limit, > does not */
	j = judge("p99>=3200,p99>3200", &v);
	assert_true(passed(check_of(j, 0)));
	assert_false(passed(check_of(j, 1)));
	assert_false(passed(j));
	cJSON_Delete(j);
	j = judge("p99<=3.2us,p99<3.2us,p99!=3200,p99==3200", &v);
	assert_true(passed(check_of(j, 0)) && passed(check_of(j, 3)));
	assert_false(passed(check_of(j, 1)) || passed(check_of(j, 2)));
	cJSON_Delete(j);
	j = judge("bw>=94%", &v);
	assert_false(passed(j));
	cJSON_Delete(j);
}

/* What a point lacks fails its check, and says why. */
static void test_cannot_judge(void **state)
{
	struct rp_expect_values v = values();
	const cJSON *c, *why;
	cJSON *j;

	(void)state;
	v.rated_bps = 0;
	j = judge("bw>=90%,unloaded_p50<=2.5us,retrans==0,bw>=1G", &v);
	assert_false(passed(j));
	c = check_of(j, 0);
	why = cJSON_GetObjectItemCaseSensitive(c, "why");
	assert_false(passed(c));
	assert_non_null(strstr(why->valuestring, "rated rate"));
	assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(c, "limit")));
	c = check_of(j, 1);
	assert_true(
		cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(c, "measured")));
	assert_non_null(
		strstr(cJSON_GetObjectItemCaseSensitive(c, "why")->valuestring,
		       "ping-pong"));
	assert_non_null(
		strstr(cJSON_GetObjectItemCaseSensitive(check_of(j, 2), "why")
			       ->valuestring,
		       "counters"));
	assert_true(passed(check_of(j, 3)));
	cJSON_Delete(j);
	e.n = 0;
	j = rp_expect_eval(&e, &v);
	assert_true(passed(j)); /* nothing expected: nothing fails */
	cJSON_Delete(j);
}

static void test_line(void **state)
{
	struct rp_expect_values v = values();
	char buf[300];
	cJSON *j;
	size_t len;

	(void)state;
	j = judge("bw>=90%,p99<=5us", &v);
	rp_expect_line(j, buf, sizeof(buf));
	assert_string_equal(buf, "PASS (bw>=90%: 93.1 Gb/s of 100 Gb/s "
				 "(93.1%); p99<=5us: 3.2 us)");
	for (len = 1; len < 30; len++) {
		rp_expect_line(j, buf, len);
		assert_true(strlen(buf) < len);
	}
	cJSON_Delete(j);
	v.v[RP_EM_P99] = 7410;
	v.rated_bps = 0;
	j = judge("bw>=90%,p99<=5us,bw>=1G", &v);
	rp_expect_line(j, buf, sizeof(buf));
	assert_string_equal(buf, "FAIL: bw>=90%: the link's rated rate is not "
				 "known (no speed on either side's link); "
				 "p99<=5us: measured 7.41 us");
	cJSON_Delete(j);
	j = cJSON_Parse(
		"{\"pass\": \"yes\", \"checks\": [5, {\"expect\": 3}]}");
	rp_expect_line(j, buf, sizeof(buf));
	assert_string_equal(buf, "FAIL");
	assert_false(rp_expect_verdict_pass(j));
	cJSON_Delete(j);
	assert_false(rp_expect_verdict_pass(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_metrics),
		cmocka_unit_test(test_ops_units),
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_eval),
		cmocka_unit_test(test_cannot_judge),
		cmocka_unit_test(test_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
