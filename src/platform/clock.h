/* SPDX-License-Identifier: MIT */
/*
 * Monotonic clock in nanoseconds. CLOCK_MONOTONIC is read through the vDSO
 * on Linux, one read for tens of nanoseconds and no system call; where the
 * CPU has a counter user space may read at a fixed rate (x86-64's
 * invariant TSC, arm64's cntvct_el0), rp_clock_ns() reads that instead and
 * converts it, calibrated against CLOCK_MONOTONIC, in about a third of the
 * time (bench/record_cost measures both). Its state is read on every call
 * and written only while the source is chosen (clock.c), before threads.
 *
 * The source is chosen once, at start (rp_clock_init): x86-64's TSC when
 * CPUID says it is invariant and the system keeps its own time by it
 * (Linux: the clocksource is "tsc"), rated against CLOCK_MONOTONIC over
 * RP_CLOCK_CALIBRATE_NS; arm64's virtual counter at the rate cntfrq_el0
 * gives; else CLOCK_MONOTONIC itself. RP_CLOCK=monotonic in the
 * environment keeps CLOCK_MONOTONIC; RP_CLOCK=tsc takes x86-64's TSC even
 * where CPUID does not call it invariant or the kernel does not keep time
 * by it (perftest's assumption: a virtual machine whose TSC the kernel
 * gave up on, where clock_gettime is a system call), and says so
 * (rp_clock_forced).
 */
#ifndef RP_PLATFORM_CLOCK_H
#define RP_PLATFORM_CLOCK_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#define RP_NS_PER_SEC 1000000000ULL
#define RP_NS_PER_MS  1000000ULL
#define RP_NS_PER_US  1000ULL

/* Where rp_clock_ns() reads time (rp_clock_init() chooses it once, at
 * start, before any thread; until then, and where no counter serves, the
 * kernel's CLOCK_MONOTONIC). */
enum rp_clock_source {
	RP_CLOCK_MONOTONIC, /* clock_gettime(CLOCK_MONOTONIC): ~25-30 ns */
	RP_CLOCK_TSC,	    /* x86-64 invariant TSC: ~10 ns */
	RP_CLOCK_CNTVCT,    /* arm64 virtual counter (cntvct_el0) */
};

/* The counter's conversion: ns = ns0 + ((count - count0) * mult) >> 32. */
struct rp_clock_state {
	enum rp_clock_source source;
	uint64_t count0, ns0, mult;
};

extern struct rp_clock_state rp_clock_st;

#if defined(__x86_64__) || defined(__aarch64__)
#define RP_CLOCK_COUNTER 1
__extension__ typedef unsigned __int128 rp_clock_u128;
static inline uint64_t rp_clock_count(void)
{
#if defined(__x86_64__)
	uint32_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
#else
	uint64_t v;

	__asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
	return v;
#endif
}
#endif

static inline uint64_t rp_clock_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * RP_NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

/** rp_clock_ns - monotonic time in nanoseconds, the same epoch as
 *  CLOCK_MONOTONIC, from the cheapest clock that keeps it:
 *  one counter read, a multiply and a shift. */
static inline uint64_t rp_clock_ns(void)
{
#ifdef RP_CLOCK_COUNTER
	if (rp_clock_st.source != RP_CLOCK_MONOTONIC) {
		uint64_t d = rp_clock_count() - rp_clock_st.count0;

		return rp_clock_st.ns0 +
		       (uint64_t)(((rp_clock_u128)d * rp_clock_st.mult) >> 32);
	}
#endif
	return rp_clock_mono_ns();
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

#define RP_CLOCK_CALIBRATE_NS (20ULL * 1000000ULL)

/** rp_clock_init - choose and calibrate the clock; call before any thread
 *  starts (the state is read without a lock). Idempotent. */
void rp_clock_init(void);

/** rp_clock_use - use @src (calibrating it) if this host can; for tests
 *  and for RP_CLOCK. Return: 0, or -ENOTSUP (the clock stays as it was). */
int rp_clock_use(enum rp_clock_source src);

/** rp_clock_force_tsc - use x86-64's TSC, rated against CLOCK_MONOTONIC,
 *  without the checks rp_clock_use() makes. Return: 0, or -ENOTSUP (not
 *  x86-64, or the rate made no sense). */
int rp_clock_force_tsc(void);

/** rp_clock_forced - the clock in use is the TSC taken unchecked. */
bool rp_clock_forced(void);

/** rp_clock_source_name - "tsc", "cntvct", "monotonic". */
const char *rp_clock_source_name(void);

/** rp_clock_hz - the counter's ticks per second; 1e9 for monotonic. */
double rp_clock_hz(void);

/** rp_clock_read_ns - what one rp_clock_ns() costs here, in ns: the
 *  least of a few batches of back-to-back reads (the least disturbed),
 *  measured on each call (well under a millisecond even where the clock
 *  is a system call of microseconds). A latency figure holds about one
 *  read: the end of the read that starts it, the start of the one that
 *  ends it. */
double rp_clock_read_ns(void);

/* A read above this is a system call (a vDSO read or a counter is tens of
 * ns): the text output says what it adds to each latency figure. */
#define RP_CLOCK_SLOW_NS 200

/** rp_clock_drift_ppm - how far rp_clock_ns() has run from
 *  CLOCK_MONOTONIC since calibration, in parts per million of the time
 *  elapsed (positive: ahead); 0 for monotonic or before 1 ms passed. */
double rp_clock_drift_ppm(void);

#endif
