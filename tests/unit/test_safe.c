/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of core/safe: control characters shown escaped, invalid
 * UTF-8 replaced byte by byte, long strings cut at a character with the
 * count left out, and a cJSON tree cleaned in place (keys too, const keys
 * left alone when clean).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/safe.h"

static void check(const char *in, const char *want)
{
	char out[4 * RP_SAFE_MAX + 32];

	assert_int_equal(rp_safe_text(out, sizeof(out), in), strlen(want));
	assert_string_equal(out, want);
	assert_int_equal(rp_safe_is_clean(in), !strcmp(in, want));
}

static void test_plain_kept(void **state)
{
	(void)state;
	check("", "");
	check("node-07.example", "node-07.example");
	check("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", /* é € 😀 */
	      "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
}

static void test_controls_escaped(void **state)
{
	(void)state;
	check("a\x1b]0;pwned\x07z", "a\\x1b]0;pwned\\x07z");
	check("l1\nl2\r\t", "l1\\nl2\\r\\t");
	check("del\x7f", "del\\x7f");
	check("csi\xc2\x9b"
	      "2J",
	      "csi\\xc2\\x9b2J");	       /* C1 CSI */
	check("nbsp\xc2\xa0", "nbsp\xc2\xa0"); /* not a control */
}

static void test_invalid_utf8_replaced(void **state)
{
	(void)state;
	check("\xff", "\xef\xbf\xbd");
	check("a\xc3", "a\xef\xbf\xbd");	       /* cut short */
	check("\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd"); /* overlong '/' */
	check("\xe0\x80\xaf", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	check("\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	check("\xf4\x90\x80\x80",
	      "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	check("\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf"); /* U+10FFFF */
}

static void test_long_cut(void **state)
{
	size_t n = 1024 * 1024;
	char *in = malloc(n + 1), out[4 * RP_SAFE_MAX + 32], want[64];
	size_t len;

	(void)state;
	assert_non_null(in);
	memset(in, 'h', n);
	in[n] = '\0';
	len = rp_safe_text(out, sizeof(out), in);
	snprintf(want, sizeof(want), "...[+%zu bytes]", n - RP_SAFE_MAX);
	assert_int_equal(len, RP_SAFE_MAX + strlen(want));
	assert_string_equal(out + RP_SAFE_MAX, want);
	assert_false(rp_safe_is_clean(in));
	/* what it wrote is kept as it is: safe, within the tail's room */
	assert_true(rp_safe_is_clean(out));
	assert_int_equal(rp_safe_text(want, sizeof(want), "short"), 5);
	/* a multi-byte character never split at the cut */
	memset(in, 'h', 300);
	memcpy(in + RP_SAFE_MAX - 1, "\xc3\xa9", 2);
	in[300] = '\0';
	len = rp_safe_text(out, sizeof(out), in);
	assert_int_equal(out[RP_SAFE_MAX - 1], '.');
	assert_non_null(strstr(out, "[+45 bytes]"));
	/* clean but over the tail's room: cut as well */
	assert_false(rp_safe_is_clean(in));
	/* invalid bytes grow 3 times: the safe form is cut, and is then
	 * clean, so a second pass gives it back unchanged */
	memset(in, '\xff', 200);
	in[200] = '\0';
	len = rp_safe_text(out, sizeof(out), in);
	assert_true(len <= RP_SAFE_MAX + RP_SAFE_TAIL);
	assert_true(rp_safe_is_clean(out));
	{
		char again[sizeof(out)];

		rp_safe_text(again, sizeof(again), out);
		assert_string_equal(again, out);
	}
	/* every input byte a control: the worst growth still fits */
	memset(in, '\x1b', n);
	len = rp_safe_text(out, sizeof(out), in);
	assert_true(len < sizeof(out));
	assert_int_equal(strncmp(out, "\\x1b", 4), 0);
	free(in);
}

static void test_small_buffer(void **state)
{
	char out[6];

	(void)state;
	/* never a partial escape or character */
	assert_int_equal(rp_safe_text(out, sizeof(out), "ab\x1b"), 2);
	assert_string_equal(out, "ab");
	assert_int_equal(rp_safe_text(out, sizeof(out), "abc\xe2\x82\xac"), 3);
	assert_int_equal(rp_safe_text(out, 0, "x"), 0);
}

static void test_json_tree(void **state)
{
	cJSON *root = cJSON_Parse("{\"hostname\":\"evil\\u001b[2J\","
				  "\"k\\u0007\":[\"ok\",{\"x\":\"\\u009b\"}],"
				  "\"n\":3}");
	static const char konst[] = "const-key";
	char *text;

	(void)state;
	assert_non_null(root);
	/* a clean const key stays the caller's (not freed by cJSON) */
	cJSON_AddItemToObjectCS(root, konst, cJSON_CreateString("v\x01"));
	assert_int_equal(rp_safe_json(root), 0);
	text = cJSON_PrintUnformatted(root);
	assert_string_equal(text,
			    "{\"hostname\":\"evil\\\\x1b[2J\",\"k\\\\x07\":"
			    "[\"ok\",{\"x\":\"\\\\xc2\\\\x9b\"}],\"n\":3,"
			    "\"const-key\":\"v\\\\x01\"}");
	free(text);
	cJSON_Delete(root);
	assert_int_equal(rp_safe_json(NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_kept),
		cmocka_unit_test(test_controls_escaped),
		cmocka_unit_test(test_invalid_utf8_replaced),
		cmocka_unit_test(test_long_cut),
		cmocka_unit_test(test_small_buffer),
		cmocka_unit_test(test_json_tree),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
