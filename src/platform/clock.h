/* SPDX-License-Identifier: MIT */
/*
 * Choosing rp_clock_ns()'s source (core/clock.h) once, at start: x86-64's
 * TSC when CPUID says it is invariant and the system keeps its own time by
 * it (Linux: the clocksource is "tsc"), rated against CLOCK_MONOTONIC over
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

#include <stdbool.h>
#include <stdint.h>

#include "core/clock.h"

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
