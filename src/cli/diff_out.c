// SPDX-License-Identifier: MIT
/* rdmaperf diff's judgement as text, JSON (schema/rdmaperf-diff-1) and
 * SVG (cli/diff_priv.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/diff_priv.h"
#include "report/plot/svg.h"

static const char *const fig_label[RP_FIG__COUNT] = {
	[RP_FIG_THROUGHPUT] = "throughput",
	[RP_FIG_MSG_RATE] = "msg rate",
	[RP_FIG_P50] = "p50",
	[RP_FIG_P99] = "p99",
	[RP_FIG_P99_9] = "p99.9",
	[RP_FIG_UNLOADED_P50] = "unloaded p50",
	[RP_FIG_CPU_CLIENT] = "client cpu",
	[RP_FIG_CPU_SERVER] = "server cpu",
};

const char *rp_diff_verdict_name(enum rp_diff_verdict v)
{
	switch (v) {
	case RP_DV_SAME:
		return "no significant difference";
	case RP_DV_BETTER:
		return "better";
	case RP_DV_WORSE:
		return "worse";
	case RP_DV_REGRESSED:
		return "regressed";
	case RP_DV_UNJUDGED:
		break;
	}
	return "not judged";
}

static const char *str(const cJSON *o, const char *key)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(j) ? j->valuestring : "?";
}

/* How many repetitions the document's first result says it ran. */
static int repeats(const struct rp_report_doc *doc)
{
	const cJSON *n;

	n = doc->n ? cJSON_GetObjectItemCaseSensitive(doc->res[0].repeat, "n")
		   : NULL;
	return cJSON_IsNumber(n) ? (int)n->valuedouble : 1;
}

static void doc_line(FILE *f, const char *which, const char *path,
		     const struct rp_report_doc *doc)
{
	const cJSON *h = doc->n ? doc->res[0].client_host : NULL;
	int n = repeats(doc);

	fprintf(f, "  %s %s: rdmaperf %s on %s, %zu point%s, ", which, path,
		str(h, "version"), str(h, "hostname"), doc->n,
		doc->n == 1 ? "" : "s");
	if (n > 1)
		fprintf(f, "--repeat %d\n", n);
	else
		fprintf(f, "one run each\n");
}

static const char *num(double v, const char *unit, char *buf, size_t len)
{
	snprintf(buf, len, fabs(v) >= 1e4 ? "%.0f %s" : "%.4g %s", v, unit);
	return buf;
}

static void fig_row(FILE *f, const char *point, enum rp_fig k,
		    const struct rp_diff_fig *g)
{
	char a[32], b[32], ci[40];

	if (g->r.has_ci)
		snprintf(ci, sizeof(ci), "%+.1f%% .. %+.1f%%",
			 (g->r.lo - 1) * 100, (g->r.hi - 1) * 100);
	else
		snprintf(ci, sizeof(ci), "(one run)");
	fprintf(f, "%-26s %-13s %14s %14s %+8.1f%%  %-21s %s\n", point,
		fig_label[k], num(g->old_v, rp_fig_unit(k), a, sizeof(a)),
		num(g->new_v, rp_fig_unit(k), b, sizeof(b)),
		(g->r.ratio - 1) * 100, ci,
		g->v == RP_DV_REGRESSED ? "REGRESSED"
					: rp_diff_verdict_name(g->v));
}

