/* SPDX-License-Identifier: MIT */
/*
 * --matrix's private parts: a rank's state (matrix.c) and what its pairs
 * run from (cell.c, the bottom file: it calls nothing of matrix.c).
 */
#ifndef RP_CLUSTER_MATRIX_PRIV_H
#define RP_CLUSTER_MATRIX_PRIV_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "cluster/comm.h"
#include "cluster/matrix.h"
#include "core/plan.h"

/* What each rank tells the others at start (fixed size: one all-gather). */
struct rank_info {
	char host[64];
	char addr[64];
	uint64_t test_sig; /* the test as asked: every rank must agree */
	uint16_t port;
	char error[190]; /* why its server did not start; "" if it did */
};

struct matrix {
	struct rp_config *cfg;
	struct rp_config scfg; /* its server's: lives as long as it */
	struct rp_comm comm;
	struct rank_info me;
	struct rank_info *all; /* comm.size */
	struct rp_plan plan;
	struct rp_server *srv;
	pthread_t thread;
	bool serving;
	cJSON *doc;   /* rank 0: the document being built */
	cJSON *cells; /* rank 0: its cells array */
	rp_matrix_out_fn out;
	unsigned int failed;
	const char *stage; /* "round", or "retest": what the lines say */
};

/** rp_matrix_run_pair - the pair @pr run from this rank (its client): the
 *  cell, never NULL unless out of memory. */
cJSON *rp_matrix_run_pair(const struct matrix *m, const struct rp_pair *pr);

/**
 * rp_matrix_run_flows - this rank's flows as client in @round, all at
 * once (one alone runs here, several each on a thread of its own): their
 * cells into @cells, in the plan's order. Return: how many (0 when it
 * has none), or -ENOMEM.
 */
long rp_matrix_run_flows(const struct matrix *m, uint32_t round,
			 cJSON ***cells);

#endif
