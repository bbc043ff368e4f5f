/* SPDX-License-Identifier: MIT */
/*
 * Log-linear latency histogram (see hist.h for the bucket layout).
 *
 * Bucket index of a value v below 2^41: with s = max(0, msb(v) - 10), the
 * index is (s << 10) + (v >> s). Values below 2048 have their own bucket
 * (index = v); above, octave [2^k, 2^(k+1)) holds 1024 buckets of width
 * 2^(k-10). That makes 2048 + 30 * 1024 = 32768 buckets (256 KiB of counts,
 * allocated once); values of 2^41 and above are counted in the last one,
 * whose top is taken to be max: a percentile that falls there reads max.
 *
 * Beside the counts, a histogram keeps the exact min, max, sum of values and
 * sum of squares of the values (both 128-bit integers, core/u128.h, so
 * nothing is lost to rounding, on 32-bit targets too). The standard deviation
 * is therefore exact (to double rounding) as long as every value is below 2^41
 * and count * max^2 < 2^127, that is always in practice. Beyond that (a value
 * clamped into the last bucket), it falls back to bucket midpoints around the
 * exact mean.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/fields.h"
#include "core/hist.h"
#include "core/u128.h"

#define SUB_HALF    (1ULL << (RP_HIST_SUB_BITS - 1)) /* 1024 buckets/octave */
#define N_BUCKETS   ((RP_HIST_MAX_BITS - RP_HIST_SUB_BITS + 2) * SUB_HALF)
#define LAST_BUCKET (N_BUCKETS - 1)
#define VALUE_LIMIT (1ULL << RP_HIST_MAX_BITS) /* first value clamped */

struct rp_hist {
	uint64_t count;
	uint64_t min;
	uint64_t max;
	struct rp_u128 sum;    /* exact sum of the values */
	struct rp_u128 sum_sq; /* sum of squares of min(value, 2^41 - 1) */
	uint64_t counts[N_BUCKETS];
};

_Static_assert(N_BUCKETS == 32768, "bucket layout changed");

/* Bucket of a value below VALUE_LIMIT. */
static inline unsigned int bucket_of(uint64_t v)
{
	unsigned int msb = 63 - (unsigned int)__builtin_clzll(v | SUB_HALF);
	unsigned int shift = msb - (RP_HIST_SUB_BITS - 1);

	return (shift << (RP_HIST_SUB_BITS - 1)) + (unsigned int)(v >> shift);
}

/* Lowest value counted in bucket @i. */
static uint64_t bucket_low(unsigned int i)
{
	unsigned int shift;

	if (i < 2 * SUB_HALF)
		return i;
	shift = (i >> (RP_HIST_SUB_BITS - 1)) - 1;
	return (uint64_t)(i - (shift << (RP_HIST_SUB_BITS - 1))) << shift;
}

/* Highest value counted in bucket @i, taking clamped values as max. */
static uint64_t bucket_high(const struct rp_hist *h, unsigned int i)
{
	if (i == LAST_BUCKET)
		return h->max;
	return bucket_low(i + 1) - 1;
}

int rp_hist_create(struct rp_hist **out)
{
	struct rp_hist *h = malloc(sizeof(*h));

	if (!h)
		return -ENOMEM;
	rp_hist_reset(h);
	*out = h;
	return 0;
}

void rp_hist_destroy(struct rp_hist *h)
{
	free(h);
}

