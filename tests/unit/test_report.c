// SPDX-License-Identifier: MIT
/*
 * Unit tests of report/: the JSON document (the shape DESIGN.md fixes under
 * "Outputs", latencies in microseconds, an error object when a test failed,
 * null for what did not run, per-stream results, both directions, sweeps)
 * and the text layouts (a block per point, a sweep table, a table per
 * metric across transports), from results built by hand with known
 * numbers: 1000 messages of 4096 B in 0.5 s.
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

#include "fixtures.h"
#include "platform/clock.h"

#define MSGS FX_MSGS
#define SIZE FX_SIZE
#define SECS 0.5

#define N_RES 8

static struct rp_config cfg;
static struct rp_result res[N_RES];
/* Per-stream results belong to the test, not to the result: fx_drop()
 * takes them back before rp_result_fini. */
static struct rp_stream_result streams[N_RES][RP_DIR__COUNT][8];

/* MSGS latencies: min 1 us * @scale, the rest in fx_summary's ratios. */
static void fill_summary(struct rp_hist_summary *s, double scale)
{
	fx_summary(s, MSGS, 1000 * scale);
}

static void fill_side(struct rp_side *s, double user_s)
{
	fx_side(s, user_s, 0.25, 3e9, MSGS, (uint64_t)MSGS * SIZE);
	s->cpu.us_per_kib = 12.5;
	s->cpu.host_busy_s = 0.75;
	s->cpu.host_util = 0.5;
	s->cpu.cycles_per_kib = 37500;
}

static void fill_flow(struct rp_flow *fl, uint64_t msgs, double secs)
{
	fill_summary(fx_flow(fl, msgs, SIZE, secs), 1);
}

/* Direction @d of @r carries @msgs messages over @n streams on @threads
 * threads, stream i getting i + 1 parts of n (n + 1) / 2 (the last takes
 * the rest); its fairness is Jain's index of their throughput. */
static void fill_direction(struct rp_result *r, enum rp_dir d, uint64_t msgs,
			   uint32_t n, uint32_t threads)
{
	struct rp_stream_result *s = streams[r - res][d];
	struct rp_direction *dir = &r->dir[d];
	uint64_t left = msgs;
	uint32_t i;

	assert_true(n <= 8);
	dir->present = true;
	fill_flow(&dir->flow, msgs, SECS);
	dir->n_streams = n;
	dir->per_stream = s;
	for (i = 0; i < n; i++) {
		s[i].stream = i;
		s[i].thread = i % threads;
		fill_flow(&s[i].flow, fx_share(msgs, i, n, &left), SECS);
	}
	dir->fairness = fx_fairness(dir);
}

/* All of @r's messages in direction @d, over @n streams. */
static void split_streams(struct rp_result *r, enum rp_dir d, uint32_t n,
			  uint32_t threads)
{
	r->spec.streams = n;
	r->spec.threads = threads;
	fill_direction(r, d, r->flow.messages, n, threads);
}

/* A complete, successful write test on tcp. */
static void good_result(struct rp_result *r)
{
	fx_drop(r);
	fx_result(r, &cfg, "tcp");
	r->warmup_messages = 100;
	fx_totals(r, MSGS, SIZE, SECS);
	r->flow.has_latency = true;
	fill_summary(&r->flow.latency, 1);
	r->has_unloaded = true;
	fill_summary(&r->unloaded, 0.5);
	fill_summary(&r->rtt, 1);
	r->unloaded_halved = true;
	fill_side(&r->client, 0.125);
	fill_side(&r->server, 0.375);
	split_streams(r, RP_DIR_C2S, 1, 1);
}

/* A test that failed before measuring anything. */
static void failed_result(struct rp_result *r, const char *code,
			  const char *msg)
{
	fx_drop(r);
	fx_failed(r, &cfg, "tcp", code, msg);
}

static int setup(void **state)
{
	(void)state;
	fx_config(&cfg);
	good_result(&res[0]);
	/* the client fills this in when the run starts; report/ only copies */
	res[0].client_host = fx_host("cli");
	return 0;
}

static int teardown(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < N_RES; i++)
		fx_drop(&res[i]);
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
	cJSON *doc = rp_report_json_doc(&cfg.test, res, 1);

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

/* What sweeps, streams, threads, --bidir and --wait add, at their
 * defaults: one point, one stream, one thread, busy-polling, one way. */
