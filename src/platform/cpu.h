/* SPDX-License-Identifier: MIT */
/*
 * The operating system's CPU clocks: what a process (or a thread) has used,
 * and the whole host's busy and total time, including interrupt and
 * softirq work done for the network stack. core/cpu turns two samples into
 * the figures a result reports. Linux: getrusage, /proc/stat, /proc/cpuinfo
 * (posix/cpu.c); Windows: GetProcessTimes, GetThreadTimes, GetSystemTimes,
 * which have no irq, softirq or per-CPU counters: those read 0 (win/cpu.c).
 */
#ifndef RP_PLATFORM_CPU_H
#define RP_PLATFORM_CPU_H

#include <stdbool.h>
#include <stdint.h>

/** Host tick counters of /proc/stat at one moment (one line of it). */
struct rp_cpu_ticks {
	int cpu; /* -1: the "cpu" line */
	uint64_t user, nice, sys, idle, iowait, irq, softirq, steal;
};

/**
 * rp_os_cpu_times - user and system CPU seconds of this process, or of the
 * calling thread with @thread_only.
 * Return: 0 or -errno.
 */
int rp_os_cpu_times(bool thread_only, double *user_s, double *sys_s);

/**
 * rp_os_host_ticks - the host's busy and total CPU time over all CPUs since
 * boot, in clock ticks (rp_os_ticks_per_s); busy excludes idle and iowait.
 * Return: 0, or -errno when it cannot be read (both set to 0 then).
 */
int rp_os_host_ticks(uint64_t *busy, uint64_t *total);

/**
 * rp_os_stat_ticks - the host's tick counters now: all CPUs into @all (cpu
 * -1) and, for each of the @n_cpus CPUs numbered in @cpus, that CPU's into
 * @per_cpu[i]; a CPU that is offline or absent gets its number and zero
 * counts. @cpus and @per_cpu may be NULL when @n_cpus is 0.
 * Return: 0, or -errno when they cannot be read (every count 0 then).
 */
int rp_os_stat_ticks(struct rp_cpu_ticks *all, const int *cpus,
		     unsigned int n_cpus, struct rp_cpu_ticks *per_cpu);

/** rp_os_ticks_per_s - clock ticks per second of rp_os_host_ticks (> 0). */
long rp_os_ticks_per_s(void);

/**
 * rp_os_cpu_hz - the CPU clock that turns CPU seconds into cycles: the TSC's
 * frequency measured against the monotonic clock where there is an
 * invariant TSC ("tsc"), else the nominal "cpu MHz" of /proc/cpuinfo
 * ("cpuinfo") or cpufreq's maximum ("cpufreq"); 0 and "none" when none
 * is known (Windows: the TSC, against QueryPerformanceCounter, or none).
 * Measured once (about 20 ms), then cached; thread-safe.
 */
double rp_os_cpu_hz(const char **source);

/** rp_os_pin_self - run the calling thread on CPU @cpu only. 0 or -errno. */
int rp_os_pin_self(int cpu);

/** rp_os_cpu_count - CPUs this process may run on (>= 1). */
int rp_os_cpu_count(void);

/**
 * rp_os_mem_node - the NUMA node holding the page at @addr (touched).
 * Return: the node (>= 0), or -errno (-ENOSYS without NUMA support).
 */
int rp_os_mem_node(const void *addr);

#endif
