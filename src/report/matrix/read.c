// SPDX-License-Identifier: MIT
/*
 * --report of a --matrix document: read it back, check what the renderers
 * rely on (ranks, each cell's pair within them), and derive the tables
 * again from the cells, so that a document edited or damaged by hand is
 * drawn from its cells or refused, never trusted.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "core/plan.h"
#include "report/read/read.h"
#include "report/matrix/matrix.h"

#define GET(o, k) cJSON_GetObjectItemCaseSensitive(o, k)

/* @v is a whole number in [lo, hi]. */
static bool whole_in(const cJSON *v, double lo, double hi)
{
	double x = cJSON_GetNumberValue(v);

	return cJSON_IsNumber(v) && x >= lo && x <= hi && x == floor(x);
}

static int check_ranks(const struct rp_reader *l, const cJSON *ranks)
{
	const cJSON *r;
	int i = 0;

	if (!cJSON_IsArray(ranks) || cJSON_GetArraySize(ranks) < 2 ||
	    cJSON_GetArraySize(ranks) > RP_PLAN_MAX_RANKS)
		return rp_errf(l->why, -EINVAL,
			       "%s: matrix.ranks is not 2 to %d ranks", l->path,
			       RP_PLAN_MAX_RANKS);
	cJSON_ArrayForEach(r, ranks)
	{
		if (!whole_in(GET(r, "rank"), i, i) ||
		    !cJSON_IsString(GET(r, "host")) ||
		    !cJSON_IsString(GET(r, "address")))
			return rp_errf(l->why, -EINVAL,
				       "%s: matrix.ranks[%d] is not rank %d "
				       "with its host and address",
				       l->path, i, i);
		i++;
	}
	return 0;
}

/* The results of the document @d (none when it is not an object). */
static size_t results_of(const cJSON *d)
{
	const cJSON *r = GET(d, "results");
	size_t n = 0;

	for (r = cJSON_IsArray(r) ? r->child : NULL; r; r = r->next)
		n++;
	return n;
}

/* The tables list every cell once per result of the cell with the most
 * (a cell without that result as failed): cells x that, bounded, checked
 * before any table is built. */
static int check_entries(const struct rp_reader *l, size_t cells, size_t most)
{
	size_t max = *l->bytes / RP_MATRIX_ENTRY_BYTES + RP_MATRIX_ENTRIES_MIN;

	max = max < RP_MATRIX_MAX_ENTRIES ? max : RP_MATRIX_MAX_ENTRIES;
	most = most ? most : 1;
	if (cells <= max / most)
		return 0;
	return rp_errf(l->why, -E2BIG,
		       "%s: %zu cells x %zu results per cell: the tables "
		       "hold at most %zu pairs' results (%u, and one per %d "
		       "bytes of the document)",
		       l->path, cells, most, max, RP_MATRIX_MAX_ENTRIES,
		       RP_MATRIX_ENTRY_BYTES);
}

static int check_cells(const struct rp_reader *l, const cJSON *cells, int n,
		       const char *name)
{
	const cJSON *c, *d;
	size_t most = 0, k;
	int i = 0;

	if (!cJSON_IsArray(cells))
		return rp_errf(l->why, -EINVAL, "%s: matrix.%s is not an array",
			       l->path, name);
	cJSON_ArrayForEach(c, cells)
	{
		d = GET(c, "document");
		if (!whole_in(GET(c, "client"), 0, n - 1) ||
		    !whole_in(GET(c, "server"), 0, n - 1) ||
		    cJSON_GetNumberValue(GET(c, "client")) ==
			    cJSON_GetNumberValue(GET(c, "server")) ||
		    !whole_in(GET(c, "round"), 0, UINT32_MAX) ||
		    (d && !cJSON_IsNull(d) && !cJSON_IsObject(d)))
			return rp_errf(l->why, -EINVAL,
				       "%s: matrix.%s[%d] is not a pair "
				       "of two of the %d ranks",
				       l->path, name, i, n);
		k = results_of(d);
		most = k > most ? k : most;
		i++;
	}
	return check_entries(l, (size_t)i, most);
}

static int check_matrix(const struct rp_reader *l, cJSON *root)
{
	cJSON *m = GET(root, "matrix");
	const cJSON *f = GET(m, "outlier_fraction");
	int err;

	if (!cJSON_IsObject(m) || !cJSON_IsNumber(f) ||
	    !(f->valuedouble > 0 && f->valuedouble <= 1) ||
	    !whole_in(GET(m, "rounds"), 1, UINT32_MAX))
		return rp_errf(l->why, -EINVAL,
			       "%s: no matrix, or its rounds or "
			       "outlier_fraction out of range",
			       l->path);
	err = check_ranks(l, GET(m, "ranks"));
	if (!err)
		err = check_cells(l, GET(m, "cells"),
				  cJSON_GetArraySize(GET(m, "ranks")), "cells");
	/* the retests: optional (documents before them), and as many as a
	 * run makes at most, each judged against every outlier */
	if (!err && GET(m, "retests") &&
	    cJSON_GetArraySize(GET(m, "retests")) > RP_MATRIX_RETEST_MAX)
		err = rp_errf(l->why, -EINVAL,
			      "%s: matrix.retests holds more than %d cells",
			      l->path, RP_MATRIX_RETEST_MAX);
	if (!err && GET(m, "retests"))
		err = check_cells(l, GET(m, "retests"),
				  cJSON_GetArraySize(GET(m, "ranks")),
				  "retests");
	if (err)
		return err;
	cJSON_DeleteItemFromObjectCaseSensitive(m, "tables");
	if (!cJSON_AddArrayToObject(m, "tables") || rp_matrix_analyse(root))
		return rp_errf(l->why, -ENOMEM, "%s: out of memory", l->path);
	return 0;
}

int rp_matrix_load(const char *path, cJSON **doc, struct rp_err *why)
{
	size_t bytes = 0;
	struct rp_reader l = { .path = path, .why = why, .bytes = &bytes };
	const cJSON *schema;
	cJSON *root = NULL;
	int err = rp_read_parse(&l, &root);

	*doc = NULL;
	if (err)
		return err;
	schema = GET(root, "schema");
	if (!cJSON_IsString(schema) ||
	    strcmp(schema->valuestring, RP_MATRIX_SCHEMA)) {
		cJSON_Delete(root);
		return -EMEDIUMTYPE;
	}
	err = check_matrix(&l, root);
	if (err) {
		cJSON_Delete(root);
		return err;
	}
	*doc = root;
	return 0;
}
