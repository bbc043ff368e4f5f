// SPDX-License-Identifier: MIT
/*
 * The --matrix document's analysis (report/matrix/matrix.c) on made-up cells:
 * medians, the failed pairs, throughput and latency outliers against
 * --outlier's fraction, a bad node (every pair of one rank low) told from
 * a bad link, none with two ranks; and what the text and CSV say of it.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli/options.h"
#include "report/matrix/matrix.h"
#include "report/priv.h"

#define GET(o, k) cJSON_GetObjectItemCaseSensitive(o, k)

static struct rp_xport_params params;
static struct rp_config cfg = { .test.params = &params };

static cJSON *new_doc(int ranks, uint32_t rounds)
{
	static char a[][16] = {
		"rdmaperf", "--matrix", "-x", "tcp", "-S", "4K"
	};
	char *argv[] = { a[0], a[1], a[2], a[3], a[4], a[5] };
	enum rp_cli_action act;
	char err[256];
	cJSON *doc;
	int i;

	assert_int_equal(rp_cli_parse(6, argv, &cfg, &act, err, sizeof(err)),
			 0);
	doc = rp_matrix_doc(&cfg.test, &cfg.matrix, rounds);
	assert_non_null(doc);
	for (i = 0; i < ranks; i++) {
		char host[16];

		snprintf(host, sizeof(host), "node%d", i);
		rp_matrix_add_rank(doc, (unsigned int)i, host, "10.0.0.1",
				   18520, NULL);
	}
	return doc;
}

/* A cell whose one result did @gbps and @p50_us (0: failed). */
static void add_cell(cJSON *doc, int i, int j, double gbps, double p50_us)
{
	cJSON *c = cJSON_CreateObject(), *d, *r, *x;

	cJSON_AddNumberToObject(c, "client", i);
	cJSON_AddNumberToObject(c, "server", j);
	cJSON_AddNumberToObject(c, "round", 0);
	cJSON_AddBoolToObject(c, "ok", gbps > 0);
	if (gbps > 0)
		cJSON_AddNullToObject(c, "error");
	else
		cJSON_AddStringToObject(c, "error", "link down");
	cJSON_AddNumberToObject(c, "seconds", 1);
	if (gbps > 0) {
		d = cJSON_AddObjectToObject(c, "document");
		r = cJSON_CreateObject();
		cJSON_AddStringToObject(r, "transport", "tcp");
		cJSON_AddStringToObject(r, "op", "write");
		cJSON_AddNumberToObject(r, "size", 4096);
		cJSON_AddNumberToObject(r, "queue_depth", 16);
		cJSON_AddBoolToObject(r, "ok", true);
		x = cJSON_AddObjectToObject(r, "throughput");
		cJSON_AddNumberToObject(x, "bits_per_second", gbps * 1e9);
		x = cJSON_AddObjectToObject(r, "latency_unloaded");
		cJSON_AddNumberToObject(x, "p50", p50_us);
		cJSON_AddItemToArray(cJSON_AddArrayToObject(d, "results"), r);
	} else {
		cJSON_AddNullToObject(c, "document");
	}
	cJSON_AddItemToArray(rp_matrix_cells(doc), c);
}

static const cJSON *table0(const cJSON *doc)
{
	return cJSON_GetArrayItem(GET(GET(doc, "matrix"), "tables"), 0);
}

static int count_metric(const cJSON *list, const char *metric)
{
	const cJSON *x;
	int n = 0;

	cJSON_ArrayForEach(x, list) n +=
		!strcmp(cJSON_GetStringValue(GET(x, "metric")), metric);
	return n;
}

/* Five ranks; every pair of rank 4 at half speed, one slow link 0 -> 1
 * in latency, 0 -> 2 failed. Cells added out of order. */
static cJSON *five(void)
{
	cJSON *doc = new_doc(5, 10);
	int i, j;

	for (i = 4; i >= 0; i--)
		for (j = 0; j < 5; j++) {
			if (i == j)
				continue;
			if (i == 0 && j == 2)
				add_cell(doc, i, j, 0, 0);
			else
				add_cell(doc, i, j, i == 4 || j == 4 ? 5 : 10,
					 i == 0 && j == 1 ? 9 : 2);
		}
	assert_int_equal(rp_matrix_analyse(doc), 0);
	return doc;
}

