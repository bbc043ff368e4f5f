// SPDX-License-Identifier: MIT
/* What the kinds of plot share of their axes and units (plot.h). */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#include "report/plot/plot.h"
#include "report/plot/svg.h"

#define LOG_RATIO 20 /* a latency axis beyond max/min 20 is log */

/* Widen [*@lo, *@hi] to the drawable values of @v (above 0: @positive). */
void rp_plot_extent(const double *v, size_t n, bool positive, double *lo,
		    double *hi)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!isfinite(v[i]) || (positive && v[i] <= 0))
			continue;
		*lo = fmin(*lo, v[i]);
		*hi = fmax(*hi, v[i]);
	}
}

/* A latency axis over [@lo, @hi] us: logarithmic when it spans more
 * than LOG_RATIO (@ref: the value that ratio is taken against), else
 * linear from 0. */
void rp_plot_latency_axis(struct rp_svg_axis *a, double lo, double hi,
			  double ref)
{
	if (hi > 0 && ref > 0 && hi / ref > LOG_RATIO)
		rp_svg_ticks_log(a, lo, hi);
	else
		rp_svg_ticks_linear(a, 0, isfinite(hi) ? hi : 1, 6);
}

/* Gb/s and us of figures in b/s and ns; NaN (not drawn) for what no
 * measurement gives: below 0, not finite. */
double rp_plot_gbps(double bps)
{
	return isfinite(bps) && bps >= 0 ? bps / 1e9 : NAN;
}

double rp_plot_us(double ns)
{
	return isfinite(ns) && ns >= 0 ? ns / 1e3 : NAN;
}
