// SPDX-License-Identifier: MIT
/*
 * A --pattern's rounds (matrix.h): per table, each round's flows summed
 * (the aggregate), their fairness (Jain's index) and the slowest flow
 * against the round's median; and their text, a line a round and one a
 * flow with its latency under load.
 *
 * The flows' phases start when each one's setup is done, not at one
 * instant: a flow that ran alone for part of its phase has that part at
 * the link's whole rate, and the sum of whole-phase rates overstates what
 * the link carried (1.4 x a shaped link's rate seen across emulated
 * guests). With intervals (-i), a flow's rate is taken over the middle
 * half of its phase, when every flow of the round is running as long as
 * their starts are less than a quarter of the phase apart.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/matrix/matrix.h"
#include "report/priv.h"

#define GET(o, k) cJSON_GetObjectItemCaseSensitive(o, k)

/* One flow of a round, for one table. */
struct flow {
	uint32_t round;
	double client, server;
	double gbps;  /* NAN: failed, or no throughput; the middle half's */
	double whole; /* over its whole phase */
	bool middle;  /* gbps is the middle half's */
};

#define MIDDLE_MIN 4 /* intervals a flow needs for its middle half */

/* Gb/s over the middle half of @r's intervals, NAN without enough. */
static double middle_gbps(const cJSON *r)
{
	const cJSON *iv = GET(r, "intervals");
	int n = cJSON_GetArraySize(iv), i;
	double bytes = 0, s = 0;

	if (n < MIDDLE_MIN)
		return NAN;
	for (i = n / 4; i < n - n / 4; i++) {
		bytes += cJSON_GetNumberValue(
			GET(cJSON_GetArrayItem(iv, i), "bytes"));
		s += cJSON_GetNumberValue(
			GET(cJSON_GetArrayItem(iv, i), "seconds"));
	}
	return s > 0 && bytes >= 0 ? bytes * 8 / s / 1e9 : NAN;
}

static const char *str(const cJSON *o, const char *k)
{
	const char *v = cJSON_GetStringValue(GET(o, k));

	return v ? v : "";
}

static int cmp_flow(const void *a, const void *b)
{
	const struct flow *x = a, *y = b;

	if (x->round != y->round)
		return x->round < y->round ? -1 : 1;
	if (isnan(x->gbps) != isnan(y->gbps))
		return isnan(x->gbps) ? 1 : -1; /* the failed last */
	return (x->gbps > y->gbps) - (x->gbps < y->gbps);
}

/* The flows of @cells for result @k, sorted by round, slowest first;
 * *@n of them. */
static struct flow *flows_of(const cJSON *cells, int k, size_t *n)
{
	const cJSON *c, *r, *v;
	struct flow *f =
		calloc((size_t)cJSON_GetArraySize(cells) + 1, sizeof(*f));
	size_t i = 0;

	if (!f)
		return NULL;
	cJSON_ArrayForEach(c, cells)
	{
		r = cJSON_GetArrayItem(GET(GET(c, "document"), "results"), k);
		v = GET(GET(r, "throughput"), "bits_per_second");
		f[i].round = (uint32_t)cJSON_GetNumberValue(GET(c, "round"));
		f[i].client = cJSON_GetNumberValue(GET(c, "client"));
		f[i].server = cJSON_GetNumberValue(GET(c, "server"));
		f[i].whole = cJSON_IsTrue(GET(r, "ok")) && cJSON_IsNumber(v) &&
					     v->valuedouble > 0
				     ? v->valuedouble / 1e9
				     : NAN;
		f[i].gbps = isnan(f[i].whole) ? NAN : middle_gbps(r);
		f[i].middle = !isnan(f[i].gbps);
		if (!f[i].middle)
			f[i].gbps = f[i].whole;
		i++;
	}
	qsort(f, i, sizeof(*f), cmp_flow);
	*n = i;
	return f;
}

static int count_failed(const struct flow *f, size_t n)
{
	int k = 0;
	size_t i;

	for (i = 0; i < n; i++)
		k += isnan(f[i].whole);
	return k;
}

/* The summary of @f[0..n), one round's flows, the measured first (put
 * back in order when their windows must be made one). */
static cJSON *round_json(struct flow *f, size_t n)
{
	cJSON *o = cJSON_CreateObject(), *s;
	double sum = 0, sq = 0, whole = 0, med;
	size_t m = 0, mid = 0, i;

	for (i = 0; i < n; i++)
		mid += f[i].middle;
	if (mid && mid != n - (size_t)count_failed(f, n)) {
		/* one window for every flow of the round: the whole phases */
		for (i = 0; i < n; i++) {
			f[i].gbps = f[i].whole;
			f[i].middle = false;
		}
		qsort(f, n, sizeof(*f), cmp_flow);
	}
	for (mid = 0, i = 0; i < n; i++)
		if (!isnan(f[i].gbps)) {
			sum += f[i].gbps;
			sq += f[i].gbps * f[i].gbps;
			whole += f[i].whole;
			mid += f[i].middle;
			m++;
		}
	cJSON_AddNumberToObject(o, "round", f[0].round);
	cJSON_AddNumberToObject(o, "flows", (double)n);
	cJSON_AddNumberToObject(o, "failed", (double)(n - m));
	if (!m) {
		cJSON_AddNullToObject(o, "aggregate_gbps");
		cJSON_AddNullToObject(o, "fairness");
		cJSON_AddNullToObject(o, "median_gbps");
		cJSON_AddNullToObject(o, "slowest");
		return o;
	}
	/* the measured flows are f[0..m) in rising order (the sort) */
	med = m & 1 ? f[m / 2].gbps : (f[m / 2 - 1].gbps + f[m / 2].gbps) / 2;
	cJSON_AddNumberToObject(o, "aggregate_gbps", sum);
	cJSON_AddNumberToObject(o, "aggregate_whole_gbps", whole);
	/* the flows' rates are their middle halves' (every one had -i's
	 * intervals) or their whole phases' */
	cJSON_AddStringToObject(o, "window",
				mid == m ? "middle_half" : "whole_phase");
	cJSON_AddNumberToObject(o, "fairness", sum * sum / ((double)m * sq));
	cJSON_AddNumberToObject(o, "median_gbps", med);
	s = cJSON_AddObjectToObject(o, "slowest");
	cJSON_AddNumberToObject(s, "client", f[0].client);
	cJSON_AddNumberToObject(s, "server", f[0].server);
	cJSON_AddNumberToObject(s, "gbps", f[0].gbps);
	cJSON_AddNumberToObject(s, "ratio", f[0].gbps / med);
	return o;
}