static void test_outliers(void **state)
{
	cJSON *doc = five();
	const cJSON *t = table0(doc), *x;

	(void)state;
	assert_true(GET(t, "median_gbps")->valuedouble == 10);
	assert_true(GET(t, "median_latency_p50_us")->valuedouble == 2);
	assert_true(cJSON_IsNull(cJSON_GetArrayItem(
		cJSON_GetArrayItem(GET(t, "throughput_gbps"), 0), 2)));
	assert_true(cJSON_IsNull(cJSON_GetArrayItem(
		cJSON_GetArrayItem(GET(t, "throughput_gbps"), 3), 3)));
	assert_int_equal(cJSON_GetArraySize(GET(t, "failed")), 1);
	assert_int_equal(count_metric(GET(t, "outliers"), "throughput"), 8);
	assert_int_equal(count_metric(GET(t, "outliers"), "latency"), 1);
	cJSON_ArrayForEach(x, GET(t, "outliers"))
	{
		if (strcmp(cJSON_GetStringValue(GET(x, "metric")), "latency"))
			continue;
		assert_true(GET(x, "client")->valuedouble == 0);
		assert_true(GET(x, "server")->valuedouble == 1);
		assert_true(GET(x, "ratio")->valuedouble == 4.5);
	}
	/* rank 4 is a bad node; rank 0, with one slow link, is not */
	assert_int_equal(cJSON_GetArraySize(GET(t, "bad_nodes")), 1);
	x = cJSON_GetArrayItem(GET(t, "bad_nodes"), 0);
	assert_true(GET(x, "rank")->valuedouble == 4);
	assert_string_equal(cJSON_GetStringValue(GET(x, "metric")),
			    "throughput");
	/* the cells in row order */
	x = cJSON_GetArrayItem(rp_matrix_cells(doc), 0);
	assert_true(GET(x, "client")->valuedouble == 0 &&
		    GET(x, "server")->valuedouble == 1);
	cJSON_Delete(doc);
}

/* Pair @i -> @j run again alone: a cell of its own in the retests. */
static void add_retest(cJSON *doc, int i, int j, double gbps, double p50_us)
{
	cJSON *cells = rp_matrix_cells(doc);

	add_cell(doc, i, j, gbps, p50_us);
	cJSON_AddItemToArray(rp_matrix_retests(doc),
			     cJSON_DetachItemFromArray(
				     cells, cJSON_GetArraySize(cells) - 1));
}

/* The tables derived again, as --report does. */
static void reanalyse(cJSON *doc)
{
	cJSON *m = GET(doc, "matrix");

	cJSON_DeleteItemFromObjectCaseSensitive(m, "tables");
	assert_non_null(cJSON_AddArrayToObject(m, "tables"));
	assert_int_equal(rp_matrix_analyse(doc), 0);
}

static const cJSON *outlier(const cJSON *t, int i, int j, const char *metric)
{
	const cJSON *x;

	cJSON_ArrayForEach(
		x, GET(t, "outliers")) if (GET(x, "client")->valuedouble == i &&
					   GET(x, "server")->valuedouble == j &&
					   !strcmp(cJSON_GetStringValue(
							   GET(x, "metric")),
						   metric)) return x;
	fail_msg("no %s outlier %d -> %d", metric, i, j);
	return NULL;
}

static const char *verdict(const cJSON *t, int i, int j, const char *metric)
{
	return cJSON_GetStringValue(
		GET(GET(outlier(t, i, j, metric), "retest"), "verdict"));
}

/* The outliers run again alone: recovered is congested, still slow (or
 * failed) is bad; rank 4's bad node is confirmed only when every pair
 * through it is bad alone too; a pair not retested says null. */
