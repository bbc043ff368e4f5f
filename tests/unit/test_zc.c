/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of core/zc: the accounting of MSG_ZEROCOPY notifications,
 * ranges of send calls numbered modulo 2^32.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/zc.h"

static void test_ranges(void **state)
{
	struct rp_zc_count c = { .issued = 10 };

	(void)state;
	assert_int_equal(rp_zc_pending(&c), 10);
	assert_int_equal(rp_zc_notified(&c, 0, 0, false), 1);
	assert_int_equal(rp_zc_notified(&c, 1, 6, true), 6);
	assert_int_equal(c.sends, 7);
	assert_int_equal(c.copied, 6);
	assert_int_equal(rp_zc_pending(&c), 3);
}

/* The kernel's numbers wrap at 2^32: a range across the wrap. */
static void test_wrap(void **state)
{
	struct rp_zc_count c = { .issued = (1ULL << 32) + 2 };

	(void)state;
	c.sends = (1ULL << 32) - 2; /* next notified: call 0xfffffffe */
	assert_int_equal(rp_zc_notified(&c, 0xfffffffeu, 1, true), 4);
	assert_int_equal(c.sends, (1ULL << 32) + 2);
	assert_int_equal(rp_zc_pending(&c), 0);
}

/* Never more notified than sent. */
static void test_clamp(void **state)
{
	struct rp_zc_count c = { .issued = 2 };

	(void)state;
	assert_int_equal(rp_zc_notified(&c, 0, 9, true), 2);
	assert_int_equal(c.copied, 2);
	assert_int_equal(rp_zc_notified(&c, 10, 10, false), 0);
	assert_int_equal(rp_zc_pending(&c), 0);
}

static void test_add_sub(void **state)
{
	struct rp_zc_count a = { 5, 4, 3 }, b = { 1, 1, 1 }, d;

	(void)state;
	d = rp_zc_sub(&a, &b);
	assert_int_equal(d.issued, 4);
	assert_int_equal(d.sends, 3);
	assert_int_equal(d.copied, 2);
	rp_zc_add(&d, &b);
	assert_int_equal(d.issued, 5);
	assert_int_equal(d.sends, 4);
	assert_int_equal(d.copied, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_wrap),
		cmocka_unit_test(test_clamp),
		cmocka_unit_test(test_add_sub),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