static void test_json_defaults(void **state)
{
	cJSON *doc = rp_report_json_doc(&cfg.test, res, 1);

	(void)state;
	assert_num(doc, "config.sizes.0", SIZE);
	assert_num(doc, "config.queue_depths.0", 16);
	assert_int_equal(cJSON_GetArraySize(at(doc, "config.cpus")), 0);
	assert_num(doc, "config.streams", 1);
	assert_num(doc, "config.threads", 1);
	assert_str(doc, "config.wait", "busy");
	assert_bool_at(doc, "config.bidir", false);
	assert_num(doc, "results.0.point", 0);
	assert_num(doc, "results.0.iterations", MSGS);
	assert_num(doc, "results.0.threads", 1);
	assert_str(doc, "results.0.wait", "busy");
	assert_bool_at(doc, "results.0.bidir", false);
	assert_null_at(doc, "results.0.directions");
	assert_int_equal(cJSON_GetArraySize(at(doc, "results.0.per_stream")),
			 1);
	assert_num(doc, "results.0.per_stream.0.bytes", 4096000);
	assert_num(doc, "results.0.fairness", 1);
	assert_num(doc, "results.0.cpu.client.cycles_per_kib", 37500);
	assert_str(doc, "results.0.notes", "");
	cJSON_Delete(doc);
}

static void test_json_failed(void **state)
{
	cJSON *doc;

	(void)state;
	failed_result(&res[1], "connect", "cannot reach server.example");
	failed_result(&res[2], "verify", "payload check failed");
	doc = rp_report_json_doc(&cfg.test, res, 3);
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
	assert_int_equal(cJSON_GetArraySize(at(doc, "results.1.per_stream")),
			 0);
	assert_null_at(doc, "results.1.fairness");
	cJSON_Delete(doc);
}

static void test_json_missing_phases(void **state)
{
	cJSON *doc;

	(void)state;
	res[0].flow.has_latency = false;
	res[0].has_unloaded = false;
	res[0].server.present = false;
	doc = rp_report_json_doc(&cfg.test, res, 1);
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
	doc = rp_report_json_doc(&cfg.test, res, 1);
	assert_null_at(doc, "results.0.throughput");
	assert_null_at(doc, "results.0.cpu");
	assert_str(doc, "results.0.latency_unloaded.method", "whole operation");
	cJSON_Delete(doc);
}

static void test_json_hosts_and_info(void **state)
{
	cJSON *doc, *o;

	(void)state;
	res[0].server_host = fx_host("srv");
	res[0].client_info = cJSON_CreateObject();
	cJSON_AddNumberToObject(res[0].client_info, "mtu", 4096);
	res[0].server_info = cJSON_CreateObject();
	cJSON_AddStringToObject(res[0].server_info, "device", "rxe0");
	doc = rp_report_json_doc(&cfg.test, res, 1);
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
	cfg.test.n_transports = 2;
	snprintf(cfg.test.transports[1], RP_SPEC_NAME_LEN, "rdma");
	cfg.test.spec.iterations = 0;
	cfg.test.spec.duration_ns = 2500000000ULL;
	cfg.test.spec.op = RP_OP_READ;
	doc = rp_report_json_doc(&cfg.test, res, 0);
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
	assert_int_equal(rp_report_json(f, &cfg.test, res, 2), 0);
	assert_int_equal(fclose(f), 0);
	doc = cJSON_Parse(text);
	assert_non_null(doc);
	assert_str(doc, "schema", "rdmaperf/1");
	assert_num(doc, "results.0.throughput.bits_per_second", 65536000);
	assert_str(doc, "error.message", "a \"quoted\"\nmessage");
	cJSON_Delete(doc);
	free(text);
}