static void test_retest(void **state)
{
	cJSON *doc = five();
	const cJSON *t = table0(doc), *b;
	uint32_t pairs[16][2];
	size_t found, n;
	int k;

	(void)state;
	/* 8 pairs of rank 4 in throughput, 0 -> 1 in latency: 9, first met */
	n = rp_matrix_retest_pairs(doc, pairs, 16, &found);
	assert_int_equal(n, 9);
	assert_int_equal(found, 9);
	assert_int_equal(rp_matrix_retest_pairs(doc, pairs, 4, &found), 4);
	assert_int_equal(found, 9);
	assert_true(
		cJSON_IsNull(GET(outlier(t, 4, 0, "throughput"), "retest")));
	b = cJSON_GetArrayItem(GET(t, "bad_nodes"), 0);
	assert_true(cJSON_IsNull(GET(b, "retest")));

	/* all of rank 4's pairs slow alone but 4 -> 0; 0 -> 1 recovered */
	for (k = 0; k < 4; k++) {
		add_retest(doc, 4, k, k ? 5 : 10, 2);
		add_retest(doc, k, 4, 5, 2);
	}
	add_retest(doc, 0, 1, 10, 2);
	reanalyse(doc);
	t = table0(doc);
	assert_string_equal(verdict(t, 4, 0, "throughput"), "congested");
	assert_true(GET(GET(outlier(t, 4, 0, "throughput"), "retest"), "ratio")
			    ->valuedouble == 1.0);
	assert_string_equal(verdict(t, 4, 1, "throughput"), "bad");
	assert_string_equal(verdict(t, 2, 4, "throughput"), "bad");
	assert_string_equal(verdict(t, 0, 1, "latency"), "congested");
	b = cJSON_GetArrayItem(GET(t, "bad_nodes"), 0);
	assert_string_equal(cJSON_GetStringValue(GET(b, "retest")),
			    "congested");

	/* 4 -> 0 slow alone too (the last retest of a pair counts): the
	 * node is confirmed; a retest that failed is bad */
	add_retest(doc, 4, 0, 5, 2);
	cJSON_DeleteItemFromArray(rp_matrix_retests(doc), 0);
	add_retest(doc, 1, 4, 0, 0);
	reanalyse(doc);
	t = table0(doc);
	assert_string_equal(verdict(t, 4, 0, "throughput"), "bad");
	assert_string_equal(verdict(t, 1, 4, "throughput"), "bad");
	assert_non_null(
		GET(GET(outlier(t, 1, 4, "throughput"), "retest"), "error"));
	b = cJSON_GetArrayItem(GET(t, "bad_nodes"), 0);
	assert_string_equal(cJSON_GetStringValue(GET(b, "retest")), "bad");
	cJSON_Delete(doc);
}

/* The fraction decides: at 0.4, half speed is no outlier. */
static void test_fraction(void **state)
{
	cJSON *doc = new_doc(3, 6);
	const cJSON *t;
	int i, j;

	(void)state;
	cJSON_GetObjectItemCaseSensitive(GET(doc, "matrix"), "outlier_fraction")
		->valuedouble = 0.4;
	for (i = 0; i < 3; i++)
		for (j = 0; j < 3; j++)
			if (i != j)
				add_cell(doc, i, j, i == 2 ? 5 : 10, 2);
	assert_int_equal(rp_matrix_analyse(doc), 0);
	t = table0(doc);
	assert_int_equal(cJSON_GetArraySize(GET(t, "outliers")), 0);
	assert_int_equal(cJSON_GetArraySize(GET(t, "bad_nodes")), 0);
	cJSON_Delete(doc);
}

/* Two ranks: both pairs low against a median of their own is nothing to
 * tell; no bad node with two ranks. */
static void test_two_ranks(void **state)
{
	cJSON *doc = new_doc(2, 2);
	const cJSON *t;

	(void)state;
	add_cell(doc, 0, 1, 10, 2);
	add_cell(doc, 1, 0, 1, 2);
	assert_int_equal(rp_matrix_analyse(doc), 0);
	t = table0(doc);
	assert_true(GET(t, "median_gbps")->valuedouble == 5.5);
	assert_int_equal(cJSON_GetArraySize(GET(t, "outliers")), 1);
	assert_int_equal(cJSON_GetArraySize(GET(t, "bad_nodes")), 0);
	cJSON_Delete(doc);
}

/* Every cell failed: one table still lists them. */
static void test_all_failed(void **state)
{
	cJSON *doc = new_doc(2, 2);
	const cJSON *t;

	(void)state;
	add_cell(doc, 0, 1, 0, 0);
	add_cell(doc, 1, 0, 0, 0);
	assert_int_equal(rp_matrix_analyse(doc), 0);
	t = table0(doc);
	assert_non_null(t);
	assert_int_equal(cJSON_GetArraySize(GET(t, "failed")), 2);
	assert_true(cJSON_IsNull(GET(t, "median_gbps")));
	cJSON_Delete(doc);
}

static char *render(const cJSON *doc, bool csv)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	if (csv)
		assert_int_equal(rp_matrix_csv(f, doc), 0);
	else
		assert_int_equal(rp_matrix_text(f, doc), 0);
	fclose(f);
	return buf;
}

#define HEAD                                                                   \
	"client_rank,client_host,server_rank,server_host,round,cell_ok,"       \
	"cell_error,transport,"

