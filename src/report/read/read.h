/* SPDX-License-Identifier: MIT */
/*
 * What the files of the document reader share (--report): doc.c reads
 * the file, the config and the hosts; result.c one element of "results";
 * rate.c the open loop's parts; members.c, below all three, the typed
 * members, the point, the summary and the records' budget. Members are
 * read through helpers that never fail on hostile input: a missing or
 * mistyped member reads as 0 (or absent), numbers are clamped, strings cut
 * to their buffer.
 */
#ifndef RP_REPORT_READ_H
#define RP_REPORT_READ_H

#include "report/report.h"

/* The largest file read back: far above any sweep's document. */
#define RP_READ_MAX_BYTES (256u << 20)
/* Intervals of one result: 24 h at -i 0.1 is 864000. */
#define RP_READ_MAX_INTERVALS (1u << 20)
/*
 * Per-stream and interval records are read into structs and written out
 * again with every figure, far more than an empty "{}" costs in the text:
 * a document may hold one per RP_READ_RECORD_BYTES of its size (what
 * rdmaperf writes is 250 to 450 bytes each), and RP_READ_RECORDS_MIN more,
 * so that the memory a document takes stays a small multiple of its size.
 */
#define RP_READ_RECORD_BYTES 128
#define RP_READ_RECORDS_MIN  4096

/** Where a reason is recorded, and what it names. */
struct rp_reader {
	const char *path;
	size_t index; /* the result being read */
	struct rp_err *why;
	size_t *records; /* records the document may still hold */
	size_t *bytes;	 /* when set, the document's size once read */
};

/** rp_read_parse - the file l->path as JSON, nothing after the document,
 *  at most RP_READ_MAX_BYTES; its strings made safe to print (core/safe),
 *  *l->records (when set) its budget of records, *l->bytes (when set)
 *  its size. Return: 0, or -errno
 *  with l->why (-ENOMEM when there was not the memory to parse it). */
int rp_read_parse(const struct rp_reader *l, cJSON **out);

/** rp_read_records - take @n of the document's records; -E2BIG with
 *  l->why when that is more than it may hold. */
int rp_read_records(const struct rp_reader *l, size_t n);

/** rp_read_get - the member @key of @o; NULL unless @o is an object. */
const cJSON *rp_read_get(const cJSON *o, const char *key);

/**
 * rp_read_item_u64 - @v as a whole number in [0, @max]: 0 when not a
 * number, negative or NaN; @max above it; a fraction cut.
 */
uint64_t rp_read_item_u64(const cJSON *v, uint64_t max);

/** rp_read_u64 - rp_read_item_u64() of the member @key of @o. */
uint64_t rp_read_u64(const cJSON *o, const char *key, uint64_t max);

/**
 * rp_read_item_num - @v as a double: null (what the writer prints for a
 * value that is not finite) reads as NAN, anything else not a number as 0.
 */
double rp_read_item_num(const cJSON *v);

/** rp_read_num - rp_read_item_num() of the member @key of @o. */
double rp_read_num(const cJSON *o, const char *key);

/** rp_read_bool - the member @key of @o is true. */
bool rp_read_bool(const cJSON *o, const char *key);

/** rp_read_str - the string member @key of @o into @buf, cut to @len
 *  bytes; "" when absent or not a string. */
void rp_read_str(const cJSON *o, const char *key, char *buf, size_t len);

/**
 * rp_read_ns - nanoseconds from the microseconds the writer printed: the
 * double whose value / 1e3 is @us again (so the document reads back the
 * same), or when there is none the one whose value / 1e3 is nearest.
 */
double rp_read_ns(double us);

/** rp_read_summary - a latency object in us (rp_report_latency_json) into
 *  @s in ns; missing fields read as 0. */
void rp_read_summary(const cJSON *o, struct rp_hist_summary *s);

/** rp_read_rates (rate.c) - the config's "rates" or "load_curve" into @test.
 *  Return: 0, or -EINVAL with the reason in @l->why. */
int rp_read_rates(const struct rp_reader *l, const cJSON *c,
		  struct rp_test *test);

/** rp_read_rate - a result's "rate" (what json/rate.c writes), if any,
 *  into @r. */
void rp_read_rate(const cJSON *o, struct rp_result *r);

/**
 * rp_read_result - the result object @o, as rp_report_json_doc() wrote
 * it, into the zeroed @r: its point's spec starts from @test's; hosts are
 * not read here. What @r owns is freed by rp_result_fini(), also after a
 * failure. Return: 0, -EINVAL (a list longer than its array) or -ENOMEM,
 * with the reason in @l->why.
 */
int rp_read_result(const struct rp_reader *l, const cJSON *o,
		   const struct rp_test *test, struct rp_result *r);

#endif
