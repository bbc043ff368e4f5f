// SPDX-License-Identifier: MIT
/* Statistics: fairness over streams, confidence over repetitions. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* ---- Student's t ---------------------------------------------------------
 * Its CDF through the regularized incomplete beta function, evaluated by
 * its continued fraction (modified Lentz); the quantile by bisection on
 * the CDF, which is monotonic: slow next to a rational approximation, but
 * exact to the last bits that matter and called a few times a run. */

#define TINY 1e-300

static double beta_cf(double a, double b, double x)
{
	double c = 1, d = 1 - (a + b) * x / (a + 1), h, num, del;
	int m;

	d = fabs(d) < TINY ? 1 / TINY : 1 / d;
	h = d;
	for (m = 1; m <= 300; m++) {
		num = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
		d = 1 + num * d;
		c = 1 + num / c;
		d = fabs(d) < TINY ? 1 / TINY : 1 / d;
		c = fabs(c) < TINY ? TINY : c;
		h *= d * c;
		num = -(a + m) * (a + b + m) * x /
		      ((a + 2 * m) * (a + 2 * m + 1));
		d = 1 + num * d;
		c = 1 + num / c;
		d = fabs(d) < TINY ? 1 / TINY : 1 / d;
		c = fabs(c) < TINY ? TINY : c;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < 1e-15)
			break;
	}
	return h;
}

/* I_x(a, b) */
static double beta_inc(double a, double b, double x)
{
	double front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) +
		    b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_cf(a, b, x) / a;
	return 1 - front * beta_cf(b, a, 1 - x) / b;
}

double rp_stat_t_cdf(double t, double df)
{
	double tail;

	if (!(df > 0) || isnan(t))
		return NAN;
	tail = 0.5 * beta_inc(df / 2, 0.5, df / (df + t * t));
	return t >= 0 ? 1 - tail : tail;
}

double rp_stat_t_quantile(double p, double df)
{
	double lo = 0, hi = 1, mid;
	int i;

	if (!(p > 0 && p < 1) || !(df >= 1))
		return NAN;
	if (p < 0.5)
		return -rp_stat_t_quantile(1 - p, df);
	while (rp_stat_t_cdf(hi, df) < p && hi < 1e12)
		hi *= 2;
	for (i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
		mid = (lo + hi) / 2;
		if (rp_stat_t_cdf(mid, df) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/* ---- a series' summary ----------------------------------------------------
 */

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

bool rp_stat_summarize(const double *x, size_t n, double level,
		       struct rp_stat *out)
{
	double *v, sum = 0, ss = 0, t;
	size_t i, k = 0;

	memset(out, 0, sizeof(*out));
	v = n ? malloc(n * sizeof(*v)) : NULL;
	if (!v)
		return false;
	for (i = 0; i < n; i++)
		if (!isnan(x[i]))
			v[k++] = x[i];
	if (!k) {
		free(v);
		return false;
	}
	qsort(v, k, sizeof(*v), by_value);
	for (i = 0; i < k; i++)
		sum += v[i];
	out->n = k;
	out->mean = sum / (double)k;
	out->min = v[0];
	out->max = v[k - 1];
	out->median = k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
	for (i = 0; i < k; i++)
		ss += (v[i] - out->mean) * (v[i] - out->mean);
	free(v);
	out->sd = k > 1 ? sqrt(ss / (double)(k - 1)) : 0;
	out->cov = out->mean != 0 ? out->sd / fabs(out->mean) : 0;
	if (k < 2 || !(level > 0 && level < 1))
		return true;
	t = rp_stat_t_quantile((1 + level) / 2, (double)(k - 1));
	out->has_ci = true;
	out->lo = out->mean - t * out->sd / sqrt((double)k);
	out->hi = out->mean + t * out->sd / sqrt((double)k);
	out->half_width =
		out->mean != 0 ? (out->hi - out->lo) / 2 / fabs(out->mean) : 0;
	return true;
}

bool rp_stat_paired_ratio(const double *a, const double *b, size_t n,
			  double level, struct rp_stat_ratio *out)
{
	struct rp_stat s;
	double *d;
	size_t i, k = 0;
	bool ok;

	memset(out, 0, sizeof(*out));
	d = n ? malloc(n * sizeof(*d)) : NULL;
	if (!d)
		return false;
	for (i = 0; i < n; i++)
		if (a[i] > 0 && b[i] > 0 && isfinite(a[i]) && isfinite(b[i]))
			d[k++] = log(b[i]) - log(a[i]);
	ok = k && rp_stat_summarize(d, k, level, &s);
	free(d);
	if (!ok)
		return false;
	out->n = k;
	out->ratio = exp(s.mean);
	out->has_ci = s.has_ci;
	if (s.has_ci) {
		out->lo = exp(s.lo);
		out->hi = exp(s.hi);
		out->significant = out->lo > 1 || out->hi < 1;
	}
	return true;
}

/* The logs of @x's positive, finite values into @out; their count. */
static size_t logs_of(const double *x, size_t n, double *out)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (x[i] > 0 && isfinite(x[i]))
			out[k++] = log(x[i]);
	return k;
}

bool rp_stat_unpaired_ratio(const double *a, size_t na, const double *b,
			    size_t nb, double level, struct rp_stat_ratio *out)
{
	double *la, *lb, va, vb, se2, df, q, d;
	struct rp_stat sa, sb;
	size_t ka, kb;
	bool ok;

	memset(out, 0, sizeof(*out));
	la = na ? malloc(na * sizeof(*la)) : NULL;
	lb = nb ? malloc(nb * sizeof(*lb)) : NULL;
	ok = la && lb;
	ka = ok ? logs_of(a, na, la) : 0;
	kb = ok ? logs_of(b, nb, lb) : 0;
	ok = ka && kb && rp_stat_summarize(la, ka, level, &sa) &&
	     rp_stat_summarize(lb, kb, level, &sb);
	free(la);
	free(lb);
	if (!ok)
		return false;
	d = sb.mean - sa.mean;
	out->n = ka < kb ? ka : kb;
	out->ratio = exp(d);
	if (ka < 2 || kb < 2)
		return true; /* no spread on a side: nothing to judge by */
	va = sa.sd * sa.sd / (double)ka;
	vb = sb.sd * sb.sd / (double)kb;
	se2 = va + vb;
	out->has_ci = true;
	if (!(se2 > 0)) { /* no noise at all: the interval is the ratio */
		out->lo = out->hi = out->ratio;
		out->significant = d != 0;
		return true;
	}
	df = se2 * se2 /
	     (va * va / (double)(ka - 1) + vb * vb / (double)(kb - 1));
	if (!(df >= 1)) /* Welch's df is at least the smaller n - 1 */
		df = 1;
	q = rp_stat_t_quantile(0.5 + level / 2, df) * sqrt(se2);
	out->lo = exp(d - q);
	out->hi = exp(d + q);
	out->significant = out->lo > 1 || out->hi < 1;
	return true;
}
