// SPDX-License-Identifier: MIT
/*
 * Windows side of platform/cpu.h: GetProcessTimes and GetThreadTimes for
 * the process, GetSystemTimes for the host (its kernel time includes idle
 * time; no interrupt split, no per-CPU counters: those read 0), the
 * nominal clock from the registry, thread affinity masks. Times count in
 * the system's 100 ns units, which are the "ticks" here.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>

#include <windows.h>

#include "platform/cpu.h"

#define TICKS_PER_S 10000000L /* FILETIME counts 100 ns */
#define HZ_MIN	    1e7	      /* a clock outside 10 MHz..100 GHz is junk */
#define HZ_MAX	    1e11

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

static pthread_once_t hz_once = PTHREAD_ONCE_INIT;
static double hz_value;
static const char *hz_source = "none";

/* The nominal clock Windows found at boot ("~MHz" of CPU 0). */
static void hz_init(void)
{
	DWORD mhz = 0, len = sizeof(mhz);

	if (RegGetValueA(HKEY_LOCAL_MACHINE,
			 "HARDWARE\\DESCRIPTION\\System\\CentralProcessor\\0",
			 "~MHz", RRF_RT_REG_DWORD, NULL, &mhz,
			 &len) != ERROR_SUCCESS)
		return;
	if ((double)mhz * 1e6 < HZ_MIN || (double)mhz * 1e6 > HZ_MAX)
		return;
	hz_value = (double)mhz * 1e6;
	hz_source = "registry";
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