/* A result with several streams: four over two threads. */
static void test_json_streams(void **state)
{
	const cJSON *a;
	cJSON *doc;
	double sum = 0;
	char p[64];
	int i;

	(void)state;
	split_streams(&res[0], RP_DIR_C2S, 4, 2);
	res[0].spec.wait = RP_WAIT_EVENT;
	doc = rp_report_json_doc(&cfg.test, res, 1);
	assert_num(doc, "results.0.streams", 4);
	assert_num(doc, "results.0.threads", 2);
	assert_str(doc, "results.0.wait", "event");
	assert_bool_at(doc, "results.0.bidir", false);
	assert_null_at(doc, "results.0.directions");
	a = at(doc, "results.0.per_stream");
	assert_true(cJSON_IsArray(a));
	assert_int_equal(cJSON_GetArraySize(a), 4);
	for (i = 0; i < 4; i++) {
		snprintf(p, sizeof(p), "results.0.per_stream.%d.stream", i);
		assert_num(doc, p, i);
		snprintf(p, sizeof(p), "results.0.per_stream.%d.thread", i);
		assert_num(doc, p, i % 2);
		snprintf(p, sizeof(p), "results.0.per_stream.%d.direction", i);
		assert_str(doc, p, "client_to_server");
		snprintf(p, sizeof(p), "results.0.per_stream.%d.bytes", i);
		sum += at(doc, p)->valuedouble;
		snprintf(p, sizeof(p), "results.0.per_stream.%d.latency", i);
		assert_latency(doc, p, 1);
	}
	assert_num(doc, "results.0.bytes", sum);
	assert_num(doc, "results.0.per_stream.0.messages", 100);
	assert_num(doc, "results.0.per_stream.3.messages", 400);
	assert_num(doc, "results.0.per_stream.0.throughput.messages_per_second",
		   200);
	assert_num(doc, "results.0.per_stream.3.seconds", SECS);
	assert_true(at(doc, "results.0.per_stream.0.throughput.bits_per_second")
			    ->valuedouble > 0);
	assert_num(doc, "results.0.fairness", res[0].dir[RP_DIR_C2S].fairness);
	/* (100 + 200 + 300 + 400)^2 / (4 (100^2 + 200^2 + 300^2 + 400^2)) */
	assert_num(doc, "results.0.fairness", 1e6 / 1.2e6);
	cJSON_Delete(doc);
}

/* --bidir: each direction on its own, the top level their sum. */
static void make_bidir(struct rp_result *r)
{
	r->spec.bidir = true;
	r->spec.streams = 2;
	r->spec.threads = 2;
	fill_direction(r, RP_DIR_C2S, 600, 2, 2);
	fill_direction(r, RP_DIR_S2C, 400, 2, 2);
	r->flow.messages = 1000;
	r->flow.bytes = 1000ULL * SIZE;
}

static void test_json_bidir(void **state)
{
	const char *dirs[] = { "client_to_server", "server_to_client" };
	double sum = 0, ssum = 0;
	char p[96];
	cJSON *doc;
	int d, i;

	(void)state;
	make_bidir(&res[0]);
	doc = rp_report_json_doc(&cfg.test, res, 1);
	assert_bool_at(doc, "results.0.bidir", true);
	assert_bool_at(doc, "config.bidir", false);
	for (d = 0; d < 2; d++) {
		snprintf(p, sizeof(p), "results.0.directions.%s.bytes",
			 dirs[d]);
		sum += at(doc, p)->valuedouble;
		snprintf(p, sizeof(p), "results.0.directions.%s.streams",
			 dirs[d]);
		assert_num(doc, p, 2);
		snprintf(p, sizeof(p), "results.0.directions.%s.fairness",
			 dirs[d]);
		assert_num(doc, p, res[0].dir[d].fairness);
		snprintf(p, sizeof(p),
			 "results.0.directions.%s.throughput.bits_per_second",
			 dirs[d]);
		assert_num(doc, p, res[0].dir[d].flow.bits_per_second);
		snprintf(p, sizeof(p), "results.0.directions.%s.latency",
			 dirs[d]);
		assert_latency(doc, p, 1);
		snprintf(p, sizeof(p),
			 "results.0.directions.%s.per_stream.1.direction",
			 dirs[d]);
		assert_str(doc, p, dirs[d]);
	}
	assert_num(doc, "results.0.directions.client_to_server.messages", 600);
	assert_num(doc, "results.0.bytes", sum);
	/* the top level's streams are both directions' */
	assert_int_equal(cJSON_GetArraySize(at(doc, "results.0.per_stream")),
			 4);
	for (i = 0; i < 4; i++) {
		snprintf(p, sizeof(p), "results.0.per_stream.%d.bytes", i);
		ssum += at(doc, p)->valuedouble;
	}
	assert_num(doc, "results.0.bytes", ssum);
	assert_true(cJSON_IsNumber(at(doc, "results.0.fairness")));
	cJSON_Delete(doc);
}

