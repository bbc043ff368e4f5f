// SPDX-License-Identifier: MIT
/*
 * The --matrix heatmaps (matrix.h): per table, throughput and unloaded
 * latency p50 side by side, a square per ordered pair (row: client,
 * column: server), coloured by its ratio to the table's median from red
 * (half of it, or twice the latency) through yellow to green (the median
 * or better); an outlier framed in black, a failed pair dark grey with a
 * cross, the diagonal blank.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/matrix/matrix.h"
#include "report/priv.h"
#include "report/plot/svg.h"

#define GET(o, k) cJSON_GetObjectItemCaseSensitive(o, k)

#define MAP_PX	  360.0 /* the grid of one heatmap, at most */
#define CELL_MAX  40.0
#define LEFT	  60.0 /* row labels */
#define TOP	  60.0 /* a table's title and column labels */
#define BELOW	  40.0 /* the median line */
#define GAP	  60.0 /* between the two heatmaps */
#define LEGEND_H  50.0
#define RATIO_LOW 0.5 /* all red at or below this ratio to the median */

/* Red (0) through yellow (0.5) to green (1) as "#rrggbb". */
static void ramp(double t, char *buf, size_t len)
{
	double r = t < 0.5 ? 1.0 : 2.0 * (1.0 - t);
	double g = t < 0.5 ? 2.0 * t : 1.0;

	snprintf(buf, len, "#%02x%02x%02x", (unsigned int)(40 + 190 * r),
		 (unsigned int)(40 + 150 * g), 60u);
}

/* Where @v lies between bad (0) and the median or better (1). */
static double goodness(double v, double med, bool high_bad)
{
	double ratio = high_bad ? med / v : v / med;

	if (ratio >= 1.0)
		return 1.0;
	if (!(ratio > RATIO_LOW)) /* NaN too: 0 / 0 in a document read back */
		return 0.0;
	return (ratio - RATIO_LOW) / (1.0 - RATIO_LOW);
}

/* The pairs of @list (of @metric, or any) as n x n flags, OR-ed into @f
 * with @bit: one pass over the list, not one per cell. */
static void flag_pairs(unsigned char *f, int n, const cJSON *list,
		       const char *metric, unsigned char bit)
{
	const cJSON *x;
	const char *mm;
	size_t i, j;

	cJSON_ArrayForEach(x, list)
	{
		mm = cJSON_GetStringValue(GET(x, "metric"));
		i = rp_matrix_rank_index(cJSON_GetNumberValue(GET(x, "client")),
					 (size_t)n);
		j = rp_matrix_rank_index(cJSON_GetNumberValue(GET(x, "server")),
					 (size_t)n);
		if (i < (size_t)n && j < (size_t)n &&
		    (!metric || (mm && !strcmp(mm, metric))))
			f[i * (size_t)n + j] |= bit;
	}
}

#define FLAG_FAILED  1
#define FLAG_OUTLIER 2

/* One heatmap: the grid @key of @tab with its top left at (@x, @y). */
struct map {
	const cJSON *tab;
	const char *key, *metric, *title, *unit, *med_key;
	bool high_bad;
	double x, y, cell;
	int n;
};

static void map_cell(FILE *f, const struct map *m, int i, int j, const cJSON *v,
		     unsigned char flags)
{
	double med = cJSON_GetNumberValue(GET(m->tab, m->med_key));
	double x = m->x + j * m->cell, y = m->y + i * m->cell;
	char fill[16] = "#f4f4f4", num[32];

	if (cJSON_IsNumber(v) && !isnan(med))
		ramp(goodness(v->valuedouble, med, m->high_bad), fill,
		     sizeof(fill));
	else if (i != j && (flags & FLAG_FAILED))
		snprintf(fill, sizeof(fill), "#555555");
	fprintf(f,
		"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
		"height=\"%.1f\" fill=\"%s\"%s/>\n",
		x, y, m->cell, m->cell, fill,
		flags & FLAG_OUTLIER ? " stroke=\"#000\" stroke-width=\"2\""
				     : " stroke=\"#fff\" stroke-width=\"0.5\"");
	if (!strcmp(fill, "#555555"))
		rp_svg_text(f, x + m->cell / 2, y + m->cell * 0.7,
			    "class=\"tick\" text-anchor=\"middle\" "
			    "style=\"fill: #fff\"",
			    "\u00d7");
	else if (cJSON_IsNumber(v) && m->cell >= 36) {
		snprintf(num, sizeof(num),
			 v->valuedouble >= 100	? "%.0f"
			 : v->valuedouble >= 10 ? "%.1f"
						: "%.2f",
			 v->valuedouble);
		rp_svg_text(f, x + m->cell / 2, y + m->cell * 0.62,
			    "font-size=\"10\" text-anchor=\"middle\"", num);
	}
}

static void map_labels(FILE *f, const struct map *m)
{
	int step = m->cell >= 14 ? 1 : (int)ceil(14.0 / m->cell), k;
	char num[16];

	for (k = 0; k < m->n; k += step) {
		snprintf(num, sizeof(num), "%d", k);
		rp_svg_text(f, m->x + (k + 0.5) * m->cell, m->y - 6,
			    "class=\"tick\" text-anchor=\"middle\"", num);
		rp_svg_text(f, m->x - 6, m->y + (k + 0.7) * m->cell,
			    "class=\"tick\" text-anchor=\"end\"", num);
	}
}

