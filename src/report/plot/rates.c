// SPDX-License-Identifier: MIT
/*
 * The load curve (--rate list, --load-curve): the latency from each
 * operation's intended start (p50 solid, p99 dashed, log scale) against
 * the throughput achieved, one panel, a series per transport (and per size
 * and depth when the sweep has several): where the curve turns up is the
 * knee. A closed-loop point (the peak a curve is taken from) is no point
 * of it; a failed one breaks the line. With --repeat each point's
 * throughput has a horizontal error bar (plot/bars.c); the latency from
 * intended start has no interval: --repeat's latencies are the
 * completions'.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"
#include "report/plot/plot.h"
#include "report/plot/svg.h"

struct curve {
	double *x, *p50, *p99; /* by result */
	struct rp_plot_ci *ci; /* of x, by result */
	struct rp_plot_bars bars;
	size_t n_series, per; /* series of @per results (rates) each */
};

static void curve_fill(const struct rp_plot *p, struct curve *c)
{
	const struct rp_result *r;
	size_t i;

	for (i = 0; i < p->n; i++) {
		r = &p->res[i];
		c->x[i] = c->p50[i] = c->p99[i] = NAN;
		c->ci[i] = (struct rp_plot_ci){ NAN, NAN };
		if (r->failed || !r->spec.rate || !r->has_bandwidth)
			continue;
		c->x[i] = r->flow.bits_per_second / 1e9;
		c->p50[i] = r->dir[RP_DIR_C2S].flow.corrected.p50 / 1e3;
		c->p99[i] = r->dir[RP_DIR_C2S].flow.corrected.p99 / 1e3;
		if (isfinite(c->p50[i]) && c->p50[i] > 0)
			c->ci[i] = rp_plot_ci(r, "throughput", "Gb/s", c->x[i],
					      &c->bars);
	}
}

static bool any_of(const double *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (isfinite(v[i]) && v[i] > 0)
			return true;
	return false;
}

/* Series @k's name: its transport, with size and depth when they vary. */
static void curve_name(const struct rp_plot *p, const struct curve *c, size_t k,
		       char *buf, size_t len)
{
	const struct rp_result *r = &p->res[k * c->per];
	const struct rp_test *test = p->test;
	size_t per_t = c->n_series /
		       (test->n_transports ? test->n_transports : 1),
	       t = per_t ? k / per_t : 0, i, seen = 0, twice = 0;
	char sz[32], nth[16] = "";

	for (i = 0; i < test->n_transports; i++) {
		seen += i < t && !strcmp(test->transports[i], r->transport);
		twice += !strcmp(test->transports[i], r->transport);
	}
	if (twice > 1)
		snprintf(nth, sizeof(nth), " #%zu", seen + 1);
	if (test->n_sizes > 1 || test->n_depths > 1)
		snprintf(buf, len, "%s%s %s q%u", r->transport, nth,
			 rp_units_format_size(r->spec.size_bytes, sz,
					      sizeof(sz)),
			 r->spec.queue_depth);
	else
		snprintf(buf, len, "%s%s", r->transport, nth);
}

static void curve_axes(struct rp_svg_panel *pa, const struct curve *c, size_t n)
{
	double xlo = 0, xhi = 0, lo = INFINITY, hi = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (isfinite(c->x[i]))
			xhi = fmax(xhi, c->x[i]);
		if (isfinite(c->p50[i]) && c->p50[i] > 0)
			lo = fmin(lo, c->p50[i]);
		if (isfinite(c->p99[i]))
			hi = fmax(hi, c->p99[i]);
	}
	rp_plot_ci_extent(c->ci, n, 0, &xlo, &xhi);
	rp_svg_ticks_linear(&pa->ax, 0, xhi > 0 ? xhi : 1, 6);
	pa->ax.title = "throughput achieved (Gb/s)";
	rp_svg_ticks_log(&pa->ay, isfinite(lo) ? lo : 1, hi > lo ? hi : lo);
	pa->ay.title = "latency from intended start (\u00b5s)";
	rp_svg_panel_place(pa);
}

static void curve_draw(struct rp_plot *p, struct curve *c,
		       struct rp_svg_legend_entry *e, char (*names)[64])
{
	struct rp_svg_style st = { .marker = "point", .radius = 3.5 };
	struct rp_plot_figure fig;
	size_t k, first;

	for (k = 0; k < c->n_series; k++) {
		curve_name(p, c, k, names[k], sizeof(names[k]));
		e[k] = (struct rp_svg_legend_entry){
			.name = names[k],
			.style = { .colour = rp_svg_colour(k),
				   .marker = "point",
				   .radius = 3.5 },
		};
	}
	e[k++] = (struct rp_svg_legend_entry){ "p50", { .colour = "#555" } };
	e[k++] = (struct rp_svg_legend_entry){
		"p99", { .colour = "#555", .dashed = true }
	};
	k += rp_plot_bars_entry(&c->bars, " throughput", &e[k]);
	rp_plot_figure_open(p, &fig, 1, e, k);
	curve_axes(&fig.p[0], c, p->n);
	rp_svg_panel_draw(p->f, &fig.p[0], true, false);
	for (k = 0; k < c->n_series; k++) {
		first = k * c->per;
		st.colour = rp_svg_colour(k);
		st.dashed = false;
		rp_svg_group_open(p->f, "series", names[k]);
		/* a bar at each latency drawn: both stand at the throughput */
		rp_plot_bars_draw(p->f, &fig.p[0], c->p50 + first,
				  c->ci + first, c->per, true, st.colour);
		rp_plot_bars_draw(p->f, &fig.p[0], c->p99 + first,
				  c->ci + first, c->per, true, st.colour);
		rp_svg_series(p->f, &fig.p[0], c->x + first, c->p50 + first,
			      c->per, &st);
		st.dashed = true;
		rp_svg_series(p->f, &fig.p[0], c->x + first, c->p99 + first,
			      c->per, &st);
		rp_svg_group_close(p->f);
	}
	rp_svg_end(p->f);
}

int rp_plot_load(struct rp_plot *p)
{
	struct curve c = { .per = p->test->n_rates ? p->test->n_rates : 1 };
	struct rp_svg_legend_entry *e;
	char(*names)[64];
	double *v;

	c.n_series = p->n / c.per;
	v = calloc(3 * p->n, sizeof(*v));
	c.ci = calloc(p->n ? p->n : 1, sizeof(*c.ci));
	e = calloc(c.n_series + 3, sizeof(*e));
	names = calloc(c.n_series ? c.n_series : 1, sizeof(*names));
	if (!v || !c.ci || !e || !names) {
		free(v);
		free(c.ci);
		free(e);
		free(names);
		return -ENOMEM;
	}
	c.x = v;
	c.p50 = v + p->n;
	c.p99 = v + 2 * p->n;
	curve_fill(p, &c);
	if (!c.n_series || !any_of(c.p50, p->n))
		rp_plot_no_data(p);
	else
		curve_draw(p, &c, e, names);
	free(v);
	free(c.ci);
	free(e);
	free(names);
	return 0;
}