void rp_hist_reset(struct rp_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

void rp_hist_record(struct rp_hist *h, uint64_t value)
{
	uint64_t v = value < VALUE_LIMIT ? value : VALUE_LIMIT - 1;
	unsigned int i = value < VALUE_LIMIT ? bucket_of(value) : LAST_BUCKET;

	h->counts[i]++;
	h->count++;
	rp_u128_add64(&h->sum, value);
	h->sum_sq = rp_u128_add(h->sum_sq, rp_u128_mul64(v, v));
	if (value < h->min)
		h->min = value;
	if (value > h->max)
		h->max = value;
}

void rp_hist_stage_flush(struct rp_hist_stage *st, struct rp_hist *h)
{
	uint32_t i;

	for (i = 0; i < st->n; i++)
		rp_hist_record(h, st->v[i]);
	st->n = 0;
}

int rp_hist_merge(struct rp_hist *dst, const struct rp_hist *src)
{
	unsigned int i;

	if (!src->count)
		return 0;
	for (i = 0; i < N_BUCKETS; i++)
		dst->counts[i] += src->counts[i];
	dst->count += src->count;
	dst->sum = rp_u128_add(dst->sum, src->sum);
	dst->sum_sq = rp_u128_add(dst->sum_sq, src->sum_sq);
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	return 0;
}

uint64_t rp_hist_count(const struct rp_hist *h)
{
	return h->count;
}

uint64_t rp_hist_min(const struct rp_hist *h)
{
	return h->count ? h->min : 0;
}

uint64_t rp_hist_max(const struct rp_hist *h)
{
	return h->max;
}

double rp_hist_mean(const struct rp_hist *h)
{
	if (!h->count)
		return 0;
	return (double)(rp_u128_to_ld(h->sum) / (long double)h->count);
}

/*
 * Exact variance from the integer sums. With q = floor(sum / n) and
 * r = sum mod n, M = sum((v - q)^2) = sum_sq - q * (sum + r) is computed
 * without cancellation (it is small, and the product never exceeds sum_sq),
 * and var = M / n - (r / n)^2. q is the floor of the mean, below 2^41 on
 * this path, so its low word is all of it.
 */
static double variance_exact(const struct rp_hist *h)
{
	uint64_t n = h->count, r;
	struct rp_u128 q = rp_u128_divmod(h->sum, n, &r);
	struct rp_u128 s = rp_u128_add(h->sum, rp_u128_of(r));
	struct rp_u128 m = rp_u128_sub(h->sum_sq, rp_u128_mul(s, q.lo));
	long double frac = (long double)r / (long double)n;
	long double var = rp_u128_to_ld(m) / (long double)n - frac * frac;

	return var > 0 ? (double)var : 0;
}

/* Variance from bucket midpoints (clamped to [min, max]) around the mean. */
static double variance_buckets(const struct rp_hist *h)
{
	long double mean = rp_u128_to_ld(h->sum) / (long double)h->count;
	long double acc = 0;
	unsigned int i;

	for (i = bucket_of(h->min < VALUE_LIMIT ? h->min : VALUE_LIMIT - 1);
	     i < N_BUCKETS; i++) {
		long double mid, d;
		uint64_t lo, hi;

		if (!h->counts[i])
			continue;
		lo = bucket_low(i) > h->min ? bucket_low(i) : h->min;
		hi = bucket_high(h, i) < h->max ? bucket_high(h, i) : h->max;
		mid = ((long double)lo + (long double)hi) / 2;
		d = mid - mean;
		acc += d * d * (long double)h->counts[i];
	}
	return (double)(acc / (long double)h->count);
}

double rp_hist_stddev(const struct rp_hist *h)
{
	long double bound;

	if (h->count < 2)
		return 0;
	bound = (long double)h->count * (long double)h->max *
		(long double)h->max;
	if (h->max < VALUE_LIMIT && bound < 0x1p127L)
		return sqrt(variance_exact(h));
	return sqrt(variance_buckets(h));
}

/*
 * Nearest rank ceil(pct / 100 * n), within [1, n]. @pct is the double
 * nearest to a decimal such as 99.9, so the product may land just above an
 * integer it should equal: a relative slack of a few ulps absorbs that.
 */
static uint64_t rank_of(double pct, uint64_t n)
{
	long double x, r;

	if (pct >= 100)
		return n;
	x = (long double)pct * (long double)n / 100;
	r = ceill(x * (1 - 4 * (long double)DBL_EPSILON));
	if (r < 1)
		return 1;
	return r > (long double)n ? n : (uint64_t)r;
}

uint64_t rp_hist_percentile(const struct rp_hist *h, double pct)
{
	uint64_t rank, seen = 0, v;
	unsigned int i;

	if (!h->count)
		return 0;
	if (!(pct > 0)) /* 0 (or below, or NaN) is the exact min */
		return h->min;
	rank = rank_of(pct, h->count);
	i = h->min < VALUE_LIMIT ? bucket_of(h->min) : LAST_BUCKET;
	for (; i < LAST_BUCKET; i++) {
		seen += h->counts[i];
		if (seen >= rank)
			break;
	}
	v = bucket_high(h, i); /* >= min, as bucket i holds a value >= min */
	return v > h->max ? h->max : v;
}

void rp_hist_summarize(const struct rp_hist *h, struct rp_hist_summary *out)
{
	out->count = h->count;
	out->min = (double)rp_hist_min(h);
	out->mean = rp_hist_mean(h);
	out->p50 = (double)rp_hist_percentile(h, 50);
	out->p90 = (double)rp_hist_percentile(h, 90);
	out->p99 = (double)rp_hist_percentile(h, 99);
	out->p99_9 = (double)rp_hist_percentile(h, 99.9);
	out->p99_99 = (double)rp_hist_percentile(h, 99.99);
	out->max = (double)rp_hist_max(h);
	out->stddev = rp_hist_stddev(h);
}

/* A summary's members: in ns on the wire, in us in the user's document
 * (with its "unit" first), in this order in both. */
#define SUMMARY_NS(m)                                                          \
	{                                                                      \
		.key = #m, .off = offsetof(struct rp_hist_summary, m),         \
		.kind = RP_FIELD_DOUBLE, .flags = RP_FIELD_IN_BOTH,            \
		.scale = 1e3                                                   \
	}

const struct rp_field rp_hist_summary_fields[RP_HIST_SUMMARY_N_FIELDS] = {
	{ .key = "unit",
	  .kind = RP_FIELD_TEXT,
	  .flags = RP_FIELD_IN_DOC,
	  .text = "us" },
	{ .key = "count",
	  .off = offsetof(struct rp_hist_summary, count),
	  .kind = RP_FIELD_U64,
	  .flags = RP_FIELD_IN_BOTH },
	SUMMARY_NS(min),
	SUMMARY_NS(mean),
	SUMMARY_NS(p50),
	SUMMARY_NS(p90),
	SUMMARY_NS(p99),
	SUMMARY_NS(p99_9),
	SUMMARY_NS(p99_99),
	SUMMARY_NS(max),
	SUMMARY_NS(stddev),
};

void rp_hist_summary_scale(struct rp_hist_summary *s, double k)
{
	const struct rp_field *f = rp_hist_summary_fields;
	size_t i;

	for (i = 0; i < RP_HIST_SUMMARY_N_FIELDS; i++)
		if (f[i].kind == RP_FIELD_DOUBLE)
			*(double *)((char *)s + f[i].off) *= k;
}

void rp_hist_spectrum(const struct rp_hist *h, struct rp_spectrum *out)
{
	double tail = 1.0; /* 1 - p of point n: 2^(-n/2) */
	uint32_t n = 0;

	out->n = 0;
	if (!h->count)
		return;
	while (n < RP_SPECTRUM_MAX - 1 && 1.0 / tail <= (double)h->count) {
		out->pct[n] = 100.0 * (1.0 - tail);
		out->value[n] = (double)rp_hist_percentile(h, out->pct[n]);
		n++;
		tail = exp2(-0.5 * n);
	}
	out->pct[n] = 100.0;
	out->value[n] = (double)h->max;
	out->n = n + 1;
}

void rp_spectrum_scale(struct rp_spectrum *s, double k)
{
	uint32_t i;

	for (i = 0; i < s->n && i < RP_SPECTRUM_MAX; i++)
		s->value[i] *= k;
}
