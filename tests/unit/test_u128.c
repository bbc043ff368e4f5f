/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of core/u128: the portable 128-bit arithmetic behind the
 * histogram's exact sums. Known values at the extremes everywhere; where the
 * compiler has unsigned __int128, thousands of random operands against it
 * too, and the portable product against the one rp_u128_mul64() uses.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/u128.h"

#define MAX64 UINT64_MAX

static void assert_u128(struct rp_u128 got, uint64_t hi, uint64_t lo)
{
	assert_int_equal(got.hi, hi);
	assert_int_equal(got.lo, lo);
}

static void test_mul64_extremes(void **state)
{
	(void)state;
	assert_u128(rp_u128_mul64(0, MAX64), 0, 0);
	assert_u128(rp_u128_mul64(1, MAX64), 0, MAX64);
	/* (2^64 - 1)^2 = 2^128 - 2^65 + 1 */
	assert_u128(rp_u128_mul64(MAX64, MAX64), MAX64 - 1, 1);
	assert_u128(rp_u128_mul64_portable(MAX64, MAX64), MAX64 - 1, 1);
	assert_u128(rp_u128_mul64_portable(1ULL << 32, 1ULL << 32), 1, 0);
	assert_u128(rp_u128_mul64_portable(0xffffffffULL, 0xffffffffULL), 0,
		    0xfffffffe00000001ULL);
	/* the histogram's largest square: (2^41 - 1)^2 = 2^82 - 2^42 + 1 */
	assert_u128(rp_u128_mul64_portable((1ULL << 41) - 1, (1ULL << 41) - 1),
		    (1ULL << 18) - 1, 0xfffffc0000000001ULL);
}

static void test_add_sub_carry(void **state)
{
	struct rp_u128 a = { 0, MAX64 }, max = { MAX64, MAX64 };

	(void)state;
	rp_u128_add64(&a, 1);
	assert_u128(a, 1, 0);
	assert_u128(rp_u128_add(max, rp_u128_of(1)), 0, 0); /* modulo 2^128 */
	assert_u128(rp_u128_sub(a, rp_u128_of(1)), 0, MAX64);
	assert_u128(rp_u128_sub(rp_u128_of(0), rp_u128_of(1)), MAX64, MAX64);
	assert_u128(rp_u128_add(max, max), MAX64, MAX64 - 1);
	assert_true(rp_u128_cmp(a, rp_u128_of(MAX64)) > 0);
	assert_true(rp_u128_cmp(rp_u128_of(MAX64), a) < 0);
	assert_true(rp_u128_cmp(max, max) == 0);
	assert_u128(rp_u128_mul(max, 2), MAX64, MAX64 - 1);
}

static void test_divmod_extremes(void **state)
{
	struct rp_u128 max = { MAX64, MAX64 }, q;
	uint64_t r;

	(void)state;
	q = rp_u128_divmod(max, MAX64, &r); /* 2^64 + 1, remainder 0 */
	assert_u128(q, 1, 1);
	assert_int_equal(r, 0);
	q = rp_u128_divmod(max, 1, &r);
	assert_u128(q, MAX64, MAX64);
	assert_int_equal(r, 0);
	q = rp_u128_divmod(rp_u128_mul64(MAX64, MAX64 - 2), MAX64 - 1, &r);
	/* (m + 1)(m - 1) = m (m - 1) + m - 1, m = 2^64 - 2 */
	assert_u128(q, 0, MAX64 - 2);
	assert_int_equal(r, MAX64 - 2);
	q = rp_u128_divmod(rp_u128_of(7), 10, &r);
	assert_u128(q, 0, 0);
	assert_int_equal(r, 7);
}

static void test_to_ld(void **state)
{
	struct rp_u128 max = { MAX64, MAX64 }, two64 = { 1, 0 };

	(void)state;
	assert_true(rp_u128_to_ld(rp_u128_of(0)) == 0);
	assert_true(rp_u128_to_ld(two64) == 0x1p64L);
	assert_true(rp_u128_to_ld(max) == 0x1p128L); /* rounds up */
	assert_true(rp_u128_to_ld(rp_u128_of(MAX64)) == (long double)MAX64);
}

#ifdef __SIZEOF_INT128__
__extension__ typedef unsigned __int128 u128;

static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static u128 native(struct rp_u128 a)
{
	return (u128)a.hi << 64 | a.lo;
}

static void check_random_pair(uint64_t *seed)
{
	struct rp_u128 a = { rng_next(seed), rng_next(seed) }, q;
	uint64_t b = rng_next(seed) >> (rng_next(seed) % 64) | 1, r;
	u128 p = (u128)a.lo * b;

	q = rp_u128_mul64_portable(a.lo, b);
	assert_true(native(q) == (u128)a.lo * b);
	q = rp_u128_mul64(a.lo, b);
	assert_true(native(q) == (u128)a.lo * b);
	assert_true(native(rp_u128_mul(a, b)) == native(a) * b);
	assert_true(native(rp_u128_add(a, q)) == native(a) + p);
	assert_true(native(rp_u128_sub(a, q)) == native(a) - native(q));
	q = rp_u128_divmod(a, b, &r);
	assert_true(native(q) == native(a) / b && r == native(a) % b);
	assert_true(rp_u128_to_ld(a) == (long double)native(a));
	assert_true(rp_u128_cmp(a, q) ==
		    (native(a) > native(q)) - (native(a) < native(q)));
}

static void test_random_against_native(void **state)
{
	uint64_t seed = 2024;
	int i;

	(void)state;
	for (i = 0; i < 100000; i++)
		check_random_pair(&seed);
}
#else
static void test_random_against_native(void **state)
{
	(void)state;
	skip(); /* no unsigned __int128 here: the known values above hold */
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mul64_extremes),
		cmocka_unit_test(test_add_sub_carry),
		cmocka_unit_test(test_divmod_extremes),
		cmocka_unit_test(test_to_ld),
		cmocka_unit_test(test_random_against_native),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
