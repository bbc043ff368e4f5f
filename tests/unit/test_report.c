// SPDX-License-Identifier: MIT
/*
 * Unit tests of report/: the JSON document (the shape DESIGN.md fixes under
 * "Outputs", latencies in microseconds, an error object when a test failed,
 * null for what did not run) and the text block, from results built by hand
 * with known numbers: 1000 messages of 4096 B in 0.5 s.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report/report.h"

#define MSGS 1000
#define SIZE 4096
#define SECS 0.5

static struct rp_config cfg;
static struct rp_result res[3];

static void fill_summary(struct rp_hist_summary *s, double scale)
{
	s->count = MSGS;
	s->min = 1000 * scale;
	s->mean = 2500 * scale;
	s->p50 = 2000 * scale;
	s->p90 = 4000 * scale;
	s->p99 = 8000 * scale;
	s->p99_9 = 9000 * scale;
	s->p99_99 = 9500 * scale;
	s->max = 10000 * scale;
	s->stddev = 1500 * scale;
}

static void fill_side(struct rp_side *s, double user_s)
{
	s->present = true;
	s->cpu.user_s = user_s;
	s->cpu.sys_s = 0.25;
	s->cpu.us_per_kib = 12.5;
	s->cpu.host_busy_s = 0.75;
	s->cpu.host_util = 0.5;
	s->messages = MSGS;
	s->bytes = (uint64_t)MSGS * SIZE;
}

/* A complete, successful write test on tcp. */
static void good_result(struct rp_result *r)
{
	rp_result_fini(r);
	memset(r, 0, sizeof(*r));
	snprintf(r->transport, sizeof(r->transport), "tcp");
	r->spec = cfg.spec;
	r->warmup_messages = 100;
	r->has_bandwidth = true;
	r->messages = MSGS;
	r->bytes = (uint64_t)MSGS * SIZE;
	r->seconds = SECS;
	r->bits_per_second = (double)r->bytes * 8 / SECS;
	r->mib_per_second = (double)r->bytes / 1048576.0 / SECS;
	r->messages_per_second = MSGS / SECS;
	r->has_latency = true;
	fill_summary(&r->latency, 1);
	r->has_unloaded = true;
	fill_summary(&r->unloaded, 0.5);
	fill_summary(&r->rtt, 1);
	r->unloaded_halved = true;
	fill_side(&r->client, 0.125);
	fill_side(&r->server, 0.375);
}

/* A test that failed before measuring anything. */
static void failed_result(struct rp_result *r, const char *code,
			  const char *msg)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->transport, sizeof(r->transport), "tcp");
	r->spec = cfg.spec;
	r->failed = true;
	snprintf(r->error_code, sizeof(r->error_code), "%s", code);
	snprintf(r->error, sizeof(r->error), "%s", msg);
}

static int setup(void **state)
{
	(void)state;
	memset(&cfg, 0, sizeof(cfg));
	cfg.mode = RP_MODE_CLIENT;
	cfg.host = "server.example";
	cfg.port = 18520;
	cfg.n_transports = 1;
	snprintf(cfg.transports[0], RP_SPEC_NAME_LEN, "tcp");
	rp_spec_defaults(&cfg.spec);
	cfg.spec.size_bytes = SIZE;
	cfg.spec.iterations = MSGS;
	cfg.spec.warmup = 100;
	good_result(&res[0]);
	/* the client fills this in when the run starts; report/ only copies */
	res[0].client_host = cJSON_CreateObject();
	cJSON_AddStringToObject(res[0].client_host, "hostname", "cli");
	return 0;
}

static int teardown(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(res) / sizeof(*res); i++)
		rp_result_fini(&res[i]);
	return 0;
}

/* The item at a dotted path, array elements by index: "results.0.bytes". */
static const cJSON *at(const cJSON *o, const char *path)
{
	char key[64];
	const char *dot;
	size_t len;

	while (o && *path) {
		dot = strchr(path, '.');
		len = dot ? (size_t)(dot - path) : strlen(path);
		assert_true(len < sizeof(key));
		memcpy(key, path, len);
		key[len] = '\0';
		if (cJSON_IsArray(o))
			o = cJSON_GetArrayItem(o, atoi(key));
		else
			o = cJSON_GetObjectItemCaseSensitive(o, key);
		path += len + (dot ? 1 : 0);
	}
	if (!o)
		fail_msg("no item at %s", path);
	return o;
}

static void assert_num(const cJSON *doc, const char *path, double want)
{
	const cJSON *n = at(doc, path);

	if (!cJSON_IsNumber(n))
		fail_msg("%s is not a number", path);
	if (fabs(n->valuedouble - want) > 1e-9 * fmax(1, fabs(want)))
		fail_msg("%s = %.17g, want %.17g", path, n->valuedouble, want);
}

