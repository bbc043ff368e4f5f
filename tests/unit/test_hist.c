/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of core/hist. Every sample set is checked against the exact
 * statistics of its sorted samples: each percentile must be the value of
 * nearest rank ceil(pct / 100 * n), reported as the top of its bucket (from
 * a slow reference written independently of hist.c) clamped to [min, max],
 * hence within 1/1024 above it and exact below 2048; p0 is min itself.
 * Count, min, max and mean are exact; so is the standard deviation (to 1e-9,
 * while no value exceeds 2^41 - 1; the 0.2% asked of it is tested apart).
 * Merging parts must give the same histogram as recording everything in one.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/hist.h"
#include "core/u128.h"

#define LIMIT  (1ULL << RP_HIST_MAX_BITS) /* first value clamped */
#define N_RAND 100003			  /* not round, to exercise ranks */

/* A percentile and the same as an exact fraction num / den. */
struct pct_case {
	double pct;
	uint64_t num, den;
};

static const struct pct_case pcts[] = {
	{ 0, 0, 1 },
	{ 1, 1, 100 },
	{ 50, 1, 2 },
	{ 90, 9, 10 },
	{ 99, 99, 100 },
	{ 99.9, 999, 1000 },
	{ 99.99, 9999, 10000 },
	{ 100, 1, 1 },
};

static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * Highest value sharing @v's bucket, found by doubling the bucket width: 1
 * below 2048, then 2^(k-10) in [2^k, 2^(k+1)). The last bucket, which also
 * takes every clamped value, reports max: UINT64_MAX here, clamped later.
 */
static uint64_t ref_bucket_high(uint64_t v)
{
	uint64_t width = 1;

	if (v >= LIMIT - (LIMIT >> 11))
		return UINT64_MAX;
	while (v / width >= 2048)
		width *= 2;
	return v - v % width + width - 1;
}

static uint64_t nearest_rank(const struct pct_case *c, uint64_t n)
{
	struct rp_u128 x = rp_u128_mul64(c->num, n);
	uint64_t rem, r;

	rp_u128_add64(&x, c->den - 1);
	r = rp_u128_divmod(x, c->den, &rem).lo;

	return r ? r : 1;
}

static void check_one_pct(const struct rp_hist *h, const uint64_t *sorted,
			  size_t n, const struct pct_case *c)
{
	uint64_t exact = sorted[nearest_rank(c, n) - 1];
	uint64_t want = ref_bucket_high(exact);
	uint64_t got = rp_hist_percentile(h, c->pct);

	if (want > sorted[n - 1])
		want = sorted[n - 1];
	if (c->pct == 0) /* the header promises min itself */
		want = exact;
	if (got != want)
		print_error("p%g: got %llu, want %llu (exact %llu)\n", c->pct,
			    (unsigned long long)got, (unsigned long long)want,
			    (unsigned long long)exact);
	assert_int_equal(got, want);
	assert_true(got >= exact);
	if (exact < 2048)
		assert_int_equal(got, exact);
	else if (sorted[n - 1] < LIMIT) /* no clamped value */
		assert_true((got - exact) * 1024 <= exact);
}

/* Exact population standard deviation, two passes in long double. */
static long double ref_stddev(const uint64_t *v, size_t n, long double mean)
{
	long double acc = 0;
	size_t i;

	for (i = 0; i < n; i++)
		acc += ((long double)v[i] - mean) * ((long double)v[i] - mean);
	return sqrtl(acc / (long double)n);
}

static void check_moments(const struct rp_hist *h, const uint64_t *sorted,
			  size_t n)
{
	long double mean, sd, got_sd = rp_hist_stddev(h);
	struct rp_u128 sum = { 0, 0 };
	size_t i;

	for (i = 0; i < n; i++)
		rp_u128_add64(&sum, sorted[i]);
	mean = rp_u128_to_ld(sum) / (long double)n;
	assert_true(fabsl(rp_hist_mean(h) - mean) <= mean * 1e-15L);
	sd = ref_stddev(sorted, n, mean);
	assert_true(got_sd >= 0 && isfinite(rp_hist_stddev(h)));
	if (sorted[n - 1] >= LIMIT)
		return; /* clamped values: only bucket precision is promised */
	/* hist.c computes it from exact integer sums: far better than 0.2% */
	if (fabsl(got_sd - sd) > sd * 1e-9L + 1e-6L)
		print_error("stddev: got %.12Lg, want %.12Lg\n", got_sd, sd);
	assert_true(fabsl(got_sd - sd) <= sd * 1e-9L + 1e-6L);
}

