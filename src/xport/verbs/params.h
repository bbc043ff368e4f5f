/* SPDX-License-Identifier: MIT */
/*
 * The rdma transport's own options (-d, --ib-port, --inline, --gid-index),
 * in every build: the block they fill in struct rp_xport_params,
 * which this side's streams copy at creation.
 */
#ifndef RP_XPORT_VERBS_PARAMS_H
#define RP_XPORT_VERBS_PARAMS_H

#include "xport/xport.h"

#define RV_DEVNAME 64

struct rv_opts {
	char device[RV_DEVNAME]; /* "": the one rdma_cm picks */
	int ib_port;		 /* 0: rdma_cm's choice */
	int gid_index;		 /* -1: rdma_cm's choice */
	int inline_bytes;	 /* -1: automatic */
};

/** rv_opts_init - @p's rdma block into @o; the defaults when @p is NULL. */
void rv_opts_init(struct rv_opts *o, const struct rp_xport_params *p);

#endif
