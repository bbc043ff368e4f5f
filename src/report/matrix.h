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
#include "run/run.h"

#define RP_MATRIX_SCHEMA "rdmaperf-matrix/1"

/* The n x n grids (JSON, text, the heatmaps) are drawn up to this many
 * ranks, and while all the tables' grids hold at most RP_MATRIX_GRID_CELLS
 * entries; beyond, a table's grids are null and everything else (medians,
 * failures, outliers, bad nodes, the cells) is still there: a document of
 * a few cells must not grow into ranks^2 entries, and a grid of 4096
 * columns is read by no one. */
#define RP_MATRIX_GRID_RANKS 256
#define RP_MATRIX_GRID_CELLS (1u << 20)

/** rp_matrix_grids - whether @doc's tables carry their grids. */
bool rp_matrix_grids(const cJSON *doc);

/** rp_matrix_doc - a new document for @cfg, @rounds rounds, no ranks or
 *  cells yet; NULL on no memory. */
cJSON *rp_matrix_doc(const struct rp_config *cfg, uint32_t rounds);

/** rp_matrix_add_rank - rank @rank: its host, address, server port and
 *  why its server did not start (NULL: it did). Ranks in order. */
void rp_matrix_add_rank(cJSON *doc, unsigned int rank, const char *host,
			const char *addr, unsigned int port, const char *error);

/** rp_matrix_cells - the document's cells array, to add cells to. */
cJSON *rp_matrix_cells(cJSON *doc);

/** rp_matrix_analyse - sort the cells by (client, server) and add the
 *  tables. Return: 0 or -ENOMEM. */
int rp_matrix_analyse(cJSON *doc);

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

/** rp_matrix_output - the document as cfg asks (--json, --csv, text) and
 *  the plot (--plot). Return: 0, or 1 when the plot failed. */
int rp_matrix_output(const struct rp_config *cfg, const cJSON *doc);

#endif