/* CPU: core/cpu's fields for each side, then what the side moved. */
static void test_json_cpu(void **state)
{
	struct rp_cpu_usage *u = &res[0].client.cpu;
	cJSON *doc;

	(void)state;
	u->has_host = true;
	u->host = (struct rp_cpu_host){ -1, 1, 0.5, 0.125, 0.25, 2, 0.5 };
	u->n_threads = 2;
	u->threads[0] = (struct rp_cpu_thread){ 2, 0.0625, 0.125 };
	u->threads[1] = (struct rp_cpu_thread){ 3, 0.0625, 0.125 };
	doc = rp_report_json_doc(&cfg.test, res, 1);
	assert_side(doc, "results.0.cpu.client", 0.125);
	assert_num(doc, "results.0.cpu.client.cycles_per_kib", 37500);
	assert_num(doc, "results.0.cpu.client.hz", 3e9);
	assert_str(doc, "results.0.cpu.client.hz_source", "tsc");
	assert_num(doc, "results.0.cpu.client.host.irq_s", 0.125);
	assert_num(doc, "results.0.cpu.client.host.softirq_s", 0.25);
	assert_num(doc, "results.0.cpu.client.threads.1.cpu", 3);
	assert_num(doc, "results.0.cpu.client.threads.1.sys_s", 0.125);
	assert_num(doc, "results.0.cpu.server.cycles_per_kib", 37500);
	cJSON_Delete(doc);
}

/* @nt transports, each over sizes 4 KiB, 64 KiB, 1 MiB at depth 16; the
 * second transport twice as fast. */
static void make_sweep(size_t nt)
{
	static const uint64_t sizes[] = { 4096, 65536, 1048576 };
	static const char *const names[] = { "tcp", "rdma" };
	struct rp_result *r;
	size_t t, p;

	memcpy(cfg.test.sizes, sizes, sizeof(sizes));
	cfg.test.n_sizes = 3;
	cfg.test.depths[0] = 16;
	cfg.test.n_depths = 1;
	cfg.test.n_transports = nt;
	for (t = 0; t < nt; t++) {
		snprintf(cfg.test.transports[t], RP_SPEC_NAME_LEN, "%s",
			 names[t]);
		for (p = 0; p < 3; p++) {
			r = &res[t * 3 + p];
			good_result(r);
			snprintf(r->transport, sizeof(r->transport), "%s",
				 names[t]);
			r->point = (uint32_t)p;
			r->spec.size_bytes = sizes[p];
			r->flow.bits_per_second *=
				(double)(t + 1) * (double)(p + 1);
			r->flow.messages_per_second *= (double)(t + 1);
		}
	}
}

static void test_json_sweep(void **state)
{
	cJSON *doc;
	char p[64];
	int i;

	(void)state;
	make_sweep(2);
	cfg.test.n_cpus = 2;
	cfg.test.cpus[0] = 2;
	cfg.test.cpus[1] = 5;
	failed_result(&res[5], "setup", "no device");
	snprintf(res[5].transport, sizeof(res[5].transport), "rdma");
	res[5].point = 2;
	doc = rp_report_json_doc(&cfg.test, res, 6);
	assert_int_equal(cJSON_GetArraySize(at(doc, "config.sizes")), 3);
	assert_num(doc, "config.sizes.2", 1048576);
	assert_int_equal(cJSON_GetArraySize(at(doc, "config.queue_depths")), 1);
	assert_num(doc, "config.queue_depths.0", 16);
	assert_num(doc, "config.streams", 1);
	assert_num(doc, "config.threads", 1);
	assert_bool_at(doc, "config.bidir", false);
	assert_str(doc, "config.wait", "busy");
	assert_num(doc, "config.cpus.1", 5);
	assert_str(doc, "config.transport.1", "rdma");
	assert_int_equal(cJSON_GetArraySize(at(doc, "results")), 6);
	for (i = 0; i < 6; i++) {
		snprintf(p, sizeof(p), "results.%d.point", i);
		assert_num(doc, p, i % 3);
		snprintf(p, sizeof(p), "results.%d.transport", i);
		assert_str(doc, p, i < 3 ? "tcp" : "rdma");
	}
	assert_num(doc, "results.4.size", 65536);
	assert_num(doc, "results.4.iterations", MSGS);
	assert_bool_at(doc, "results.5.ok", false);
	assert_null_at(doc, "results.5.throughput");
	assert_null_at(doc, "results.5.fairness");
	assert_int_equal(cJSON_GetArraySize(at(doc, "results.5.per_stream")),
			 0);
	assert_str(doc, "error.message", "no device");
	cJSON_Delete(doc);
}