void rp_diff_text(FILE *f, const struct rp_diff *d)
{
	const struct rp_diff_point *p;
	unsigned int k;
	bool first;
	size_t i;

	fprintf(f, "rdmaperf diff\n");
	doc_line(f, "old", d->old_path, &d->a);
	doc_line(f, "new", d->new_path, &d->b);
	fprintf(f,
		"  change: new against old, the ratio of the repetitions' "
		"geometric means; interval:\n  Welch's t on their logs at "
		"%g%%; a regression: worse by over %g%%, and significant\n  "
		"where both were repeated\n\n",
		d->level * 100, d->threshold);
	fprintf(f, "%-26s %-13s %14s %14s %9s  %-21s %s\n", "point", "figure",
		"old", "new", "change", "interval", "verdict");
	for (i = 0; i < d->n; i++) {
		p = &d->p[i];
		if (!p->old || !p->new)
			continue; /* listed below the table */
		first = true;
		if (p->new->failed || p->old->failed) {
			fprintf(f, "%-26s %s\n", p->label,
				p->new->failed && p->old->failed
					? "failed in both"
				: p->new->failed ? "FAILED in new: a regression"
						 : "failed in old");
			continue;
		}
		for (k = 0; k < RP_FIG__COUNT; k++) {
			if (!p->fig[k].present)
				continue;
			fig_row(f, first ? p->label : "", k, &p->fig[k]);
			first = false;
		}
		if (first)
			fprintf(f, "%-26s no figure measured in both\n",
				p->label);
	}
	for (i = 0; i < d->n; i++)
		if (!d->p[i].old || !d->p[i].new)
			fprintf(f, "  only in %s: %s\n",
				d->p[i].old ? "old" : "new", d->p[i].label);
	fputc('\n', f);
	if (d->regressed)
		fprintf(f, "FAIL: %zu regression%s beyond %g%%%s\n",
			d->regressed, d->regressed == 1 ? "" : "s",
			d->threshold,
			d->unjudged_regressed
				? " (some from one run on a side: not judged "
				  "for significance; --repeat both)"
				: "");
	else
		fprintf(f, "PASS: nothing worse by over %g%%", d->threshold);
	if (!d->regressed && d->unjudged)
		fprintf(f,
			" (%zu of %zu figures from one run on a side: their "
			"significance cannot be judged; --repeat both)",
			d->unjudged, d->judged + d->unjudged);
	if (!d->regressed)
		fputc('\n', f);
}

static cJSON *fig_json(enum rp_fig k, const struct rp_diff_fig *g)
{
	cJSON *o = cJSON_CreateObject(), *a;

	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "unit", rp_fig_unit(k));
	cJSON_AddNumberToObject(o, "old", g->old_v);
	cJSON_AddNumberToObject(o, "new", g->new_v);
	cJSON_AddNumberToObject(o, "n_old", (double)g->n_old);
	cJSON_AddNumberToObject(o, "n_new", (double)g->n_new);
	cJSON_AddNumberToObject(o, "ratio", g->r.ratio);
	cJSON_AddNumberToObject(o, "change_pct", (g->r.ratio - 1) * 100);
	if (g->r.has_ci) {
		a = cJSON_AddArrayToObject(o, "interval");
		if (a) {
			cJSON_AddItemToArray(a, cJSON_CreateNumber(g->r.lo));
			cJSON_AddItemToArray(a, cJSON_CreateNumber(g->r.hi));
		}
		cJSON_AddBoolToObject(o, "significant", g->r.significant);
	} else {
		cJSON_AddNullToObject(o, "interval");
		cJSON_AddNullToObject(o, "significant");
	}
	cJSON_AddStringToObject(o, "verdict", rp_diff_verdict_name(g->v));
	return o;
}

static cJSON *point_json(const struct rp_diff_point *p)
{
	const struct rp_result *r = p->new ? p->new : p->old;
	cJSON *o = cJSON_CreateObject(), *figs;
	unsigned int k;

	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "label", p->label);
	cJSON_AddStringToObject(o, "transport", r->transport);
	cJSON_AddStringToObject(o, "op", rp_op_name(r->spec.op));
	cJSON_AddNumberToObject(o, "size", (double)r->spec.size_bytes);
	cJSON_AddNumberToObject(o, "queue_depth", r->spec.queue_depth);
	cJSON_AddStringToObject(o, "in",
				!p->old	  ? "new"
				: !p->new ? "old"
					  : "both");
	if (p->old && p->new) {
		cJSON_AddBoolToObject(o, "old_ok", !p->old->failed);
		cJSON_AddBoolToObject(o, "new_ok", !p->new->failed);
		figs = cJSON_AddObjectToObject(o, "figures");
		for (k = 0; figs && k < RP_FIG__COUNT; k++)
			if (p->fig[k].present)
				cJSON_AddItemToObject(figs, rp_fig_key(k),
						      fig_json(k, &p->fig[k]));
	}
	return o;
}

