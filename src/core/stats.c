// SPDX-License-Identifier: MIT
/* Statistics over several streams' figures. */
#include "core/stats.h"

double rp_stats_jain(const double *x, size_t n)
{
	double sum = 0, sq = 0, v;
	size_t i;

	for (i = 0; i < n; i++) {
		v = x[i] > 0 ? x[i] : 0;
		sum += v;
		sq += v * v;
	}
	if (n <= 1 || sq == 0)
		return 1;
	return sum * sum / ((double)n * sq);
}
