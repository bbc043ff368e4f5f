// SPDX-License-Identifier: MIT
/*
 * CSV reporter: a header row, then one row per result (transport-major,
 * then the sweep's points), the test's totals. Each column is a field of
 * the JSON document's result, named by its path in one const table: the
 * order is fixed there, and a cell is the JSON value itself, printed by
 * cJSON, so the CSV holds the same numbers in the same units (latencies
 * in microseconds) as --json, digit for digit. A null or absent field is
 * an empty cell. RFC 4180: CRLF line ends, a cell holding a comma, quote,
 * CR or LF is quoted with its quotes doubled. doc/csv-columns.txt lists
 * the columns for the man page; keep the two in step.
 */
#include <errno.h>
#include <string.h>

#include "report/priv.h"

#define CSV_EOL "\r\n"

/* One column: its header and the JSON path, in a result, of its value. */
struct csv_col {
	const char *name;
	const char *path;
};

static const struct csv_col csv_cols[] = {
	{ "transport", "transport" },
	{ "point", "point" },
	{ "op", "op" },
	{ "size", "size" },
	{ "queue_depth", "queue_depth" },
	{ "streams", "streams" },
	{ "threads", "threads" },
	{ "bidir", "bidir" },
	{ "wait", "wait" },
	{ "iterations", "iterations" },
	{ "duration_s", "duration_s" },
	{ "ok", "ok" },
	{ "bytes", "bytes" },
	{ "messages", "messages" },
	{ "seconds", "seconds" },
	{ "bits_per_second", "throughput.bits_per_second" },
	{ "mib_per_second", "throughput.mib_per_second" },
	{ "messages_per_second", "throughput.messages_per_second" },
	{ "latency_count", "latency.count" },
	{ "latency_min_us", "latency.min" },
	{ "latency_mean_us", "latency.mean" },
	{ "latency_p50_us", "latency.p50" },
	{ "latency_p90_us", "latency.p90" },
	{ "latency_p99_us", "latency.p99" },
	{ "latency_p99_9_us", "latency.p99_9" },
	{ "latency_p99_99_us", "latency.p99_99" },
	{ "latency_max_us", "latency.max" },
	{ "latency_stddev_us", "latency.stddev" },
	{ "unloaded_count", "latency_unloaded.count" },
	{ "unloaded_min_us", "latency_unloaded.min" },
	{ "unloaded_mean_us", "latency_unloaded.mean" },
	{ "unloaded_p50_us", "latency_unloaded.p50" },
	{ "unloaded_p90_us", "latency_unloaded.p90" },
	{ "unloaded_p99_us", "latency_unloaded.p99" },
	{ "unloaded_p99_9_us", "latency_unloaded.p99_9" },
	{ "unloaded_p99_99_us", "latency_unloaded.p99_99" },
	{ "unloaded_max_us", "latency_unloaded.max" },
	{ "unloaded_stddev_us", "latency_unloaded.stddev" },
	{ "rtt_p50_us", "latency_unloaded.rtt_p50" },
	{ "rtt_p99_us", "latency_unloaded.rtt_p99" },
	{ "fairness", "fairness" },
	{ "c2s_bits_per_second",
	  "directions.client_to_server.throughput.bits_per_second" },
	{ "s2c_bits_per_second",
	  "directions.server_to_client.throughput.bits_per_second" },
	{ "interval_min_bits_per_second",
	  "interval_range.min_bits_per_second" },
	{ "interval_max_bits_per_second",
	  "interval_range.max_bits_per_second" },
	{ "client_user_s", "cpu.client.user_s" },
	{ "client_sys_s", "cpu.client.sys_s" },
	{ "client_us_per_kib", "cpu.client.us_per_kib" },
	{ "client_cycles_per_kib", "cpu.client.cycles_per_kib" },
	{ "server_user_s", "cpu.server.user_s" },
	{ "server_sys_s", "cpu.server.sys_s" },
	{ "server_us_per_kib", "cpu.server.us_per_kib" },
	{ "server_cycles_per_kib", "cpu.server.cycles_per_kib" },
	{ "client_verify_errors", "cpu.client.verify_errors" },
	{ "server_verify_errors", "cpu.server.verify_errors" },
	{ "error_code", "error.code" },
	{ "error", "error.message" },
	{ "signal", "signal" },
	{ "post_list", "post_list" },
	{ "offered_ops_per_second", "rate.offered_ops_per_second" },
	{ "achieved_ops_per_second", "rate.achieved_ops_per_second" },
	{ "saturated", "rate.saturated" },
	{ "unsent", "rate.unsent" },
	{ "corrected_p50_us", "rate.latency_corrected.p50" },
	{ "corrected_p99_us", "rate.latency_corrected.p99" },
	{ "corrected_p99_9_us", "rate.latency_corrected.p99_9" },
	{ "corrected_max_us", "rate.latency_corrected.max" },
	{ "file_path", "file.path" },
	{ "file_direct", "file.direct" },
	{ "file_access", "file.access" },
	{ "file_size", "file.file_size" },
	{ "file_fsync_every", "file.fsync_every" },
	{ "loss_sent", "loss.sent" },
	{ "loss_lost", "loss.lost" },
	{ "pings_lost", "loss.pings_lost" },
};

