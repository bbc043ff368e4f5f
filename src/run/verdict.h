/* SPDX-License-Identifier: MIT */
/* --expect on a point's result: its verdict, and whether it stands. */
#ifndef RP_RUN_VERDICT_H
#define RP_RUN_VERDICT_H

#include <stdbool.h>

#include "core/expect.h"
#include "run/result.h"

/** rp_result_expect_values - what @r measured, as --expect's metrics. */
void rp_result_expect_values(const struct rp_result *r,
			     struct rp_expect_values *v);

/**
 * rp_result_judge - @r's verdict on @e into r->verdict (replacing any),
 * nothing when @e expects nothing or the point failed (a failed point has
 * no figures to judge; its exit status is already 1).
 * Return: true when the point passes (or nothing was judged), false when
 * an expectation failed.
 */
bool rp_result_judge(struct rp_result *r, const struct rp_expect *e);

#endif