static void test_text_csv(void **state)
{
	cJSON *doc = five();
	char *text = render(doc, false), *csv = render(doc, true), *p;
	int lines = 0;

	(void)state;
	assert_non_null(strstr(text, "== tcp write 4 KiB q16"));
	assert_non_null(strstr(text, "FAILED 0 -> 2 (node0 -> node2): link "
				     "down"));
	assert_non_null(strstr(text, "bad node: rank 4 (node4): every "
				     "pair's throughput"));
	assert_non_null(strstr(text, "outlier 0 -> 1 (node0 -> node1): "
				     "latency p50 9.00 us, 4.50 x the median"));
	assert_non_null(strstr(text, "  median 10.00\n"));
	for (p = csv; *p; p++)
		lines += *p == '\n';
	assert_int_equal(lines, 1 + 20); /* the failed pair: one empty row */
	assert_true(!strncmp(csv, HEAD, strlen(HEAD)));
	assert_non_null(strstr(csv, "\r\n0,node0,2,node2,0,false,link down,"));
	free(text);
	free(csv);
	cJSON_Delete(doc);
}

/* Many ranks, few cells: the tables are built from the cells, not over
 * ranks x ranks; past RP_MATRIX_GRID_RANKS the grids are null (they were
 * n x n nulls: 4096 ranks of one cell took 92 s and 3 GB), the text says
 * so and the heatmap is refused with the bound (it wrote 3.4 GB). */
static void test_many_ranks(void **state)
{
	cJSON *doc = new_doc(RP_MATRIX_GRID_RANKS + 44, 1);
	struct rp_err why = { { 0 } };
	const cJSON *t;
	char *text, *csv;

	(void)state;
	add_cell(doc, 0, 1, 10, 2);
	add_cell(doc, 299, 3, 0, 0);
	assert_int_equal(rp_matrix_analyse(doc), 0);
	t = table0(doc);
	assert_true(cJSON_IsNull(GET(t, "throughput_gbps")));
	assert_true(cJSON_IsNull(GET(t, "latency_p50_us")));
	assert_false(rp_matrix_grids(doc));
	assert_true(GET(t, "median_gbps")->valuedouble == 10);
	assert_int_equal(cJSON_GetArraySize(GET(t, "failed")), 1);
	text = render(doc, false);
	csv = render(doc, true);
	assert_non_null(strstr(text, "the grid is drawn up to 256 ranks"));
	assert_non_null(strstr(text, "FAILED 299 -> 3 (node299 -> node3)"));
	assert_true(strlen(text) < 64 << 10); /* the ranks, two pairs */
	assert_non_null(strstr(csv, "\r\n299,node299,3,node3,0,false,"));
	assert_int_equal(rp_matrix_plot("/dev/null", doc, &why), -E2BIG);
	assert_non_null(strstr(why.msg, "up to 256 ranks"));
	free(text);
	free(csv);
	cJSON_Delete(doc);
}

/* A pair given twice (a document edited by hand): its last cell counts,
 * whatever the sort does with equal keys. */
static void test_pair_twice(void **state)
{
	cJSON *doc = new_doc(3, 1);
	const cJSON *t;
	int k;

	(void)state;
	for (k = 1; k <= 9; k++)
		add_cell(doc, 2, 1, k, 2);
	add_cell(doc, 0, 1, 5, 2);
	assert_int_equal(rp_matrix_analyse(doc), 0);
	t = table0(doc);
	assert_true(cJSON_GetArrayItem(
			    cJSON_GetArrayItem(GET(t, "throughput_gbps"), 2), 1)
			    ->valuedouble == 9);
	cJSON_Delete(doc);
}

/* A rank read back from a document: an index only where it is one. */
static void test_rank_index(void **state)
{
	(void)state;
	assert_int_equal(rp_matrix_rank_index(0, 3), 0);
	assert_int_equal(rp_matrix_rank_index(2, 3), 2);
	assert_int_equal(rp_matrix_rank_index(3, 3), 3);
	assert_int_equal(rp_matrix_rank_index(-1, 3), 3);
	assert_int_equal(rp_matrix_rank_index(NAN, 3), 3);
	assert_int_equal(rp_matrix_rank_index(1e300, 3), 3);
	assert_int_equal(rp_matrix_rank_index(0, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_outliers),
		cmocka_unit_test(test_fraction),
		cmocka_unit_test(test_retest),
		cmocka_unit_test(test_two_ranks),
		cmocka_unit_test(test_all_failed),
		cmocka_unit_test(test_text_csv),
		cmocka_unit_test(test_rank_index),
		cmocka_unit_test(test_many_ranks),
		cmocka_unit_test(test_pair_twice),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