static void assert_str(const cJSON *doc, const char *path, const char *want)
{
	const cJSON *s = at(doc, path);

	if (!cJSON_IsString(s))
		fail_msg("%s is not a string", path);
	assert_string_equal(s->valuestring, want);
}

static void assert_null_at(const cJSON *doc, const char *path)
{
	if (!cJSON_IsNull(at(doc, path)))
		fail_msg("%s is not null", path);
}

static void assert_bool_at(const cJSON *doc, const char *path, bool want)
{
	const cJSON *b = at(doc, path);

	if (!cJSON_IsBool(b))
		fail_msg("%s is not a boolean", path);
	assert_int_equal(cJSON_IsTrue(b), want);
}

/* Latency fields of a summary made by fill_summary(@scale), in us. */
static void assert_latency(const cJSON *doc, const char *path, double scale)
{
	static const struct {
		const char *key;
		double ns;
	} f[] = {
		{ "min", 1000 },    { "mean", 2500 }, { "p50", 2000 },
		{ "p90", 4000 },    { "p99", 8000 },  { "p99_9", 9000 },
		{ "p99_99", 9500 }, { "max", 10000 }, { "stddev", 1500 },
	};
	char p[96];
	size_t i;

	snprintf(p, sizeof(p), "%s.unit", path);
	assert_str(doc, p, "us");
	snprintf(p, sizeof(p), "%s.count", path);
	assert_num(doc, p, MSGS);
	for (i = 0; i < sizeof(f) / sizeof(*f); i++) {
		snprintf(p, sizeof(p), "%s.%s", path, f[i].key);
		assert_num(doc, p, f[i].ns * scale / 1000);
	}
}

static void assert_side(const cJSON *doc, const char *path, double user_s)
{
	char p[96];

	snprintf(p, sizeof(p), "%s.user_s", path);
	assert_num(doc, p, user_s);
	snprintf(p, sizeof(p), "%s.sys_s", path);
	assert_num(doc, p, 0.25);
	snprintf(p, sizeof(p), "%s.us_per_kib", path);
	assert_num(doc, p, 12.5);
	snprintf(p, sizeof(p), "%s.host_util", path);
	assert_num(doc, p, 0.5);
	snprintf(p, sizeof(p), "%s.messages", path);
	assert_num(doc, p, MSGS);
	snprintf(p, sizeof(p), "%s.bytes", path);
	assert_num(doc, p, (double)MSGS * SIZE);
}

static void test_json_good(void **state)
{
	cJSON *doc = rp_report_json_doc(&cfg, res, 1);

	(void)state;
	assert_non_null(doc);
	assert_str(doc, "schema", "rdmaperf/1");
	assert_str(doc, "schema", RP_JSON_SCHEMA);
	assert_str(doc, "version", RP_VERSION);

	assert_str(doc, "config.transport", "tcp");
	assert_str(doc, "config.op", "write");
	assert_num(doc, "config.size", SIZE);
	assert_num(doc, "config.queue_depth", 16);
	assert_num(doc, "config.iterations", MSGS);
	assert_num(doc, "config.warmup", 100);
	assert_num(doc, "config.duration_s", 0);
	assert_str(doc, "config.server", "server.example");
	assert_num(doc, "config.port", 18520);

	assert_true(cJSON_IsObject(at(doc, "hosts.client")));
	assert_str(doc, "hosts.client.hostname", "cli");
	assert_null_at(doc, "hosts.server");

	assert_int_equal(cJSON_GetArraySize(at(doc, "results")), 1);
	assert_str(doc, "results.0.transport", "tcp");
	assert_str(doc, "results.0.op", "write");
	assert_num(doc, "results.0.size", SIZE);
	assert_num(doc, "results.0.queue_depth", 16);
	assert_num(doc, "results.0.streams", 1);
	assert_bool_at(doc, "results.0.ok", true);
	assert_num(doc, "results.0.bytes", 4096000);
	assert_num(doc, "results.0.messages", MSGS);
	assert_num(doc, "results.0.seconds", SECS);
	assert_num(doc, "results.0.warmup_messages", 100);
	assert_num(doc, "results.0.throughput.bits_per_second", 65536000);
	assert_num(doc, "results.0.throughput.mib_per_second", 7.8125);
	assert_num(doc, "results.0.throughput.messages_per_second", 2000);
	assert_latency(doc, "results.0.latency", 1);
	assert_latency(doc, "results.0.latency_unloaded", 0.5);
	assert_num(doc, "results.0.latency_unloaded.rtt_p50", 2);
	assert_num(doc, "results.0.latency_unloaded.rtt_p99", 8);
	assert_str(doc, "results.0.latency_unloaded.method", "half round trip");
	assert_side(doc, "results.0.cpu.client", 0.125);
	assert_side(doc, "results.0.cpu.server", 0.375);
	assert_null_at(doc, "results.0.error");
	assert_null_at(doc, "error");
	cJSON_Delete(doc);
}

