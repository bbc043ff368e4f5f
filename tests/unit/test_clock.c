// SPDX-License-Identifier: MIT
/*
 * Unit tests of the clock (platform/clock.h): whatever source
 * rp_clock_ns() reads, it keeps CLOCK_MONOTONIC's epoch and rate (within
 * what a shared machine allows), never goes back, and says what it is.
 * Where this CPU has no usable counter, the counter cases say so and
 * check the fallback instead.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <stdbool.h>
#include <time.h>

#include <cmocka.h>

#include "platform/clock.h"

#define MS 1000000ULL

static enum rp_clock_source counter(void)
{
#if defined(__aarch64__)
	return RP_CLOCK_CNTVCT;
#else
	return RP_CLOCK_TSC;
#endif
}

/* Monotonic, and the same epoch as CLOCK_MONOTONIC (within 1 ms). */
static void check_epoch_and_order(void)
{
	uint64_t prev = rp_clock_ns(), now, mono;
	int i;

	for (i = 0; i < 1000000; i++) {
		now = rp_clock_ns();
		assert_true(now >= prev);
		prev = now;
	}
	now = rp_clock_ns();
	mono = rp_clock_mono_ns();
	assert_true(now + MS > mono && mono + MS > now);
}

/* 50 ms asleep read the same on both clocks, to 1% (a busy machine may
 * stretch the gap between the two reads, never the rates). */
static void check_rate(void)
{
	struct timespec d = { 0, (long)(50 * MS) };
	uint64_t a0 = rp_clock_ns(), m0 = rp_clock_mono_ns(), a1, m1;

	nanosleep(&d, NULL);
	a1 = rp_clock_ns();
	m1 = rp_clock_mono_ns();
	assert_true((double)(a1 - a0) > 0.99 * (double)(m1 - m0) - 100000);
	assert_true((double)(a1 - a0) < 1.01 * (double)(m1 - m0) + 100000);
}

static void test_monotonic(void **state)
{
	(void)state;
	assert_int_equal(rp_clock_use(RP_CLOCK_MONOTONIC), 0);
	assert_string_equal(rp_clock_source_name(), "monotonic");
	assert_true(rp_clock_hz() == 1e9);
	assert_true(rp_clock_drift_ppm() == 0);
	check_epoch_and_order();
	check_rate();
}

static void test_counter(void **state)
{
	int err;

	(void)state;
	err = rp_clock_use(counter());
	if (err == -ENOTSUP) {
		/* no usable counter here: the clock stays the kernel's */
		assert_string_equal(rp_clock_source_name(), "monotonic");
		check_epoch_and_order();
		return;
	}
	assert_int_equal(err, 0);
	assert_string_not_equal(rp_clock_source_name(), "monotonic");
	assert_true(rp_clock_hz() >= 1e6 && rp_clock_hz() <= 1e11);
	check_epoch_and_order();
	check_rate();
	/* calibrated over 20 ms against CLOCK_MONOTONIC: a few ppm off at
	 * most (NTP slews the kernel's by up to 500) */
	assert_true(rp_clock_drift_ppm() > -1000 &&
		    rp_clock_drift_ppm() < 1000);
	assert_int_equal(rp_clock_use(RP_CLOCK_MONOTONIC), 0);
}

/* What a read costs, against the same reads timed from outside: never
 * more than twice their average (the measure takes its least disturbed
 * batch), never nothing. */
static void check_read_cost(void)
{
	uint64_t t0, t1 = 0;
	double cost = rp_clock_read_ns(), outside;
	int i;

	t0 = rp_clock_mono_ns();
	for (i = 0; i < 10000; i++)
		t1 += rp_clock_ns() & 1;
	outside = (double)(rp_clock_mono_ns() - t0) / 10000;
	assert_true(t1 <= 10000);
	assert_true(cost > 0);
	assert_true(cost <= 2 * outside + 20);
}

static void test_read_cost(void **state)
{
	(void)state;
	assert_int_equal(rp_clock_use(RP_CLOCK_MONOTONIC), 0);
	check_read_cost();
	if (rp_clock_use(counter()) == 0)
		check_read_cost();
	assert_int_equal(rp_clock_use(RP_CLOCK_MONOTONIC), 0);
}

/* The other architecture's counter is refused, the clock left alone. */
static void test_wrong_counter(void **state)
{
	enum rp_clock_source other =
		counter() == RP_CLOCK_TSC ? RP_CLOCK_CNTVCT : RP_CLOCK_TSC;

	(void)state;
	assert_int_equal(rp_clock_use(RP_CLOCK_MONOTONIC), 0);
	assert_int_equal(rp_clock_use(other), -ENOTSUP);
	assert_string_equal(rp_clock_source_name(), "monotonic");
}

/* RP_CLOCK=tsc: x86-64 takes the TSC unchecked and says so; elsewhere it
 * is refused, the clock left alone. Going back clears the mark. */
static void test_forced_tsc(void **state)
{
#if defined(__x86_64__)
	const bool x86_64 = true;
#else
	const bool x86_64 = false;
#endif
	uint64_t a, b;

	(void)state;
	assert_int_equal(rp_clock_use(RP_CLOCK_MONOTONIC), 0);
	if (!x86_64) {
		assert_int_equal(rp_clock_force_tsc(), -ENOTSUP);
		assert_false(rp_clock_forced());
		assert_string_equal(rp_clock_source_name(), "monotonic");
		return;
	}
	assert_int_equal(rp_clock_force_tsc(), 0);
	assert_true(rp_clock_forced());
	assert_string_equal(rp_clock_source_name(), "tsc");
	a = rp_clock_ns();
	b = rp_clock_mono_ns();
	assert_true(a < b + 50 * RP_NS_PER_MS && b < a + 50 * RP_NS_PER_MS);
	assert_int_equal(rp_clock_use(RP_CLOCK_MONOTONIC), 0);
	assert_false(rp_clock_forced());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_monotonic),
		cmocka_unit_test(test_counter),
		cmocka_unit_test(test_wrong_counter),
		cmocka_unit_test(test_forced_tsc),
		cmocka_unit_test(test_read_cost),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