/* Not-a-number and infinity never reach the text: null instead. */
static void test_json_not_finite(void **state)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	cJSON *doc;

	(void)state;
	assert_non_null(f);
	split_streams(&res[0], RP_DIR_C2S, 2, 1);
	res[0].dir[RP_DIR_C2S].fairness = NAN;
	res[0].flow.seconds = INFINITY;
	res[0].flow.latency.p99 = NAN;
	res[0].dir[RP_DIR_C2S].per_stream[1].flow.mib_per_second = -INFINITY;
	make_bidir(&res[1]);
	res[1].dir[RP_DIR_S2C].flow.bits_per_second = NAN;
	assert_int_equal(rp_report_json(f, &cfg.test, res, 2), 0);
	assert_int_equal(fclose(f), 0);
	assert_null(strstr(text, "nan"));
	assert_null(strstr(text, "inf"));
	doc = cJSON_Parse(text);
	assert_non_null(doc);
	assert_null_at(doc, "results.0.fairness");
	assert_null_at(doc, "results.0.seconds");
	assert_null_at(doc, "results.0.latency.p99");
	assert_null_at(doc, "results.0.per_stream.1.throughput.mib_per_second");
	assert_null_at(doc, "results.1.directions.server_to_client.throughput."
			    "bits_per_second");
	cJSON_Delete(doc);
	free(text);
}

static char *text_of(const struct rp_result *r, size_t n)
{
	return fx_render(&cfg.test, r, n, false);
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
	res[0].server_host = fx_host("srv");
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
	res[1].flow.bits_per_second *= 2;
	failed_result(&res[2], "setup", "no device");
	text = text_of(res, 3);
	assert_has(text, "comparison (ratio to tcp #1)"); /* tcp twice */
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
	res[0].flow.has_latency = false;
	res[0].has_unloaded = false;
	text = text_of(res, 1);
	assert_has(text, ", 2.0 s\n");
	assert_has(text, "payload verified");
	assert_has(text, "Gb/s");
	assert_true(strstr(text, "under load") == NULL);
	assert_true(strstr(text, "latency (us)") == NULL);
	free(text);
}

/* One point, four streams over two threads, event wait: a line each. */
static void test_text_streams(void **state)
{
	struct rp_cpu_usage *u = &res[0].client.cpu;
	char *text, want[64];

	(void)state;
	split_streams(&res[0], RP_DIR_C2S, 4, 2);
	res[0].spec.wait = RP_WAIT_EVENT;
	u->has_host = true;
	u->host = (struct rp_cpu_host){ -1, 1, 0.5, 0.125, 0.25, 2, 0.5 };
	u->n_threads = 2;
	u->threads[0] = (struct rp_cpu_thread){ 2, 0.0625, 0.125 };
	u->threads[1] = (struct rp_cpu_thread){ -1, 0.0625, 0.125 };
	u->n_cpus = 1;
	u->per_cpu[0] =
		(struct rp_cpu_host){ 2, 0.5, 0.25, 0.125, 0.125, 1, 0.9 };
	res[0].server.cpu.hz = 0;
	text = text_of(res, 1);
	assert_has(text, "queue depth 16, 4 streams over 2 threads, wait event,"
			 " 1000 operations");
	assert_has(text, "stream thread");
	assert_has(text, "p50 load us");
	/* stream 3: 400 messages of 4 KiB in 0.5 s */
	assert_has(text,
		   "         3      1      0.026          800         2.00"
		   "         8.00\n");
	snprintf(want, sizeof(want), "fairness (Jain) %.3f",
		 res[0].dir[RP_DIR_C2S].fairness);
	assert_has(text, want);
	assert_has(text, "12.500 us/KiB  37500 cycles/KiB (3.00 GHz tsc)");
	assert_has(text, "host       user 1.000 s  sys 0.500 s  irq 0.125 s"
			 "  softirq 0.250 s  (busy 50%)");
	assert_has(text, "thread 0   user 0.062 s  sys 0.125 s  (on cpu 2)");
	assert_has(text, "thread 1   user 0.062 s  sys 0.125 s\n");
	assert_has(text, "cpu 2      user 0.500 s");
	assert_has(text, "(busy 90%)");
	assert_has(text, "cycles/KiB unknown");
	free(text);
}

