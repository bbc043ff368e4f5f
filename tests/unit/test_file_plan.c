// SPDX-License-Identifier: MIT
/* The file transport's offsets (src/xport/file/plan.c): sequential slots
 * that wrap, streams that start at their share, reproducible random slots
 * spread over the region, the fsync cadence, the fill pattern. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "xport/file/plan.h"
#include "xport/xport.h"

static void test_sequential_wraps(void **state)
{
	struct rp_file_plan p;
	uint64_t i;

	(void)state;
	rp_file_plan_init(&p, 10 * 4096, 4096, false, 0, 1);
	assert_int_equal(p.slots, 10);
	for (i = 0; i < 25; i++)
		assert_int_equal(rp_file_plan_next(&p), i % 10);
}

static void test_slots_round_down(void **state)
{
	struct rp_file_plan p;

	(void)state;
	rp_file_plan_init(&p, 10 * 4096 + 4095, 4096, false, 0, 1);
	assert_int_equal(p.slots, 10);
	rp_file_plan_init(&p, 100, 4096, false, 0, 1); /* never 0 slots */
	assert_int_equal(p.slots, 1);
	assert_int_equal(rp_file_plan_next(&p), 0);
	assert_int_equal(rp_file_plan_next(&p), 0);
}

static void test_streams_start_at_their_share(void **state)
{
	struct rp_file_plan p;

	(void)state;
	rp_file_plan_init(&p, 12 * 512, 512, false, 0, 3);
	assert_int_equal(rp_file_plan_next(&p), 0);
	rp_file_plan_init(&p, 12 * 512, 512, false, 1, 3);
	assert_int_equal(rp_file_plan_next(&p), 4);
	rp_file_plan_init(&p, 12 * 512, 512, false, 2, 3);
	assert_int_equal(rp_file_plan_next(&p), 8);
	assert_int_equal(rp_file_plan_next(&p), 9);
}

static void test_random_reproducible_and_spread(void **state)
{
	struct rp_file_plan a, b, c;
	unsigned int hits[16] = { 0 }, i, same = 0;
	uint64_t x;

	(void)state;
	rp_file_plan_init(&a, 16 * 4096, 4096, true, 0, 2);
	rp_file_plan_init(&b, 16 * 4096, 4096, true, 0, 2);
	rp_file_plan_init(&c, 16 * 4096, 4096, true, 1, 2);
	for (i = 0; i < 16000; i++) {
		x = rp_file_plan_next(&a);
		assert_true(x < 16);
		assert_int_equal(x, rp_file_plan_next(&b));
		same += x == rp_file_plan_next(&c);
		hits[x]++;
	}
	for (i = 0; i < 16; i++) /* 1000 expected in each */
		assert_in_range(hits[i], 850, 1150);
	assert_true(same < 2000); /* another stream, another sequence */
}

static void test_random_large_region(void **state)
{
	struct rp_file_plan p;
	uint64_t slots = (1ULL << 40) / 4096, max = 0, x;
	unsigned int i;

	(void)state;
	rp_file_plan_init(&p, 1ULL << 40, 4096, true, 0, 1);
	for (i = 0; i < 1000; i++) {
		x = rp_file_plan_next(&p);
		assert_true(x < slots);
		max = x > max ? x : max;
	}
	assert_true(max > slots / 2); /* not stuck at the start */
}

static void test_fsync_due(void **state)
{
	(void)state;
	assert_false(rp_file_fsync_due(1, 0));
	assert_false(rp_file_fsync_due(3, 0));
	assert_true(rp_file_fsync_due(1, 1));
	assert_false(rp_file_fsync_due(2, 3));
	assert_true(rp_file_fsync_due(3, 3));
	assert_false(rp_file_fsync_due(4, 3));
	assert_true(rp_file_fsync_due(6, 3));
	assert_false(rp_file_fsync_due(0, 3));
}

static void test_fill_slots(void **state)
{
	uint8_t buf[4 * 64];

	(void)state;
	rp_file_fill_slots(buf, 64, 7, 4);
	assert_int_equal(rp_payload_check(buf, 64, 7), 0);
	assert_int_equal(rp_payload_check(buf + 3 * 64, 64, 10), 0);
	assert_int_equal(rp_payload_check(buf + 64, 64, 7), -EIO);
	assert_int_equal(buf[64], 8); /* slot 8's number, low byte first */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sequential_wraps),
		cmocka_unit_test(test_slots_round_down),
		cmocka_unit_test(test_streams_start_at_their_share),
		cmocka_unit_test(test_random_reproducible_and_spread),
		cmocka_unit_test(test_random_large_region),
		cmocka_unit_test(test_fsync_due),
		cmocka_unit_test(test_fill_slots),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
