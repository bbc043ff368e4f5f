// SPDX-License-Identifier: MIT
/* rp_clock_ns()'s source (clock.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "platform/clock.h"
#include "platform/os.h"

struct rp_clock_state rp_clock_st;
static double clock_hz = 1e9;
static bool clock_forced; /* RP_CLOCK=tsc: the checks were skipped */

static const char *const names[] = {
	[RP_CLOCK_MONOTONIC] = "monotonic",
	[RP_CLOCK_TSC] = "tsc",
	[RP_CLOCK_CNTVCT] = "cntvct",
};

#ifdef RP_CLOCK_COUNTER
/* A (count, ns) pair: CLOCK_MONOTONIC read between two counter reads, the
 * closest bracket of a few tries (an interrupt in between widens one). */
static void pair(uint64_t *count, uint64_t *ns)
{
	uint64_t best = UINT64_MAX, c0, c1, n;
	int i;

	for (i = 0; i < 7; i++) {
		c0 = rp_clock_count();
		n = rp_clock_mono_ns();
		c1 = rp_clock_count();
		if (i == 0 || c1 - c0 < best) {
			best = c1 - c0;
			*count = c0 + (c1 - c0) / 2;
			*ns = n;
		}
	}
}

/* Whether the counter runs at a constant rate, and @hz when it is known
 * without measuring (0: measure it). @force: the TSC whatever CPUID and the
 * kernel say of it. */
static bool counter_usable(enum rp_clock_source src, bool force, double *hz)
{
	*hz = 0;
#if defined(__x86_64__)
	unsigned int a, b, c, d;

	if (src != RP_CLOCK_TSC)
		return false;
	if (force)
		return true;
	if (!__get_cpuid(0x80000007, &a, &b, &c, &d) || !(d & (1u << 8)))
		return false;
	return rp_os_tsc_trusted();
#else
	uint64_t f;

	(void)force;
	if (src != RP_CLOCK_CNTVCT)
		return false;
	__asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(f));
	*hz = (double)f;
	return f >= 1000000;
#endif
}

/* The counter's rate against CLOCK_MONOTONIC over RP_CLOCK_CALIBRATE_NS. */
static double measure_hz(uint64_t *count0, uint64_t *ns0)
{
	struct timespec left = { 0, (long)RP_CLOCK_CALIBRATE_NS };
	uint64_t c1, n1;

	pair(count0, ns0);
	while (nanosleep(&left, &left) && errno == EINTR)
		;
	pair(&c1, &n1);
	if (n1 <= *ns0 || c1 <= *count0)
		return 0;
	return (double)(c1 - *count0) * 1e9 / (double)(n1 - *ns0);
}

static int clock_use(enum rp_clock_source src, bool force)
{
	struct rp_clock_state st = { .source = src };
	double hz;

	clock_forced = false;
	if (src == RP_CLOCK_MONOTONIC) {
		rp_clock_st = st;
		clock_hz = 1e9;
		return 0;
	}
	if (!counter_usable(src, force, &hz))
		return -ENOTSUP;
	if (hz)
		pair(&st.count0, &st.ns0);
	else
		hz = measure_hz(&st.count0, &st.ns0);
	if (!(hz >= 1e6 && hz <= 1e11))
		return -ENOTSUP;
	st.mult = (uint64_t)(1e9 * 4294967296.0 / hz + 0.5);
	rp_clock_st = st;
	clock_hz = hz;
	clock_forced = force;
	return 0;
}
#else
static int clock_use(enum rp_clock_source src, bool force)
{
	(void)force;
	if (src != RP_CLOCK_MONOTONIC)
		return -ENOTSUP;
	rp_clock_st = (struct rp_clock_state){ .source = src };
	return 0;
}
#endif

int rp_clock_use(enum rp_clock_source src)
{
	return clock_use(src, false);
}

int rp_clock_force_tsc(void)
{
	return clock_use(RP_CLOCK_TSC, true);
}

bool rp_clock_forced(void)
{
	return clock_forced;
}

void rp_clock_init(void)
{
	static bool done;
	const char *env = getenv("RP_CLOCK");

	if (done)
		return;
	done = true;
	if (env && !strcmp(env, "monotonic"))
		return;
	if (env && !strcmp(env, "tsc") && !rp_clock_force_tsc())
		return;
#if defined(__x86_64__)
	rp_clock_use(RP_CLOCK_TSC);
#elif defined(__aarch64__)
	rp_clock_use(RP_CLOCK_CNTVCT);
#endif
}

const char *rp_clock_source_name(void)
{
	return names[rp_clock_st.source];
}

double rp_clock_hz(void)
{
	return clock_hz;
}

#define COST_READS   64
#define COST_BATCHES 5

double rp_clock_read_ns(void)
{
	uint64_t t0, t1 = 0, best = UINT64_MAX;
	int b, i;

	for (b = 0; b < COST_BATCHES; b++) {
		t0 = rp_clock_ns();
		for (i = 0; i < COST_READS; i++)
			t1 = rp_clock_ns();
		if (t1 - t0 < best)
			best = t1 - t0;
	}
	return (double)best / COST_READS;
}

double rp_clock_drift_ppm(void)
{
	uint64_t mono, ours;

	if (rp_clock_st.source == RP_CLOCK_MONOTONIC)
		return 0;
	ours = rp_clock_ns();
	mono = rp_clock_mono_ns();
	if (mono < rp_clock_st.ns0 + 1000000)
		return 0;
	return ((double)ours - (double)mono) * 1e6 /
	       (double)(mono - rp_clock_st.ns0);
}
