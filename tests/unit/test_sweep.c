// SPDX-License-Identifier: MIT
/*
 * Unit tests of core/sweep and core/cpulist: sizes and depths as a value, a
 * list and a range of powers of two, --all-sizes, every rejection with a
 * message naming the flag, the default iterations of a sweep point, and CPU
 * lists in the kernel's format.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/cpulist.h"
#include "core/spec.h"
#include "core/sweep.h"

#define CAP 32
#define MIB (1ULL << 20)

static uint64_t sizes[CAP];
static uint32_t depths[CAP];
static int cpus[CAP];
static size_t n;
static char err[256];

static void sizes_ok(const char *arg)
{
	err[0] = '\0';
	if (rp_sweep_parse_sizes(arg, RP_SPEC_MAX_SIZE, sizes, CAP, &n, err,
				 sizeof(err)))
		fail_msg("'%s' rejected: %s", arg, err);
}

/* Rejected, with a message that holds @needle and names the flag. */
static void sizes_bad(const char *arg, size_t cap, const char *needle)
{
	err[0] = '\0';
	n = 99;
	assert_int_equal(rp_sweep_parse_sizes(arg, RP_SPEC_MAX_SIZE, sizes, cap,
					      &n, err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(n, 0);
	if (!strstr(err, "-S/--size") || !strstr(err, needle))
		fail_msg("'%s': message \"%s\" lacks -S/--size or \"%s\"", arg,
			 err, needle);
	assert_null(strchr(err, '\n'));
}

static void assert_sizes(const uint64_t *want, size_t count)
{
	size_t i;

	assert_int_equal(n, count);
	for (i = 0; i < count; i++)
		if (sizes[i] != want[i])
			fail_msg("value %zu: %llu, want %llu", i,
				 (unsigned long long)sizes[i],
				 (unsigned long long)want[i]);
}

static void test_single_and_list(void **state)
{
	(void)state;
	sizes_ok("4096");
	assert_sizes((const uint64_t[]){ 4096 }, 1);
	sizes_ok("4K,64K,1M");
	assert_sizes((const uint64_t[]){ 4096, 65536, MIB }, 3);
	/* A list keeps the order given. */
	sizes_ok("1M,4K,3");
	assert_sizes((const uint64_t[]){ MIB, 4096, 3 }, 3);
	sizes_ok("1G");
	assert_sizes((const uint64_t[]){ 1ULL << 30 }, 1);
	sizes_ok("1");
	assert_sizes((const uint64_t[]){ 1 }, 1);
}

static void test_range(void **state)
{
	size_t i;

	(void)state;
	sizes_ok("2-8M");
	assert_int_equal(n, 23);
	for (i = 0; i < n; i++)
		assert_int_equal(sizes[i], 2ULL << i);
	sizes_ok("4K-64K");
	assert_sizes((const uint64_t[]){ 4096, 8192, 16384, 32768, 65536 }, 5);
	/* Ends that are no powers of two are kept, the powers between. */
	sizes_ok("3-20");
	assert_sizes((const uint64_t[]){ 3, 4, 8, 16, 20 }, 5);
	sizes_ok("1000-4K");
	assert_sizes((const uint64_t[]){ 1000, 1024, 2048, 4096 }, 4);
	sizes_ok("4K-4K");
	assert_sizes((const uint64_t[]){ 4096 }, 1);
	sizes_ok("1-1G"); /* 31 values: fits RP_MAX_SIZES */
	assert_int_equal(n, 31);
}

static void test_all_sizes(void **state)
{
	uint64_t all[CAP];
	size_t i, count;

	(void)state;
	count = rp_sweep_all_sizes(all, CAP);
	sizes_ok("2-8M");
	assert_int_equal(count, 23);
	for (i = 0; i < count; i++)
		assert_int_equal(all[i], sizes[i]);
	assert_int_equal(all[0], RP_SWEEP_ALL_MIN);
	assert_int_equal(all[22], RP_SWEEP_ALL_MAX);
	assert_int_equal(rp_sweep_all_sizes(all, 5), 5); /* cap respected */
}

static void test_sizes_rejected(void **state)
{
	(void)state;
	sizes_bad("0", CAP, "accepted 1 to 1G bytes");
	sizes_bad("", CAP, "empty");
	sizes_bad("12Q", CAP, "12Q");
	sizes_bad("2G", CAP, "1G");
	sizes_bad("-1", CAP, "empty");
	sizes_bad("4K-2K", CAP, "descends");
	sizes_bad("4K,,8K", CAP, "empty");
	sizes_bad("4K,", CAP, "empty");
	sizes_bad(",4K", CAP, "empty");
	sizes_bad("1-2G", CAP, "2G out of range");
	sizes_bad("0-4K", CAP, "out of range");
	sizes_bad("4K-", CAP, "empty");
	sizes_bad("1-2-3", CAP, "not a number");
	sizes_bad("4K,8K-16K", CAP, "mixes a list and a range");
	sizes_bad("4K,8K,4K", CAP, "4096 given twice");
	sizes_bad("4K,4096", CAP, "given twice");
	sizes_bad("1,2,3,4", 3, "more than 3 values");
	sizes_bad("2-8M", 22, "more than 22");
	sizes_bad("123456789012345678901234567890123456", CAP, "too long");
	sizes_bad("99999999999999999999", CAP, "out of range");
}

static void test_depths(void **state)
{
	(void)state;
	assert_int_equal(rp_sweep_parse_depths("1,16,64", RP_SPEC_MAX_DEPTH,
					       depths, CAP, &n, err,
					       sizeof(err)),
			 0);
	assert_int_equal(n, 3);
	assert_int_equal(depths[0], 1);
	assert_int_equal(depths[2], 64);
	assert_int_equal(rp_sweep_parse_depths("1-4096", RP_SPEC_MAX_DEPTH,
					       depths, CAP, &n, err,
					       sizeof(err)),
			 0);
	assert_int_equal(n, 13);
	assert_int_equal(depths[12], 4096);
	assert_int_equal(rp_sweep_max_u32(depths, n), 4096);
}

static void depths_bad(const char *arg, const char *needle)
{
	err[0] = '\0';
	assert_int_equal(rp_sweep_parse_depths(arg, RP_SPEC_MAX_DEPTH, depths,
					       CAP, &n, err, sizeof(err)),
			 -EINVAL);
	if (!strstr(err, "-q/--queue-depth") || !strstr(err, needle))
		fail_msg("'%s': message \"%s\" lacks -q/--queue-depth or "
			 "\"%s\"",
			 arg, err, needle);
}

static void test_depths_rejected(void **state)
{
	(void)state;
	depths_bad("0", "accepted 1 to 4096");
	depths_bad("5000", "4096");
	depths_bad("x", "not a number");
	depths_bad("1k", "not a number"); /* depths take no suffix */
	depths_bad("16,1,16", "16 given twice");
	depths_bad("64-16", "descends");
	depths_bad("1,,2", "empty");
}

static void test_max(void **state)
{
	const uint64_t v64[] = { 4096, 8 << 20, 1, 65536 };
	const uint32_t v32[] = { 16, 1, 64, 4 };

	(void)state;
	assert_int_equal(rp_sweep_max_u64(v64, 4), 8 << 20);
	assert_int_equal(rp_sweep_max_u64(v64, 1), 4096);
	assert_int_equal(rp_sweep_max_u32(v32, 4), 64);
}

static void test_iterations(void **state)
{
	(void)state;
	/* 256 MiB / size, clamped to [1000, 1000000]. */
	assert_int_equal(rp_sweep_iterations(2), RP_SWEEP_MAX_ITERS);
	assert_int_equal(rp_sweep_iterations(256), RP_SWEEP_MAX_ITERS);
	assert_int_equal(rp_sweep_iterations(512), 524288);
	assert_int_equal(rp_sweep_iterations(4096), 65536);
	assert_int_equal(rp_sweep_iterations(64 << 10), 4096);
	assert_int_equal(rp_sweep_iterations(256 << 10), 1024);
	assert_int_equal(rp_sweep_iterations(1 << 20), RP_SWEEP_MIN_ITERS);
	assert_int_equal(rp_sweep_iterations(8 << 20), RP_SWEEP_MIN_ITERS);
	assert_int_equal(rp_sweep_iterations(1ULL << 30), RP_SWEEP_MIN_ITERS);
	assert_int_equal(rp_sweep_iterations(0), RP_SWEEP_MAX_ITERS);
}

static void cpus_ok(const char *arg, const int *want, size_t count)
{
	size_t i;

	err[0] = '\0';
	if (rp_cpulist_parse(arg, cpus, CAP, &n, err, sizeof(err)))
		fail_msg("'%s' rejected: %s", arg, err);
	assert_int_equal(n, count);
	for (i = 0; i < count; i++)
		assert_int_equal(cpus[i], want[i]);
}

static void cpus_bad(const char *arg, size_t cap, const char *needle)
{
	err[0] = '\0';
	n = 99;
	assert_int_equal(rp_cpulist_parse(arg, cpus, cap, &n, err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(n, 0);
	if (!strstr(err, "--cpu") || !strstr(err, needle))
		fail_msg("'%s': message \"%s\" lacks --cpu or \"%s\"", arg, err,
			 needle);
}

static void test_cpulist(void **state)
{
	(void)state;
	cpus_ok("0", (const int[]){ 0 }, 1);
	cpus_ok("0-3,6", (const int[]){ 0, 1, 2, 3, 6 }, 5);
	cpus_ok("6,0-1", (const int[]){ 6, 0, 1 }, 3);
	cpus_ok("5-5", (const int[]){ 5 }, 1);
	cpus_ok("1023", (const int[]){ 1023 }, 1);
	cpus_ok("1020-1023,0", (const int[]){ 1020, 1021, 1022, 1023, 0 }, 5);
}

static void test_cpulist_rejected(void **state)
{
	(void)state;
	cpus_bad("", CAP, "not a CPU list");
	cpus_bad("x", CAP, "0-3,6");
	cpus_bad("1024", CAP, "accepted 0 to 1023");
	cpus_bad("0-2000", CAP, "2000 out of range");
	cpus_bad("3-1", CAP, "descends");
	cpus_bad("0,,1", CAP, "not a CPU list");
	cpus_bad("0,", CAP, "not a CPU list");
	cpus_bad("-1", CAP, "not a CPU list");
	cpus_bad("0-", CAP, "not a CPU list");
	cpus_bad("0-7:2", CAP, "not a CPU list");
	cpus_bad("1 2", CAP, "not a CPU list");
	cpus_bad("0-3,2", CAP, "CPU 2 given twice");
	cpus_bad("0-4", 4, "more than 4 CPUs");
	cpus_bad("99999999999999999999999", CAP, "out of range");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_single_and_list),
		cmocka_unit_test(test_range),
		cmocka_unit_test(test_all_sizes),
		cmocka_unit_test(test_sizes_rejected),
		cmocka_unit_test(test_depths),
		cmocka_unit_test(test_depths_rejected),
		cmocka_unit_test(test_max),
		cmocka_unit_test(test_iterations),
		cmocka_unit_test(test_cpulist),
		cmocka_unit_test(test_cpulist_rejected),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
