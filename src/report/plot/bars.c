// SPDX-License-Identifier: MIT
/*
 * --repeat's intervals in the plots (plot.h, "plot/bars.c"), read from each
 * result's "repeat" object (run/repeat.h's form), so that --report draws a
 * saved document alike.
 *
 * A point stays the figure of the repetition at the median: that is what
 * the result holds, and what the text, the JSON and the CSV print beside
 * the plot. Its bar is the mean's t interval at repeat.level. The two
 * need not agree: with skewed noise (a tail latency) the median run can
 * lie outside the mean's interval, so the legend names both. A bar, not
 * a band: the repetitions measured the sizes drawn, not those between
 * them, and the bands of several series would cover each other.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/plot/plot.h"

#define DEFAULT_LEVEL 95 /* percent, as run/repeat.h's RP_REPEAT_LEVEL */

static const cJSON *get(const cJSON *o, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

static bool num(const cJSON *j, double *v)
{
	if (!cJSON_IsNumber(j) || !isfinite(j->valuedouble))
		return false;
	*v = j->valuedouble;
	return true;
}

/* The interval [lo, hi] of @fig in @unit: a saved document may hold
 * anything, so a bar is only what is well formed. */
static bool interval(const cJSON *fig, const char *unit, struct rp_plot_ci *ci)
{
	const cJSON *u = get(fig, "unit"), *iv = get(fig, "interval");

	return cJSON_IsString(u) && !strcmp(u->valuestring, unit) &&
	       cJSON_IsArray(iv) && cJSON_GetArraySize(iv) == 2 &&
	       num(cJSON_GetArrayItem(iv, 0), &ci->lo) &&
	       num(cJSON_GetArrayItem(iv, 1), &ci->hi) && ci->lo <= ci->hi;
}

static void tally(struct rp_plot_bars *bars, double level, double n)
{
	if (!bars->n_bars++) {
		bars->level = level;
		bars->n_lo = bars->n_hi = n;
		return;
	}
	bars->n_lo = fmin(bars->n_lo, n);
	bars->n_hi = fmax(bars->n_hi, n);
}

struct rp_plot_ci rp_plot_ci(const struct rp_result *r, const char *key,
			     const char *unit, double v,
			     struct rp_plot_bars *bars)
{
	const struct rp_plot_ci none = { NAN, NAN };
	double level = DEFAULT_LEVEL, n;
	struct rp_plot_ci ci;
	const cJSON *fig;

	if (!key || r->failed || !isfinite(v) || !cJSON_IsObject(r->repeat))
		return none;
	fig = get(get(r->repeat, "figures"), key);
	if (!interval(fig, unit, &ci) || !num(get(fig, "n"), &n))
		return none;
	num(get(r->repeat, "level"), &level);
	tally(bars, level, n);
	return ci;
}

void rp_plot_ci_extent(const struct rp_plot_ci *ci, size_t n, double least,
		       double *lo, double *hi)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (isnan(ci[i].lo) || isnan(ci[i].hi))
			continue;
		*hi = fmax(*hi, ci[i].hi);
		if (ci[i].lo >= least)
			*lo = fmin(*lo, ci[i].lo);
	}
}

size_t rp_plot_bars_entry(struct rp_plot_bars *bars, const char *what,
			  struct rp_svg_legend_entry *e)
{
	char n[48];

	if (!bars->n_bars)
		return 0;
	if (bars->n_lo == bars->n_hi)
		snprintf(n, sizeof(n), "n=%.0f", bars->n_lo);
	else
		snprintf(n, sizeof(n), "n=%.0f\u2013%.0f", bars->n_lo,
			 bars->n_hi);
	snprintf(bars->note, sizeof(bars->note),
		 "bars: %.4g%% confidence interval of the mean%s, %s; "
		 "points: the median run",
		 bars->level, what, n);
	*e = (struct rp_svg_legend_entry){
		.name = bars->note,
		.style = { .colour = "#555",
			   .marker = "point",
			   .radius = 3,
			   .bar = true },
	};
	return 1;
}

void rp_plot_bars_draw(FILE *f, const struct rp_svg_panel *p, const double *at,
		       const struct rp_plot_ci *ci, size_t n, bool horizontal,
		       const char *colour)
{
	struct rp_svg_bar b = { .horizontal = horizontal };
	size_t i;

	for (i = 0; i < n; i++) {
		if (isnan(ci[i].lo) || isnan(ci[i].hi))
			continue;
		b.at = at[i];
		b.lo = ci[i].lo;
		b.hi = ci[i].hi;
		rp_svg_errbar(f, p, &b, colour);
	}
}