/* Check @h, holding exactly @samples, against their sorted copy. */
static void check_hist(const struct rp_hist *h, const uint64_t *samples,
		       size_t n)
{
	uint64_t *sorted = malloc(n * sizeof(*sorted));
	size_t i;

	assert_non_null(sorted);
	memcpy(sorted, samples, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_u64);
	assert_int_equal(rp_hist_count(h), n);
	assert_int_equal(rp_hist_min(h), sorted[0]);
	assert_int_equal(rp_hist_max(h), sorted[n - 1]);
	for (i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++)
		check_one_pct(h, sorted, n, &pcts[i]);
	assert_int_equal(rp_hist_percentile(h, 0), sorted[0]);
	assert_int_equal(rp_hist_percentile(h, 100), sorted[n - 1]);
	check_moments(h, sorted, n);
	free(sorted);
}

static void fill(struct rp_hist *h, const uint64_t *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		rp_hist_record(h, v[i]);
}

/* Record @samples into a fresh histogram and check it. */
static void check_samples(const uint64_t *samples, size_t n)
{
	struct rp_hist *h;

	assert_int_equal(rp_hist_create(&h), 0);
	fill(h, samples, n);
	check_hist(h, samples, n);
	rp_hist_destroy(h);
}

static uint64_t *gen_uniform(uint64_t seed, uint64_t lo, uint64_t hi, size_t n)
{
	uint64_t *v = malloc(n * sizeof(*v));
	size_t i;

	assert_non_null(v);
	for (i = 0; i < n; i++)
		v[i] = lo + rng_next(&seed) % (hi - lo + 1);
	return v;
}

/* Log-uniform over [1, 2^41): a uniform octave, then uniform inside it. */
static uint64_t *gen_log_uniform(uint64_t seed, size_t n)
{
	uint64_t *v = malloc(n * sizeof(*v));
	size_t i;

	assert_non_null(v);
	for (i = 0; i < n; i++) {
		unsigned int k = (unsigned int)(rng_next(&seed) % 41);

		v[i] = (1ULL << k) | (rng_next(&seed) & ((1ULL << k) - 1));
	}
	return v;
}

static void test_uniform(void **state)
{
	static const uint64_t hi[] = { 1000, 1000000, 100000000000ULL };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(hi) / sizeof(hi[0]); i++) {
		uint64_t *v = gen_uniform(42 + i, 1, hi[i], N_RAND);

		check_samples(v, N_RAND);
		free(v);
	}
}

static void test_log_uniform(void **state)
{
	uint64_t *v = gen_log_uniform(7, N_RAND);

	(void)state;
	check_samples(v, N_RAND);
	free(v);
}

/* 1..n in order: every nearest rank is a known integer. */
static void test_sequential(void **state)
{
	static const size_t sizes[] = { 1, 2, 3, 7, 100, 1000, 10000, 12345 };
	static uint64_t v[12345];
	size_t i, j;

	(void)state;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		for (j = 0; j < sizes[i]; j++)
			v[j] = j + 1;
		check_samples(v, sizes[i]);
	}
}

static void test_all_equal(void **state)
{
	static uint64_t v[5000];
	struct rp_hist *h;
	size_t i;

	(void)state;
	for (i = 0; i < 5000; i++)
		v[i] = 123456789;
	assert_int_equal(rp_hist_create(&h), 0);
	fill(h, v, 5000);
	check_hist(h, v, 5000);
	assert_true(rp_hist_stddev(h) == 0);
	assert_true(rp_hist_mean(h) == 123456789);
	assert_int_equal(rp_hist_percentile(h, 50), 123456789);
	rp_hist_destroy(h);
}

static void test_two_clusters(void **state)
{
	uint64_t *v = gen_uniform(3, 10, 20, N_RAND);
	size_t i;

	(void)state;
	for (i = 0; i < N_RAND; i += 2)
		v[i] += 10000000000ULL;
	check_samples(v, N_RAND);
	/* few far outliers: the tail percentiles must find them */
	for (i = 0; i < N_RAND; i++)
		v[i] = i % 997 ? v[i] % 64 : 10000000000ULL + i;
	check_samples(v, N_RAND);
	free(v);
}

/* 2^k - 1, 2^k, 2^k + 1 for every k, and around sub-bucket edges. */
static void test_boundaries(void **state)
{
	static const uint64_t sub[] = { 0, 1, 511, 1023 };
	static uint64_t v[3 * 41 + 3 * 4 * 30];
	size_t n = 0, j;
	unsigned int k;

	(void)state;
	for (k = 0; k <= 40; k++) {
		v[n++] = (1ULL << k) - 1;
		v[n++] = 1ULL << k;
		v[n++] = (1ULL << k) + 1;
	}
	for (k = 11; k <= 40; k++) {
		for (j = 0; j < 4; j++) {
			uint64_t edge = (1024 + sub[j]) << (k - 10);

			v[n++] = edge - 1;
			v[n++] = edge;
			v[n++] = edge + 1;
		}
	}
	check_samples(v, n);
	for (j = 0; j < n; j++)
		check_samples(&v[j], 1);
}

