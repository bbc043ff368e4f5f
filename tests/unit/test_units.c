// SPDX-License-Identifier: MIT
/*
 * Unit tests of core/units: sizes (1024-based, K/M/G/T in any case, with an
 * optional B or iB), counts (1000-based k/m/g), durations (seconds, ms, us,
 * ns, decimals) at their limits and just past them, and sizes for people.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/units.h"

#define KIB (1ULL << 10)
#define MIB (1ULL << 20)
#define GIB (1ULL << 30)
#define TIB (1ULL << 40)

typedef int (*parse_fn)(const char *s, uint64_t *out);

struct ok_case {
	const char *text;
	uint64_t want;
};

struct bad_case {
	const char *text;
	int want;
};

static void check_ok(parse_fn parse, const struct ok_case *c, size_t n)
{
	uint64_t v;
	size_t i;
	int ret;

	for (i = 0; i < n; i++) {
		v = 0xdeadbeef;
		ret = parse(c[i].text, &v);
		if (ret)
			fail_msg("\"%s\": returned %d, want 0", c[i].text, ret);
		if (v != c[i].want)
			fail_msg("\"%s\": got %llu, want %llu", c[i].text,
				 (unsigned long long)v,
				 (unsigned long long)c[i].want);
	}
}

static void check_bad(parse_fn parse, const struct bad_case *c, size_t n)
{
	uint64_t v;
	size_t i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = parse(c[i].text, &v);
		if (ret != c[i].want)
			fail_msg("\"%s\": returned %d, want %d", c[i].text, ret,
				 c[i].want);
	}
}

#define CHECK_OK(fn, cases) check_ok(fn, cases, sizeof(cases) / sizeof(*cases))
#define CHECK_BAD(fn, cases)                                                   \
	check_bad(fn, cases, sizeof(cases) / sizeof(*cases))

static void test_size_plain(void **state)
{
	static const struct ok_case cases[] = {
		{ "0", 0 },	  { "1", 1 },
		{ "4096", 4096 }, { "65536", 65536 },
		{ "007", 7 },	  { "10B", 10 },
		{ "10b", 10 },	  { "18446744073709551615", UINT64_MAX },
	};

	(void)state;
	CHECK_OK(rp_units_parse_size, cases);
}

static void test_size_suffixes(void **state)
{
	static const struct ok_case cases[] = {
		{ "4K", 4 * KIB },
		{ "4k", 4 * KIB },
		{ "4KB", 4 * KIB },
		{ "4kb", 4 * KIB },
		{ "4Kb", 4 * KIB },
		{ "4KiB", 4 * KIB },
		{ "4kib", 4 * KIB },
		{ "4KIB", 4 * KIB },
		{ "1M", MIB },
		{ "1m", MIB },
		{ "1MB", MIB },
		{ "1mb", MIB },
		{ "1MiB", MIB },
		{ "1mib", MIB },
		{ "3G", 3 * GIB },
		{ "3g", 3 * GIB },
		{ "3GB", 3 * GIB },
		{ "3GiB", 3 * GIB },
		{ "2T", 2 * TIB },
		{ "2t", 2 * TIB },
		{ "2TB", 2 * TIB },
		{ "2TiB", 2 * TIB },
		{ "0K", 0 },
		{ "1024K", MIB },
		{ "16777215T", 16777215 * TIB },
		{ "17179869183G", 17179869183ULL * GIB },
	};

	(void)state;
	CHECK_OK(rp_units_parse_size, cases);
}

static void test_size_rejects(void **state)
{
	static const struct bad_case cases[] = {
		{ "", -EINVAL },
		{ "K", -EINVAL },
		{ "KiB", -EINVAL },
		{ "12Q", -EINVAL },
		{ "-1", -EINVAL },
		{ "+1", -EINVAL },
		{ " 1", -EINVAL },
		{ "1 ", -EINVAL },
		{ "1 K", -EINVAL },
		{ "1.5K", -EINVAL },
		{ "1KK", -EINVAL },
		{ "1iB", -EINVAL },
		{ "1P", -EINVAL },
		{ "0x10", -EINVAL },
		{ "20000000T", -ERANGE },
		{ "16777216T", -ERANGE },
		{ "17179869184G", -ERANGE },
		{ "18446744073709551616", -ERANGE },
		{ "99999999999999999999999999K", -ERANGE },
	};
	uint64_t v;

	(void)state;
	CHECK_BAD(rp_units_parse_size, cases);
	assert_int_equal(rp_units_parse_size(NULL, &v), -EINVAL);
}

static void test_count(void **state)
{
	static const struct ok_case ok[] = {
		{ "0", 0 },
		{ "1", 1 },
		{ "100", 100 },
		{ "100k", 100000 },
		{ "100K", 100000 },
		{ "2m", 2000000 },
		{ "2M", 2000000 },
		{ "3g", 3000000000ULL },
		{ "3G", 3000000000ULL },
		{ "18446744073709551615", UINT64_MAX },
		{ "18446744073709551k", 18446744073709551000ULL },
	};
	static const struct bad_case bad[] = {
		{ "", -EINVAL },
		{ "k", -EINVAL },
		{ "-1", -EINVAL },
		{ " 1", -EINVAL },
		{ "1.5k", -EINVAL },
		{ "12Q", -EINVAL },
		{ "1t", -EINVAL },
		{ "1kb", -EINVAL },
		{ "1KiB", -EINVAL },
		{ "18446744073709552k", -ERANGE },
		{ "18446744073709551616", -ERANGE },
	};
	uint64_t v;

	(void)state;
	CHECK_OK(rp_units_parse_count, ok);
	CHECK_BAD(rp_units_parse_count, bad);
	assert_int_equal(rp_units_parse_count(NULL, &v), -EINVAL);
}

static void test_seconds(void **state)
{
	static const struct ok_case ok[] = {
		{ "5", 5000000000ULL },
		{ "0", 0 },
		{ "0.5", 500000000ULL },
		{ ".25", 250000000ULL },
		{ "2s", 2000000000ULL },
		{ "2S", 2000000000ULL },
		{ "500ms", 500000000ULL },
		{ "500MS", 500000000ULL },
		{ "1.5ms", 1500000ULL },
		{ "10us", 10000ULL },
		{ "100ns", 100ULL },
		{ "0.1", 100000000ULL },
		{ "86400", 86400000000000ULL },
	};
	static const struct bad_case bad[] = {
		{ "", -EINVAL },
		{ "abc", -EINVAL },
		{ "-1", -EINVAL },
		{ "+1", -EINVAL },
		{ " 1", -EINVAL },
		{ "1 ", -EINVAL },
		{ "1h", -EINVAL },
		{ "1m", -EINVAL },
		{ "1min", -EINVAL },
		{ "ms", -EINVAL },
		{ ".", -EINVAL },
		{ "nan", -EINVAL },
		{ "inf", -EINVAL },
		{ "5 s", -EINVAL },
		{ "1e400", -EINVAL }, /* decimal only: no exponents */
		{ "1e3", -EINVAL },
		{ "0x10", -EINVAL },
		{ "99999999999999999999", -ERANGE },
		{ "18446744073", -ERANGE },
	};
	uint64_t v;

	(void)state;
	CHECK_OK(rp_units_parse_seconds, ok);
	CHECK_BAD(rp_units_parse_seconds, bad);
	assert_int_equal(rp_units_parse_seconds(NULL, &v), -EINVAL);
}

