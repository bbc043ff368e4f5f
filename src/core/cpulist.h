/* SPDX-License-Identifier: MIT */
/*
 * CPU lists in the kernel's cpulist format (as in /sys/devices/system/cpu/
 * online and taskset -c): single CPUs and LO-HI ranges, comma-separated,
 * "0-3,6". Pure functions, no I/O.
 */
#ifndef RP_CORE_CPULIST_H
#define RP_CORE_CPULIST_H

#include <stddef.h>

#define RP_CPULIST_MAX_CPU 1023 /* highest CPU number accepted */

/**
 * rp_cpulist_parse - parse the CPU list @s ("0-3,6") into @out, in the order
 * given (a range ascending), each CPU from 0 to RP_CPULIST_MAX_CPU, no CPU
 * twice, at most @cap of them. The stride form of the kernel ("0-7:2") is
 * not accepted.
 * @n: receives the count (0 on failure).
 * @err: one-line reason naming --cpu and the accepted form and range.
 * Return: 0, or -EINVAL.
 */
int rp_cpulist_parse(const char *s, int *out, size_t cap, size_t *n, char *err,
		     size_t errlen);

#endif