/* One stream, the defaults: none of the several-stream lines. */
static void test_text_one_stream(void **state)
{
	char *text;

	(void)state;
	text = text_of(res, 1);
	assert_null(strstr(text, "fairness"));
	assert_null(strstr(text, "stream thread"));
	assert_null(strstr(text, "streams over"));
	assert_null(strstr(text, "wait"));
	assert_null(strstr(text, "thread 0"));
	free(text);
}

static void test_text_bidir(void **state)
{
	char *text;

	(void)state;
	make_bidir(&res[0]);
	text = text_of(res, 1);
	assert_has(text, "2 streams over 2 threads, both directions");
	assert_has(text, "throughput sum 0.066 Gb/s");
	assert_has(text, "client->server 0.039 Gb/s");
	assert_has(text, "(600 messages, 2.34 MiB in 0.500 s)");
	assert_has(text, "server->client 0.026 Gb/s");
	/* one fairness line per direction */
	assert_non_null(strstr(strstr(text, "fairness") + 1, "fairness"));
	free(text);
}

/* A client clock of RP_CLOCK_SLOW_NS or more a read gets a line under
 * the latency figures, in a block and in a sweep's notes; a cheap one, or
 * a result without latency figures, none. */
static cJSON *slow_clock(struct rp_result *r, double read_ns)
{
	cJSON *clock;

	r->client_host = cJSON_CreateObject();
	clock = cJSON_AddObjectToObject(r->client_host, "clock");
	cJSON_AddStringToObject(clock, "source", "monotonic");
	return cJSON_AddNumberToObject(clock, "read_ns", read_ns);
}

static void test_text_slow_clock(void **state)
{
	static const char line[] =
		"  clock        monotonic: 2.43 us a read on "
		"the client, about one in each\n";
	cJSON *ns;
	char *text;

	(void)state;
	cJSON_Delete(res[0].client_host);
	ns = slow_clock(&res[0], 2429.4);
	text = text_of(res, 1);
	assert_has(text, line);
	assert_has(text, "RP_CLOCK=tsc reads the TSC");
	free(text);
	cJSON_SetNumberValue(ns, RP_CLOCK_SLOW_NS - 1);
	text = text_of(res, 1);
	assert_null(strstr(text, "a read on the client"));
	free(text);
	cJSON_SetNumberValue(ns, RP_CLOCK_SLOW_NS);
	res[0].flow.has_latency = res[0].has_unloaded = false;
	text = text_of(res, 1);
	assert_null(strstr(text, "a read on the client"));
	free(text);
	make_sweep(1); /* once, in the notes under the table */
	slow_clock(&res[1], 2429.4);
	text = text_of(res, 3);
	assert_has(text, line);
	assert_null(strstr(strstr(text, line) + sizeof(line) - 1,
			   "a read on the client"));
	free(text);
}

/* A sweep on one transport: a row per point, a failed one with its error. */
static void test_text_sweep(void **state)
{
	char *text;

	(void)state;
	make_sweep(1);
	failed_result(&res[1], "timeout", "no completion for 30 s");
	res[1].spec.size_bytes = 65536;
	snprintf(res[2].notes, sizeof(res[2].notes), "SO_SNDBUF capped");
	text = text_of(res, 3);
	assert_has(text, "tcp write sweep, 3 points (3 sizes x 1 depth)");
	assert_has(text, "server ? (server.example port 18520)");
	assert_has(text, "---- under load (us) -----");
	assert_has(text, "--- cpu us/KiB --");
	assert_has(text, "     size depth iterations      Gb/s      MiB/s"
			 "       msg/s      p50      p99      max      p50"
			 "   client   server\n");
	assert_has(text, "      4 KiB    16       1000     0.066       7.81"
			 "        2000     2.00     8.00    10.00     1.00"
			 "   12.500   12.500\n");
	assert_has(text, "     64 KiB    16       1000   FAILED (timeout): no"
			 " completion for 30 s\n");
	assert_has(text, "      1 MiB    16       1000     0.197");
	assert_has(text, "unloaded p50: half round trip");
	assert_has(text, "note: tcp: SO_SNDBUF capped");
	assert_null(strstr(text, "comparison"));
	free(text);
}

