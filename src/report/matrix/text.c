// SPDX-License-Identifier: MIT
/*
 * The --matrix document for people (text) and for spreadsheets (CSV), and
 * which of them, with the plot, a run prints (matrix.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"
#include "report/matrix/matrix.h"
#include "report/priv.h"

#define GET(o, k) cJSON_GetObjectItemCaseSensitive(o, k)

static const char *str_of(const cJSON *o, const char *k, const char *dflt)
{
	const cJSON *v = GET(o, k);

	return cJSON_IsString(v) ? v->valuestring : dflt;
}

/* Every rank's host, indexed once (a lookup by rank in the cJSON list
 * would walk it: ranks x lookups). */
struct hosts {
	const char **name;
	size_t n;
};

static int hosts_index(const cJSON *doc, struct hosts *h)
{
	const cJSON *r;
	size_t i = 0;

	h->n = (size_t)cJSON_GetArraySize(GET(GET(doc, "matrix"), "ranks"));
	h->name = calloc(h->n ? h->n : 1, sizeof(*h->name));
	if (!h->name)
		return -ENOMEM;
	cJSON_ArrayForEach(r, GET(GET(doc, "matrix"), "ranks"))
	{
		h->name[i++] = str_of(r, "host", "?");
	}
	return 0;
}

/* @rank's host, or "?" (rp_matrix_rank_index: none, or no such rank). */
static const char *host_of(const struct hosts *h, double rank)
{
	size_t i = rp_matrix_rank_index(rank, h->n);

	return i < h->n ? h->name[i] : "?";
}

/* "tcp write 64 KiB q16" (and "at 200000 ops/s" in an open loop). */
void rp_matrix_label(const cJSON *tab, char *buf, size_t len)
{
	double bytes = cJSON_GetNumberValue(GET(tab, "size"));
	const cJSON *rate = GET(tab, "rate");
	char size[32];
	int n;

	/* a document read back may hold anything there */
	rp_units_format_size(bytes >= 0 && bytes < 0x1p63 ? (uint64_t)bytes : 0,
			     size, sizeof(size));
	n = snprintf(buf, len, "%s %s %s q%.0f", str_of(tab, "transport", "?"),
		     str_of(tab, "op", "?"), size,
		     cJSON_GetNumberValue(GET(tab, "queue_depth")));
	if (rate && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, " at %.0f ops/s",
			 cJSON_GetNumberValue(rate));
}

static void ranks_text(FILE *f, const cJSON *doc)
{
	const cJSON *m = GET(doc, "matrix"), *r;
	const char *pattern = cJSON_GetStringValue(GET(m, "pattern"));

	if (pattern)
		fprintf(f,
			"rdmaperf matrix: %d ranks, pattern %s (client = "
			"initiator -> server), %.0f rounds, each round's "
			"flows at once\n",
			cJSON_GetArraySize(GET(m, "ranks")), pattern,
			cJSON_GetNumberValue(GET(m, "rounds")));
	else
		fprintf(f,
			"rdmaperf matrix: %d ranks, every ordered pair (row: "
			"client = initiator, column: server), %.0f rounds%s\n",
			cJSON_GetArraySize(GET(m, "ranks")),
			cJSON_GetNumberValue(GET(m, "rounds")),
			cJSON_IsTrue(GET(m, "serial"))
				? ", one pair at a time"
				: ", each node in one pair a round");
	cJSON_ArrayForEach(r, GET(m, "ranks"))
	{
		fprintf(f, "  rank %-4.0f %-24s %s port %.0f",
			cJSON_GetNumberValue(GET(r, "rank")),
			str_of(r, "host", "?"), str_of(r, "address", "?"),
			cJSON_GetNumberValue(GET(r, "port")));
		if (cJSON_IsString(GET(r, "error")))
			fprintf(f, "  FAILED: %s",
				GET(r, "error")->valuestring);
		fputc('\n', f);
	}
}

/* Which pairs of @tab failed, as n x n flags (@n ranks). */
static unsigned char *failed_flags(const cJSON *tab, size_t n)
{
	unsigned char *f = calloc(n ? n * n : 1, 1);
	const cJSON *x, *list = GET(tab, "failed");
	size_t i, j;

	if (!f)
		return NULL;
	cJSON_ArrayForEach(x, list)
	{
		i = rp_matrix_rank_index(cJSON_GetNumberValue(GET(x, "client")),
					 n);
		j = rp_matrix_rank_index(cJSON_GetNumberValue(GET(x, "server")),
					 n);
		if (i < n && j < n)
			f[i * n + j] = 1;
	}
	return f;
}

