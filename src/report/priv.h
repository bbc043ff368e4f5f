/* SPDX-License-Identifier: MIT */
/*
 * What the reporters share inside report/: the JSON pieces of a flow, and
 * the text layouts (one block per point, a sweep table, per-metric tables
 * across transports). Formatting only.
 */
#ifndef RP_REPORT_PRIV_H
#define RP_REPORT_PRIV_H

#include <stdio.h>

#include "report/report.h"

/* JSON (json_flow.c) */

/** rp_report_num - @v under @key, null when not finite. */
void rp_report_num(cJSON *obj, const char *key, double v);

/** rp_report_add_or_null - @item under @key when @present, else null (and
 *  @item freed). */
void rp_report_add_or_null(cJSON *obj, const char *key, bool present,
			   cJSON *item);

/** rp_report_point_cells - size and depth of point @p of @cfg's sweep. */
void rp_report_point_cells(FILE *f, const struct rp_config *cfg,
			   const struct rp_result *r, size_t p);

/** rp_report_text_open_loop - --rate: offered, achieved, the backlog. */
void rp_report_text_open_loop(FILE *f, const struct rp_result *r);

/** rp_report_batching - "signal", "post_list" into @o when set. */
void rp_report_batching(cJSON *o, const struct rp_spec *sp);

/** rp_report_rates_json - the config's "rates" or "load_curve", if any. */
void rp_report_rates_json(const struct rp_config *cfg, cJSON *c);

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

/** rp_report_directions_json - "directions" of @r (null unless bidir). */
cJSON *rp_report_directions_json(const struct rp_result *r);

/* CSV (csv.c): the header and a result's row, each ending the line; a
 * NULL result gives empty cells. A string or a JSON value as one cell. */
void rp_report_csv_header(FILE *f);
void rp_report_csv_row(FILE *f, const cJSON *result);
void rp_report_csv_str(FILE *f, const char *s);
void rp_report_csv_cell(FILE *f, const cJSON *v);

/* --matrix (matrix_text.c): what a table is of, "tcp write 64 KiB q16". */
void rp_matrix_label(const cJSON *tab, char *buf, size_t len);

/* --matrix (matrix.c): a rank read from a document as an index below @n,
 * or @n where it is none (a document read back may hold anything there:
 * NaN where it is not a number, a negative, one beyond the ranks). */
size_t rp_matrix_rank_index(double v, size_t n);

/* Text (text.c, text_detail.c, text_sweep.c) */

/** A sweep's shape: @n results are n_transports x n_points. */
struct rp_report_shape {
	size_t n_points;
	size_t n_transports;
};

/** rp_report_text_title - a sweep's first line and the server's. */
void rp_report_text_title(FILE *f, const struct rp_config *cfg,
			  const struct rp_result *res,
			  struct rp_report_shape shape);

/** rp_report_text_load - a sweep with rates: a table per transport. */
void rp_report_text_load(FILE *f, const struct rp_config *cfg,
			 const struct rp_result *res,
			 struct rp_report_shape shape);

/** rp_report_shape - the shape of @n results of @cfg; one point per result
 *  when @n does not divide into the sweep's points. */
struct rp_report_shape rp_report_shape(const struct rp_config *cfg, size_t n);

/** rp_report_host_name - "hostname" of a host-info object, or "?". */
const char *rp_report_host_name(const cJSON *h);

/** rp_report_test_flags - ", 4 streams over 2 threads, wait event, both
 *  directions, on cpus 2,3": what differs from one stream, one thread,
 *  busy-polling, one way, no pinning. */
void rp_report_test_flags(FILE *f, const struct rp_config *cfg,
			  const struct rp_spec *sp);

/** rp_report_server_line - "  server NAME (HOST port N)" and a newline. */
void rp_report_server_line(FILE *f, const struct rp_config *cfg,
			   const struct rp_result *r);

/** rp_report_text_streams - per-direction and per-stream lines of @r. */
void rp_report_text_streams(FILE *f, const struct rp_result *r);

/** rp_report_text_zerocopy - --zerocopy: one line, the zero-copy sends of
 *  the @n results (both sides) and how many the kernel copied anyway;
 *  nothing when it was off. */
void rp_report_text_zerocopy(FILE *f, const struct rp_result *res, size_t n);

/** rp_report_text_cpu - the CPU lines of one side. */
void rp_report_text_cpu(FILE *f, const char *name, const struct rp_side *s);

/* The NUMA nodes of each side's device and buffers, from the transports'
 * information (text_detail.c). */
void rp_report_text_numa(FILE *f, const struct rp_result *r);

/** rp_report_text_compare - one point on several transports: a row per
 *  figure, a column per result, ratios to the first. */
void rp_report_text_compare(FILE *f, const struct rp_result *res, size_t n);

/** rp_report_text_sweep - one transport's sweep: a row per point. */
void rp_report_text_sweep(FILE *f, const struct rp_config *cfg,
			  const struct rp_result *res, size_t n);

/** rp_report_text_matrix - several transports' sweeps: a table per metric,
 *  a column per transport, ratios to the first. */
void rp_report_text_matrix(FILE *f, const struct rp_config *cfg,
			   const struct rp_result *res,
			   struct rp_report_shape shape);

/* The file transport (text_file.c) */

/** rp_report_file_of - the file transport's information of @r (path,
 *  direct, access, file_size, fsync_every, created), or NULL. */
const cJSON *rp_report_file_of(const struct rp_result *r);

/** rp_report_text_file - "  LABEL PATH: O_DIRECT, sequential, ..." for a
 *  result of the file transport. Return: false (nothing printed) for
 *  any other. */
bool rp_report_text_file(FILE *f, const char *label, const struct rp_result *r);

/** rp_report_column - the name of column @t of @n, whose results are
 *  @stride apart: its transport, "file #2" where several share it. */
void rp_report_column(const struct rp_result *res, size_t n, size_t stride,
		      size_t t, char *buf, size_t len);

/** rp_report_text_files - the file line of each column that is a file. */
void rp_report_text_files(FILE *f, const struct rp_result *res, size_t n,
			  size_t stride);

/** rp_report_text_clock - a line when the client's clock (its host info)
 *  took RP_CLOCK_SLOW_NS or more a read and @r has latency figures. */
void rp_report_text_clock(FILE *f, const struct rp_result *r);

/** rp_report_text_notes - what the figures of @res mean, and the
 *  transports' notes, each once. */
void rp_report_text_notes(FILE *f, const struct rp_result *res, size_t n);

#endif
