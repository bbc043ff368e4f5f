/* SPDX-License-Identifier: MIT */
/*
 * The kinds of plot of a set of results, inside report/: plot/plot.c (the
 * entry, rp_report_plot: which kind, the series, the title), plot/kinds.c
 * (sweep, time, distribution), plot/rates.c (the load curve) and, below
 * them, plot/bars.c (--repeat's error bars) and plot/figure.c (a figure's
 * layout). They draw with svg.h's primitives.
 */
#ifndef RP_REPORT_PLOT_H
#define RP_REPORT_PLOT_H

#include <stddef.h>
#include <stdio.h>

#include "report/plot/svg.h"
#include "run/test.h"
#include "run/result.h"

/** One series: the results of one transport at one queue depth. */
struct rp_plot_group {
	char name[48];
	const char *colour;
	size_t first, n; /* in rp_plot.order */
};

/** A plot being drawn: the results and how they group into series. */
struct rp_plot {
	FILE *f;
	const struct rp_test *test;
	const struct rp_result *res;
	size_t n;
	size_t *order; /* result indices by group, then size */
	struct rp_plot_group *g;
	size_t n_groups;
	char title[384];
	char subtitle[640];
};

/** A figure: a title, a subtitle, a legend and panels stacked. */
struct rp_plot_figure {
	double w, h;
	size_t n_panels;
	struct rp_svg_panel p[2];
};

/* plot/figure.c, the bottom of plot/plot.c, plot/kinds.c and plot/rates.c */

/**
 * rp_plot_figure_open - lay out @n_panels (1 or 2) panels under the title
 * lines and a legend of @n entries, then begin the document: the title and
 * subtitle of @p (the document's <title> too) and the legend. The panels'
 * axes are the caller's to set, then rp_svg_panel_place.
 */
void rp_plot_figure_open(const struct rp_plot *p, struct rp_plot_figure *fig,
			 size_t n_panels, const struct rp_svg_legend_entry *e,
			 size_t n);

/** rp_plot_result - the @k-th result of group @g. */
const struct rp_result *rp_plot_result(const struct rp_plot *p,
				       const struct rp_plot_group *g, size_t k);

/** rp_plot_no_data - a figure that says nothing could be drawn, and why. */
void rp_plot_no_data(struct rp_plot *p);

/* plot/bars.c: --repeat's intervals as error bars */

/** A point's interval, the mean's over its repetitions (NaN: none). */
struct rp_plot_ci {
	double lo, hi;
};

/** What the error bars of a figure are, for its legend: the interval's
 *  level and the repetitions' counts of the bars found. */
struct rp_plot_bars {
	size_t n_bars;
	double level; /* percent */
	double n_lo, n_hi;
	char note[128]; /* rp_plot_bars_entry's text */
};

/**
 * rp_plot_ci - the interval of figure @key ("throughput", "p50", ...: the
 * keys of the "repeat" object's "figures") of @r, in @unit ("Gb/s", "us"),
 * for a point drawn at @v; counted in @bars. NaN when there is none: no
 * --repeat, a figure measured once (its interval null), another unit, a
 * failed result or a point not drawn (@v not finite).
 */
struct rp_plot_ci rp_plot_ci(const struct rp_result *r, const char *key,
			     const char *unit, double v,
			     struct rp_plot_bars *bars);

/** rp_plot_ci_extent - widen [*@lo, *@hi] to the @n intervals of @ci, all
 *  but a lower bound under @least (the axis would stretch over decades for
 *  it: the bar runs to the frame instead). */
void rp_plot_ci_extent(const struct rp_plot_ci *ci, size_t n, double least,
		       double *lo, double *hi);

/**
 * rp_plot_bars_entry - the legend's entry that says what the bars are
 * ("bars: 95% confidence interval of the mean@what, n=5; points: the
 * median run") into @e, when @bars found any. Return: the entries added,
 * 0 or 1.
 */
size_t rp_plot_bars_entry(struct rp_plot_bars *bars, const char *what,
			  struct rp_svg_legend_entry *e);

/** rp_plot_bars_draw - an error bar of @colour on panel @p at each of @n
 *  points with an interval: at x = @at[i] spanning y, or (@horizontal) at
 *  y = @at[i] spanning x. */
void rp_plot_bars_draw(FILE *f, const struct rp_svg_panel *p, const double *at,
		       const struct rp_plot_ci *ci, size_t n, bool horizontal,
		       const char *colour);

/* plot/axes.c: what the kinds share of their axes and units */

/** rp_plot_extent - widen [*@lo, *@hi] to the drawable values of @v
 *  (finite; above 0 too when @positive). */
void rp_plot_extent(const double *v, size_t n, bool positive, double *lo,
		    double *hi);

/** rp_plot_latency_axis - a latency axis over [@lo, @hi] us: logarithmic
 *  when @hi is over 20 times @ref, else linear from 0. */
void rp_plot_latency_axis(struct rp_svg_axis *a, double lo, double hi,
			  double ref);

/** rp_plot_gbps, rp_plot_us - Gb/s of bit/s, us of ns; NAN (not drawn)
 *  for a value below 0 or not finite. */
double rp_plot_gbps(double bps);
double rp_plot_us(double ns);

/* plot/kinds.c */

/** rp_plot_sweep - throughput and latency against message size.
 *  Return: 0 or -ENOMEM. */
int rp_plot_sweep(struct rp_plot *p);

/** rp_plot_time - throughput and p99 latency interval by interval. */
int rp_plot_time(struct rp_plot *p);

/* plot/distribution.c */

/** rp_plot_distribution - latency against percentile. */
int rp_plot_distribution(struct rp_plot *p);

/* plot/rates.c */

/** rp_plot_load - the load curve: latency from intended start against
 *  the throughput achieved, a series per transport. */
int rp_plot_load(struct rp_plot *p);

#endif
