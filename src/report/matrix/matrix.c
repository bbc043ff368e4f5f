// SPDX-License-Identifier: MIT
/*
 * The --matrix document: its skeleton, the cells in order and the tables
 * derived from them (matrix.h). matrix/text.c and matrix/plot.c draw it.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/matrix/matrix.h"
#include "report/priv.h"

#define GET(o, k) cJSON_GetObjectItemCaseSensitive(o, k)

cJSON *rp_matrix_doc(const struct rp_test *test,
		     const struct rp_matrix_opts *mx, uint32_t rounds)
{
	cJSON *doc = cJSON_CreateObject(), *m;
	char name[RP_PATTERN_PATH_LEN + 16];

	cJSON_AddStringToObject(doc, "schema", RP_MATRIX_SCHEMA);
	cJSON_AddStringToObject(doc, "version", RP_VERSION);
	cJSON_AddItemToObject(doc, "config", rp_report_config_json(test));
	m = cJSON_AddObjectToObject(doc, "matrix");
	if (mx->pattern.kind == RP_PATTERN_NONE) {
		cJSON_AddStringToObject(m, "pairs", "ordered");
	} else {
		rp_pattern_name(&mx->pattern, name, sizeof(name));
		cJSON_AddStringToObject(m, "pairs", "pattern");
		cJSON_AddStringToObject(m, "pattern", name);
	}
	cJSON_AddBoolToObject(m, "serial", mx->serial);
	cJSON_AddNumberToObject(m, "rounds", rounds);
	cJSON_AddNumberToObject(m, "outlier_fraction", mx->outlier);
	cJSON_AddNumberToObject(m, "round_timeout_s", mx->round_timeout_s);
	cJSON_AddBoolToObject(m, "retest", !mx->no_retest);
	cJSON_AddArrayToObject(m, "ranks");
	cJSON_AddArrayToObject(m, "cells");
	cJSON_AddArrayToObject(m, "retests"); /* before the tables, which
					       * --report derives anew */
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

cJSON *rp_matrix_retests(cJSON *doc)
{
	return GET(GET(doc, "matrix"), "retests");
}

/* ---- the tables ---------------------------------------------------------- */
/*
 * Linear in the cells: each table is computed from one pass over them
 * (sorted once by client, then server), never over ranks x ranks, and
 * each cell's k-th result is reached by stepping a cursor, not by index.
 */

/* One measured (or failed) pair of a table. */
struct entry {
	size_t i, j;
	double tp, lat;	  /* NAN where not measured */
	const char *fail; /* the reason where failed */
};

/* One cell, looked up once (not once per table): its pair, the reason it
 * failed, if any, and its result for the table being built. */
struct cell {
	cJSON *c;
	size_t i, j;	   /* ranks; the table's n where not one */
	size_t order;	   /* in the document: the last of a pair counts */
	const char *error; /* the cell's, NULL if none */
	const cJSON *at;   /* its result for this table, NULL if none */
};

/* One table being built: result @k of every cell's document. */
struct table {
	size_t n;	 /* ranks */
	struct entry *e; /* one per cell of a pair of the ranks */
	size_t n_e;
	double tp_median, lat_median;
	double fraction;
	bool grids;
	uint32_t *measured, *low; /* per rank, for the bad nodes */
};

static double num_at(const cJSON *o, const char *a, const char *b)
{
	const cJSON *v = GET(GET(o, a), b);

	return cJSON_IsNumber(v) && v->valuedouble > 0 ? v->valuedouble : NAN;
}

/* The failure of cell @c, or of its result @r; NULL when ok. */
static const char *cell_failure(const struct cell *c, const cJSON *r)
{
	if (!r || !cJSON_IsTrue(GET(r, "ok"))) {
		if (r && cJSON_IsString(GET(GET(r, "error"), "message")))
			return GET(GET(r, "error"), "message")->valuestring;
		return c->error ? c->error : "not run";
	}
	return NULL;
}