static void test_single(void **state)
{
	static const uint64_t one[] = { 0,    1,      2047,	2048,
					2049, 777777, LIMIT - 1 };
	struct rp_hist *h;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(one) / sizeof(one[0]); i++) {
		check_samples(&one[i], 1);
		assert_int_equal(rp_hist_create(&h), 0);
		rp_hist_record(h, one[i]);
		assert_int_equal(rp_hist_percentile(h, 50), one[i]);
		assert_true(rp_hist_stddev(h) == 0);
		rp_hist_destroy(h);
	}
}

/* The last distinguishable value, and beyond: clamped, max stays exact. */
static void test_beyond_range(void **state)
{
	static const uint64_t v[] = { 1000,	  LIMIT - 1,  LIMIT, LIMIT + 1,
				      1ULL << 50, UINT64_MAX, 1 };
	struct rp_hist *h;

	(void)state;
	check_samples(v, 2); /* LIMIT - 1 is the top of the last bucket */
	check_samples(v, sizeof(v) / sizeof(v[0]));
	check_samples(&v[2], 1);
	check_samples(&v[5], 1);
	assert_int_equal(rp_hist_create(&h), 0);
	fill(h, v, sizeof(v) / sizeof(v[0]));
	assert_int_equal(rp_hist_max(h), UINT64_MAX);
	assert_int_equal(rp_hist_percentile(h, 100), UINT64_MAX);
	assert_int_equal(rp_hist_percentile(h, 50), UINT64_MAX);
	assert_int_equal(rp_hist_percentile(h, 40), UINT64_MAX);
	assert_int_equal(rp_hist_percentile(h, 20), 1000);
	rp_hist_destroy(h);
}

static void test_zero(void **state)
{
	static const uint64_t zeros[] = { 0, 0, 0 };
	static const uint64_t mixed[] = { 0, 3000, 1, 0, 2, 5000000 };

	(void)state;
	check_samples(zeros, 3);
	check_samples(mixed, 6);
}

/* Merge @nparts slices of @v into one histogram; compare with a direct one. */
static void check_merge(const uint64_t *v, size_t n, const size_t *cut,
			size_t nparts)
{
	struct rp_hist *whole, *sum, *part;
	size_t i, j;

	assert_int_equal(rp_hist_create(&whole), 0);
	assert_int_equal(rp_hist_create(&sum), 0);
	assert_int_equal(rp_hist_create(&part), 0);
	fill(whole, v, n);
	for (i = 0; i < nparts; i++) {
		size_t end = i + 1 < nparts ? cut[i + 1] : n;

		rp_hist_reset(part);
		fill(part, v + cut[i], end - cut[i]);
		assert_int_equal(rp_hist_merge(sum, part), 0);
	}
	check_hist(sum, v, n);
	for (j = 0; j < sizeof(pcts) / sizeof(pcts[0]); j++)
		assert_int_equal(rp_hist_percentile(sum, pcts[j].pct),
				 rp_hist_percentile(whole, pcts[j].pct));
	assert_true(rp_hist_mean(sum) == rp_hist_mean(whole));
	assert_true(rp_hist_stddev(sum) == rp_hist_stddev(whole));
	rp_hist_destroy(part);
	rp_hist_destroy(sum);
	rp_hist_destroy(whole);
}

static void test_merge(void **state)
{
	static const size_t cut[] = { 0, 0, 17, 40000, 40001, 99000 };
	uint64_t *v = gen_log_uniform(11, N_RAND);
	static const uint64_t odd[] = { 5, LIMIT + 3, 0, 1ULL << 20, 9 };
	static const size_t odd_cut[] = { 0, 1, 3 };

	(void)state;
	check_merge(v, N_RAND, cut, sizeof(cut) / sizeof(cut[0]));
	free(v);
	v = gen_uniform(12, 1, 1000000, N_RAND);
	check_merge(v, N_RAND, cut, sizeof(cut) / sizeof(cut[0]));
	free(v);
	check_merge(odd, 5, odd_cut, 3);
}

/*
 * Sums beyond 64 bits: the largest exact value (2^41 - 1) and 0 in equal
 * numbers, doubled by merging until the count passes 2^40 (sum of squares
 * about 2^122, sum about 2^81: both need the high word). Mean and standard
 * deviation are exactly (2^41 - 1) / 2 all along.
 */
