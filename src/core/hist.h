/* SPDX-License-Identifier: MIT */
/*
 * Log-linear latency histogram in the manner of HdrHistogram: values below
 * 2048 are counted exactly; above, each power of two [2^k, 2^(k+1)) is split
 * into 1024 equal sub-buckets, so any recorded value is known to within
 * 1/1024 (better than 3 significant digits) from 1 ns to 2^41 ns (~36 min).
 * Larger values are clamped into the last bucket (and still counted in max).
 *
 * Recording is O(1) and allocation-free: a bit scan, a shift and an add.
 * One histogram belongs to one thread; merge them after the threads join.
 */
#ifndef RP_CORE_HIST_H
#define RP_CORE_HIST_H

#include <stdint.h>

#include "core/fields.h"

#define RP_HIST_SUB_BITS 11 /* 2048 exact values, then 1024 per octave */
#define RP_HIST_MAX_BITS 41 /* highest distinguishable value: 2^41 - 1 ns */

struct rp_hist;

/** Summary statistics of a histogram, all in the unit recorded (ns). */
struct rp_hist_summary {
	uint64_t count;
	double min, mean, p50, p90, p99, p99_9, p99_99, max, stddev;
};

/* The members of struct rp_hist_summary (core/fields.h): ns on the wire,
 * us ("unit": "us" first) in the user's document. */
#define RP_HIST_SUMMARY_N_FIELDS 11
extern const struct rp_field rp_hist_summary_fields[RP_HIST_SUMMARY_N_FIELDS];

#define RP_SPECTRUM_MAX 64

/** A distribution as percentile points, for plots: pct ascending. */
struct rp_spectrum {
	uint32_t n;
	double pct[RP_SPECTRUM_MAX];   /* 0..100 */
	double value[RP_SPECTRUM_MAX]; /* the unit recorded (ns) */
};

/**
 * rp_hist_create - allocate an empty histogram.
 * @out: receives the histogram.
 * Return: 0, or -ENOMEM.
 */
int rp_hist_create(struct rp_hist **out);

/** rp_hist_destroy - free a histogram; NULL is accepted. */
void rp_hist_destroy(struct rp_hist *h);

/** rp_hist_reset - forget every recorded value. */
void rp_hist_reset(struct rp_hist *h);

/**
 * rp_hist_record - count one value. O(1), no allocation, no lock.
 * @h: histogram owned by the calling thread.
 * @value: value in ns; values beyond the range land in the last bucket.
 */
void rp_hist_record(struct rp_hist *h, uint64_t value);

#define RP_HIST_STAGE 64 /* values a stage holds before it is flushed */

/**
 * struct rp_hist_stage - values on their way into a histogram, for a loop
 * that reads the clock once per value (the latency phase). Putting a value
 * stores it where the stage's count says, an address that does not depend
 * on the clock; the bucket's address does, and a store whose address waits
 * for a counter read holds up the loop's next one (on the AMD EPYC of
 * bench/record_cost, 8 of the 18 ns a clock read and a record took). The
 * buckets are updated RP_HIST_STAGE values at a time, away from the clock.
 */
struct rp_hist_stage {
	uint32_t n;
	uint64_t v[RP_HIST_STAGE];
};

/** rp_hist_stage_flush - record every value of @st into @h; empty @st. */
void rp_hist_stage_flush(struct rp_hist_stage *st, struct rp_hist *h);

/** rp_hist_stage_put - @value into @st; into @h when @st is full. Call
 *  rp_hist_stage_flush() before @h is read. */
static inline void rp_hist_stage_put(struct rp_hist_stage *st,
				     struct rp_hist *h, uint64_t value)
{
	st->v[st->n++] = value;
	if (st->n == RP_HIST_STAGE)
		rp_hist_stage_flush(st, h);
}

/**
 * rp_hist_merge - add every count of @src into @dst.
 * Return: 0.
 */
int rp_hist_merge(struct rp_hist *dst, const struct rp_hist *src);

/** rp_hist_count - number of values recorded. */
uint64_t rp_hist_count(const struct rp_hist *h);

/** rp_hist_min - smallest value recorded, exact; 0 when empty. */
uint64_t rp_hist_min(const struct rp_hist *h);

/** rp_hist_max - largest value recorded, exact; 0 when empty. */
uint64_t rp_hist_max(const struct rp_hist *h);

/** rp_hist_mean - arithmetic mean of the recorded values (exact sum). */
double rp_hist_mean(const struct rp_hist *h);

/**
 * rp_hist_stddev - population standard deviation of the recorded values:
 * exact, from the integer sum and sum of squares, while the sum of squares
 * cannot have overflowed (values below the histogram's limit and
 * count * max^2 < 2^127); otherwise estimated from bucket midpoints
 * (clamped to [min, max]). 0 for fewer than two values.
 */
double rp_hist_stddev(const struct rp_hist *h);

/**
 * rp_hist_percentile - value at or below which @pct percent of the values lie.
 * @pct: 0..100; 0 gives min, 100 gives max.
 * Follows the nearest-rank definition: the value of rank ceil(pct/100 * n)
 * in sorted order, reported as the highest value equivalent to its bucket,
 * clamped to [min, max]. Return: 0 when empty.
 */
uint64_t rp_hist_percentile(const struct rp_hist *h, double pct);

/** rp_hist_summary_scale - multiply every value of @s (not count) by @k. */
void rp_hist_summary_scale(struct rp_hist_summary *s, double k);

/**
 * rp_hist_spectrum - the distribution of @h as percentile points for a
 * percentile plot: 0, then 100 * (1 - 2^(-k/2)) for k = 1, 2, ... while
 * 1 / (1 - p) stays within the count, then 100 (the max). Empty: n = 0.
 */
void rp_hist_spectrum(const struct rp_hist *h, struct rp_spectrum *out);

/** rp_spectrum_scale - multiply every value of @s by @k. */
void rp_spectrum_scale(struct rp_spectrum *s, double k);

/** rp_hist_summarize - fill @out with count, min..max, percentiles, stddev. */
void rp_hist_summarize(const struct rp_hist *h, struct rp_hist_summary *out);

#endif
