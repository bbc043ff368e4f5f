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
 *			bar at p50, p99 and p99.9 (unloaded: p50): its own
 *			file, distribution.c
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

static const struct rp_svg_style key_p50 = { .colour = "#555" };
static const struct rp_svg_style key_p99 = { .colour = "#555", .dashed = true };

static bool any(const double *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (isfinite(v[i]))
			return true;
	return false;
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
				   ? rp_plot_gbps(r->flow.bits_per_second)
				   : NAN;
		l = sweep_latency(r, s->unloaded);
		s->p50[i] = l ? rp_plot_us(l->p50) : NAN;
		s->p99[i] = l ? rp_plot_us(l->p99) : NAN;
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

	rp_plot_extent(s->x, n, true, &xlo, &xhi);
	rp_plot_extent(s->bw, n, false, &blo, &bhi);
	rp_plot_extent(s->p50, n, true, &llo, &lhi);
	rp_plot_extent(s->p99, n, true, &llo, &lhi);
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
		t->bw[i] = iv->flow.seconds > 0
				   ? rp_plot_gbps(iv->flow.bits_per_second)
				   : NAN;
		t->p99[i] = iv->flow.has_latency
				    ? rp_plot_us(iv->flow.latency.p99)
				    : NAN;
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
		rp_plot_extent(t->x, n, false, &rg->xlo, &rg->xhi);
		rp_plot_extent(t->bw, n, false, &rg->blo, &rg->bhi);
		rp_plot_extent(t->p99, n, true, &rg->llo, &rg->lhi);
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
	rp_plot_latency_axis(&lat->ay, rg->llo, rg->lhi, rg->llo);
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