static void test_json_failed(void **state)
{
	cJSON *doc;

	(void)state;
	failed_result(&res[1], "connect", "cannot reach server.example");
	failed_result(&res[2], "verify", "payload check failed");
	doc = rp_report_json_doc(&cfg, res, 3);
	assert_non_null(doc);
	assert_int_equal(cJSON_GetArraySize(at(doc, "results")), 3);
	assert_bool_at(doc, "results.0.ok", true);
	assert_null_at(doc, "results.0.error");
	assert_bool_at(doc, "results.1.ok", false);
	assert_str(doc, "results.1.error.code", "connect");
	assert_str(doc, "results.1.error.message",
		   "cannot reach server.example");
	assert_bool_at(doc, "results.2.ok", false);
	assert_str(doc, "results.2.error.code", "verify");
	/* The document's error is the first failure's. */
	assert_str(doc, "error.code", "connect");
	assert_str(doc, "error.message", "cannot reach server.example");
	/* Nothing was measured: no numbers are made up. */
	assert_null_at(doc, "results.1.throughput");
	assert_null_at(doc, "results.1.latency");
	assert_null_at(doc, "results.1.latency_unloaded");
	assert_null_at(doc, "results.1.cpu");
	assert_num(doc, "results.1.messages", 0);
	cJSON_Delete(doc);
}

static void test_json_missing_phases(void **state)
{
	cJSON *doc;

	(void)state;
	res[0].has_latency = false;
	res[0].has_unloaded = false;
	res[0].server.present = false;
	doc = rp_report_json_doc(&cfg, res, 1);
	assert_null_at(doc, "results.0.latency");
	assert_null_at(doc, "results.0.latency_unloaded");
	assert_null_at(doc, "results.0.cpu.server");
	assert_side(doc, "results.0.cpu.client", 0.125);
	assert_num(doc, "results.0.throughput.messages_per_second", 2000);
	cJSON_Delete(doc);

	/* Latency only: no throughput, no cpu. */
	good_result(&res[0]);
	res[0].has_bandwidth = false;
	res[0].unloaded_halved = false;
	doc = rp_report_json_doc(&cfg, res, 1);
	assert_null_at(doc, "results.0.throughput");
	assert_null_at(doc, "results.0.cpu");
	assert_str(doc, "results.0.latency_unloaded.method", "whole operation");
	cJSON_Delete(doc);
}

static void test_json_hosts_and_info(void **state)
{
	cJSON *doc, *o;

	(void)state;
	res[0].server_host = cJSON_CreateObject();
	cJSON_AddStringToObject(res[0].server_host, "hostname", "srv");
	res[0].client_info = cJSON_CreateObject();
	cJSON_AddNumberToObject(res[0].client_info, "mtu", 4096);
	res[0].server_info = cJSON_CreateObject();
	cJSON_AddStringToObject(res[0].server_info, "device", "rxe0");
	doc = rp_report_json_doc(&cfg, res, 1);
	assert_str(doc, "hosts.server.hostname", "srv");
	assert_num(doc, "results.0.client_transport.mtu", 4096);
	assert_str(doc, "results.0.server_transport.device", "rxe0");
	/* The document holds copies: changing the result leaves it alone. */
	o = cJSON_GetObjectItemCaseSensitive(res[0].server_host, "hostname");
	cJSON_SetValuestring(o, "other");
	assert_str(doc, "hosts.server.hostname", "srv");
	cJSON_Delete(doc);
}

static void test_json_config_shapes(void **state)
{
	const cJSON *t;
	cJSON *doc;

	(void)state;
	cfg.n_transports = 2;
	snprintf(cfg.transports[1], RP_SPEC_NAME_LEN, "rdma");
	cfg.spec.iterations = 0;
	cfg.spec.duration_ns = 2500000000ULL;
	cfg.spec.op = RP_OP_READ;
	doc = rp_report_json_doc(&cfg, res, 0);
	t = at(doc, "config.transport");
	assert_true(cJSON_IsArray(t));
	assert_int_equal(cJSON_GetArraySize(t), 2);
	assert_str(doc, "config.transport.0", "tcp");
	assert_str(doc, "config.transport.1", "rdma");
	assert_str(doc, "config.op", "read");
	assert_num(doc, "config.iterations", 0);
	assert_num(doc, "config.duration_s", 2.5);
	assert_int_equal(cJSON_GetArraySize(at(doc, "results")), 0);
	assert_null_at(doc, "error");
	cJSON_Delete(doc);
}

