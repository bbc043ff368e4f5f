/* SPDX-License-Identifier: MIT */
/*
 * The --matrix document (schema rdmaperf-matrix/1) and its renderings.
 * Built at rank 0: the config, the ranks, a cell per ordered pair
 * (client, server, round, ok, error, seconds and the pair's one-pair
 * document, as `rdmaperf -c --json` prints it), then tables derived from
 * the cells: per result of a one-pair document (transport, sweep point),
 * the N x N throughput (Gb/s) and unloaded latency p50 (us), their
 * medians, the outliers (throughput below --outlier x the median, latency
 * above the median / --outlier) and the bad nodes (every pair of a node
 * an outlier: the node, not a link). Text, CSV and the SVG heatmap are
 * drawn from the document alone.
 */
#ifndef RP_REPORT_MATRIX_H
#define RP_REPORT_MATRIX_H

#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "core/err.h"
#include "run/test.h"
#include "run/result.h"

#define RP_MATRIX_SCHEMA "rdmaperf-matrix/1"

/* The n x n grids (JSON, text, the heatmaps) are drawn up to this many
 * ranks, and while all the tables' grids hold at most RP_MATRIX_GRID_CELLS
 * entries; beyond, a table's grids are null and everything else (medians,
 * failures, outliers, bad nodes, the cells) is still there: a document of
 * a few cells must not grow into ranks^2 entries, and a grid of 4096
 * columns is read by no one. 2^18 is 256 ranks' grids for 4 tables (a
 * heatmap SVG of at most 2^19 squares, about 55 MB): more than any
 * document under RP_READ_MAX_BYTES whose cells ran holds. */
#define RP_MATRIX_GRID_RANKS 256
#define RP_MATRIX_GRID_CELLS (1u << 18)

/* The most outlier pairs retested, one at a time, after the rounds. */
#define RP_MATRIX_RETEST_MAX 64

/*
 * A document read back (--report) may hold at most this many cells x
 * results per cell, the entries of its tables: each table lists every
 * cell (a failed one among its failures, up to 256 bytes of reason
 * each), so a few cells with many results must not multiply into more.
 * Also at most one per RP_MATRIX_ENTRY_BYTES of the document (and
 * RP_MATRIX_ENTRIES_MIN more), so that the tables take a small multiple
 * of its size: a failed cell is 100 bytes of the document, a cell that
 * ran about 2 KB per result; 1024 ranks' every pair failed fits.
 */
#define RP_MATRIX_MAX_ENTRIES (1u << 20)
#define RP_MATRIX_ENTRY_BYTES 32
#define RP_MATRIX_ENTRIES_MIN (1u << 16)

/** rp_matrix_grids - whether @doc's tables carry their grids. */
bool rp_matrix_grids(const cJSON *doc);

/** rp_matrix_doc - a new document for @test, @rounds rounds, no ranks or
 *  cells yet; NULL on no memory. */
cJSON *rp_matrix_doc(const struct rp_test *test,
		     const struct rp_matrix_opts *mx, uint32_t rounds);

/** rp_matrix_add_rank - rank @rank: its host, address, server port and
 *  why its server did not start (NULL: it did). Ranks in order. */
void rp_matrix_add_rank(cJSON *doc, unsigned int rank, const char *host,
			const char *addr, unsigned int port, const char *error);

/** rp_matrix_cells - the document's cells array, to add cells to. */
cJSON *rp_matrix_cells(cJSON *doc);

/** rp_matrix_analyse - sort the cells by (client, server) and add the
 *  tables. Return: 0 or -ENOMEM. */
int rp_matrix_analyse(cJSON *doc);

/** rp_matrix_verdicts - --expect: the matrix's "verdict" (pairs judged,
 *  failed, the failing ones and their checks, the nodes every pair through
 *  which failed), from the cells' results; none when nothing was judged.
 *  rp_matrix_analyse calls it. Return: 0 or -ENOMEM. */
int rp_matrix_verdicts(cJSON *doc);

/**
 * rp_matrix_retest_pairs - the distinct pairs of @doc's tables' outliers
 * (analysed), in the order first met, the first @max of them into @pairs
 * ({client, server}); *@found: how many there are. Return: how many went
 * into @pairs.
 */
size_t rp_matrix_retest_pairs(const cJSON *doc, uint32_t (*pairs)[2],
			      size_t max, size_t *found);

/** rp_matrix_retests - the document's array of retest cells, to add to
 *  (NULL when it has none). */
cJSON *rp_matrix_retests(cJSON *doc);

/** rp_matrix_judge_retests (retest.c) - each table's outliers get their
 *  "retest" (the value alone, its ratio to the median, "congested" or
 *  "bad"; null: not retested) and each bad node whether the retest
 *  confirms it; rp_matrix_analyse calls it. Return: 0 or -ENOMEM. */
int rp_matrix_judge_retests(cJSON *doc);

/** rp_matrix_rounds (rounds.c) - a --pattern document's tables get their
 *  "rounds": per round the flows, the failed, the aggregate Gb/s, Jain's
 *  fairness, the median and the slowest flow against it; rp_matrix_analyse
 *  calls it. Return: 0 or -ENOMEM. */
int rp_matrix_rounds(cJSON *doc);

/** rp_matrix_rounds_text - table @tab's rounds, a line each, and a line
 *  a flow with its throughput and latency under load. */
void rp_matrix_rounds_text(FILE *f, const cJSON *doc, const cJSON *tab);

/** rp_matrix_expect_failed - a pair failed its --expect (exit 3). */
bool rp_matrix_expect_failed(const cJSON *doc);

/** rp_matrix_verdict_text - the verdict's lines, if there is one. */
void rp_matrix_verdict_text(FILE *f, const cJSON *doc);

/** rp_matrix_text - the tables for people: per table the throughput and
 *  the latency matrix (up to RP_MATRIX_GRID_RANKS ranks), failures,
 *  outliers and bad nodes. Return: 0 or -ENOMEM. */
int rp_matrix_text(FILE *f, const cJSON *doc);

/** rp_matrix_csv - a row per cell and result: the pair's columns, then
 *  the one-pair CSV's columns. Return: 0 or -errno. */
int rp_matrix_csv(FILE *f, const cJSON *doc);

/** rp_matrix_plot - the heatmaps (throughput and latency per table) into
 *  the SVG file @path. Return: 0, or -errno with @why. */
int rp_matrix_plot(const char *path, const cJSON *doc, struct rp_err *why);

/**
 * rp_matrix_load - a --matrix --json document from @path (--report): its
 * ranks and cells checked, its tables derived again from the cells.
 * Return: 0 with *@doc; -EMEDIUMTYPE when the file is JSON of another
 * schema (no reason recorded); or -errno with @why.
 */
int rp_matrix_load(const char *path, cJSON **doc, struct rp_err *why);

#endif
