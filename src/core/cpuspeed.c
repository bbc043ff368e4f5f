// SPDX-License-Identifier: MIT
/* The CPU's speed now, measured on a dependent chain (core/cpuspeed.h). */
#include <math.h>
#include <stdint.h>

#include "core/cpuspeed.h"
#include "platform/clock.h"

/* One trial: an LCG step per operation, each on the last one's result,
 * so no two overlap and the compiler may neither vectorize nor fold the
 * loop (the empty asm makes x opaque to it at every step). */
static uint64_t chain(uint64_t x, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

double rp_cpu_speed_ns(void)
{
	static volatile uint64_t sink;
	uint64_t t0, t1, best = UINT64_MAX, x = sink + 1;
	int i;

	for (i = 0; i < RP_CPU_SPEED_TRIALS; i++) {
		t0 = rp_clock_ns();
		x = chain(x, RP_CPU_SPEED_OPS);
		t1 = rp_clock_ns();
		if (t1 > t0 && t1 - t0 < best)
			best = t1 - t0;
	}
	sink = x;
	return best == UINT64_MAX ? NAN : (double)best / RP_CPU_SPEED_OPS;
}
