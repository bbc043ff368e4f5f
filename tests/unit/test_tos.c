// SPDX-License-Identifier: MIT
/* --tos: the TOS byte's spellings and its description (core/tos.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/tos.h"

static void parses(const char *s, uint32_t want)
{
	uint32_t v = 999;

	assert_int_equal(rp_tos_parse(s, &v), 0);
	assert_int_equal(v, want);
}

static void refuses(const char *s)
{
	uint32_t v = 999;

	assert_int_not_equal(rp_tos_parse(s, &v), 0);
	assert_int_equal(v, 999);
}

static void test_numbers(void **state)
{
	(void)state;
	parses("0", 0);
	parses("136", 136);
	parses("0x88", 0x88);
	parses("0XfF", 255);
	parses("255", 255);
	refuses("256");
	refuses("0x100");
	refuses("-1");
	refuses("");
	refuses(NULL);
	refuses("0x");
	refuses("1e2");
	refuses(" 8");
	refuses("8 ");
	refuses("99999999999999999999999");
}

/* RFC 4594's names: ef 46, afXY 8X + 2Y, csN 8N; ECN 0. */
static void test_names(void **state)
{
	(void)state;
	parses("ef", 46 << 2);
	parses("EF", 46 << 2);
	parses("af11", 10 << 2);
	parses("af41", 34 << 2);
	parses("af43", 38 << 2);
	parses("cs0", 0);
	parses("cs3", 24 << 2);
	parses("cs7", 56 << 2);
	refuses("af44");
	refuses("af51");
	refuses("af1");
	refuses("af411");
	refuses("cs8");
	refuses("efx");
}

static void says(uint32_t tos, const char *want)
{
	char buf[48];

	rp_tos_describe(tos, buf, sizeof(buf));
	assert_string_equal(buf, want);
}

static void test_describe(void **state)
{
	(void)state;
	says(0x88, "0x88 (DSCP 34 af41, ECN 0)");
	says(0x8b, "0x8b (DSCP 34 af41, ECN 3)");
	says(0xb8, "0xb8 (DSCP 46 ef, ECN 0)");
	says(0x60, "0x60 (DSCP 24 cs3, ECN 0)");
	says(0x01, "0x01 (DSCP 0 cs0, ECN 1)");
	says(0x68, "0x68 (DSCP 26 af31, ECN 0)");
	says(0x6c, "0x6c (DSCP 27, ECN 0)"); /* odd: no name */
	says(0xa8, "0xa8 (DSCP 42, ECN 0)"); /* 5x: no AF class 5 */
	says(0x9c, "0x9c (DSCP 39, ECN 0)");
}

/* Every name the parser takes is the name the description gives. */
static void test_round_trip(void **state)
{
	static const char *const names[] = { "ef",   "af11", "af12", "af13",
					     "af21", "af22", "af23", "af31",
					     "af32", "af33", "af41", "af42",
					     "af43", "cs1",  "cs2",  "cs3",
					     "cs4",  "cs5",  "cs6",  "cs7" };
	char buf[48], want[16];
	uint32_t v;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		assert_int_equal(rp_tos_parse(names[i], &v), 0);
		rp_tos_describe(v, buf, sizeof(buf));
		snprintf(want, sizeof(want), " %s,", names[i]);
		assert_non_null(strstr(buf, want));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_describe),
		cmocka_unit_test(test_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
