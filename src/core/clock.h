/* SPDX-License-Identifier: MIT */
/*
 * Monotonic clock in nanoseconds. CLOCK_MONOTONIC is read through the vDSO
 * on Linux, so one read costs tens of nanoseconds and no system call
 * (bench/record_cost measures it together with a histogram update).
 */
#ifndef RP_CORE_CLOCK_H
#define RP_CORE_CLOCK_H

#include <stdint.h>
#include <time.h>

#define RP_NS_PER_SEC 1000000000ULL
#define RP_NS_PER_MS  1000000ULL
#define RP_NS_PER_US  1000ULL

/** rp_clock_ns - monotonic time in nanoseconds since an arbitrary epoch. */
static inline uint64_t rp_clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * RP_NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

#endif
