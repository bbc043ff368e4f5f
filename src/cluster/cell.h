/* SPDX-License-Identifier: MIT */
/*
 * A --matrix cell: the pair (client, server, round), whether it ran, why
 * not, its time and the pair's one-pair document. The bottom of cluster/'s
 * matrix: it calls nothing of matrix.c.
 */
#ifndef RP_CLUSTER_CELL_H
#define RP_CLUSTER_CELL_H

#include <cjson/cJSON.h>

#include "core/plan.h"

/** rp_doc_failure - the first failed result's reason in @doc, or NULL
 *  when all are ok. */
const char *rp_doc_failure(const cJSON *doc);

/** rp_cell_new - a new cell of pair @pr, no outcome yet (NULL: no
 *  memory). */
cJSON *rp_cell_new(const struct rp_pair *pr);

/** rp_slim - drop what the matrix's tables never read from @cell's
 *  document (distributions, intervals, per-stream figures). */
void rp_slim(cJSON *cell);

/** rp_as_written - @cell as read back from its text (consumed): what
 *  rank 0 keeps of its own cell is what it keeps of the others'. */
cJSON *rp_as_written(cJSON *cell);

#endif