#define N_COLS (sizeof(csv_cols) / sizeof(csv_cols[0]))

/* The item at the dotted @path under @o, NULL when a step is missing. */
static const cJSON *csv_at(const cJSON *o, const char *path)
{
	char key[64];
	const char *dot;
	size_t len;

	while (o && *path) {
		dot = strchr(path, '.');
		len = dot ? (size_t)(dot - path) : strlen(path);
		if (len >= sizeof(key) || !cJSON_IsObject(o))
			return NULL;
		memcpy(key, path, len);
		key[len] = '\0';
		o = cJSON_GetObjectItemCaseSensitive(o, key);
		path += len + (dot ? 1 : 0);
	}
	return o;
}

/* @s as one cell: quoted, quotes doubled, when it holds , " CR or LF. */
void rp_report_csv_str(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* One cell: a number as cJSON prints it, true/false, a string, or
 * nothing for null, absent or anything else. */
void rp_report_csv_cell(FILE *f, const cJSON *v)
{
	char num[64];

	if (cJSON_IsNumber(v)) {
		if (cJSON_PrintPreallocated((cJSON *)v, num, sizeof(num), 0) &&
		    strcmp(num, "null"))
			fputs(num, f);
	} else if (cJSON_IsBool(v)) {
		fputs(cJSON_IsTrue(v) ? "true" : "false", f);
	} else if (cJSON_IsString(v) && v->valuestring) {
		rp_report_csv_str(f, v->valuestring);
	}
}

void rp_report_csv_header(FILE *f)
{
	size_t i;

	for (i = 0; i < N_COLS; i++) {
		if (i)
			fputc(',', f);
		rp_report_csv_str(f, csv_cols[i].name);
	}
	fputs(CSV_EOL, f);
}

void rp_report_csv_row(FILE *f, const cJSON *result)
{
	size_t i;

	for (i = 0; i < N_COLS; i++) {
		if (i)
			fputc(',', f);
		rp_report_csv_cell(f, csv_at(result, csv_cols[i].path));
	}
	fputs(CSV_EOL, f);
}

int rp_report_csv(FILE *f, const struct rp_test *test,
		  const struct rp_result *res, size_t n)
{
	cJSON *doc = rp_report_json_doc(test, res, n);
	const cJSON *results, *r;
	int err = 0;

	results = cJSON_GetObjectItemCaseSensitive(doc, "results");
	if (!doc || cJSON_GetArraySize(results) != (int)n) {
		cJSON_Delete(doc);
		return -ENOMEM;
	}
	rp_report_csv_header(f);
	for (r = results->child; r; r = r->next)
		rp_report_csv_row(f, r);
	if (ferror(f))
		err = -EIO;
	cJSON_Delete(doc);
	return err;
}