int rp_matrix_rounds(cJSON *doc)
{
	cJSON *m = GET(doc, "matrix"), *tab, *arr;
	struct flow *f;
	size_t n, i, start;
	int k;

	if (!cJSON_IsString(GET(m, "pattern")))
		return 0; /* the all-pairs matrix: its tables say it all */
	cJSON_ArrayForEach(tab, GET(m, "tables"))
	{
		k = (int)rp_matrix_rank_index(
			cJSON_GetNumberValue(GET(tab, "result")), 1u << 20);
		f = flows_of(GET(m, "cells"), k, &n);
		arr = f ? cJSON_AddArrayToObject(tab, "rounds") : NULL;
		if (!arr) {
			free(f);
			return -ENOMEM;
		}
		for (start = 0, i = 1; i <= n; i++)
			if (i == n || f[i].round != f[start].round) {
				cJSON_AddItemToArray(
					arr, round_json(&f[start], i - start));
				start = i;
			}
		free(f);
	}
	return 0;
}

/* The flows of round @round in @cells for result @k, a line each. */
static void flows_text(FILE *f, const cJSON *cells, double round, int k)
{
	const cJSON *c, *r, *l;

	cJSON_ArrayForEach(c, cells)
	{
		if (cJSON_GetNumberValue(GET(c, "round")) != round)
			continue;
		r = cJSON_GetArrayItem(GET(GET(c, "document"), "results"), k);
		fprintf(f, "  %3.0f -> %-3.0f ",
			cJSON_GetNumberValue(GET(c, "client")),
			cJSON_GetNumberValue(GET(c, "server")));
		if (!cJSON_IsTrue(GET(r, "ok"))) {
			fprintf(f, " FAILED: %s\n",
				cJSON_GetStringValue(GET(c, "error"))
					? cJSON_GetStringValue(GET(c, "error"))
					: "no result");
			continue;
		}
		fprintf(f, "%9.3f Gb/s",
			cJSON_GetNumberValue(
				GET(GET(r, "throughput"), "bits_per_second")) /
				1e9);
		l = GET(r, "latency");
		if (cJSON_IsNumber(GET(l, "p50")))
			fprintf(f,
				"  latency under load p50 %.1f us p99 %.1f us",
				cJSON_GetNumberValue(GET(l, "p50")),
				cJSON_GetNumberValue(GET(l, "p99")));
		fputc('\n', f);
	}
}

void rp_matrix_rounds_text(FILE *f, const cJSON *doc, const cJSON *tab)
{
	const cJSON *m = GET(doc, "matrix"), *x, *s;
	int k = (int)rp_matrix_rank_index(
		cJSON_GetNumberValue(GET(tab, "result")), 1u << 20);

	cJSON_ArrayForEach(x, GET(tab, "rounds"))
	{
		fprintf(f, "round %.0f: %.0f flow%s",
			cJSON_GetNumberValue(GET(x, "round")) + 1,
			cJSON_GetNumberValue(GET(x, "flows")),
			cJSON_GetNumberValue(GET(x, "flows")) == 1 ? "" : "s");
		s = GET(x, "slowest");
		if (cJSON_IsObject(s))
			fprintf(f,
				", aggregate %.3f Gb/s%s, fairness %.3f, "
				"slowest %.0f -> %.0f %.3f Gb/s (%.2f x the "
				"median)",
				cJSON_GetNumberValue(GET(x, "aggregate_gbps")),
				strcmp(str(x, "window"), "middle_half")
					? " (whole phases, not in step: give "
					  "-i)"
					: " (middle halves)",
				cJSON_GetNumberValue(GET(x, "fairness")),
				cJSON_GetNumberValue(GET(s, "client")),
				cJSON_GetNumberValue(GET(s, "server")),
				cJSON_GetNumberValue(GET(s, "gbps")),
				cJSON_GetNumberValue(GET(s, "ratio")));
		if (cJSON_GetNumberValue(GET(x, "failed")) > 0)
			fprintf(f, ", %.0f failed",
				cJSON_GetNumberValue(GET(x, "failed")));
		fputc('\n', f);
		flows_text(f, GET(m, "cells"),
			   cJSON_GetNumberValue(GET(x, "round")), k);
	}
}
