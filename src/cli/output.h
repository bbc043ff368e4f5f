/* SPDX-License-Identifier: MIT */
/*
 * What a run prints, in the format the command line asked for: one
 * dispatcher for a run's results and for a matrix's document, and the
 * one place that tells the user stdout lost something.
 */
#ifndef RP_CLI_OUTPUT_H
#define RP_CLI_OUTPUT_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "run/run.h"

/** rp_out_results - @n results as @cfg asks (--json, --json-stream's
 *  summary line, --csv, text) and the plot (--plot). Return: 0, or 1
 *  when the plot or stdout lost them (said on stderr). */
int rp_out_results(const struct rp_config *cfg, const struct rp_result *res,
		   size_t n);

/** rp_out_matrix - a --matrix document, as rp_out_results. */
int rp_out_matrix(const struct rp_config *cfg, const cJSON *doc);

/** rp_out_lost - stdout lost @what (@err, a -errno): said once, on
 *  stderr. Return: @rc, or 1 for 0. */
int rp_out_lost(const char *what, int err, int rc);

/** rp_out_name - what @cfg's format is called in a message about stdout
 *  ("the JSON", "the CSV", ...). */
const char *rp_out_name(const struct rp_config *cfg);

/** rp_out_close - at exit: anything on stdout not told yet (the help, a
 *  JSON error document, a line that failed unseen), and its close, named
 *  @what. Return: @rc, or 1 when stdout lost something. */
int rp_out_close(const char *what, int rc);

#endif