/* A sweep on two transports: a table per metric, ratios to the first. */
static void test_text_sweep_transports(void **state)
{
	char *text;
	const char *gbps, *msgs;

	(void)state;
	make_sweep(2);
	failed_result(&res[5], "setup", "no device");
	snprintf(res[5].transport, sizeof(res[5].transport), "rdma");
	res[5].spec.size_bytes = 1048576;
	res[1].has_unloaded = false;
	text = text_of(res, 6);
	assert_has(text, "write sweep, 3 points (3 sizes x 1 depth) on tcp,"
			 " rdma\n");
	gbps = strstr(text, "\nthroughput, Gb/s\n");
	msgs = strstr(text, "\nmessages/s\n");
	assert_non_null(gbps);
	assert_non_null(msgs);
	assert_true(gbps < msgs);
	assert_has(text, "\nlatency under load, p50 us\n");
	assert_has(text, "\nlatency under load, p99 us\n");
	assert_has(text, "\nunloaded latency, p50 us\n");
	assert_has(text, "\nclient cpu, us/KiB\n");
	assert_has(gbps, "     size depth          tcp         rdma"
			 "     rdma/tcp\n");
	assert_has(gbps, "      4 KiB    16        0.066        0.131"
			 "        x2.00\n");
	assert_has(gbps, "     1 MiB    16        0.197            -"
			 "            -\n");
	assert_has(msgs, "      4 KiB    16         2000         4000"
			 "        x2.00\n");
	/* same latency on both: x1.00; no unloaded figure at 64 KiB on tcp */
	assert_has(text, "        2.00         2.00        x1.00\n");
	assert_has(
		strstr(text, "unloaded latency"),
		"     64 KiB    16            -         1.00            -\n");
	assert_has(text, "FAILED rdma 1 MiB depth 16 (setup): no device");
	assert_null(strstr(text, "comparison"));
	free(text);
}

/* A full disk: the writers do not flush, the owner's check says why. */
static void test_out_check_full(void **state)
{
	FILE *f = fopen("/dev/full", "w");
	int err, chk;

	(void)state;
	if (!f)
		skip();
	assert_int_equal(rp_report_csv(f, &cfg.test, res, 2), 0);
	assert_int_equal(rp_report_out_check(f), -ENOSPC);
	clearerr(f);
	rp_report_text(f, &cfg.test, res, 2);
	assert_int_equal(rp_report_out_check(f), -ENOSPC);
	clearerr(f);
	/* a document past the buffer fails in the writer, which says why */
	err = rp_report_json(f, &cfg.test, res, 2);
	chk = rp_report_out_check(f);
	assert_true(err == -ENOSPC || (!err && chk == -ENOSPC));
	assert_true(chk < 0);
	fclose(f);
	f = fopen("/dev/null", "w");
	assert_non_null(f);
	assert_int_equal(rp_report_json(f, &cfg.test, res, 2), 0);
	assert_int_equal(rp_report_out_check(f), 0);
	fclose(f);
}

/* A gathered document made safe: escapes shown, bad UTF-8 replaced. */
static void test_safe_dup(void **state)
{
	cJSON *doc = cJSON_CreateObject(), *copy;

	(void)state;
	cJSON_AddStringToObject(doc, "host", "a\x1b]0;t\x07\xff");
	cJSON_AddStringToObject(doc, "\x1b", "key");
	copy = rp_report_safe_dup(doc);
	assert_non_null(copy);
	assert_string_equal(
		cJSON_GetStringValue(cJSON_GetObjectItem(copy, "host")),
		"a\\x1b]0;t\\x07\xef\xbf\xbd");
	assert_non_null(cJSON_GetObjectItem(copy, "\\x1b"));
	assert_string_equal(
		cJSON_GetStringValue(cJSON_GetObjectItem(doc, "host")),
		"a\x1b]0;t\x07\xff");
	cJSON_Delete(copy);
	cJSON_Delete(doc);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_json_good),
		T(test_json_defaults),
		T(test_json_failed),
		T(test_json_missing_phases),
		T(test_json_hosts_and_info),
		T(test_json_config_shapes),
		T(test_json_print),
		T(test_text_good),
		T(test_text_failed),
		T(test_text_slow_clock),
		T(test_text_time_mode),
		T(test_text_comparison),
		T(test_json_streams),
		T(test_json_bidir),
		T(test_json_cpu),
		T(test_json_sweep),
		T(test_json_not_finite),
		T(test_text_streams),
		T(test_text_one_stream),
		T(test_text_bidir),
		T(test_text_sweep),
		T(test_text_sweep_transports),
		T(test_out_check_full),
		T(test_safe_dup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
