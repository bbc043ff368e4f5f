/* SPDX-License-Identifier: MIT */
/*
 * Statistics, pure functions: Jain's fairness over streams, and how sure
 * a figure is over repetitions: the mean's Student t confidence
 * interval, the median, spread, a paired ratio between two series
 * measured in interleaved rounds, and an unpaired one between two series
 * measured apart.
 *
 * Why t and not a bootstrap: repetitions are few (3 to 10 is usual), and
 * a percentile bootstrap covers the mean too rarely below about 10
 * samples, while t's interval is exact for normal noise and close for
 * the mildly skewed noise of throughput. The median is reported beside
 * the mean for figures whose noise is skewed (tail latencies).
 */
#ifndef RP_CORE_STATS_H
#define RP_CORE_STATS_H

#include <stdbool.h>
#include <stddef.h>

/**
 * rp_stats_jain - Jain's fairness index of @n values, (sum x)^2 / (n * sum
 * x^2): 1 when all are equal, 1/n when one takes everything. 1 for n <= 1
 * or when all are 0; negative values count as 0.
 */
double rp_stats_jain(const double *x, size_t n);

struct rp_stat {
	size_t n;
	double mean, median, min, max;
	double sd;	   /* the sample standard deviation (n - 1) */
	double cov;	   /* sd / mean; 0 when the mean is 0 */
	bool has_ci;	   /* n >= 2 */
	double lo, hi;	   /* the mean's interval at the level asked */
	double half_width; /* (hi - lo) / 2, relative to the mean: 0.012 */
};

/** rp_stat_t_quantile - the @p quantile (0 < p < 1) of Student's t with
 *  @df degrees of freedom (df >= 1); NAN outside. */
double rp_stat_t_quantile(double p, double df);

/** rp_stat_t_cdf - P(T <= @t) for Student's t with @df degrees. */
double rp_stat_t_cdf(double t, double df);

/** rp_stat_summarize - @x[0..@n) (NANs skipped) at confidence @level
 *  (0 < level < 1, e.g. 0.95). Return: false when no value remains. */
bool rp_stat_summarize(const double *x, size_t n, double level,
		       struct rp_stat *out);

/** A paired comparison of series b against series a, round by round. */
struct rp_stat_ratio {
	size_t n;	  /* rounds where both are positive */
	double ratio;	  /* the geometric mean of b_i / a_i */
	bool has_ci;	  /* n >= 2 */
	double lo, hi;	  /* its interval at the level asked */
	bool significant; /* the interval excludes 1 */
};

/**
 * rp_stat_paired_ratio - b against a over @n interleaved rounds (a_i and
 * b_i measured next to each other): the t interval of the mean log ratio,
 * back in ratio terms, so drift between rounds cancels and a ratio and its
 * inverse are symmetric. Rounds where either value is not positive are
 * left out. Return: false when no round remains.
 */
bool rp_stat_paired_ratio(const double *a, const double *b, size_t n,
			  double level, struct rp_stat_ratio *out);

/**
 * rp_stat_unpaired_ratio - series b (@nb values) against series a (@na),
 * measured apart (two runs, two builds: no round pairs them): the ratio of
 * their geometric means and Welch's t interval of the difference of the
 * mean logs (unequal variances, Welch-Satterthwaite degrees of freedom),
 * back in ratio terms. out->n is the smaller count kept. Values that are
 * not positive are left out. An interval needs two values on each side;
 * when both spreads are 0 it is the ratio itself. Return: false when a
 * side has no value left.
 */
bool rp_stat_unpaired_ratio(const double *a, size_t na, const double *b,
			    size_t nb, double level, struct rp_stat_ratio *out);

#endif