/* Every cell of the map, rows and their entries walked in order. */
static int map_cells(FILE *f, const struct map *m)
{
	size_t n = (size_t)m->n;
	unsigned char *flags = calloc(n ? n * n : 1, 1);
	const cJSON *row, *v;
	int i, j;

	if (!flags)
		return -ENOMEM;
	flag_pairs(flags, m->n, GET(m->tab, "failed"), NULL, FLAG_FAILED);
	flag_pairs(flags, m->n, GET(m->tab, "outliers"), m->metric,
		   FLAG_OUTLIER);
	row = GET(m->tab, m->key) ? GET(m->tab, m->key)->child : NULL;
	for (i = 0; i < m->n; i++, row = row ? row->next : NULL) {
		v = cJSON_IsArray(row) ? row->child : NULL;
		for (j = 0; j < m->n; j++, v = v ? v->next : NULL)
			map_cell(f, m, i, j, v, flags[(size_t)i * n + j]);
	}
	free(flags);
	return 0;
}

static int map_draw(FILE *f, const struct map *m)
{
	const cJSON *med = GET(m->tab, m->med_key);
	char line[96];
	int err;

	rp_svg_text(f, m->x, m->y - 24, "class=\"axis\"", m->title);
	map_labels(f, m);
	err = map_cells(f, m);
	if (err)
		return err;
	if (cJSON_IsNumber(med))
		snprintf(line, sizeof(line), "median %.3g %s", med->valuedouble,
			 m->unit);
	else
		snprintf(line, sizeof(line), "not measured");
	rp_svg_text(f, m->x, m->y + m->n * m->cell + 20, "class=\"why\"", line);
	return 0;
}

/* The colour scale, once, at the foot. */
static void legend(FILE *f, double x, double y)
{
	static const char *const marks[] = { "\u2264 0.5x", "0.75x",
					     "median or better" };
	char fill[16];
	int k;

	for (k = 0; k <= 20; k++) {
		ramp(k / 20.0, fill, sizeof(fill));
		fprintf(f,
			"<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" "
			"height=\"12\" fill=\"%s\"/>\n",
			x + k * 12, y, fill);
	}
	for (k = 0; k < 3; k++)
		rp_svg_text(f, x + k * 126, y + 28, "class=\"tick\"", marks[k]);
	rp_svg_text(f, x + 290, y + 10, "class=\"legend\"",
		    "ratio to the median (latency: median / value); black "
		    "frame: outlier; grey \u00d7: failed");
}

static double table_height(double cell, int n)
{
	return TOP + n * cell + BELOW;
}

static int draw_table(FILE *f, const cJSON *tab, double y, double cell, int n)
{
	struct map tp = { tab,
			  "throughput_gbps",
			  "throughput",
			  "throughput, Gb/s",
			  "Gb/s",
			  "median_gbps",
			  false,
			  LEFT,
			  y + TOP,
			  cell,
			  n };
	struct map lat = { tab,	      "latency_p50_us",
			   "latency", "unloaded latency p50, us",
			   "us",      "median_latency_p50_us",
			   true,      LEFT * 2 + n * cell + GAP,
			   y + TOP,   cell,
			   n };
	char label[160];

	rp_matrix_label(tab, label, sizeof(label));
	rp_svg_text(f, 20, y + 16, "class=\"title\"", label);
	return map_draw(f, &tp) || map_draw(f, &lat) ? -ENOMEM : 0;
}

static int draw(FILE *f, const cJSON *doc)
{
	const cJSON *m = GET(doc, "matrix"), *tab;
	int n = cJSON_GetArraySize(GET(m, "ranks"));
	int tables = cJSON_GetArraySize(GET(m, "tables"));
	double cell = fmax(1, fmin(CELL_MAX, floor(MAP_PX / (n ? n : 1))));
	double th = table_height(cell, n), y = 50;
	double w = fmax(RP_SVG_WIDTH, 3 * LEFT + 2 * n * cell + GAP);
	char sub[160];

	snprintf(sub, sizeof(sub),
		 "%d ranks, every ordered pair in %.0f rounds; row: client "
		 "(initiator), column: server",
		 n, cJSON_GetNumberValue(GET(m, "rounds")));
	rp_svg_begin(f, w, y + tables * th + LEGEND_H, "rdmaperf matrix", sub);
	rp_svg_text(f, 20, 22, "class=\"title\"", "rdmaperf matrix");
	rp_svg_text(f, 20, 40, "class=\"subtitle\"", sub);
	cJSON_ArrayForEach(tab, GET(m, "tables"))
	{
		if (draw_table(f, tab, y, cell, n))
			return -ENOMEM;
		y += th;
	}
	legend(f, 20, y + 10);
	rp_svg_end(f);
	return 0;
}

int rp_matrix_plot(const char *path, const cJSON *doc, struct rp_err *why)
{
	FILE *f;
	int err;

	if (!rp_matrix_grids(doc))
		return rp_errf(
			why, -E2BIG,
			"%d ranks: the heatmaps are drawn up to %d ranks "
			"and %u cells in all (the text and CSV list "
			"every pair)",
			cJSON_GetArraySize(GET(GET(doc, "matrix"), "ranks")),
			RP_MATRIX_GRID_RANKS, RP_MATRIX_GRID_CELLS);
	f = fopen(path, "w");
	if (!f)
		return rp_errf(why, -errno, "cannot write %s: %s", path,
			       strerror(errno));
	err = draw(f, doc);
	if (!err && ferror(f))
		err = -EIO;
	if (fclose(f) && !err)
		err = -errno;
	if (err)
		return rp_errf(why, err, "writing %s: %s", path,
			       strerror(-err));
	return 0;
}
