// SPDX-License-Identifier: MIT
/*
 * The --matrix document: its skeleton, the cells in order and the tables
 * derived from them (matrix.h). matrix_text.c and matrix_plot.c draw it.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/matrix.h"
#include "report/priv.h"

#define GET(o, k) cJSON_GetObjectItemCaseSensitive(o, k)

cJSON *rp_matrix_doc(const struct rp_config *cfg, uint32_t rounds)
{
	cJSON *doc = cJSON_CreateObject(), *m;

	cJSON_AddStringToObject(doc, "schema", RP_MATRIX_SCHEMA);
	cJSON_AddStringToObject(doc, "version", RP_VERSION);
	cJSON_AddItemToObject(doc, "config", rp_report_config_json(cfg));
	m = cJSON_AddObjectToObject(doc, "matrix");
	cJSON_AddStringToObject(m, "pairs", "ordered");
	cJSON_AddBoolToObject(m, "serial", cfg->serial);
	cJSON_AddNumberToObject(m, "rounds", rounds);
	cJSON_AddNumberToObject(m, "outlier_fraction", cfg->outlier);
	cJSON_AddNumberToObject(m, "round_timeout_s", cfg->round_timeout_s);
	cJSON_AddArrayToObject(m, "ranks");
	cJSON_AddArrayToObject(m, "cells");
	cJSON_AddArrayToObject(m, "tables");
	cJSON_AddNullToObject(doc, "error");
	if (!GET(doc, "config") || !GET(m, "tables") || !GET(doc, "error")) {
		cJSON_Delete(doc);
		return NULL;
	}
	return doc;
}

void rp_matrix_add_rank(cJSON *doc, unsigned int rank, const char *host,
			const char *addr, unsigned int port, const char *error)
{
	cJSON *r = cJSON_CreateObject();

	cJSON_AddNumberToObject(r, "rank", rank);
	cJSON_AddStringToObject(r, "host", host);
	cJSON_AddStringToObject(r, "address", addr);
	cJSON_AddNumberToObject(r, "port", port);
	if (error)
		cJSON_AddStringToObject(r, "error", error);
	else
		cJSON_AddNullToObject(r, "error");
	cJSON_AddItemToArray(GET(GET(doc, "matrix"), "ranks"), r);
}

cJSON *rp_matrix_cells(cJSON *doc)
{
	return GET(GET(doc, "matrix"), "cells");
}

/* ---- the tables ---------------------------------------------------------- */

/* One table being built: result @k of every cell's document. */
struct table {
	size_t n;	   /* ranks */
	double *tp, *lat;  /* n x n, NAN where not measured */
	const char **fail; /* n x n, the reason where failed */
	double tp_median, lat_median;
	double fraction;
};

static double num_at(const cJSON *o, const char *a, const char *b)
{
	const cJSON *v = GET(GET(o, a), b);

	return cJSON_IsNumber(v) && v->valuedouble > 0 ? v->valuedouble : NAN;
}

/* The failure of a cell, or of its @k-th result; NULL when ok. */
static const char *cell_failure(const cJSON *cell, const cJSON *r)
{
	const cJSON *e = GET(cell, "error");

	if (!r || !cJSON_IsTrue(GET(r, "ok"))) {
		if (r && cJSON_IsString(GET(GET(r, "error"), "message")))
			return GET(GET(r, "error"), "message")->valuestring;
		return cJSON_IsString(e) ? e->valuestring : "not run";
	}
	return NULL;
}

size_t rp_matrix_rank_index(double v, size_t n)
{
	return v >= 0 && v < (double)n ? (size_t)v : n;
}

