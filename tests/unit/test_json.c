// SPDX-License-Identifier: MIT
/*
 * Unit tests of core/json and core/err: numbers out of JSON under one set
 * of rules for every layer (exact whole numbers up to 2^53, decimal strings
 * for wider values such as addresses, limits), and failure reasons (the
 * first one is kept, notes accumulate).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/err.h"
#include "core/json.h"

static cJSON *doc(const char *text)
{
	cJSON *o = cJSON_Parse(text);

	assert_non_null(o);
	return o;
}

static void test_u64_good(void **state)
{
	cJSON *o = doc("{\"a\": 0, \"b\": 9007199254740992, "
		       "\"c\": \"18446744073709551615\", \"d\": 4096}");
	uint64_t v;

	(void)state;
	assert_int_equal(rp_json_u64(o, "a", UINT64_MAX, &v), 0);
	assert_true(v == 0);
	assert_int_equal(rp_json_u64(o, "b", UINT64_MAX, &v), 0);
	assert_true(v == 9007199254740992ULL);
	assert_int_equal(rp_json_u64(o, "c", UINT64_MAX, &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(rp_json_u64(o, "d", 4096, &v), 0);
	assert_true(v == 4096);
	cJSON_Delete(o);
}

static void test_u64_bad(void **state)
{
	cJSON *o = doc("{\"neg\": -1, \"frac\": 1.5, \"big\": 1e300, "
		       "\"inexact\": 9007199254740994, \"s\": \"12x\", "
		       "\"empty\": \"\", \"sign\": \"-1\", \"t\": true, "
		       "\"over\": \"18446744073709551616\", \"n\": null}");
	const char *keys[] = { "neg",	"frac", "big", "inexact", "s",
			       "empty", "sign", "t",   "over",	  "n" };
	uint64_t v = 7;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		assert_int_equal(rp_json_u64(o, keys[i], UINT64_MAX, &v),
				 -EPROTO);
	assert_true(v == 7); /* untouched on failure */
	assert_int_equal(rp_json_u64(o, "missing", UINT64_MAX, &v), -ENOENT);
	cJSON_Delete(o);
	o = doc("{\"x\": 4097}");
	assert_int_equal(rp_json_u64(o, "x", 4096, &v), -EPROTO);
	cJSON_Delete(o);
}

static void test_defaults(void **state)
{
	cJSON *o = doc("{\"n\": 12, \"f\": 0.25, \"bad\": -3}");

	(void)state;
	assert_true(rp_json_u64_or(o, "n", 9) == 12);
	assert_true(rp_json_u64_or(o, "bad", 9) == 9);
	assert_true(rp_json_u64_or(o, "none", 9) == 9);
	assert_true(rp_json_u64_or(NULL, "n", 9) == 9);
	assert_true(rp_json_double_or(o, "f", 1) == 0.25);
	assert_true(rp_json_double_or(o, "none", 1) == 1);
	cJSON_Delete(o);
}

static void test_err_first_reason_kept(void **state)
{
	struct rp_err e = { "" };

	(void)state;
	assert_false(rp_err_set(&e));
	assert_string_equal(rp_err_text(&e, -ECONNREFUSED),
			    strerror(ECONNREFUSED));
	assert_int_equal(rp_errf(&e, -EIO, "first %d", 1), -EIO);
	assert_int_equal(rp_errf(&e, -EINVAL, "second"), -EINVAL);
	assert_string_equal(e.msg, "first 1");
	assert_string_equal(rp_err_text(&e, -EINVAL), "first 1");
	rp_err_clear(&e);
	assert_false(rp_err_set(&e));
	assert_int_equal(rp_errf(NULL, -ENOMEM, "dropped"), -ENOMEM);
	rp_err_clear(NULL);
}

static void test_notes(void **state)
{
	char buf[24] = "";

	(void)state;
	rp_notef(buf, sizeof(buf), "mtu %d", 1024);
	assert_string_equal(buf, "mtu 1024");
	rp_notef(buf, sizeof(buf), "gid %d", 1);
	assert_string_equal(buf, "mtu 1024; gid 1");
	rp_notef(buf, sizeof(buf), "a long note that does not fit");
	assert_int_equal(strlen(buf), sizeof(buf) - 1); /* truncated */
	rp_notef(buf, sizeof(buf), "more");		/* full: ignored */
	assert_int_equal(strlen(buf), sizeof(buf) - 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_u64_good),
		cmocka_unit_test(test_u64_bad),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_err_first_reason_kept),
		cmocka_unit_test(test_notes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
