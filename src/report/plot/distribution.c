// SPDX-License-Identifier: MIT
/*
 * The distribution plot (plot.h, "The kinds of plot"): latency against
 * percentile, a series per group and phase (under load, unloaded), from
 * each result's spectrum or, without one, its summary; with --repeat an
 * error bar at p50, p99 and p99.9 (unloaded: p50).
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"
#include "report/plot/plot.h"
#include "report/plot/svg.h"

enum dist_phase { DIST_LOADED, DIST_UNLOADED, DIST__COUNT };

static const char *const dist_phase_name[DIST__COUNT] = {
	[DIST_LOADED] = "under load",
	[DIST_UNLOADED] = "unloaded",
};

#define DIST_MAX_BARS 3

/* The figures --repeat gives an interval of, by phase and percentile. */
static const struct {
	enum dist_phase phase;
	double pct;
	const char *key;
	size_t off; /* in struct rp_hist_summary */
} dist_figs[] = {
	{ DIST_LOADED, 50, "p50", offsetof(struct rp_hist_summary, p50) },
	{ DIST_LOADED, 99, "p99", offsetof(struct rp_hist_summary, p99) },
	{ DIST_LOADED, 99.9, "p99_9", offsetof(struct rp_hist_summary, p99_9) },
	{ DIST_UNLOADED, 50, "unloaded_p50",
	  offsetof(struct rp_hist_summary, p50) },
};

/* One series: a group's latency in one phase, as percentile points, and
 * (--repeat) the intervals of its figures at their percentiles. */
struct dist {
	const struct rp_plot_group *g;
	enum dist_phase phase;
	char name[80];
	uint64_t count;
	struct rp_spectrum sp;
	size_t n_bars;
	double bar_x[DIST_MAX_BARS]; /* 1 / (1 - p) */
	struct rp_plot_ci ci[DIST_MAX_BARS];
};

/* The percentiles of @s where a spectrum would have them: those within
 * its count, and the max. */
static void dist_from_summary(const struct rp_hist_summary *s,
			      struct rp_spectrum *sp)
{
	const double pct[] = { 0, 50, 90, 99, 99.9, 99.99, 100 };
	const double v[] = { s->min,   s->p50,	  s->p90, s->p99,
			     s->p99_9, s->p99_99, s->max };
	size_t i;

	sp->n = 0;
	for (i = 0; i < sizeof(pct) / sizeof(*pct); i++) {
		if (pct[i] < 100 &&
		    100 / (100 - pct[i]) > (double)s->count * (1 + 1e-9))
			continue;
		sp->pct[sp->n] = pct[i];
		sp->value[sp->n++] = v[i];
	}
}

/* The intervals of @d's figures (summary @s of @r), each at its
 * percentile when the count reaches it, as the points do. */
static void dist_bars(const struct rp_result *r,
		      const struct rp_hist_summary *s, struct dist *d,
		      struct rp_plot_bars *bars)
{
	struct rp_plot_ci ci;
	double x, v;
	size_t i;

	d->n_bars = 0;
	for (i = 0; i < sizeof(dist_figs) / sizeof(*dist_figs); i++) {
		x = 100 / (100 - dist_figs[i].pct);
		if (dist_figs[i].phase != d->phase ||
		    d->n_bars == DIST_MAX_BARS ||
		    x > (double)d->count * (1 + 1e-9))
			continue;
		v = *(const double *)((const char *)s + dist_figs[i].off);
		ci = rp_plot_ci(r, dist_figs[i].key, "us", rp_plot_us(v), bars);
		if (isnan(ci.lo))
			continue;
		d->bar_x[d->n_bars] = x;
		d->ci[d->n_bars++] = ci;
	}
}

/* @d for the phase @ph of @r, its --repeat intervals counted in @bars.
 * Return: whether it has points. */
static bool dist_make(const struct rp_result *r, enum dist_phase ph,
		      struct dist *d, struct rp_plot_bars *bars)
{
	const struct rp_spectrum *sp =
		ph ? &r->unloaded_spectrum : &r->latency_spectrum;
	const struct rp_hist_summary *s = ph ? &r->unloaded : &r->flow.latency;
	bool has = ph ? r->has_unloaded : r->flow.has_latency;

	if (r->failed || (!sp->n && !has))
		return false;
	d->phase = ph;
	d->count = has ? s->count : 0;
	if (sp->n)
		d->sp = *sp;
	else
		dist_from_summary(s, &d->sp);
	if (d->sp.n > RP_SPECTRUM_MAX)
		d->sp.n = RP_SPECTRUM_MAX;
	if (d->sp.n > 0)
		dist_bars(r, s, d, bars);
	return d->sp.n > 0;
}

/* The points of @d: x = 1 / (1 - p), the max (p = 100) at its count, or
 * a step beyond the point before it. */