static void fill(struct table *t, const cJSON *cells, int k)
{
	const cJSON *c, *r;
	size_t i, j, at;

	cJSON_ArrayForEach(c, cells)
	{
		i = rp_matrix_rank_index(cJSON_GetNumberValue(GET(c, "client")),
					 t->n);
		j = rp_matrix_rank_index(cJSON_GetNumberValue(GET(c, "server")),
					 t->n);
		if (i >= t->n || j >= t->n)
			continue;
		at = i * t->n + j;
		r = cJSON_GetArrayItem(GET(GET(c, "document"), "results"), k);
		t->fail[at] = cell_failure(c, r);
		if (t->fail[at])
			continue;
		t->tp[at] = num_at(r, "throughput", "bits_per_second") / 1e9;
		t->lat[at] = num_at(r, "latency_unloaded", "p50");
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of the measured values of @v (n x n), NAN if none. */
static double median(const double *v, size_t n, double *scratch)
{
	size_t i, m = 0;

	for (i = 0; i < n * n; i++)
		if (!isnan(v[i]))
			scratch[m++] = v[i];
	if (!m)
		return NAN;
	qsort(scratch, m, sizeof(*scratch), cmp_double);
	return m & 1 ? scratch[m / 2]
		     : (scratch[m / 2 - 1] + scratch[m / 2]) / 2;
}

/* @v's entry @at is an outlier: throughput below fraction x median,
 * latency (@high_bad) above median / fraction. */
static bool outlying(const struct table *t, const double *v, size_t at,
		     bool high_bad)
{
	double med = high_bad ? t->lat_median : t->tp_median;

	if (isnan(v[at]) || isnan(med))
		return false;
	return high_bad ? v[at] > med / t->fraction : v[at] < med * t->fraction;
}

static cJSON *grid_json(const struct table *t, const double *v)
{
	cJSON *g = cJSON_CreateArray(), *row;
	size_t i, j;

	for (i = 0; i < t->n; i++) {
		row = cJSON_CreateArray();
		for (j = 0; j < t->n; j++)
			cJSON_AddItemToArray(
				row,
				isnan(v[i * t->n + j])
					? cJSON_CreateNull()
					: cJSON_CreateNumber(v[i * t->n + j]));
		cJSON_AddItemToArray(g, row);
	}
	return g;
}

static void add_outliers(const struct table *t, cJSON *out, const double *v,
			 const char *metric, bool high_bad)
{
	double med = high_bad ? t->lat_median : t->tp_median;
	size_t at;
	cJSON *o;

	for (at = 0; at < t->n * t->n; at++) {
		if (!outlying(t, v, at, high_bad))
			continue;
		o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "client", (double)(at / t->n));
		cJSON_AddNumberToObject(o, "server", (double)(at % t->n));
		cJSON_AddStringToObject(o, "metric", metric);
		cJSON_AddNumberToObject(o, "value", v[at]);
		cJSON_AddNumberToObject(o, "ratio", v[at] / med);
		cJSON_AddItemToArray(out, o);
	}
}

/* Rank @r's measured pairs (either end) are all outliers, and at least
 * two: the node, not one link. Needs 3 ranks or more to tell. */
static bool bad_node(const struct table *t, const double *v, size_t r,
		     bool high_bad)
{
	size_t k, measured = 0, low = 0, at;
	int end;

	if (t->n < 3)
		return false;
	for (k = 0; k < t->n; k++) {
		for (end = 0; end < 2 && k != r; end++) {
			at = end ? k * t->n + r : r * t->n + k;
			measured += !isnan(v[at]);
			low += outlying(t, v, at, high_bad);
		}
	}
	return measured >= 2 && low == measured;
}

static void add_bad_nodes(const struct table *t, cJSON *out, const double *v,
			  const char *metric, bool high_bad)
{
	size_t r;
	cJSON *o;

	for (r = 0; r < t->n; r++) {
		if (!bad_node(t, v, r, high_bad))
			continue;
		o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "rank", (double)r);
		cJSON_AddStringToObject(o, "metric", metric);
		cJSON_AddItemToArray(out, o);
	}
}

static void add_failed(const struct table *t, cJSON *out)
{
	size_t at;
	cJSON *o;

	for (at = 0; at < t->n * t->n; at++) {
		if (!t->fail[at])
			continue;
		o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "client", (double)(at / t->n));
		cJSON_AddNumberToObject(o, "server", (double)(at % t->n));
		cJSON_AddStringToObject(o, "error", t->fail[at]);
		cJSON_AddItemToArray(out, o);
	}
}

/* What the table is of: result @k of the first cell that has it. */
static void add_label(cJSON *tab, const cJSON *cells, int k)
{
	static const char *const keys[] = { "transport", "point", "op", "size",
					    "queue_depth" };
	const cJSON *c, *r = NULL, *v;
	size_t i;

	cJSON_ArrayForEach(
		c, cells) if ((r = cJSON_GetArrayItem(GET(GET(c, "document"),
							  "results"),
						      k))) break;
	cJSON_AddNumberToObject(tab, "result", k);
	for (i = 0; r && i < sizeof(keys) / sizeof(keys[0]); i++)
		if ((v = GET(r, keys[i])))
			cJSON_AddItemToObject(tab, keys[i],
					      cJSON_Duplicate(v, 1));
	v = GET(GET(r, "rate"), "offered_ops_per_second");
	if (v)
		cJSON_AddItemToObject(tab, "rate", cJSON_Duplicate(v, 1));
}

