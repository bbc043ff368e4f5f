/* SPDX-License-Identifier: MIT */
/*
 * Monotonic clock in nanoseconds. CLOCK_MONOTONIC is read through the vDSO
 * on Linux, so one read costs tens of nanoseconds and no system call
 * (bench/record_cost measures it together with a histogram update).
 */
#ifndef RP_CORE_CLOCK_H
#define RP_CORE_CLOCK_H

#include <limits.h>
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

/* A deadline that never comes (rp_deadline_ns of a negative timeout). */
#define RP_NO_DEADLINE UINT64_MAX

/**
 * rp_deadline_ns - the rp_clock_ns() time @timeout_ms from now;
 * RP_NO_DEADLINE when @timeout_ms is negative.
 */
static inline uint64_t rp_deadline_ns(int timeout_ms)
{
	if (timeout_ms < 0)
		return RP_NO_DEADLINE;
	return rp_clock_ns() + (uint64_t)timeout_ms * RP_NS_PER_MS;
}

/**
 * rp_ms_left - whole milliseconds until @deadline_ns, rounded up so that a
 * wait of that long never wakes before the deadline; 0 once it passed, -1
 * for RP_NO_DEADLINE (poll's "forever"), at most INT_MAX.
 */
static inline int rp_ms_left(uint64_t deadline_ns)
{
	uint64_t now = rp_clock_ns(), ms;

	if (deadline_ns == RP_NO_DEADLINE)
		return -1;
	if (now >= deadline_ns)
		return 0;
	ms = (deadline_ns - now + RP_NS_PER_MS - 1) / RP_NS_PER_MS;
	return ms > INT_MAX ? INT_MAX : (int)ms;
}

#endif
