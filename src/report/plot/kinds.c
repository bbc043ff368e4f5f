// SPDX-License-Identifier: MIT
/*
 * The three kinds of plot (svg.h, "The kinds of plot"):
 *
 *	sweep		throughput / latency (p50 solid, p99 dashed) against
 *			message size, two panels, a series per group; with
 *			--repeat an error bar at each point (plot/bars.c)
 *	time		throughput / p99 latency interval by interval
 *	distribution	latency against percentile, a series per group and
 *			phase (under load, unloaded); with --repeat an error
 *			bar at p50, p99 and p99.9 (unloaded: p50)
 *
 * A value that cannot be drawn (a failed point, a missing phase, NaN) is
 * NaN here, and the series' line breaks there.
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

#define PX_PER_SIZE_LABEL 70 /* room for "512 KiB" and a gap */
#define LOG_RATIO	  20 /* a latency axis beyond max/min 20 is log */

static const struct rp_svg_style key_p50 = { .colour = "#555" };
static const struct rp_svg_style key_p99 = { .colour = "#555", .dashed = true };

/* Widen [*@lo, *@hi] to the drawable values of @v (above 0: @positive). */
static void extent(const double *v, size_t n, bool positive, double *lo,
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

static bool any(const double *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (isfinite(v[i]))
			return true;
	return false;
}

/* A latency axis over [@lo, @hi] us: logarithmic when it spans more
 * than LOG_RATIO (@ref: the value that ratio is taken against), else
 * linear from 0. */
static void latency_axis(struct rp_svg_axis *a, double lo, double hi,
			 double ref)
{
	if (hi > 0 && ref > 0 && hi / ref > LOG_RATIO)
		rp_svg_ticks_log(a, lo, hi);
	else
		rp_svg_ticks_linear(a, 0, isfinite(hi) ? hi : 1, 6);
}

/* Gb/s and us of figures in b/s and ns; NaN (not drawn) for what no
 * measurement gives: below 0, not finite. */
static double gbps(double bps)
{
	return isfinite(bps) && bps >= 0 ? bps / 1e9 : NAN;
}

static double us(double ns)
{
	return isfinite(ns) && ns >= 0 ? ns / 1e3 : NAN;
}

static void fmt_size(double v, char *buf, size_t len)
{
	rp_units_format_size((uint64_t)llround(v), buf, len);
}

/* Sweep */

struct sweep {
	double *x, *bw, *p50, *p99;		    /* by rp_plot.order */
	struct rp_plot_ci *ci_bw, *ci_p50, *ci_p99; /* --repeat's, as those */
	struct rp_plot_bars bars;
	bool unloaded;
	bool halved;
};

static const struct rp_hist_summary *sweep_latency(const struct rp_result *r,
						   bool unloaded)
{
	if (r->failed)
		return NULL;
	if (unloaded)
		return r->has_unloaded ? &r->unloaded : NULL;
	return r->flow.has_latency ? &r->flow.latency : NULL;
}

static void sweep_fill(const struct rp_plot *p, struct sweep *s)
{
	const struct rp_hist_summary *l;
	const struct rp_result *r;
	size_t i;

	for (i = 0; i < p->n; i++)
		if (p->res[i].has_unloaded && !p->res[i].failed) {
			s->unloaded = true;
			s->halved = p->res[i].unloaded_halved;
		}
	for (i = 0; i < p->n; i++) {
		r = &p->res[p->order[i]];
		s->x[i] = (double)r->spec.size_bytes;
		s->bw[i] = !r->failed && r->has_bandwidth
				   ? gbps(r->flow.bits_per_second)
				   : NAN;
		l = sweep_latency(r, s->unloaded);
		s->p50[i] = l ? us(l->p50) : NAN;
		s->p99[i] = l ? us(l->p99) : NAN;
		/* --repeat has no figure of the unloaded p99 */
		s->ci_bw[i] =
			rp_plot_ci(r, "throughput", "Gb/s", s->bw[i], &s->bars);
		s->ci_p50[i] =
			rp_plot_ci(r, s->unloaded ? "unloaded_p50" : "p50",
				   "us", s->p50[i], &s->bars);
		s->ci_p99[i] = rp_plot_ci(r, s->unloaded ? NULL : "p99", "us",
					  s->p99[i], &s->bars);
	}
}

static void sweep_axes(struct rp_plot_figure *fig, const struct sweep *s,
		       size_t n)
{
	double xlo = INFINITY, xhi = -INFINITY, blo = 0, bhi = -INFINITY;
	double llo = INFINITY, lhi = -INFINITY, least;
	struct rp_svg_panel *bw = &fig->p[0], *lat = &fig->p[1];

	extent(s->x, n, true, &xlo, &xhi);
	extent(s->bw, n, false, &blo, &bhi);
	extent(s->p50, n, true, &llo, &lhi);
	extent(s->p99, n, true, &llo, &lhi);
	least = llo / 10; /* a bound below runs to the frame (plot/bars.c) */
	rp_plot_ci_extent(s->ci_bw, n, 0, &blo, &bhi);
	rp_plot_ci_extent(s->ci_p50, n, least, &llo, &lhi);
	rp_plot_ci_extent(s->ci_p99, n, least, &llo, &lhi);
	rp_svg_ticks_pow2(&bw->ax, xlo, xhi, (int)(bw->w / PX_PER_SIZE_LABEL),
			  fmt_size);
	bw->ax.title = "message size";
	rp_svg_ticks_linear(&bw->ay, 0, bhi, 6);
	bw->ay.title = "throughput (Gb/s)";
	lat->ax = bw->ax;
	rp_svg_ticks_log(&lat->ay, llo, lhi);
	lat->ay.title = !s->unloaded ? "latency under load (\u00b5s)"
			: s->halved  ? "unloaded latency, rtt/2 (\u00b5s)"
				     : "unloaded latency (\u00b5s)";
	rp_svg_panel_place(bw);
	rp_svg_panel_place(lat);
}

static bool sweep_drawn(const struct sweep *s, const struct rp_plot_group *g)
{
	return any(s->bw + g->first, g->n) || any(s->p50 + g->first, g->n) ||
	       any(s->p99 + g->first, g->n);
}

static void sweep_series(FILE *f, const struct rp_plot_figure *fig,
			 const struct sweep *s, const struct rp_plot_group *g)
{
	struct rp_svg_style st = { .colour = g->colour,
				   .marker = "point",
				   .radius = 3.5 };
	const double *x = s->x + g->first;

	rp_svg_group_open(f, "series", g->name);
	/* under the lines and markers, which stay legible over them */
	rp_plot_bars_draw(f, &fig->p[0], x, s->ci_bw + g->first, g->n, false,
			  g->colour);
	rp_plot_bars_draw(f, &fig->p[1], x, s->ci_p50 + g->first, g->n, false,
			  g->colour);
	rp_plot_bars_draw(f, &fig->p[1], x, s->ci_p99 + g->first, g->n, false,
			  g->colour);
	rp_svg_series(f, &fig->p[0], x, s->bw + g->first, g->n, &st);
	st.marker = "mark";
	st.radius = 3;
	rp_svg_series(f, &fig->p[1], x, s->p50 + g->first, g->n, &st);
	st.dashed = true;
	st.radius = 2.5;
	rp_svg_series(f, &fig->p[1], x, s->p99 + g->first, g->n, &st);
	rp_svg_group_close(f);
}

/* The legend: a drawn group's name, then what the line styles and the
 * error bars mean. */
static size_t sweep_legend(const struct rp_plot *p, struct sweep *s,
			   struct rp_svg_legend_entry *e)
{
	size_t i, n = 0;

	for (i = 0; i < p->n_groups; i++)
		if (sweep_drawn(s, &p->g[i]))
			e[n++] = (struct rp_svg_legend_entry){
				.name = p->g[i].name,
				.style = { .colour = p->g[i].colour,
					   .marker = "point",
					   .radius = 3.5 },
			};
	e[n++] = (struct rp_svg_legend_entry){ "latency p50", key_p50 };
	e[n++] = (struct rp_svg_legend_entry){ "latency p99", key_p99 };
	return n + rp_plot_bars_entry(&s->bars, "", &e[n]);
}

static void sweep_draw(struct rp_plot *p, struct sweep *s,
		       struct rp_svg_legend_entry *e)
{
	struct rp_plot_figure fig;
	size_t i, n_e = sweep_legend(p, s, e);

	rp_plot_figure_open(p, &fig, 2, e, n_e);
	sweep_axes(&fig, s, p->n);
	rp_svg_panel_draw(p->f, &fig.p[0], false, !any(s->bw, p->n));
	rp_svg_panel_draw(p->f, &fig.p[1], true,
			  !any(s->p50, p->n) && !any(s->p99, p->n));
	for (i = 0; i < p->n_groups; i++)
		if (sweep_drawn(s, &p->g[i]))
			sweep_series(p->f, &fig, s, &p->g[i]);
	rp_svg_end(p->f);
}

int rp_plot_sweep(struct rp_plot *p)
{
	struct rp_svg_legend_entry *e = calloc(p->n_groups + 3, sizeof(*e));
	double *v = calloc(4 * p->n, sizeof(*v));
	struct rp_plot_ci *ci = calloc(3 * p->n, sizeof(*ci));
	struct sweep s = { .x = v,
			   .bw = v + p->n,
			   .p50 = v + 2 * p->n,
			   .p99 = v + 3 * p->n,
			   .ci_bw = ci,
			   .ci_p50 = ci + p->n,
			   .ci_p99 = ci + 2 * p->n };

	if (!e || !v || !ci) {
		free(e);
		free(v);
		free(ci);
		return -ENOMEM;
	}
	sweep_fill(p, &s);
	if (!any(s.bw, p->n) && !any(s.p50, p->n) && !any(s.p99, p->n))
		rp_plot_no_data(p);
	else
		sweep_draw(p, &s, e);
	free(e);
	free(v);
	free(ci);
	return 0;
}

/* Time */

struct timeline {
	double *x, *bw, *p99; /* an interval each, of one result */
};

static const struct rp_result *time_result(const struct rp_plot *p,
					   const struct rp_plot_group *g)
{
	const struct rp_result *r = rp_plot_result(p, g, 0);

	return !r->failed && r->n_intervals && r->intervals ? r : NULL;
}

/* @r's intervals into @t, each at its end. Return: how many. */
static size_t time_fill(const struct rp_result *r, struct timeline *t)
{
	const struct rp_interval *iv;
	size_t i;

	for (i = 0; i < r->n_intervals; i++) {
		iv = &r->intervals[i];
		t->x[i] = iv->start + iv->flow.seconds;
		t->bw[i] = iv->flow.seconds > 0 ? gbps(iv->flow.bits_per_second)
						: NAN;
		t->p99[i] =
			iv->flow.has_latency ? us(iv->flow.latency.p99) : NAN;
	}
	return r->n_intervals;
}

/* What the groups with data span. */
struct time_range {
	double xlo, xhi, blo, bhi, llo, lhi;
};

/* The legend and the ranges of the groups with data. Return: entries. */
static size_t time_scan(const struct rp_plot *p, struct timeline *t,
			struct rp_svg_legend_entry *e, struct time_range *rg)
{
	const struct rp_result *r;
	size_t g, n, n_e = 0;

	*rg = (struct time_range){ 0,	      -INFINITY, 0,
				   -INFINITY, INFINITY,	 -INFINITY };
	for (g = 0; g < p->n_groups; g++) {
		r = time_result(p, &p->g[g]);
		n = r ? time_fill(r, t) : 0;
		if (!any(t->bw, n) && !any(t->p99, n))
			continue;
		e[n_e++] = (struct rp_svg_legend_entry){
			.name = p->g[g].name,
			.style = { .colour = p->g[g].colour,
				   .marker = "point",
				   .radius = 3 },
		};
		extent(t->x, n, false, &rg->xlo, &rg->xhi);
		extent(t->bw, n, false, &rg->blo, &rg->bhi);
		extent(t->p99, n, true, &rg->llo, &rg->lhi);
	}
	return n_e;
}

static void time_axes(struct rp_plot_figure *fig, const struct time_range *rg)
{
	struct rp_svg_panel *bw = &fig->p[0], *lat = &fig->p[1];

	rp_svg_ticks_linear(&bw->ax, 0, rg->xhi, 8);
	bw->ax.title = "time since the throughput phase began (s)";
	rp_svg_ticks_linear(&bw->ay, 0, rg->bhi, 6);
	bw->ay.title = "throughput (Gb/s)";
	lat->ax = bw->ax;
	latency_axis(&lat->ay, rg->llo, rg->lhi, rg->llo);
	lat->ay.title = "p99 latency under load (\u00b5s)";
	rp_svg_panel_place(bw);
	rp_svg_panel_place(lat);
}

static void time_series(FILE *f, const struct rp_plot_figure *fig,
			const struct rp_plot_group *g, const struct timeline *t,
			size_t n)
{
	struct rp_svg_style st = { .colour = g->colour,
				   .marker = "point",
				   .radius = n > 200 ? 1.5 : 3 };

	rp_svg_group_open(f, "series", g->name);
	rp_svg_series(f, &fig->p[0], t->x, t->bw, n, &st);
	st.marker = "mark";
	rp_svg_series(f, &fig->p[1], t->x, t->p99, n, &st);
	rp_svg_group_close(f);
}

static void time_draw(struct rp_plot *p, struct timeline *t,
		      struct rp_svg_legend_entry *e)
{
	struct rp_plot_figure fig;
	const struct rp_result *r;
	struct time_range rg;
	size_t g, n, n_e = time_scan(p, t, e, &rg);

	if (!n_e) {
		rp_plot_no_data(p);
		return;
	}
	rp_plot_figure_open(p, &fig, 2, e, n_e);
	time_axes(&fig, &rg);
	rp_svg_panel_draw(p->f, &fig.p[0], false, !isfinite(rg.bhi));
	rp_svg_panel_draw(p->f, &fig.p[1], true, !isfinite(rg.lhi));
	for (g = 0; g < p->n_groups; g++) {
		r = time_result(p, &p->g[g]);
		n = r ? time_fill(r, t) : 0;
		if (any(t->bw, n) || any(t->p99, n))
			time_series(p->f, &fig, &p->g[g], t, n);
	}
	rp_svg_end(p->f);
}

int rp_plot_time(struct rp_plot *p)
{
	struct rp_svg_legend_entry *e = calloc(p->n_groups, sizeof(*e));
	size_t g, most = 1;
	struct timeline t;
	double *v;

	for (g = 0; g < p->n_groups; g++)
		if (time_result(p, &p->g[g]) &&
		    rp_plot_result(p, &p->g[g], 0)->n_intervals > most)
			most = rp_plot_result(p, &p->g[g], 0)->n_intervals;
	v = calloc(3 * most, sizeof(*v));
	if (!e || !v) {
		free(e);
		free(v);
		return -ENOMEM;
	}
	t = (struct timeline){ v, v + most, v + 2 * most };
	time_draw(p, &t, e);
	free(e);
	free(v);
	return 0;
}

/* Distribution */

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
		ci = rp_plot_ci(r, dist_figs[i].key, "us", us(v), bars);
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
		y[i] = us(d->sp.value[i]);
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
		extent(x, d[i].sp.n, true, &xlo, &xhi);
		extent(y, d[i].sp.n, true, &lo, &hi);
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
	latency_axis(&pa->ay, lo, hi, p50);
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
