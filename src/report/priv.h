/* SPDX-License-Identifier: MIT */
/*
 * What the reporters share inside report/: the JSON pieces of a flow, the
 * CSV cells, the matrix's labels and ranks, a result's file transport.
 * The text layouts have their own header, report/text/text.h. Formatting only.
 */
#ifndef RP_REPORT_PRIV_H
#define RP_REPORT_PRIV_H

#include <stdio.h>

#include "report/report.h"

/* JSON (json/flow.c) */

/** rp_report_num - @v under @key, null when not finite. */
void rp_report_num(cJSON *obj, const char *key, double v);

/** rp_report_add_or_null - @item under @key when @present, else null (and
 *  @item freed). */
void rp_report_add_or_null(cJSON *obj, const char *key, bool present,
			   cJSON *item);

/*
 * The spec in the user's document (json/doc.c; core/fields.h): the
 * "config" object, the test as asked (a struct rp_test), and each
 * result's point (a struct rp_result). read/ reads them back through the
 * same tables; their hooks' members it reads on its own.
 */
extern const struct rp_field rp_report_config_fields[];
extern const size_t rp_report_config_n_fields;
extern const struct rp_field rp_report_point_fields[];
extern const size_t rp_report_point_n_fields;

/** rp_report_rates_json - the config's "rates" or "load_curve", if any. */
void rp_report_rates_json(const struct rp_test *test, cJSON *c);

/** rp_report_rate_add - "rate" into @o when @r ran an open loop. */
void rp_report_rate_add(const struct rp_result *r, cJSON *o);

/** rp_report_latency_json - a summary in ns as "latency" (us). */
cJSON *rp_report_latency_json(const struct rp_hist_summary *s);

/** rp_report_throughput_json - bits, MiB and messages per second. */
cJSON *rp_report_throughput_json(double bps, double mibps, double msgps);

/** rp_report_flow_fields - bytes, messages, seconds, throughput and
 *  latency (null without) of @fl into @o. */
void rp_report_flow_fields(const struct rp_flow *fl, cJSON *o);

/** rp_report_spectrum_json - "spectrum": [[percentile, us], ...] of @sp
 *  into the latency object @l, when it has points. */
void rp_report_spectrum_json(const struct rp_spectrum *sp, cJSON *l);

/** rp_report_intervals_json - "intervals" (an array, empty without -i)
 *  and "interval_range" (null, or interval_s and the lowest and highest
 *  interval throughput) of @r into @o. */
void rp_report_intervals_json(const struct rp_result *r, cJSON *o);

/** rp_report_streams_json - "per_stream" and "fairness" of @r into @o. */
void rp_report_streams_json(const struct rp_result *r, cJSON *o);

/* --rails: a rail falls short under this share of the best rail's
 * throughput (the transport's own rate on equal rails differs less). */
#define RP_RAIL_SHORT_SHARE 0.8

/** One rail's figures: its streams' sums, both directions. */
struct rp_rail_figures {
	unsigned int streams;
	double bps, msgps;
	double share; /* of the best rail's bps */
	bool is_short;
};

/** rp_report_rails - the figures of each of @r's rails into @out (room for
 *  RP_SPEC_MAX_RAILS), stream k of each direction on rail k % rails, from
 *  the figures as written (--report derives the same). Return: how many
 *  rails, 0 without rails, a throughput phase or per-stream figures. */
unsigned int rp_report_rails(const struct rp_result *r,
			     struct rp_rail_figures *out);

/** rp_report_rail_str - string @key of rail @k's @side ("client",
 *  "server") in @r's description, "" where there is none. */
const char *rp_report_rail_str(const struct rp_result *r, unsigned int k,
			       const char *side, const char *key);

/** rp_report_rails_json - "per_rail": null without rails, else each
 *  rail's description with its streams, throughput, share_of_best and
 *  short. */
cJSON *rp_report_rails_json(const struct rp_result *r);

/** rp_report_directions_json - "directions" of @r (null unless bidir). */
cJSON *rp_report_directions_json(const struct rp_result *r);

/* CSV (csv.c): the header and a result's row, each ending the line; a
 * NULL result gives empty cells. A string or a JSON value as one cell. */
void rp_report_csv_header(FILE *f);
void rp_report_csv_row(FILE *f, const cJSON *result);
void rp_report_csv_str(FILE *f, const char *s);
void rp_report_csv_cell(FILE *f, const cJSON *v);

/* --matrix (matrix/text.c): what a table is of, "tcp write 64 KiB q16". */
void rp_matrix_label(const cJSON *tab, char *buf, size_t len);

/* --matrix: a rank read from a document as an index below @n, or @n where
 * it is none (a document read back may hold anything there: NaN where it
 * is not a number, a negative, one beyond the ranks). Inline here, so that
 * matrix/'s files share it without calling into each other. */
static inline size_t rp_matrix_rank_index(double v, size_t n)
{
	return v >= 0 && v < (double)n ? (size_t)v : n;
}

/* The file transport (text/file.c) */

/** rp_report_file_of - the file transport's information of @r (path,
 *  direct, access, file_size, fsync_every, created), or NULL. */
const cJSON *rp_report_file_of(const struct rp_result *r);

#endif