/* What an unmeasured cell (i, j) shows. */
static const char *unmeasured(const unsigned char *failed, int n, int i, int j)
{
	if (i == j)
		return "-";
	return failed && j < n && failed[i * n + j] ? "FAILED" : "n/a";
}

static void grid_row(FILE *f, const cJSON *row, int i, int n,
		     const unsigned char *failed)
{
	const cJSON *v = cJSON_IsArray(row) ? row->child : NULL;
	int j;

	for (j = 0; j < n; j++, v = v ? v->next : NULL)
		if (cJSON_IsNumber(v))
			fprintf(f, " %8.2f", v->valuedouble);
		else
			fprintf(f, " %8s", unmeasured(failed, n, i, j));
}

static void grid_text(FILE *f, const struct hosts *h, const cJSON *tab,
		      const char *key, const char *what, const char *med_key)
{
	const cJSON *g = GET(tab, key), *row, *v;
	int n = cJSON_GetArraySize(g), i, j;
	unsigned char *failed;

	fprintf(f, "%s\n", what);
	if (!cJSON_IsArray(g))
		fprintf(f,
			"  (%zu ranks: the grid is drawn up to %d ranks and "
			"%u entries; the pairs below)\n",
			h->n, RP_MATRIX_GRID_RANKS, RP_MATRIX_GRID_CELLS);
	failed = cJSON_IsArray(g) ? failed_flags(tab, (size_t)n) : NULL;
	if (cJSON_IsArray(g)) {
		fprintf(f, "  %-16s", "client \\ server");
		for (j = 0; j < n; j++)
			fprintf(f, " %8d", j);
		fputc('\n', f);
	}
	i = 0;
	g = failed ? g : NULL; /* no grid, or no memory for its flags */
	cJSON_ArrayForEach(row, g)
	{
		fprintf(f, "  %-4d %-11.11s", i, host_of(h, i));
		grid_row(f, row, i, n, failed);
		fputc('\n', f);
		i++;
	}
	free(failed);
	v = GET(tab, med_key);
	if (cJSON_IsNumber(v))
		fprintf(f, "  median %.2f\n", v->valuedouble);
}

static void pair_name(FILE *f, const struct hosts *h, const cJSON *x)
{
	double i = cJSON_GetNumberValue(GET(x, "client"));
	double j = cJSON_GetNumberValue(GET(x, "server"));

	fprintf(f, "%.0f -> %.0f (%s -> %s)", i, j, host_of(h, i),
		host_of(h, j));
}

/* An outlier's retest, alone: its figure and what that makes it. */
static void retest_text(FILE *f, const cJSON *r, bool tp)
{
	const char *v = cJSON_GetStringValue(GET(r, "verdict"));

	if (!v) {
		fputc('\n', f);
		return;
	}
	if (cJSON_IsNumber(GET(r, "value")))
		fprintf(f, "; alone %.2f %s, %.2f x: %s\n",
			cJSON_GetNumberValue(GET(r, "value")),
			tp ? "Gb/s" : "us",
			cJSON_GetNumberValue(GET(r, "ratio")),
			strcmp(v, "bad") ? "congested (recovered alone)"
					 : "bad (an outlier alone too)");
	else
		fprintf(f, "; alone: %s: bad\n", str_of(r, "error", "?"));
}

/* A bad node's retest, as the end of its line. */
static const char *confirmed(const cJSON *r)
{
	const char *v = cJSON_GetStringValue(r);

	if (!v)
		return "";
	return strcmp(v, "bad")
		       ? "; not confirmed: a pair recovered alone"
		       : "; confirmed: every pair an outlier alone too";
}

