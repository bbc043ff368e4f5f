// SPDX-License-Identifier: MIT
/*
 * Windows side of platform/cpu.h: GetProcessTimes and GetThreadTimes for
 * the process, GetSystemTimes for the host (its kernel time includes idle
 * time; no interrupt split, no per-CPU counters: those read 0), thread
 * affinity masks. Times count in
 * the system's 100 ns units, which are the "ticks" here. The CPU clock is
 * an invariant TSC's rate measured against QueryPerformanceCounter, or
 * none.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>

#include <cpuid.h>
#include <windows.h>
#include <x86intrin.h>

#include "platform/cpu.h"

#define TICKS_PER_S   10000000L /* FILETIME counts 100 ns */
#define HZ_MIN	      1e7	/* a clock outside 10 MHz..100 GHz is junk */
#define HZ_MAX	      1e11
#define TSC_WINDOW_MS 20

static uint64_t ft_ticks(const FILETIME *ft)
{
	return (uint64_t)ft->dwHighDateTime << 32 | ft->dwLowDateTime;
}

int rp_os_cpu_times(bool thread_only, double *user_s, double *sys_s)
{
	FILETIME created, ended, sys, user;
	BOOL ok = thread_only ? GetThreadTimes(GetCurrentThread(), &created,
					       &ended, &sys, &user)
			      : GetProcessTimes(GetCurrentProcess(), &created,
						&ended, &sys, &user);

	if (!ok)
		return -EIO;
	*user_s = (double)ft_ticks(&user) / TICKS_PER_S;
	*sys_s = (double)ft_ticks(&sys) / TICKS_PER_S;
	return 0;
}

int rp_os_stat_ticks(struct rp_cpu_ticks *all, const int *cpus,
		     unsigned int n_cpus, struct rp_cpu_ticks *per_cpu)
{
	FILETIME idle, kernel, user;
	unsigned int i;

	*all = (struct rp_cpu_ticks){ .cpu = -1 };
	for (i = 0; i < n_cpus; i++)
		per_cpu[i] = (struct rp_cpu_ticks){ .cpu = cpus[i] };
	if (!GetSystemTimes(&idle, &kernel, &user))
		return -EIO;
	all->user = ft_ticks(&user);
	all->idle = ft_ticks(&idle);
	all->sys = ft_ticks(&kernel) - all->idle;
	return 0;
}

int rp_os_host_ticks(uint64_t *busy, uint64_t *total)
{
	struct rp_cpu_ticks t;
	int err = rp_os_stat_ticks(&t, NULL, 0, NULL);

	*busy = *total = 0;
	if (err)
		return err;
	*busy = t.user + t.sys;
	*total = *busy + t.idle;
	return 0;
}

long rp_os_ticks_per_s(void)
{
	return TICKS_PER_S;
}

/* A (TSC, QPC count) pair: the counter read between two TSC reads, the
 * closest bracket of a few tries (an interrupt in between widens one). */
static void tsc_pair(uint64_t *tsc, uint64_t *qpc)
{
	uint64_t best = UINT64_MAX;
	LARGE_INTEGER q;
	int i;

	for (i = 0; i < 5; i++) {
		uint64_t t0 = __rdtsc();
		uint64_t t1;

		QueryPerformanceCounter(&q);
		t1 = __rdtsc();
		if (i == 0 || t1 - t0 < best) {
			best = t1 - t0;
			*tsc = t0 + (t1 - t0) / 2;
			*qpc = (uint64_t)q.QuadPart;
		}
	}
}

/* An invariant TSC (CPUID 0x80000007, EDX bit 8): its rate is the clock. */
static bool invariant_tsc(void)
{
	unsigned int a, b, c, d;

	if (!__get_cpuid(0x80000000, &a, &b, &c, &d) || a < 0x80000007)
		return false;
	__get_cpuid(0x80000007, &a, &b, &c, &d);
	return d & (1u << 8);
}

/* The TSC's rate against QueryPerformanceCounter over TSC_WINDOW_MS. */
static double tsc_hz(void)
{
	LARGE_INTEGER f;
	uint64_t c0, q0, c1, q1;

	if (!invariant_tsc() || !QueryPerformanceFrequency(&f))
		return 0;
	tsc_pair(&c0, &q0);
	Sleep(TSC_WINDOW_MS);
	tsc_pair(&c1, &q1);
	if (q1 <= q0 || c1 <= c0)
		return 0;
	return (double)(c1 - c0) * (double)f.QuadPart / (double)(q1 - q0);
}

static pthread_once_t hz_once = PTHREAD_ONCE_INIT;
static double hz_value;
static const char *hz_source = "none";

static void hz_init(void)
{
	double hz = tsc_hz();

	if (hz >= HZ_MIN && hz <= HZ_MAX) {
		hz_value = hz;
		hz_source = "tsc";
	}
}

double rp_os_cpu_hz(const char **source)
{
	pthread_once(&hz_once, hz_init);
	if (source)
		*source = hz_source;
	return hz_value;
}

int rp_os_pin_self(int cpu)
{
	if (cpu < 0 || cpu >= 64)
		return -EINVAL; /* one processor group */
	if (!SetThreadAffinityMask(GetCurrentThread(), (DWORD_PTR)1 << cpu))
		return -EINVAL;
	return 0;
}

int rp_os_cpu_count(void)
{
	DWORD_PTR mine, all;
	DWORD n;

	if (GetProcessAffinityMask(GetCurrentProcess(), &mine, &all) && mine)
		return __builtin_popcountll((unsigned long long)mine);
	n = GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
	return n > 0 ? (int)n : 1;
}

int rp_os_mem_node(const void *addr)
{
	(void)addr;
	return -ENOSYS;
}
