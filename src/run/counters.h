/* SPDX-License-Identifier: MIT */
/*
 * The counters of the link a test runs on, taken around a phase or a
 * point: a snapshot before, the delta after (core/counters.h's JSON form),
 * and the sum of the server's phases into its point's.
 */
#ifndef RP_RUN_COUNTERS_H
#define RP_RUN_COUNTERS_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "core/counters.h"
#include "xport/xport.h"

struct rp_counter_watch {
	bool ok; /* the snapshot before was taken */
	struct rp_counters before;
};

/** rp_counter_watch_start - snapshot the counters of the link of the
 *  test's @n streams @s (read on the first) and of each stream's own
 *  connection (nothing when the transport has none: w->ok false). */
void rp_counter_watch_start(struct rp_counter_watch *w,
			    const struct rp_xport_ops *ops,
			    struct rp_stream **s, unsigned int n);

/** rp_counter_watch_end - what the counters did since the start, as JSON
 *  (the caller owns it), or NULL when there was no snapshot to compare. */
cJSON *rp_counter_watch_end(struct rp_counter_watch *w,
			    const struct rp_xport_ops *ops,
			    struct rp_stream **s, unsigned int n);

/** rp_counter_watch_lap - like rp_counter_watch_end, and the counters
 *  read now are the next lap's start (one read per -i interval). */
cJSON *rp_counter_watch_lap(struct rp_counter_watch *w,
			    const struct rp_xport_ops *ops,
			    struct rp_stream **s, unsigned int n);

/**
 * rp_counters_json_add - add the deltas of @more (a peer's, in
 * rp_counters_json's form) to *@acc (the same form, NULL at first): the
 * server's phases into its point. A @more that is not an object changes
 * nothing. Return: 0, or -ENOMEM (*@acc is then as it was).
 */
int rp_counters_json_add(cJSON **acc, const cJSON *more);

#endif