/* The table's entries from the sorted @cells, each at its current
 * result (advanced to the next for the next table). A pair given twice
 * (a document edited by hand) counts once: its last cell. */
static void fill(struct table *t, struct cell *cells, size_t n_cells)
{
	const cJSON *r;
	struct entry *x;
	size_t i, j, k;

	t->n_e = 0;
	for (k = 0; k < n_cells; k++) {
		r = cells[k].at;
		cells[k].at = r ? r->next : NULL;
		i = cells[k].i;
		j = cells[k].j;
		if (i >= t->n || j >= t->n)
			continue;
		x = &t->e[t->n_e];
		if (t->n_e && x[-1].i == i && x[-1].j == j)
			x--; /* the same pair again: the last one counts */
		else
			t->n_e++;
		*x = (struct entry){ i, j, NAN, NAN,
				     cell_failure(&cells[k], r) };
		if (x->fail)
			continue;
		x->tp = num_at(r, "throughput", "bits_per_second") / 1e9;
		x->lat = num_at(r, "latency_unloaded", "p50");
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of the measured tp (or @lat) values, NAN if none. */
static double median(const struct table *t, bool lat, double *scratch)
{
	size_t k, m = 0;
	double v;

	for (k = 0; k < t->n_e; k++) {
		v = lat ? t->e[k].lat : t->e[k].tp;
		if (!isnan(v))
			scratch[m++] = v;
	}
	if (!m)
		return NAN;
	qsort(scratch, m, sizeof(*scratch), cmp_double);
	return m & 1 ? scratch[m / 2]
		     : (scratch[m / 2 - 1] + scratch[m / 2]) / 2;
}

/* Entry @x is an outlier: throughput below fraction x median, latency
 * (@high_bad) above median / fraction. */
static bool outlying(const struct table *t, const struct entry *x,
		     bool high_bad)
{
	double med = high_bad ? t->lat_median : t->tp_median;
	double v = high_bad ? x->lat : x->tp;

	if (isnan(v) || isnan(med))
		return false;
	return high_bad ? v > med / t->fraction : v < med * t->fraction;
}

/* The n x n grid of tp (or @lat), null where not measured; NULL when the
 * table has no grids (cJSON adds nothing for NULL: the caller adds a
 * null). */
static cJSON *grid_json(const struct table *t, bool lat)
{
	cJSON *g = cJSON_CreateArray(), *row = NULL;
	size_t i, j, k = 0;
	double v;

	for (i = 0; g && i < t->n; i++) {
		row = cJSON_CreateArray();
		for (j = 0; row && j < t->n; j++) {
			v = NAN;
			if (k < t->n_e && t->e[k].i == i && t->e[k].j == j)
				v = lat ? t->e[k++].lat : t->e[k++].tp;
			cJSON_AddItemToArray(row,
					     isnan(v) ? cJSON_CreateNull()
						      : cJSON_CreateNumber(v));
		}
		cJSON_AddItemToArray(g, row);
	}
	return g;
}

static void add_grid(cJSON *tab, const char *key, const struct table *t,
		     bool lat)
{
	cJSON_AddItemToObject(
		tab, key, t->grids ? grid_json(t, lat) : cJSON_CreateNull());
}

static void add_outliers(const struct table *t, cJSON *out, bool high_bad)
{
	double med = high_bad ? t->lat_median : t->tp_median;
	const struct entry *x;
	size_t k;
	cJSON *o;

	for (k = 0; k < t->n_e; k++) {
		x = &t->e[k];
		if (!outlying(t, x, high_bad))
			continue;
		o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "client", (double)x->i);
		cJSON_AddNumberToObject(o, "server", (double)x->j);
		cJSON_AddStringToObject(o, "metric",
					high_bad ? "latency" : "throughput");
		cJSON_AddNumberToObject(o, "value", high_bad ? x->lat : x->tp);
		cJSON_AddNumberToObject(o, "ratio",
					(high_bad ? x->lat : x->tp) / med);
		cJSON_AddItemToArray(out, o);
	}
}

/* A rank whose measured pairs (either end) are all outliers, and at least
 * two: the node, not one link. Needs 3 ranks or more to tell. */
static void add_bad_nodes(struct table *t, cJSON *out, bool high_bad)
{
	const struct entry *x;
	size_t k, r;
	cJSON *o;

	if (t->n < 3)
		return;
	memset(t->measured, 0, t->n * sizeof(*t->measured));
	memset(t->low, 0, t->n * sizeof(*t->low));
	for (k = 0; k < t->n_e; k++) {
		x = &t->e[k];
		if (isnan(high_bad ? x->lat : x->tp))
			continue;
		t->measured[x->i]++;
		t->measured[x->j]++;
		t->low[x->i] += outlying(t, x, high_bad);
		t->low[x->j] += outlying(t, x, high_bad);
	}
	for (r = 0; r < t->n; r++) {
		if (t->measured[r] < 2 || t->low[r] != t->measured[r])
			continue;
		o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "rank", (double)r);
		cJSON_AddStringToObject(o, "metric",
					high_bad ? "latency" : "throughput");
		cJSON_AddItemToArray(out, o);
	}
}