int rp_diff_json(FILE *f, const struct rp_diff *d)
{
	cJSON *o = cJSON_CreateObject(), *pts;
	char *s;
	size_t i;
	int rc;

	if (!o)
		return -ENOMEM;
	cJSON_AddStringToObject(o, "schema", RP_DIFF_SCHEMA);
	cJSON_AddStringToObject(o, "version", RP_VERSION);
	cJSON_AddStringToObject(o, "old", d->old_path);
	cJSON_AddStringToObject(o, "new", d->new_path);
	cJSON_AddNumberToObject(o, "threshold_pct", d->threshold);
	cJSON_AddNumberToObject(o, "level", d->level * 100);
	cJSON_AddStringToObject(o, "method", "Welch t on the logs");
	pts = cJSON_AddArrayToObject(o, "points");
	for (i = 0; pts && i < d->n; i++)
		cJSON_AddItemToArray(pts, point_json(&d->p[i]));
	cJSON_AddNumberToObject(o, "regressions", (double)d->regressed);
	cJSON_AddNumberToObject(o, "not_judged", (double)d->unjudged);
	cJSON_AddBoolToObject(o, "pass", d->regressed == 0);
	s = cJSON_Print(o);
	cJSON_Delete(o);
	if (!s)
		return -ENOMEM;
	rc = fprintf(f, "%s\n", s) < 0 ? -EIO : 0;
	free(s);
	return rc;
}

/* ---- SVG: a forest of changes ---------------------------------------------
 */

#define ROW_H  20.0
#define LEFT   300.0
#define RIGHT  40.0
#define TOP    80.0
#define BOTTOM 80.0

/* A change as "better by" in %: right is better for every figure. */
static double better_pct(enum rp_fig k, double ratio)
{
	return rp_fig_higher_better(k) ? (ratio - 1) * 100
				       : (1 / ratio - 1) * 100;
}

static const char *verdict_colour(enum rp_diff_verdict v)
{
	switch (v) {
	case RP_DV_REGRESSED:
		return "#c0392b";
	case RP_DV_WORSE:
		return "#e67e22";
	case RP_DV_BETTER:
		return "#27ae60";
	case RP_DV_SAME:
	case RP_DV_UNJUDGED:
		break;
	}
	return "#7f8c8d";
}

static void range(const struct rp_diff *d, double *lo, double *hi)
{
	const struct rp_diff_fig *g;
	double a, b;
	size_t i;
	unsigned int k;

	*lo = -d->threshold * 1.5;
	*hi = d->threshold * 1.5;
	for (i = 0; i < d->n; i++)
		for (k = 0; k < RP_FIG__COUNT; k++) {
			g = &d->p[i].fig[k];
			if (!g->present)
				continue;
			a = better_pct(k, g->r.has_ci ? g->r.lo : g->r.ratio);
			b = better_pct(k, g->r.has_ci ? g->r.hi : g->r.ratio);
			if (a > b) {
				double t = a;

				a = b;
				b = t;
			}
			/* a ratio far off (10x) would squash the rest */
			*lo = fmin(*lo, fmax(a, -100));
			*hi = fmax(*hi, fmin(b, 400));
		}
}

static void row(FILE *f, const struct rp_svg_panel *pn, double y,
		const char *name, enum rp_fig k, const struct rp_diff_fig *g)
{
	const char *c = verdict_colour(g->v);
	double x, x1, x2;
	char buf[160];

	snprintf(buf, sizeof(buf), "%s  %s", name, fig_label[k]);
	rp_svg_text(f, pn->x - 8, y + 4, "class=\"tick\" text-anchor=\"end\"",
		    buf);
	x = rp_svg_scale_px(&pn->ax.sc, fmax(pn->ax.sc.lo,
					     fmin(pn->ax.sc.hi,
						  better_pct(k, g->r.ratio))));
	rp_svg_group_open(f, "change", buf);
	if (g->r.has_ci) {
		x1 = rp_svg_scale_px(
			&pn->ax.sc,
			fmax(pn->ax.sc.lo,
			     fmin(pn->ax.sc.hi, better_pct(k, g->r.lo))));
		x2 = rp_svg_scale_px(
			&pn->ax.sc,
			fmax(pn->ax.sc.lo,
			     fmin(pn->ax.sc.hi, better_pct(k, g->r.hi))));
		fprintf(f,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			"stroke=\"%s\" stroke-width=\"2\"/>\n",
			x1, y, x2, y, c);
		fprintf(f,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			"stroke=\"%s\"/>\n<line x1=\"%.1f\" y1=\"%.1f\" "
			"x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n",
			x1, y - 4, x1, y + 4, c, x2, y - 4, x2, y + 4, c);
	}
	/* one run on a side: a hollow mark, nothing judged */
	fprintf(f,
		"<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\" "
		"stroke=\"%s\"/>\n",
		x, y, g->r.has_ci ? c : "white", c);
	rp_svg_group_close(f);
}