static void findings_text(FILE *f, const struct hosts *h, const cJSON *tab,
			  double fraction)
{
	const cJSON *x;
	bool tp;

	cJSON_ArrayForEach(x, GET(tab, "failed"))
	{
		fprintf(f, "FAILED ");
		pair_name(f, h, x);
		fprintf(f, ": %s\n", str_of(x, "error", "?"));
	}
	cJSON_ArrayForEach(x, GET(tab, "outliers"))
	{
		tp = !strcmp(str_of(x, "metric", ""), "throughput");
		fprintf(f, "outlier ");
		pair_name(f, h, x);
		fprintf(f, ": %s %.2f %s, %.2f x the median",
			tp ? "throughput" : "latency p50",
			cJSON_GetNumberValue(GET(x, "value")),
			tp ? "Gb/s" : "us",
			cJSON_GetNumberValue(GET(x, "ratio")));
		retest_text(f, GET(x, "retest"), tp);
	}
	cJSON_ArrayForEach(x, GET(tab, "bad_nodes"))
	{
		tp = !strcmp(str_of(x, "metric", ""), "throughput");
		fprintf(f,
			"bad node: rank %.0f (%s): every pair's %s is %s%s\n",
			cJSON_GetNumberValue(GET(x, "rank")),
			host_of(h, cJSON_GetNumberValue(GET(x, "rank"))),
			tp ? "throughput" : "latency",
			tp ? "below the fraction of the median"
			   : "above the median / the fraction",
			confirmed(GET(x, "retest")));
	}
	if (!GET(tab, "outliers") || !GET(tab, "outliers")->child)
		fprintf(f,
			"no outliers (throughput below %.2f x the median, "
			"latency above the median / %.2f)\n",
			fraction, fraction);
}

int rp_matrix_text(FILE *f, const cJSON *doc)
{
	const cJSON *m = GET(doc, "matrix"), *tab;
	double fraction = cJSON_GetNumberValue(GET(m, "outlier_fraction"));
	struct hosts h;
	char label[160];

	if (hosts_index(doc, &h))
		return -ENOMEM;
	ranks_text(f, doc);
	cJSON_ArrayForEach(tab, GET(m, "tables"))
	{
		rp_matrix_label(tab, label, sizeof(label));
		fprintf(f, "\n== %s\n", label);
		grid_text(f, &h, tab, "throughput_gbps", "throughput, Gb/s",
			  "median_gbps");
		grid_text(f, &h, tab, "latency_p50_us",
			  "unloaded latency p50, us", "median_latency_p50_us");
		rp_matrix_rounds_text(f, doc, tab);
		findings_text(f, &h, tab, fraction);
	}
	rp_matrix_verdict_text(f, doc);
	free(h.name);
	return 0;
}

/* A cell's members, looked up once for all its rows (a lookup walks the
 * cell's members: once per result would be results x members). */
static const char *const pair_keys[] = { "client", "server", "round", "ok",
					 "error" };
#define N_PAIR_KEYS (sizeof(pair_keys) / sizeof(pair_keys[0]))

static void pair_get(const cJSON *c, const cJSON *v[N_PAIR_KEYS])
{
	size_t i;

	for (i = 0; i < N_PAIR_KEYS; i++)
		v[i] = GET(c, pair_keys[i]);
}

/* The pair's cells of a CSV row, each followed by a comma: client and
 * server with their hosts, then round, ok, error. */
static void csv_pair(FILE *f, const struct hosts *h,
		     const cJSON *const v[N_PAIR_KEYS])
{
	size_t i;

	for (i = 0; i < N_PAIR_KEYS; i++) {
		rp_report_csv_cell(f, v[i]);
		fputc(',', f);
		if (i >= 2)
			continue;
		rp_report_csv_str(f, host_of(h, cJSON_GetNumberValue(v[i])));
		fputc(',', f);
	}
}

int rp_matrix_csv(FILE *f, const cJSON *doc)
{
	static const char *const head[] = { "client_rank", "client_host",
					    "server_rank", "server_host",
					    "round",	   "cell_ok",
					    "cell_error" };
	const cJSON *c, *r, *results, *pair[N_PAIR_KEYS];
	struct hosts h;
	size_t i;

	if (hosts_index(doc, &h))
		return -ENOMEM;
	for (i = 0; i < sizeof(head) / sizeof(head[0]); i++)
		fprintf(f, "%s,", head[i]);
	rp_report_csv_header(f);
	cJSON_ArrayForEach(c, GET(GET(doc, "matrix"), "cells"))
	{
		results = GET(GET(c, "document"), "results");
		pair_get(c, pair);
		cJSON_ArrayForEach(r, results)
		{
			csv_pair(f, &h, pair);
			rp_report_csv_row(f, r);
		}
		if (!results || !results->child) {
			csv_pair(f, &h, pair);
			rp_report_csv_row(f, NULL);
		}
	}
	free(h.name);
	return ferror(f) ? -EIO : 0;
}
