/* SPDX-License-Identifier: MIT */
/*
 * --matrix: every ordered pair of the ranks of an MPI job tested, each
 * pair exactly as `rdmaperf -c` between those two nodes (core/plan.h for
 * the rounds, report/matrix/ for the document and its renderings).
 */
#ifndef RP_CLUSTER_MATRIX_H
#define RP_CLUSTER_MATRIX_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "core/err.h"
#include "run/run.h"

/* The MPI tag of a cell sent to rank 0. */
#define RP_MATRIX_TAG_CELL 1
/* ...and of a pattern file's text, from rank 0 to every rank */
#define RP_MATRIX_TAG_PATTERN 2
#define RP_PATTERN_FILE_MAX   (1 << 20) /* bytes */

/** How rank 0 prints the document (cli/'s dispatcher): 0, or 1 when the
 *  plot or stdout lost it. */
typedef int (*rp_matrix_out_fn)(const struct rp_config *cfg, const cJSON *doc);

/**
 * rp_matrix_main - run this rank's part of the matrix: its server, its
 * pairs as client, and at rank 0 the document, printed through @out.
 * Return: the exit status (0 every cell ok, 1 some failed, 2 bad usage).
 */
int rp_matrix_main(struct rp_config *cfg, rp_matrix_out_fn out);

/**
 * rp_matrix_local_addr - the address this rank's server listens on and
 * publishes: -a as a prefix (10.0.0.0/8: the first local address in it),
 * an interface name (ib0: its first address, IPv4 first) or an address;
 * without -a, the address the first transport asks for (rdma: its
 * device's netdev), else the one the host name resolves to when it is
 * local and not loopback, else the first such address of an interface
 * that is up, else 127.0.0.1. Return: 0, or -EADDRNOTAVAIL with @why.
 */
int rp_matrix_local_addr(const struct rp_config *cfg, char *out, size_t len,
			 struct rp_err *why);

#endif