/* The printed document is valid JSON and the same document. */
static void test_json_print(void **state)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	cJSON *doc;

	(void)state;
	assert_non_null(f);
	failed_result(&res[1], "setup", "a \"quoted\"\nmessage");
	assert_int_equal(rp_report_json(f, &cfg, res, 2), 0);
	assert_int_equal(fclose(f), 0);
	doc = cJSON_Parse(text);
	assert_non_null(doc);
	assert_str(doc, "schema", "rdmaperf/1");
	assert_num(doc, "results.0.throughput.bits_per_second", 65536000);
	assert_str(doc, "error.message", "a \"quoted\"\nmessage");
	cJSON_Delete(doc);
	free(text);
}

/* open_memstream's buffer and size live at file scope: gcc -O3 takes a
 * local's address handed to the stream for a dangling pointer. */
static char *memstream_buf;
static size_t memstream_len;

static char *text_of(const struct rp_result *r, size_t n)
{
	FILE *f = open_memstream(&memstream_buf, &memstream_len);

	assert_non_null(f);
	rp_report_text(f, &cfg, r, n);
	assert_int_equal(fclose(f), 0);
	return memstream_buf;
}

static void assert_has(const char *text, const char *needle)
{
	if (!strstr(text, needle))
		fail_msg("text lacks \"%s\":\n%s", needle, text);
}

static void test_text_good(void **state)
{
	char *text;

	(void)state;
	res[0].server_host = cJSON_CreateObject();
	cJSON_AddStringToObject(res[0].server_host, "hostname", "srv");
	text = text_of(res, 1);
	assert_has(text, "tcp write, 4 KiB messages, queue depth 16");
	assert_has(text, "1000 operations");
	assert_has(text, "server srv (server.example port 18520)");
	assert_has(text, "0.066 Gb/s");
	assert_has(text, "7.81 MiB/s");
	assert_has(text, "2000 msg/s");
	assert_has(text, "1000 messages");
	assert_has(text, "in 0.500 s");
	assert_has(text, "latency (us)");
	assert_has(text, "under load");
	assert_has(text, "unloaded");
	assert_has(text, "half round trip");
	assert_has(text, "round trip p50 2.00 us");
	assert_has(text, "cpu client");
	assert_has(text, "cpu server");
	assert_true(strstr(text, "FAILED") == NULL);
	free(text);
}

static void test_text_failed(void **state)
{
	const char *first;
	char *text;

	(void)state;
	res[0].server.present = false;
	failed_result(&res[1], "connect", "cannot reach server.example");
	text = text_of(res, 2);
	assert_has(text, "Gb/s");
	assert_has(text, "MiB/s");
	assert_has(text, "(not reported)");
	assert_has(text, "server ? (server.example port 18520)");
	assert_has(text, "FAILED (connect): cannot reach server.example");
	/* One FAILED line, for the second result only. */
	first = strstr(text, "FAILED (");
	assert_non_null(first);
	assert_null(strstr(first + 1, "FAILED ("));
	free(text);
}

/* Several results: a comparison table, ratios to the first column. */
static void test_text_comparison(void **state)
{
	char *text;

	(void)state;
	text = text_of(res, 1);
	assert_true(strstr(text, "comparison") == NULL);
	free(text);

	good_result(&res[1]);
	snprintf(res[1].transport, sizeof(res[1].transport), "rsocket");
	res[1].bits_per_second *= 2;
	failed_result(&res[2], "setup", "no device");
	text = text_of(res, 3);
	assert_has(text, "comparison (ratio to tcp)");
	assert_has(text, "rsocket");
	assert_has(text, "0.13 (2.00x)");
	assert_has(text, "FAILED (setup): no device");
	assert_has(text, "status");
	free(text);
}

static void test_text_time_mode(void **state)
{
	char *text;

	(void)state;
	res[0].spec.iterations = 0;
	res[0].spec.duration_ns = 2000000000ULL;
	res[0].spec.verify = true;
	res[0].has_latency = false;
	res[0].has_unloaded = false;
	text = text_of(res, 1);
	assert_has(text, ", 2.0 s\n");
	assert_has(text, "payload verified");
	assert_has(text, "Gb/s");
	assert_true(strstr(text, "under load") == NULL);
	assert_true(strstr(text, "latency (us)") == NULL);
	free(text);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_json_good),	     T(test_json_failed),
		T(test_json_missing_phases), T(test_json_hosts_and_info),
		T(test_json_config_shapes),  T(test_json_print),
		T(test_text_good),	     T(test_text_failed),
		T(test_text_time_mode),	     T(test_text_comparison),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