static cJSON *table_json(struct table *t, const cJSON *cells, int k,
			 double *scratch)
{
	cJSON *tab = cJSON_CreateObject(), *o, *b;

	fill(t, cells, k);
	t->tp_median = median(t->tp, t->n, scratch);
	t->lat_median = median(t->lat, t->n, scratch);
	add_label(tab, cells, k);
	cJSON_AddItemToObject(tab, "throughput_gbps", grid_json(t, t->tp));
	cJSON_AddItemToObject(tab, "latency_p50_us", grid_json(t, t->lat));
	cJSON_AddItemToObject(tab, "median_gbps",
			      isnan(t->tp_median)
				      ? cJSON_CreateNull()
				      : cJSON_CreateNumber(t->tp_median));
	cJSON_AddItemToObject(tab, "median_latency_p50_us",
			      isnan(t->lat_median)
				      ? cJSON_CreateNull()
				      : cJSON_CreateNumber(t->lat_median));
	add_failed(t, cJSON_AddArrayToObject(tab, "failed"));
	o = cJSON_AddArrayToObject(tab, "outliers");
	add_outliers(t, o, t->tp, "throughput", false);
	add_outliers(t, o, t->lat, "latency", true);
	b = cJSON_AddArrayToObject(tab, "bad_nodes");
	add_bad_nodes(t, b, t->tp, "throughput", false);
	add_bad_nodes(t, b, t->lat, "latency", true);
	return tab;
}

static int cmp_cell(const void *a, const void *b)
{
	const cJSON *x = *(const cJSON *const *)a,
		    *y = *(const cJSON *const *)b;
	double d = cJSON_GetNumberValue(GET(x, "client")) -
		   cJSON_GetNumberValue(GET(y, "client"));

	if (d == 0)
		d = cJSON_GetNumberValue(GET(x, "server")) -
		    cJSON_GetNumberValue(GET(y, "server"));
	return (d > 0) - (d < 0);
}

/* The cells by client, then server: the order of the matrix's rows. */
static int sort_cells(cJSON *cells)
{
	size_t n = (size_t)cJSON_GetArraySize(cells), i;
	cJSON **v = calloc(n ? n : 1, sizeof(*v)), *c;

	if (!v)
		return -ENOMEM;
	for (i = 0, c = cells->child; c; c = c->next)
		v[i++] = c;
	qsort(v, n, sizeof(*v), cmp_cell);
	for (i = 0; i < n; i++) {
		v[i]->prev = i ? v[i - 1] : v[n - 1];
		v[i]->next = i + 1 < n ? v[i + 1] : NULL;
	}
	cells->child = n ? v[0] : NULL;
	free(v);
	return 0;
}

/* The most results any cell's document has. */
static int results_per_cell(const cJSON *cells)
{
	const cJSON *c;
	int k = 0, m;

	cJSON_ArrayForEach(c, cells)
	{
		m = cJSON_GetArraySize(GET(GET(c, "document"), "results"));
		k = m > k ? m : k;
	}
	/* no cell has a document: one table still lists the failures */
	return k || !cells || !cells->child ? k : 1;
}

int rp_matrix_analyse(cJSON *doc)
{
	cJSON *m = GET(doc, "matrix"), *cells = GET(m, "cells");
	cJSON *tables = GET(m, "tables");
	struct table t = { .n = (size_t)cJSON_GetArraySize(GET(m, "ranks")),
			   .fraction = cJSON_GetNumberValue(
				   GET(m, "outlier_fraction")) };
	size_t nn = t.n * t.n, i;
	double *scratch = calloc(nn ? nn : 1, sizeof(double));
	int k, nk = results_per_cell(cells), err = sort_cells(cells);

	t.tp = calloc(nn ? nn : 1, sizeof(double));
	t.lat = calloc(nn ? nn : 1, sizeof(double));
	t.fail = calloc(nn ? nn : 1, sizeof(*t.fail));
	if (!scratch || !t.tp || !t.lat || !t.fail || !tables)
		err = -ENOMEM;
	for (k = 0; !err && k < nk; k++) {
		for (i = 0; i < nn; i++) {
			t.tp[i] = t.lat[i] = NAN;
			t.fail[i] = NULL;
		}
		cJSON_AddItemToArray(tables, table_json(&t, cells, k, scratch));
	}
	free(scratch);
	free(t.tp);
	free(t.lat);
	free(t.fail);
	return err;
}
