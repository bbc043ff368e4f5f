// SPDX-License-Identifier: MIT
/*
 * --matrix's retest (matrix.h): the outlier pairs, each run again alone
 * after the rounds, with nothing else on the fabric. A pair that is no
 * longer an outlier against the same median was congested in its round;
 * one that still is (or fails) is bad; a bad node whose every outlier
 * pair is bad again alone is confirmed. Judged from the document's
 * "retests" cells, so --report judges a saved run the same way.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "report/matrix/matrix.h"
#include "report/priv.h"

#define GET(o, k) cJSON_GetObjectItemCaseSensitive(o, k)

static const char *str(const cJSON *o, const char *k)
{
	const char *v = cJSON_GetStringValue(GET(o, k));

	return v ? v : "";
}

static bool is_pair(const cJSON *x, double client, double server)
{
	return cJSON_GetNumberValue(GET(x, "client")) == client &&
	       cJSON_GetNumberValue(GET(x, "server")) == server;
}

size_t rp_matrix_retest_pairs(const cJSON *doc, uint32_t (*pairs)[2],
			      size_t max, size_t *found)
{
	const cJSON *tab, *x;
	double c, s;
	size_t n = 0, k;
	bool seen;

	*found = 0;
	cJSON_ArrayForEach(tab, GET(GET(doc, "matrix"), "tables"))
	{
		cJSON_ArrayForEach(x, GET(tab, "outliers"))
		{
			c = cJSON_GetNumberValue(GET(x, "client"));
			s = cJSON_GetNumberValue(GET(x, "server"));
			for (seen = false, k = 0; !seen && k < n; k++)
				seen = pairs[k][0] == c && pairs[k][1] == s;
			if (seen)
				continue;
			(*found)++;
			if (n < max) {
				pairs[n][0] = (uint32_t)c;
				pairs[n][1] = (uint32_t)s;
				n++;
			}
		}
	}
	return n;
}

/* The retest cell of the pair (the last, if given twice), or NULL. */
static const cJSON *retest_of(const cJSON *retests, double c, double s)
{
	const cJSON *x, *found = NULL;

	cJSON_ArrayForEach(x, retests) if (is_pair(x, c, s)) found = x;
	return found;
}

/* Result @k of @cell's document, if it ran. */
static const cJSON *result_k(const cJSON *cell, int k)
{
	const cJSON *r = GET(GET(cell, "document"), "results");

	r = cJSON_IsArray(r) ? cJSON_GetArrayItem(r, k) : NULL;
	return r && cJSON_IsTrue(GET(r, "ok")) ? r : NULL;
}

static double value_of(const cJSON *r, bool lat)
{
	const cJSON *v = lat ? GET(GET(r, "latency_unloaded"), "p50")
			     : GET(GET(r, "throughput"), "bits_per_second");

	if (!cJSON_IsNumber(v) || !(v->valuedouble > 0))
		return NAN;
	return lat ? v->valuedouble : v->valuedouble / 1e9;
}

/* Outlier @x of table @tab, retested in @cell (NULL: not retested): its
 * "retest", the value alone and its verdict. */
static int judge(cJSON *x, const cJSON *tab, const cJSON *cell, double fraction)
{
	bool lat = !strcmp(str(x, "metric"), "latency");
	double med = cJSON_GetNumberValue(
		GET(tab, lat ? "median_latency_p50_us" : "median_gbps"));
	int k = (int)rp_matrix_rank_index(
		cJSON_GetNumberValue(GET(tab, "result")), 1u << 20);
	const cJSON *r = cell ? result_k(cell, k) : NULL;
	double v = r ? value_of(r, lat) : NAN;
	const char *e = cJSON_GetStringValue(GET(cell, "error"));
	cJSON *o;
	bool bad;

	if (!cell)
		return cJSON_AddNullToObject(x, "retest") ? 0 : -ENOMEM;
	o = cJSON_AddObjectToObject(x, "retest");
	if (!o)
		return -ENOMEM;
	bad = isnan(v) || isnan(med) ||
	      (lat ? v > med / fraction : v < med * fraction);
	cJSON_AddItemToObject(o, "value",
			      isnan(v) ? cJSON_CreateNull()
				       : cJSON_CreateNumber(v));
	cJSON_AddItemToObject(o, "ratio",
			      isnan(v) || isnan(med)
				      ? cJSON_CreateNull()
				      : cJSON_CreateNumber(v / med));
	cJSON_AddStringToObject(o, "verdict", bad ? "bad" : "congested");
	if (isnan(v))
		cJSON_AddStringToObject(o, "error",
					e ? e : "no figure alone either");
	return 0;
}

/* Bad node @b of @tab: "bad" when every outlier pair through it on its
 * metric was retested bad, "congested" when one recovered alone, null
 * when not all were retested. */
static int confirm(cJSON *b, const cJSON *tab)
{
	double rank = cJSON_GetNumberValue(GET(b, "rank"));
	const char *metric = str(b, "metric");
	const char *verdict = "bad", *v;
	const cJSON *x;

	cJSON_ArrayForEach(x, GET(tab, "outliers"))
	{
		if (strcmp(str(x, "metric"), metric) ||
		    (cJSON_GetNumberValue(GET(x, "client")) != rank &&
		     cJSON_GetNumberValue(GET(x, "server")) != rank))
			continue;
		v = cJSON_GetStringValue(GET(GET(x, "retest"), "verdict"));
		if (!v) {
			verdict = NULL;
			break;
		}
		if (strcmp(v, "bad"))
			verdict = "congested";
	}
	if (!verdict)
		return cJSON_AddNullToObject(b, "retest") ? 0 : -ENOMEM;
	return cJSON_AddStringToObject(b, "retest", verdict) ? 0 : -ENOMEM;
}

int rp_matrix_judge_retests(cJSON *doc)
{
	cJSON *m = GET(doc, "matrix"), *tab, *x;
	const cJSON *retests = GET(m, "retests");
	double fraction = cJSON_GetNumberValue(GET(m, "outlier_fraction"));
	int err = 0;

	if (!cJSON_IsArray(retests))
		return 0; /* a document from before retests: nothing to say */
	cJSON_ArrayForEach(tab, GET(m, "tables"))
	{
		cJSON_ArrayForEach(x, GET(tab, "outliers")) if (!err) err =
			judge(x, tab,
			      retest_of(retests,
					cJSON_GetNumberValue(GET(x, "client")),
					cJSON_GetNumberValue(GET(x, "server"))),
			      fraction);
		cJSON_ArrayForEach(x, GET(tab, "bad_nodes")) if (!err) err =
			confirm(x, tab);
	}
	return err;
}
