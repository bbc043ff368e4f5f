/* SPDX-License-Identifier: MIT */
/*
 * The operating system's CPU clocks: what a process (or a thread) has used,
 * and the whole host's busy and total time, including interrupt and
 * softirq work done for the network stack. core/cpu turns two samples into
 * the figures a result reports.
 */
#ifndef RP_PLATFORM_CPU_H
#define RP_PLATFORM_CPU_H

#include <stdbool.h>
#include <stdint.h>

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

/** rp_os_ticks_per_s - clock ticks per second of rp_os_host_ticks (> 0). */
long rp_os_ticks_per_s(void);

#endif