static void dist_points(const struct dist *d, double *x, double *y)
{
	double prev = 1, pct;
	size_t i;

	for (i = 0; i < d->sp.n; i++) {
		pct = d->sp.pct[i];
		if (!isfinite(pct) || pct < 0)
			x[i] = NAN;
		else if (pct < 100)
			x[i] = 100 / (100 - pct);
		else
			x[i] = (double)d->count > prev ? (double)d->count
						       : 2 * prev;
		if (isfinite(x[i]))
			prev = x[i];
		y[i] = rp_plot_us(d->sp.value[i]);
	}
}

/* Every group's phases that have points into @d. Return: how many. */
static size_t dist_collect(const struct rp_plot *p, struct dist *d,
			   struct rp_plot_bars *bars)
{
	size_t g, n = 0;
	int ph;

	for (g = 0; g < p->n_groups; g++) {
		for (ph = 0; ph < DIST__COUNT; ph++) {
			if (!dist_make(rp_plot_result(p, &p->g[g], 0), ph,
				       &d[n], bars))
				continue;
			d[n].g = &p->g[g];
			snprintf(d[n].name, sizeof(d[n].name), "%s %s",
				 p->g[g].name, dist_phase_name[ph]);
			n++;
		}
	}
	return n;
}

static struct rp_svg_style dist_style(const struct dist *d, size_t i)
{
	return (struct rp_svg_style){ .colour = rp_svg_colour(i),
				      .dashed = d->phase == DIST_UNLOADED,
				      .marker = "point",
				      .radius = 3 };
}

/* The axes of @n series; the latency's is logarithmic when the max is
 * far above the lowest median. */
static void dist_axes(struct rp_svg_panel *pa, const struct dist *d, size_t n)
{
	double x[RP_SPECTRUM_MAX], y[RP_SPECTRUM_MAX], xlo = 1, xhi = 1;
	double lo = INFINITY, hi = -INFINITY, p50 = INFINITY, least;
	size_t i, k;

	for (i = 0; i < n; i++) {
		dist_points(&d[i], x, y);
		rp_plot_extent(x, d[i].sp.n, true, &xlo, &xhi);
		rp_plot_extent(y, d[i].sp.n, true, &lo, &hi);
		for (k = 0; k < d[i].sp.n && !(d[i].sp.pct[k] >= 50); k++)
			;
		if (k < d[i].sp.n && y[k] > 0)
			p50 = fmin(p50, y[k]);
	}
	least = lo / 10; /* a bound below runs to the frame (plot/bars.c) */
	for (i = 0; i < n; i++)
		rp_plot_ci_extent(d[i].ci, d[i].n_bars, least, &lo, &hi);
	rp_svg_ticks_percentile(&pa->ax, xhi);
	pa->ax.title = "percentile";
	rp_plot_latency_axis(&pa->ay, lo, hi, p50);
	pa->ay.title = "latency (\u00b5s)";
	rp_svg_panel_place(pa);
}

static void dist_draw(struct rp_plot *p, const struct dist *d, size_t n,
		      struct rp_svg_legend_entry *e, struct rp_plot_bars *bars)
{
	double x[RP_SPECTRUM_MAX], y[RP_SPECTRUM_MAX];
	struct rp_plot_figure fig;
	struct rp_svg_style st;
	size_t i;

	for (i = 0; i < n; i++)
		e[i] = (struct rp_svg_legend_entry){ d[i].name,
						     dist_style(&d[i], i) };
	rp_plot_figure_open(p, &fig, 1, e,
			    n + rp_plot_bars_entry(bars, "", &e[n]));
	dist_axes(&fig.p[0], d, n);
	rp_svg_panel_draw(p->f, &fig.p[0], true, false);
	for (i = 0; i < n; i++) {
		st = dist_style(&d[i], i);
		dist_points(&d[i], x, y);
		rp_svg_group_open(p->f, "series", d[i].name);
		rp_plot_bars_draw(p->f, &fig.p[0], d[i].bar_x, d[i].ci,
				  d[i].n_bars, false, st.colour);
		rp_svg_series(p->f, &fig.p[0], x, y, d[i].sp.n, &st);
		rp_svg_group_close(p->f);
	}
	rp_svg_end(p->f);
}

int rp_plot_distribution(struct rp_plot *p)
{
	struct dist *d = calloc(DIST__COUNT * p->n_groups, sizeof(*d));
	struct rp_svg_legend_entry *e =
		calloc(DIST__COUNT * p->n_groups + 1, sizeof(*e));
	struct rp_plot_bars bars = { 0 };
	size_t n;

	if (!d || !e) {
		free(d);
		free(e);
		return -ENOMEM;
	}
	n = dist_collect(p, d, &bars);
	if (n)
		dist_draw(p, d, n, e, &bars);
	else
		rp_plot_no_data(p);
	free(d);
	free(e);
	return 0;
}