int rp_diff_svg(const char *path, const struct rp_diff *d)
{
	struct rp_svg_panel pn = { 0 };
#define ENTRY(name, v)                                                         \
	{                                                                      \
		name,                                                          \
		{                                                              \
			.colour = verdict_colour(v), .marker = "diff",         \
			.radius = 4                                            \
		}                                                              \
	}
	struct rp_svg_legend_entry leg[] = {
		ENTRY("regressed", RP_DV_REGRESSED),
		ENTRY("worse", RP_DV_WORSE),
		ENTRY("better", RP_DV_BETTER),
		ENTRY("no significant difference; hollow: one run, not judged",
		      RP_DV_SAME),
	};
#undef ENTRY
	size_t i, rows = 0;
	unsigned int k;
	double lo, hi, y, t;
	char sub[512];
	FILE *f;
	int rc;

	for (i = 0; i < d->n; i++)
		for (k = 0; k < RP_FIG__COUNT; k++)
			rows += d->p[i].fig[k].present;
	f = fopen(path, "w");
	if (!f)
		return -errno;
	range(d, &lo, &hi);
	pn.x = LEFT;
	pn.y = TOP;
	pn.w = RP_SVG_WIDTH - LEFT - RIGHT;
	pn.h = ROW_H * (double)(rows ? rows : 1) + ROW_H;
	pn.id = 1;
	rp_svg_ticks_linear(&pn.ax, lo, hi, 8);
	pn.ax.title = "better by, % (right: better; left: worse)";
	pn.ay.sc.lo = 0;
	pn.ay.sc.hi = 1;
	pn.ay.title = "";
	rp_svg_panel_place(&pn);
	snprintf(sub, sizeof(sub),
		 "%.60s against %.60s: each figure's change and its %g%% "
		 "interval; dashed: the %g%% threshold",
		 d->new_path, d->old_path, d->level * 100, d->threshold);
	rp_svg_begin(f, RP_SVG_WIDTH,
		     TOP + pn.h + BOTTOM +
			     rp_svg_legend_height(leg, 4, RP_SVG_WIDTH - 80),
		     "rdmaperf diff", sub);
	rp_svg_text(f, 40, 26, "class=\"title\"", "rdmaperf diff");
	rp_svg_text(f, 40, 46, "class=\"subtitle\"", sub);
	rp_svg_panel_draw(f, &pn, true, rows == 0);
	t = rp_svg_scale_px(&pn.ax.sc, 0);
	rp_svg_line(f, t, pn.y, t, pn.y + pn.h, "axis");
	t = rp_svg_scale_px(&pn.ax.sc, -d->threshold);
	if (-d->threshold >= pn.ax.sc.lo)
		fprintf(f,
			"<line class=\"threshold\" x1=\"%.1f\" y1=\"%.1f\" "
			"x2=\"%.1f\" y2=\"%.1f\" stroke=\"#c0392b\" "
			"stroke-dasharray=\"5,4\"/>\n",
			t, pn.y, t, pn.y + pn.h);
	y = pn.y + ROW_H;
	for (i = 0; i < d->n; i++)
		for (k = 0; k < RP_FIG__COUNT; k++) {
			if (!d->p[i].fig[k].present)
				continue;
			row(f, &pn, y, d->p[i].label, k, &d->p[i].fig[k]);
			y += ROW_H;
		}
	rp_svg_legend(f, 40, TOP + pn.h + BOTTOM - 20, RP_SVG_WIDTH - 80, leg,
		      4);
	rp_svg_end(f);
	rc = ferror(f) ? -EIO : 0;
	if (fclose(f) && !rc)
		rc = -errno;
	return rc;
}