/* Exact strings where the value is whole in its unit. */
static void test_format_exact(void **state)
{
	static const struct {
		uint64_t bytes;
		const char *want;
	} cases[] = {
		{ 0, "0 B" },
		{ 1, "1 B" },
		{ 100, "100 B" },
		{ 1023, "1023 B" },
		{ 1024, "1 KiB" },
		{ 4096, "4 KiB" },
		{ 65536, "64 KiB" },
		{ MIB, "1 MiB" },
		{ GIB, "1 GiB" },
		{ 3 * TIB, "3 TiB" },
		{ 1024 * TIB, "1024 TiB" },
		{ UINT64_MAX, "16777216 TiB" },
	};
	char buf[32];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		memset(buf, 'x', sizeof(buf));
		assert_ptr_equal(
			rp_units_format_size(cases[i].bytes, buf, sizeof(buf)),
			buf);
		assert_string_equal(buf, cases[i].want);
	}
}

/*
 * Fractions: the number times its unit gives the size back to within the
 * two decimals shown (the header promises "1.5 MiB"; 1.50 reads the same).
 */
static void test_format_fraction(void **state)
{
	static const struct {
		uint64_t bytes;
		double value;
		const char *unit;
	} cases[] = {
		{ 1536, 1.5, "KiB" },
		{ MIB + MIB / 2, 1.5, "MiB" },
		{ GIB / 4 * 5, 1.25, "GiB" },
		{ TIB + TIB / 10, 1.1, "TiB" },
	};
	char buf[32], *end;
	double v;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		rp_units_format_size(cases[i].bytes, buf, sizeof(buf));
		v = strtod(buf, &end);
		assert_true(end != buf && *end == ' ');
		assert_float_equal(v, cases[i].value, 0.005);
		assert_string_equal(end + 1, cases[i].unit);
	}
}

static void test_format_truncates(void **state)
{
	char buf[4];

	(void)state;
	assert_ptr_equal(rp_units_format_size(65536, buf, sizeof(buf)), buf);
	assert_string_equal(buf, "64 ");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_size_plain),
		cmocka_unit_test(test_size_suffixes),
		cmocka_unit_test(test_size_rejects),
		cmocka_unit_test(test_count),
		cmocka_unit_test(test_seconds),
		cmocka_unit_test(test_format_exact),
		cmocka_unit_test(test_format_fraction),
		cmocka_unit_test(test_format_truncates),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