static void add_failed(const struct table *t, cJSON *out)
{
	size_t k;
	cJSON *o;

	for (k = 0; k < t->n_e; k++) {
		if (!t->e[k].fail)
			continue;
		o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "client", (double)t->e[k].i);
		cJSON_AddNumberToObject(o, "server", (double)t->e[k].j);
		cJSON_AddStringToObject(o, "error", t->e[k].fail);
		cJSON_AddItemToArray(out, o);
	}
}

/* What the table is of: result @k of the first cell that has it (@first:
 * that cell's results, stepped along with the tables). */
static void add_label(cJSON *tab, const cJSON *r, int k)
{
	static const char *const keys[] = { "transport", "point", "op", "size",
					    "queue_depth" };
	const cJSON *v;
	size_t i;

	cJSON_AddNumberToObject(tab, "result", k);
	for (i = 0; r && i < sizeof(keys) / sizeof(keys[0]); i++)
		if ((v = GET(r, keys[i])))
			cJSON_AddItemToObject(tab, keys[i],
					      cJSON_Duplicate(v, 1));
	v = GET(GET(r, "rate"), "offered_ops_per_second");
	if (v)
		cJSON_AddItemToObject(tab, "rate", cJSON_Duplicate(v, 1));
}

/* The first result @k that any cell has: the cells are at their result
 * @k. */
static const cJSON *first_result(const struct cell *cells, size_t n_cells)
{
	size_t k;

	for (k = 0; k < n_cells; k++)
		if (cells[k].at)
			return cells[k].at;
	return NULL;
}

static cJSON *table_json(struct table *t, struct cell *cells, size_t n_cells,
			 int k, double *scratch)
{
	cJSON *tab = cJSON_CreateObject(), *o, *b;

	if (!tab)
		return NULL;
	add_label(tab, first_result(cells, n_cells), k);
	fill(t, cells, n_cells);
	t->tp_median = median(t, false, scratch);
	t->lat_median = median(t, true, scratch);
	add_grid(tab, "throughput_gbps", t, false);
	add_grid(tab, "latency_p50_us", t, true);
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
	add_outliers(t, o, false);
	add_outliers(t, o, true);
	b = cJSON_AddArrayToObject(tab, "bad_nodes");
	add_bad_nodes(t, b, false);
	add_bad_nodes(t, b, true);
	return tab;
}

