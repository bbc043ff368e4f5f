// SPDX-License-Identifier: MIT
/*
 * Unit tests of core/cpu: the arithmetic of rp_cpu_usage and
 * rp_cpu_service_demand on constructed samples (exact to rounding), and
 * rp_cpu_sample for real: CPU burnt in a loop shows up in the process's and
 * the thread's user time, CPU burnt by another thread only in the
 * process's, and the host's ticks are read. The bounds on measured time
 * are generous: the machine is shared.
 */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/cpu.h"

/* @got equals @want to a relative 1e-9 (absolute near 0). */
#define assert_near(got, want) near_at((got), (want), __FILE__, __LINE__)

static void near_at(double got, double want, const char *file, int line)
{
	double tol = 1e-9 * (fabs(want) > 1 ? fabs(want) : 1);

	if (fabs(got - want) > tol) {
		print_error("%.12g, expected %.12g\n", got, want);
		_fail(file, line);
	}
}

/* Arithmetic */

static void test_usage_arithmetic(void **state)
{
	long hz = sysconf(_SC_CLK_TCK);
	uint64_t h = (uint64_t)hz;
	struct rp_cpu_sample a = { .user_s = 1.0,
				   .sys_s = 0.5,
				   .host_busy_ticks = 1000,
				   .host_total_ticks = 4000 };
	struct rp_cpu_sample b = { .user_s = 3.5,
				   .sys_s = 1.25,
				   .host_busy_ticks = 1000 + 2 * h,
				   .host_total_ticks = 4000 + 8 * h };
	struct rp_cpu_usage u;

	(void)state;
	assert_true(hz > 0);
	rp_cpu_usage(&a, &b, 1 << 20, &u);
	assert_near(u.user_s, 2.5);
	assert_near(u.sys_s, 0.75);
	assert_near(u.host_busy_s, 2.0); /* 2 * hz ticks */
	assert_near(u.host_util, 0.25);	 /* 2 of 8 */
	/* 3.25 s over 1024 KiB */
	assert_near(u.us_per_kib, 3.25e6 / 1024);
}

static void test_usage_no_bytes(void **state)
{
	struct rp_cpu_sample a = { .user_s = 1.0, .host_total_ticks = 100 };
	struct rp_cpu_sample b = { .user_s = 2.0,
				   .sys_s = 1.0,
				   .host_busy_ticks = 10,
				   .host_total_ticks = 200 };
	struct rp_cpu_usage u;

	(void)state;
	rp_cpu_usage(&a, &b, 0, &u);
	assert_near(u.user_s, 1.0);
	assert_near(u.sys_s, 1.0);
	assert_near(u.us_per_kib, 0); /* no byte: no demand */
	assert_near(u.host_util, 0.1);
}

/* Unreadable /proc/stat: both samples hold 0 ticks, so does the usage. */
static void test_usage_no_host(void **state)
{
	struct rp_cpu_sample a = { .user_s = 1.0 };
	struct rp_cpu_sample b = { .user_s = 1.5 };
	struct rp_cpu_usage u;

	(void)state;
	rp_cpu_usage(&a, &b, 1024, &u);
	assert_near(u.user_s, 0.5);
	assert_near(u.host_busy_s, 0);
	assert_near(u.host_util, 0);
	assert_near(u.us_per_kib, 0.5e6);
}

/* Only one of the two samples read /proc/stat (the other failed, e.g. out
 * of descriptors): no host figure, not the wrapped difference. */
static void test_usage_one_host_sample(void **state)
{
	struct rp_cpu_sample a = { .user_s = 1,
				   .host_busy_ticks = 5000,
				   .host_total_ticks = 20000 };
	struct rp_cpu_sample b = { .user_s = 2 };
	struct rp_cpu_usage u;

	(void)state;
	rp_cpu_usage(&a, &b, 1024, &u);
	assert_near(u.host_busy_s, 0);
	assert_near(u.host_util, 0);
	rp_cpu_usage(&b, &a, 1024, &u);
	assert_near(u.host_busy_s, 0);
	assert_near(u.host_util, 0);
}

/* Identical samples: nothing used. */
static void test_usage_zero(void **state)
{
	struct rp_cpu_sample a = { .user_s = 7.0,
				   .sys_s = 3.0,
				   .host_busy_ticks = 50,
				   .host_total_ticks = 90 };
	struct rp_cpu_usage u;

	(void)state;
	rp_cpu_usage(&a, &a, 4096, &u);
	assert_near(u.user_s, 0);
	assert_near(u.sys_s, 0);
	assert_near(u.us_per_kib, 0);
	assert_near(u.host_busy_s, 0);
	assert_near(u.host_util, 0);
}

static void test_service_demand(void **state)
{
	(void)state;
	/* 1 s of CPU for 1 KiB: 1e6 us per KiB */
	assert_near(rp_cpu_service_demand(1.0, 0.0, 1024), 1e6);
	assert_near(rp_cpu_service_demand(0.0, 1.0, 1024), 1e6);
	/* user and system add up */
	assert_near(rp_cpu_service_demand(0.25, 0.25, 1024), 0.5e6);
	/* 0.5 s for 1 GiB = 2^20 KiB */
	assert_near(rp_cpu_service_demand(0.25, 0.25, 1ULL << 30),
		    0.5e6 / 1048576.0);
	/* a part of a KiB */
	assert_near(rp_cpu_service_demand(1e-6, 0, 512), 2.0);
	assert_near(rp_cpu_service_demand(3.0, 2.0, 0), 0);
	assert_near(rp_cpu_service_demand(0, 0, 1024), 0);
}

