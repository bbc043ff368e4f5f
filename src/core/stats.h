/* SPDX-License-Identifier: MIT */
/* Statistics over several streams' figures. Pure functions. */
#ifndef RP_CORE_STATS_H
#define RP_CORE_STATS_H

#include <stddef.h>

/**
 * rp_stats_jain - Jain's fairness index of @n values, (sum x)^2 / (n * sum
 * x^2): 1 when all are equal, 1/n when one takes everything. 1 for n <= 1
 * or when all are 0; negative values count as 0.
 */
double rp_stats_jain(const double *x, size_t n);

#endif
