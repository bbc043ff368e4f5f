/* SPDX-License-Identifier: MIT */
/*
 * What the text layouts share inside report/: text/text.c (the entry, one
 * block per point), text/table.c (a sweep table, per-metric tables across
 * transports), text/rates.c (a sweep with rates), text/detail.c (a block's
 * detail lines), text/file.c (the file transport's lines) and, below the
 * entry and the tables, text/common.c (the shape, title, flags, notes).
 * Formatting only.
 */
#ifndef RP_REPORT_TEXT_H
#define RP_REPORT_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "report/report.h"

/* text/common.c, the bottom of text/text.c, text/table.c and text/rates.c */

/** A sweep's shape: @n results are n_transports x n_points. */
struct rp_report_shape {
	size_t n_points;
	size_t n_transports;
};

/** rp_report_shape - the shape of @n results of @test; one point per result
 *  when @n does not divide into the sweep's points. */
struct rp_report_shape rp_report_shape(const struct rp_test *test, size_t n);

/** rp_report_host_name - "hostname" of a host-info object, or "?". */
const char *rp_report_host_name(const cJSON *h);

/** rp_report_test_flags - ", 4 streams over 2 threads, wait event, both
 *  directions, on cpus 2,3": what differs from one stream, one thread,
 *  busy-polling, one way, no pinning. */
void rp_report_test_flags(FILE *f, const struct rp_test *test,
			  const struct rp_spec *sp);

/** rp_report_server_line - "  server NAME (HOST port N)" and a newline. */
void rp_report_server_line(FILE *f, const struct rp_test *test,
			   const struct rp_result *r);

/** rp_report_text_clock - a line when the client's clock (its host info)
 *  took RP_CLOCK_SLOW_NS or more a read and @r has latency figures. */
void rp_report_text_clock(FILE *f, const struct rp_result *r);

/** rp_report_point_cells - size and depth of point @p of @test's sweep. */
void rp_report_point_cells(FILE *f, const struct rp_test *test,
			   const struct rp_result *r, size_t p);

/** rp_report_text_title - a sweep's first line and the server's. */
void rp_report_text_title(FILE *f, const struct rp_test *test,
			  const struct rp_result *res,
			  struct rp_report_shape shape);

/** rp_report_text_notes - what the figures of @res mean, and the
 *  transports' notes, each once. */
void rp_report_text_notes(FILE *f, const struct rp_result *res, size_t n);

/* text/table.c */

/** rp_report_text_compare - one point on several transports: a row per
 *  figure, a column per result, ratios to the first. */
void rp_report_text_compare(FILE *f, const struct rp_result *res, size_t n);

/** rp_report_text_sweep - one transport's sweep: a row per point. */
void rp_report_text_sweep(FILE *f, const struct rp_test *test,
			  const struct rp_result *res, size_t n);

/** rp_report_text_matrix - several transports' sweeps: a table per metric,
 *  a column per transport, ratios to the first. */
void rp_report_text_matrix(FILE *f, const struct rp_test *test,
			   const struct rp_result *res,
			   struct rp_report_shape shape);

/* text/rates.c */

/** rp_report_text_load - a sweep with rates: a table per transport. */
void rp_report_text_load(FILE *f, const struct rp_test *test,
			 const struct rp_result *res,
			 struct rp_report_shape shape);

/* text/detail.c */

/** rp_report_text_flow - one line of what @fl moved, after @label: Gb/s,
 *  MiB/s, msg/s, then messages, bytes and seconds. */
void rp_report_text_flow(FILE *f, const char *label, const struct rp_flow *fl);

/** rp_report_text_open_loop - --rate: offered, achieved, the backlog. */
void rp_report_text_open_loop(FILE *f, const struct rp_result *r);

/** rp_report_text_streams - per-direction and per-stream lines of @r. */
void rp_report_text_streams(FILE *f, const struct rp_result *r);
/* mcast.c: --mcast, a row a receiver */
void rp_report_text_mcast(FILE *f, const struct rp_result *r);

/** rp_report_text_asked - --tos and --mem: a line each where asked for
 *  (the first of @res that has either: one command line asks once). */
void rp_report_text_asked(FILE *f, const struct rp_result *res, size_t n);
void rp_report_text_srq(FILE *f, const struct rp_result *res, size_t n);

/** rp_report_text_loss - --qp ud: messages sent that did not arrive, pings
 *  without an answer, over the @n results. */
void rp_report_text_loss(FILE *f, const struct rp_result *res, size_t n);

/** rp_report_text_zerocopy - --zerocopy: one line, the zero-copy sends of
 *  the @n results (both sides) and how many the kernel copied anyway;
 *  nothing when it was off. */
void rp_report_text_zerocopy(FILE *f, const struct rp_result *res, size_t n);

/** rp_report_text_cpu - the CPU lines of one side. */
void rp_report_text_cpu(FILE *f, const char *name, const struct rp_side *s);

/** rp_report_text_numa - the NUMA nodes of each side's device and
 *  buffers, from the transports' information. */
void rp_report_text_numa(FILE *f, const struct rp_result *r);

/* The link, its counters and the verdict (text/link.c) */

/** rp_report_text_link - each side's link facts, and the share of the
 *  rated rate moved; nothing when neither side said what its link is. */
void rp_report_text_link(FILE *f, const struct rp_result *r);

/** rp_report_text_counters - "counters clean" or what the NICs counted
 *  of errors and congestion over the point; nothing without counters. */
void rp_report_text_counters(FILE *f, const struct rp_result *r);

/** rp_report_text_verdict - --expect's PASS or FAIL line, and --retry's. */
void rp_report_text_verdict(FILE *f, const struct rp_result *r);

/** rp_report_text_verdicts - a sweep's verdict: PASS over every point
 *  judged, or FAIL with a line per failing point. */
void rp_report_text_verdicts(FILE *f, const struct rp_result *res, size_t n);

/* --repeat (text/repeat.c) */

/** rp_report_text_repeat - each figure over a point's repetitions, its
 *  ratio to the first transport's, the warnings; nothing without. */
void rp_report_text_repeat(FILE *f, const struct rp_result *r);

/** rp_report_text_repeats - the same after a sweep's table, per point. */
void rp_report_text_repeats(FILE *f, const struct rp_result *res, size_t n);

/* --slo (text/slo.c) */

/** rp_report_text_slo - the rate found, where the search stopped and
 *  the curve it walked; nothing without a search. */
void rp_report_text_slo(FILE *f, const struct rp_result *r);

/* The file transport (text/file.c) */

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

#endif