static int cmp_cell(const void *a, const void *b)
{
	const struct cell *x = a, *y = b;

	if (x->i != y->i)
		return x->i < y->i ? -1 : 1;
	if (x->j != y->j)
		return x->j < y->j ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

/* Cell @c looked up: its pair among @n ranks, its reason, its first
 * result; *@n_results the count of its results. */
static void cell_index(struct cell *x, cJSON *c, size_t n, size_t *n_results)
{
	const cJSON *e = GET(c, "error"), *r;

	x->c = c;
	x->i = rp_matrix_rank_index(cJSON_GetNumberValue(GET(c, "client")), n);
	x->j = rp_matrix_rank_index(cJSON_GetNumberValue(GET(c, "server")), n);
	x->error = cJSON_IsString(e) ? e->valuestring : NULL;
	r = GET(GET(c, "document"), "results");
	x->at = cJSON_IsArray(r) ? r->child : NULL;
	for (*n_results = 0, r = x->at; r; r = r->next)
		(*n_results)++;
}

/*
 * The cells looked up once into *@out (@n_cells of them), in the order of
 * the matrix's rows, by client, then server, which the document's list of
 * cells takes too; *@most: the most results any cell's document has.
 */
static int sort_cells(cJSON *cells, size_t n, struct cell **out,
		      size_t *n_cells, size_t *most)
{
	struct cell *v;
	cJSON *c;
	size_t i = 0, m;

	*n_cells = *most = 0;
	for (c = cells ? cells->child : NULL; c; c = c->next)
		(*n_cells)++;
	v = calloc(*n_cells ? *n_cells : 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (c = cells ? cells->child : NULL; c; c = c->next, i++) {
		cell_index(&v[i], c, n, &m);
		v[i].order = i;
		*most = m > *most ? m : *most;
	}
	qsort(v, *n_cells, sizeof(*v), cmp_cell);
	for (i = 0; i < *n_cells; i++) {
		v[i].c->prev = i ? v[i - 1].c : v[*n_cells - 1].c;
		v[i].c->next = i + 1 < *n_cells ? v[i + 1].c : NULL;
	}
	if (cells)
		cells->child = *n_cells ? v[0].c : NULL;
	*out = v;
	return 0;
}

bool rp_matrix_grids(const cJSON *doc)
{
	const cJSON *m = GET(doc, "matrix");
	size_t n = (size_t)cJSON_GetArraySize(GET(m, "ranks"));
	size_t tables = (size_t)cJSON_GetArraySize(GET(m, "tables"));

	return n <= RP_MATRIX_GRID_RANKS &&
	       n * n * (tables ? tables : 1) <= RP_MATRIX_GRID_CELLS;
}

int rp_matrix_analyse(cJSON *doc)
{
	cJSON *m = GET(doc, "matrix"), *tables = GET(m, "tables");
	struct table t = { .n = (size_t)cJSON_GetArraySize(GET(m, "ranks")),
			   .fraction = cJSON_GetNumberValue(
				   GET(m, "outlier_fraction")) };
	struct cell *cells = NULL;
	double *scratch = NULL;
	size_t n_cells = 0, nk = 0, k;
	cJSON *tab;
	int err = sort_cells(GET(m, "cells"), t.n, &cells, &n_cells, &nk);

	if (!err) {
		t.e = calloc(n_cells ? n_cells : 1, sizeof(*t.e));
		scratch = calloc(n_cells ? n_cells : 1, sizeof(*scratch));
		t.measured = calloc(t.n ? t.n : 1, sizeof(*t.measured));
		t.low = calloc(t.n ? t.n : 1, sizeof(*t.low));
		if (!t.e || !scratch || !t.measured || !t.low || !tables)
			err = -ENOMEM;
	}
	/* no cell has a document: one table still lists the failures */
	nk = nk || !n_cells ? nk : 1;
	t.grids = t.n <= RP_MATRIX_GRID_RANKS &&
		  t.n * t.n * (nk ? nk : 1) <= RP_MATRIX_GRID_CELLS;
	for (k = 0; !err && k < nk; k++) {
		tab = table_json(&t, cells, n_cells, (int)k, scratch);
		if (!tab || !cJSON_AddItemToArray(tables, tab))
			err = -ENOMEM;
	}
	free(cells);
	free(t.e);
	free(scratch);
	free(t.measured);
	free(t.low);
	if (!err)
		err = rp_matrix_judge_retests(doc);
	if (!err)
		err = rp_matrix_rounds(doc);
	return err ? err : rp_matrix_verdicts(doc);
}
