/* SPDX-License-Identifier: MIT */
/* Reporters: format results for people and for machines; never measure. */
#ifndef RP_REPORT_REPORT_H
#define RP_REPORT_REPORT_H

#include <stdio.h>

#include "core/err.h"
#include "run/test.h"
#include "run/result.h"

#define RP_JSON_SCHEMA "rdmaperf/1"

/**
 * rp_report_json_doc - the whole JSON document (DESIGN.md, "Outputs"):
 * schema, version, config, hosts, results and error (the first failed
 * result's, or null). Return: the document, NULL on no memory.
 */
cJSON *rp_report_json_doc(const struct rp_test *test,
			  const struct rp_result *res, size_t n);

/**
 * rp_report_json_skeleton - a document's frame, in DESIGN.md's order:
 * "schema", "version", "config" (@config, taken over; NULL: null), "hosts"
 * (@hosts, the same) and an empty "results" array, into *@results when
 * @results is not NULL (NULL there on no memory). The caller adds the
 * results, then "error".
 * Return: the document, NULL on no memory (@config and @hosts freed).
 */
cJSON *rp_report_json_skeleton(cJSON *config, cJSON *hosts, cJSON **results);

/** rp_report_config_json - the document's "config": the test as asked. */
cJSON *rp_report_config_json(const struct rp_test *test);

/** rp_report_result_json - one element of the document's "results". */
cJSON *rp_report_result_json(const struct rp_result *r);

/** rp_report_interval_json - one interval: index, start, the flow's
 *  fields and, with several streams, "per_stream". */
cJSON *rp_report_interval_json(const struct rp_interval *iv);

/** rp_report_json - print rp_report_json_doc to @f. Return: 0 or -errno. */
int rp_report_json(FILE *f, const struct rp_test *test,
		   const struct rp_result *res, size_t n);

/** rp_report_json_print - @doc, indented, on @f; @doc freed. Return: 0
 *  or -errno (-ENOMEM; -EIO: @f's error flag is set). */
int rp_report_json_print(FILE *f, cJSON *doc);

/**
 * rp_report_safe_dup - a copy of @doc whose every string and key is safe to
 * print (core/safe.h): for a document gathered from elsewhere.
 * Return: the copy, NULL on no memory.
 */
cJSON *rp_report_safe_dup(const cJSON *doc);

/** rp_report_text - the summary block of each result, for people. */
void rp_report_text(FILE *f, const struct rp_test *test,
		    const struct rp_result *res, size_t n);

/**
 * rp_report_out_check - whether everything written to @f arrived: @f
 * flushed, its error flag read. The writers above do not flush; whoever
 * owns the stream calls this once they are done.
 * Return: 0, or -errno (-EIO when a write failed earlier for a reason
 * since forgotten).
 */
int rp_report_out_check(FILE *f);

/**
 * rp_report_csv - a header row, then one row per result (transport-major,
 * then the sweep's points): the test's totals, columns in the fixed order
 * of the man page, numbers without units, RFC 4180 quoting. Return: 0 or
 * -errno (-ENOMEM; -EIO: @f's error flag is set).
 */
int rp_report_csv(FILE *f, const struct rp_test *test,
		  const struct rp_result *res, size_t n);

/**
 * rp_report_plot - draw @res into the SVG file @path: against message size
 * when the sweep has several sizes; else throughput and p99 over time when
 * the results have intervals; else the latency distribution (under load
 * and unloaded). Return: 0, or -errno with the reason in @why.
 */
int rp_report_plot(const char *path, const struct rp_test *test,
		   const struct rp_result *res, size_t n, struct rp_err *why);

/** A saved result document, read back (--report). */
struct rp_report_doc {
	struct rp_test test;
	struct rp_result *res;
	size_t n;
	char host[256];		/* test.host points here */
	char error[RP_ERR_LEN]; /* the document's error message; "" if none */
};

/**
 * rp_report_load - read the JSON document rp_report_json() wrote (schema
 * RP_JSON_SCHEMA) from @path into @doc: the config as asked and every
 * result, such that rp_report_json_doc() of it gives the same document
 * back. A document of another schema, or not one at all, is refused.
 * Return: 0, or -errno (-EINVAL: not a result document) with @why.
 */
int rp_report_load(const char *path, struct rp_report_doc *doc,
		   struct rp_err *why);

/** rp_report_doc_free - free what @doc holds; @doc itself stays. */
void rp_report_doc_free(struct rp_report_doc *doc);

#endif