static void test_extreme_sums(void **state)
{
	static const uint64_t v[] = { 0, LIMIT - 1 };
	const double half = (double)(LIMIT - 1) / 2;
	struct rp_hist *a, *b;
	int k;

	(void)state;
	assert_int_equal(rp_hist_create(&a), 0);
	assert_int_equal(rp_hist_create(&b), 0);
	fill(a, v, 2);
	for (k = 0; k < 40; k++) {
		rp_hist_reset(b);
		assert_int_equal(rp_hist_merge(b, a), 0);
		assert_int_equal(rp_hist_merge(a, b), 0);
		assert_int_equal(rp_hist_count(a), 4ULL << k);
		assert_true(rp_hist_mean(a) == half);
		assert_true(rp_hist_stddev(a) == half);
	}
	assert_int_equal(rp_hist_percentile(a, 50), 0);
	assert_int_equal(rp_hist_percentile(a, 50.001), LIMIT - 1);
	rp_hist_destroy(b);
	rp_hist_destroy(a);
}

/* Many records of the largest values: UINT64_MAX (clamped, but its sum
 * is exact) and 2^41 - 1 (exact square), each 2^20 times. */
static void test_many_max_records(void **state)
{
	struct rp_hist *h;
	uint32_t i;

	(void)state;
	assert_int_equal(rp_hist_create(&h), 0);
	for (i = 0; i < (1U << 20); i++)
		rp_hist_record(h, UINT64_MAX);
	assert_true(rp_hist_mean(h) == (double)UINT64_MAX);
	assert_true(rp_hist_stddev(h) >= 0);
	assert_int_equal(rp_hist_max(h), UINT64_MAX);
	rp_hist_reset(h);
	for (i = 0; i < (1U << 20); i++)
		rp_hist_record(h, i & 1 ? LIMIT - 1 : LIMIT - 3);
	assert_true(rp_hist_mean(h) == (double)(LIMIT - 2));
	assert_true(rp_hist_stddev(h) == 1);
	rp_hist_destroy(h);
}

/* Merging many histograms of mixed magnitudes equals recording all. */
static void test_merge_many(void **state)
{
	uint64_t *v = gen_log_uniform(21, N_RAND);
	size_t cut[64], i;

	(void)state;
	for (i = 0; i < 64; i++)
		cut[i] = i * (N_RAND / 64);
	for (i = 0; i < N_RAND; i += 101)
		v[i] = LIMIT - 1 - i;
	check_merge(v, N_RAND, cut, 64);
	free(v);
}

/* Explicit 0.2% bound on a random set (check_hist applies it everywhere). */
static void test_stddev(void **state)
{
	uint64_t *v = gen_uniform(5, 1000, 1000000, N_RAND);
	struct rp_hist *h;
	long double sd, mean = 0;
	size_t i;

	(void)state;
	assert_int_equal(rp_hist_create(&h), 0);
	fill(h, v, N_RAND);
	for (i = 0; i < N_RAND; i++)
		mean += v[i];
	mean /= N_RAND;
	sd = ref_stddev(v, N_RAND, mean);
	assert_true(fabsl(rp_hist_stddev(h) - sd) <= sd * 0.002L);
	rp_hist_destroy(h);
	free(v);
}

static void test_empty_and_reset(void **state)
{
	static const uint64_t v[] = { 100, 5000, 3 };
	struct rp_hist *h;

	(void)state;
	assert_int_equal(rp_hist_create(&h), 0);
	for (int pass = 0; pass < 2; pass++) {
		assert_int_equal(rp_hist_count(h), 0);
		assert_int_equal(rp_hist_min(h), 0);
		assert_int_equal(rp_hist_max(h), 0);
		assert_int_equal(rp_hist_percentile(h, 50), 0);
		assert_true(rp_hist_mean(h) == 0 && rp_hist_stddev(h) == 0);
		fill(h, v, 3);
		check_hist(h, v, 3);
		rp_hist_reset(h);
	}
	fill(h, &v[1], 1);
	check_hist(h, &v[1], 1);
	rp_hist_destroy(h);
}

static void test_pct_out_of_range(void **state)
{
	static const uint64_t v[] = { 10, 20, 30 };
	struct rp_hist *h;

	(void)state;
	assert_int_equal(rp_hist_create(&h), 0);
	fill(h, v, 3);
	assert_int_equal(rp_hist_percentile(h, -5), 10);
	assert_int_equal(rp_hist_percentile(h, 1e-9), 10);
	assert_int_equal(rp_hist_percentile(h, 150), 30);
	assert_int_equal(rp_hist_percentile(h, NAN), 10);
	rp_hist_destroy(h);
}