/* Sampling for real */

static double thread_cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Spend @s seconds of the calling thread's CPU time in user space. */
static void burn(double s)
{
	double end = thread_cpu_s() + s;
	volatile uint64_t x = 1;

	while (thread_cpu_s() < end) {
		int i;

		for (i = 0; i < 100000; i++)
			x = x * 6364136223846793005ULL + 1;
	}
}

static void assert_grew(bool thread_only)
{
	struct rp_cpu_sample a, b;
	struct rp_cpu_usage u;

	assert_int_equal(rp_cpu_sample(&a, thread_only), 0);
	burn(0.05);
	assert_int_equal(rp_cpu_sample(&b, thread_only), 0);
	rp_cpu_usage(&a, &b, 1 << 20, &u);
	assert_true(u.user_s + u.sys_s >= 0.03);
	assert_true(u.user_s >= 0.01);
	assert_true(u.sys_s >= 0);
	assert_true(u.user_s + u.sys_s < 10);
	assert_true(u.us_per_kib > 0);
}

static void test_sample_process(void **state)
{
	(void)state;
	assert_grew(false);
}

static void test_sample_thread(void **state)
{
	(void)state;
	assert_grew(true);
}

static void *burner(void *arg)
{
	burn(*(const double *)arg);
	return NULL;
}

/* Another thread's CPU time counts for the process, not for this thread. */
static void test_sample_thread_only(void **state)
{
	struct rp_cpu_sample pa, pb, ta, tb;
	struct rp_cpu_usage pu, tu;
	double s = 0.1;
	pthread_t t;

	(void)state;
	assert_int_equal(rp_cpu_sample(&pa, false), 0);
	assert_int_equal(rp_cpu_sample(&ta, true), 0);
	assert_int_equal(pthread_create(&t, NULL, burner, &s), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(rp_cpu_sample(&pb, false), 0);
	assert_int_equal(rp_cpu_sample(&tb, true), 0);
	rp_cpu_usage(&pa, &pb, 0, &pu);
	rp_cpu_usage(&ta, &tb, 0, &tu);
	assert_true(pu.user_s + pu.sys_s >= 0.06);
	assert_true(tu.user_s + tu.sys_s < 0.05);
}

/*
 * The host's ticks from the first line of /proc/stat, read independently:
 * busy is user + nice + system + irq + softirq + steal (not idle, iowait).
 */
static void proc_stat_ticks(uint64_t *busy, uint64_t *total)
{
	unsigned long long v[8] = { 0 };
	FILE *f = fopen("/proc/stat", "r");
	int i;

	assert_non_null(f);
	assert_int_equal(
		fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
		       &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]),
		8);
	fclose(f);
	*total = 0;
	for (i = 0; i < 8; i++)
		*total += v[i];
	*busy = *total - v[3] - v[4];
}

static void test_sample_host(void **state)
{
	uint64_t busy0, total0, busy1, total1;
	struct rp_cpu_sample a, b;
	struct rp_cpu_usage u;

	(void)state;
	if (access("/proc/stat", R_OK)) {
		print_message("skipped: /proc/stat is not readable here\n");
		skip();
	}
	/* the sample lies between two readings of our own */
	proc_stat_ticks(&busy0, &total0);
	assert_int_equal(rp_cpu_sample(&a, false), 0);
	proc_stat_ticks(&busy1, &total1);
	assert_true(busy0 <= a.host_busy_ticks && a.host_busy_ticks <= busy1);
	assert_true(total0 <= a.host_total_ticks &&
		    a.host_total_ticks <= total1);
	assert_true(a.host_total_ticks > 0);
	assert_true(a.host_busy_ticks > 0);
	assert_true(a.host_busy_ticks <= a.host_total_ticks);
	burn(0.05);
	assert_int_equal(rp_cpu_sample(&b, false), 0);
	assert_true(b.host_total_ticks >= a.host_total_ticks);
	assert_true(b.host_busy_ticks >= a.host_busy_ticks);
	rp_cpu_usage(&a, &b, 0, &u);
	assert_true(u.host_util >= 0 && u.host_util <= 1);
	assert_true(u.host_busy_s >= 0 && u.host_busy_s < 3600);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_usage_arithmetic),
		cmocka_unit_test(test_usage_no_bytes),
		cmocka_unit_test(test_usage_no_host),
		cmocka_unit_test(test_usage_one_host_sample),
		cmocka_unit_test(test_usage_zero),
		cmocka_unit_test(test_service_demand),
		cmocka_unit_test(test_sample_process),
		cmocka_unit_test(test_sample_thread),
		cmocka_unit_test(test_sample_thread_only),
		cmocka_unit_test(test_sample_host),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
