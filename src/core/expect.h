/* SPDX-License-Identifier: MIT */
/*
 * --expect: what a point must show for its verdict to be PASS. A list of
 * comparisons, joined by commas:
 *
 *   bw>=90%            throughput at least 90% of the link's rated rate
 *   bw>=180G           at least 180 Gb/s (units: G, M, K bit/s; Gbps...)
 *   msg_rate>=1M       messages per second
 *   p99<=5us           latency under load: p50 p90 p99 p999 max mean
 *   unloaded_p50<=2.5us  unloaded latency: unloaded_ + the same names
 *   errors==0  retrans==0  congestion==0   the NIC's / kernel's counters
 *
 * Operators: >= <= > < == !=. Latency units: ns us ms s (a bare number is
 * ns); throughput: bit/s with K M G T suffixes, or % of the rated rate.
 */
#ifndef RP_CORE_EXPECT_H
#define RP_CORE_EXPECT_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#define RP_EXPECT_MAX 16

enum rp_expect_metric {
	RP_EM_BW,	/* bits per second */
	RP_EM_MSG_RATE, /* messages per second */
	RP_EM_P50,	/* latency under load, ns */
	RP_EM_P90,
	RP_EM_P99,
	RP_EM_P999,
	RP_EM_MAX,
	RP_EM_MEAN,
	RP_EM_UNLOADED_P50, /* unloaded latency, ns */
	RP_EM_UNLOADED_P90,
	RP_EM_UNLOADED_P99,
	RP_EM_UNLOADED_P999,
	RP_EM_UNLOADED_MAX,
	RP_EM_UNLOADED_MEAN,
	RP_EM_ERRORS,	  /* error counters' deltas, both sides */
	RP_EM_RETRANS,	  /* retransmissions, both sides */
	RP_EM_CONGESTION, /* congestion counters' deltas, both sides */
	RP_EM__COUNT
};

enum rp_expect_op {
	RP_EO_GE,
	RP_EO_LE,
	RP_EO_GT,
	RP_EO_LT,
	RP_EO_EQ,
	RP_EO_NE
};

struct rp_expect_term {
	enum rp_expect_metric metric;
	enum rp_expect_op op;
	double value;  /* in the metric's base unit (ns, bit/s, count) */
	bool percent;  /* bw only: value is a share (0.9) of the rated rate */
	char text[48]; /* the term as the user wrote it (trimmed) */
};

struct rp_expect {
	unsigned n;
	struct rp_expect_term t[RP_EXPECT_MAX];
};

/**
 * rp_expect_parse - parse @s into @out.
 * Return: 0, or -EINVAL with a one-line message in @err (at most @len)
 * naming the bad token and listing the accepted metrics, operators and
 * units.
 */
int rp_expect_parse(const char *s, struct rp_expect *out, char *err,
		    size_t len);

/** What a point measured, for the verdict: has[m] false where the point
 *  has no such figure (no unloaded phase, no counters). */
struct rp_expect_values {
	bool has[RP_EM__COUNT];
	double v[RP_EM__COUNT];
	double rated_bps; /* the link's rated rate, 0: not known */
};

/** rp_expect_metric_name - "bw", "p99", "unloaded_p50", ... */
const char *rp_expect_metric_name(enum rp_expect_metric m);

/**
 * rp_expect_eval - the verdict of @e on @v as the document writes it
 * (schema/: "verdict"): {"pass": bool, "checks": [{"expect": TEXT,
 * "metric": NAME, "measured": X or null, "limit": Y (base units; bw as a
 * percentage: the limit in bit/s from the rated rate), "unit": "ns" |
 * "bit/s" | "msg/s" | "count", "pass": bool, "why": text when it could not
 * be judged (no rated rate, no such phase: a check that cannot be judged
 * fails)}]}. NULL only when out of memory.
 */
cJSON *rp_expect_eval(const struct rp_expect *e,
		      const struct rp_expect_values *v);

/** rp_expect_verdict_pass - the verdict @verdict (rp_expect_eval's form,
 *  or one a saved document holds) passed: false for NULL or odd types. */
bool rp_expect_verdict_pass(const cJSON *verdict);

/**
 * rp_expect_line - the text line of @verdict into @buf (at most @len,
 * always terminated): "PASS (bw>=1G: 2.5 Gb/s; p99<=5us: 3.2 us)", or
 * "FAIL: p99<=5us: measured 7.41 us; bw>=90%: the link's rated rate is
 * not known ..." (a FAIL lists only the failing checks).
 */
void rp_expect_line(const cJSON *verdict, char *buf, size_t len);

#endif