static void test_summarize(void **state)
{
	uint64_t *v = gen_log_uniform(9, 1000);
	struct rp_hist_summary s;
	struct rp_hist *h;

	(void)state;
	assert_int_equal(rp_hist_create(&h), 0);
	fill(h, v, 1000);
	rp_hist_summarize(h, &s);
	assert_int_equal(s.count, 1000);
	assert_true(s.min == (double)rp_hist_min(h));
	assert_true(s.max == (double)rp_hist_max(h));
	assert_true(s.mean == rp_hist_mean(h));
	assert_true(s.stddev == rp_hist_stddev(h));
	assert_true(s.p50 == (double)rp_hist_percentile(h, 50));
	assert_true(s.p90 == (double)rp_hist_percentile(h, 90));
	assert_true(s.p99 == (double)rp_hist_percentile(h, 99));
	assert_true(s.p99_9 == (double)rp_hist_percentile(h, 99.9));
	assert_true(s.p99_99 == (double)rp_hist_percentile(h, 99.99));
	rp_hist_destroy(h);
	free(v);
}

static void test_create_destroy(void **state)
{
	struct rp_hist *h = NULL;

	(void)state;
	rp_hist_destroy(NULL);
	assert_int_equal(rp_hist_create(&h), 0);
	assert_non_null(h);
	rp_hist_destroy(h);
}

static void test_summary_scale(void **state)
{
	struct rp_hist_summary sm = { .count = 7,
				      .min = 2,
				      .mean = 4,
				      .p50 = 6,
				      .p90 = 8,
				      .p99 = 10,
				      .p99_9 = 12,
				      .p99_99 = 14,
				      .max = 16,
				      .stddev = 18 };

	(void)state;
	rp_hist_summary_scale(&sm, 0.5);
	assert_int_equal(sm.count, 7); /* a count is not a value */
	assert_true(sm.min == 1 && sm.mean == 2 && sm.p50 == 3 && sm.p90 == 4);
	assert_true(sm.p99 == 5 && sm.p99_9 == 6 && sm.p99_99 == 7);
	assert_true(sm.max == 8 && sm.stddev == 9);
}

/* A stage records what rp_hist_record() would, once flushed: through
 * full stages, a partial one, and an empty flush. */
static void test_stage(void **state)
{
	uint64_t *v = gen_log_uniform(13, N_RAND);
	struct rp_hist *direct, *staged;
	struct rp_hist_stage st = { 0 };
	size_t i, n = RP_HIST_STAGE * 5 + 7;

	(void)state;
	assert_int_equal(rp_hist_create(&direct), 0);
	assert_int_equal(rp_hist_create(&staged), 0);
	for (i = 0; i < n; i++) {
		rp_hist_record(direct, v[i]);
		rp_hist_stage_put(&st, staged, v[i]);
	}
	assert_int_equal(rp_hist_count(staged), RP_HIST_STAGE * 5);
	rp_hist_stage_flush(&st, staged);
	rp_hist_stage_flush(&st, staged);
	assert_int_equal(st.n, 0);
	assert_int_equal(rp_hist_count(staged), n);
	assert_true(rp_hist_min(staged) == rp_hist_min(direct));
	assert_true(rp_hist_max(staged) == rp_hist_max(direct));
	assert_true(rp_hist_mean(staged) == rp_hist_mean(direct));
	assert_true(rp_hist_stddev(staged) == rp_hist_stddev(direct));
	assert_int_equal(rp_hist_percentile(staged, 99),
			 rp_hist_percentile(direct, 99));
	rp_hist_destroy(direct);
	rp_hist_destroy(staged);
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_destroy),
		cmocka_unit_test(test_empty_and_reset),
		cmocka_unit_test(test_uniform),
		cmocka_unit_test(test_log_uniform),
		cmocka_unit_test(test_extreme_sums),
		cmocka_unit_test(test_many_max_records),
		cmocka_unit_test(test_merge_many),
		cmocka_unit_test(test_sequential),
		cmocka_unit_test(test_all_equal),
		cmocka_unit_test(test_two_clusters),
		cmocka_unit_test(test_boundaries),
		cmocka_unit_test(test_single),
		cmocka_unit_test(test_beyond_range),
		cmocka_unit_test(test_zero),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_stddev),
		cmocka_unit_test(test_pct_out_of_range),
		cmocka_unit_test(test_summarize),
		cmocka_unit_test(test_summary_scale),
		cmocka_unit_test(test_stage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
