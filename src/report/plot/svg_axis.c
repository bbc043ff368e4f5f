// SPDX-License-Identifier: MIT
/*
 * The plots' scales and their ticks (svg.h, "Scales and ticks"): a value
 * to its pixel, and readable ticks on linear, logarithmic, power-of-two
 * and percentile axes. No drawing: svg.c draws the panels they make.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "report/plot/svg.h"

bool rp_svg_scale_ok(const struct rp_svg_scale *s, double v)
{
	return isfinite(v) && (!s->log || v > 0);
}

double rp_svg_scale_px(const struct rp_svg_scale *s, double v)
{
	double t;

	if (s->log)
		t = log(v / s->lo) / log(s->hi / s->lo);
	else
		t = (v - s->lo) / (s->hi - s->lo);
	return s->px_lo + t * (s->px_hi - s->px_lo);
}

static void fmt_num(double v, char *buf, size_t len)
{
	snprintf(buf, len, "%.6g", v);
}

static void add_tick(struct rp_svg_axis *a, double v, bool major,
		     rp_svg_fmt *fmt)
{
	struct rp_svg_tick *t;

	if (a->n >= RP_SVG_MAX_TICKS)
		return;
	t = &a->t[a->n++];
	t->v = v;
	t->major = major;
	t->label[0] = '\0';
	if (major)
		fmt(v, t->label, sizeof(t->label));
}

static double nice_step(double raw)
{
	double mag = pow(10, floor(log10(raw))), m = raw / mag;

	if (m <= 1)
		return mag;
	if (m <= 2)
		return 2 * mag;
	if (m <= 2.5)
		return 2.5 * mag;
	return (m <= 5 ? 5 : 10) * mag;
}

void rp_svg_ticks_linear(struct rp_svg_axis *a, double lo, double hi,
			 int target)
{
	double step, k, k0, k1, v;

	if (!isfinite(lo) || !isfinite(hi) || hi < lo)
		lo = 0, hi = 1;
	if (hi == lo)
		hi = lo + (lo != 0 ? fabs(lo) : 1);
	step = nice_step((hi - lo) / (target > 0 ? target : 5));
	k0 = floor(lo / step + 0.02); /* a hair over a step: the margin */
	k1 = ceil(hi / step - 0.02);
	a->sc.lo = k0 * step;
	a->sc.hi = k1 * step;
	a->sc.log = false;
	a->n = 0;
	for (k = k0; k <= k1; k++) {
		v = fabs(k) < 0.5 ? 0 : k * step;
		add_tick(a, v, true, fmt_num);
	}
}

/* @v moved down (@up: up) to 1, 2 or 5 x 10^k. */
static double snap_125(double v, bool up)
{
	double mag = pow(10, floor(log10(v) + 1e-9)), m = v / mag;

	if (up)
		m = m <= 1 + 1e-9   ? 1
		    : m <= 2 + 1e-9 ? 2
		    : m <= 5 + 1e-9 ? 5
				    : 10;
	else
		m = m >= 5 - 1e-9 ? 5 : m >= 2 - 1e-9 ? 2 : 1;
	return m * mag;
}

void rp_svg_ticks_log(struct rp_svg_axis *a, double lo, double hi)
{
	static const double mant[] = { 1, 2, 5 };
	double decades, v;
	int e, e0, e1, every;
	size_t i;

	if (!(lo > 0) || !isfinite(lo) || !isfinite(hi) || hi < lo)
		lo = 1, hi = 10;
	if (hi == lo)
		lo /= 2, hi *= 2;
	lo = snap_125(lo, false);
	hi = snap_125(hi, true);
	decades = log10(hi / lo);
	every = decades <= 3.1 ? 0 : (int)ceil(decades / 8);
	a->sc = (struct rp_svg_scale){ .lo = lo, .hi = hi, .log = true };
	a->n = 0;
	e0 = (int)floor(log10(lo) + 1e-9);
	e1 = (int)ceil(log10(hi) - 1e-9);
	for (e = e0; e <= e1; e++) {
		for (i = 0; i < 3; i++) {
			v = mant[i] * pow(10, e);
			if (v < lo * (1 - 1e-9) || v > hi * (1 + 1e-9) ||
			    (i && decades > 14))
				continue;
			add_tick(a, v,
				 !every || (i == 0 &&
					    (e % every + every) % every == 0),
				 fmt_num);
		}
	}
}

/* Labels from the @s-th powers between 2^@e0 and 2^@e1. */
static int pow2_labels(int e0, int e1, int s)
{
	return (int)(floor((double)e1 / s) - ceil((double)e0 / s)) + 1;
}

void rp_svg_ticks_pow2(struct rp_svg_axis *a, double lo, double hi,
		       int max_labels, rp_svg_fmt *fmt)
{
	static const int steps[] = { 1, 2, 3, 4, 5, 10 };
	int e0, e1, e, s;
	size_t i;

	if (!(lo > 0) || !isfinite(lo) || !isfinite(hi) || hi < lo)
		lo = 1, hi = 1024;
	e0 = (int)floor(log2(lo) + 1e-9);
	e1 = (int)ceil(log2(hi) - 1e-9);
	if (e1 <= e0)
		e0--, e1++;
	for (i = 0; i + 1 < sizeof(steps) / sizeof(*steps) &&
		    pow2_labels(e0, e1, steps[i]) > max_labels;
	     i++)
		;
	s = steps[i];
	a->sc = (struct rp_svg_scale){ .lo = ldexp(1, e0),
				       .hi = ldexp(1, e1),
				       .log = true };
	a->n = 0;
	for (e = e0; e <= e1; e++)
		add_tick(a, ldexp(1, e), (e % s + s) % s == 0, fmt);
}

static void fmt_percentile(double x, char *buf, size_t len)
{
	int k = (int)lround(log10(x));

	if (x < 1.5)
		snprintf(buf, len, "0%%");
	else if (fabs(x - 2) < 1e-9)
		snprintf(buf, len, "50%%");
	else
		snprintf(buf, len, "%.*f%%", k > 2 ? k - 2 : 0,
			 100 - pow(10, 2 - k));
}

void rp_svg_ticks_percentile(struct rp_svg_axis *a, double hi)
{
	double d;

	if (!(hi >= 10) || !isfinite(hi))
		hi = 10;
	a->sc = (struct rp_svg_scale){ .lo = 1, .hi = hi, .log = true };
	a->n = 0;
	for (d = 1; d <= hi * (1 + 1e-9); d *= 10) {
		add_tick(a, d, true, fmt_percentile);
		if (2 * d <= hi)
			add_tick(a, 2 * d, d == 1, fmt_percentile);
		if (5 * d <= hi)
			add_tick(a, 5 * d, false, fmt_percentile);
	}
}
