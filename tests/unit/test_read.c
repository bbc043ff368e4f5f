// SPDX-License-Identifier: MIT
/*
 * Unit tests of report/read/ (--report FILE.json): a document written by
 * rp_report_json() reads back into a config and results that write the
 * same document again, byte for byte, and render the same text; a real
 * loopback sweep (tests/fixtures/loopback_sweep.json) round-trips too; and
 * what is not a result document is refused with a reason, while hostile
 * values (wrong types, huge numbers, huge strings) never crash the reader.
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
#include <unistd.h>

#include <cmocka.h>

#include "fixtures.h"
#include "report/read/read.h"
#include "report/matrix/matrix.h"

#define N_RES 8

static struct rp_config cfg;
static struct rp_result res[N_RES];

/* ---- results built by hand ------------------------------------------- */

/* Latencies with fractions of a nanosecond, so that us -> ns -> us is
 * not trivially exact. */
static void fill_summary(struct rp_hist_summary *s, double base)
{
	s->count = 1000 + (uint64_t)base % 7;
	s->min = base * 0.5 + 0.1;
	s->mean = base * 1.01234567;
	s->p50 = base;
	s->p90 = base * 1.7 + 0.3;
	s->p99 = base * 3.3 + 0.7;
	s->p99_9 = base * 5.1 + 0.9;
	s->p99_99 = base * 7.9 + 0.11;
	s->max = base * 11.13 + 0.17;
	s->stddev = base / 3;
}

static void fill_flow(struct rp_flow *fl, uint64_t msgs, uint64_t size,
		      double secs, double lat)
{
	fill_summary(fx_flow(fl, msgs, size, secs), lat);
}

static void fill_spectrum(struct rp_spectrum *sp, double base, uint32_t n)
{
	uint32_t k;

	sp->n = n;
	for (k = 0; k < n; k++) {
		sp->pct[k] =
			k + 1 < n ? 100 * (1 - pow(2, -(double)k / 2)) : 100;
		sp->value[k] = base * (1 + k * 0.37) + k * 0.013;
	}
}

static void fill_side(struct rp_side *s, double user_s, uint64_t bytes)
{
	struct rp_cpu_usage *u = &s->cpu;

	fx_side(s, user_s, 0.25, 2.9e9, bytes / 4096, bytes);
	u->us_per_kib = (user_s + 0.25) * 1e6 / ((double)bytes / 1024);
	u->cycles_per_kib = u->us_per_kib * 2900;
	u->host_busy_s = 0.75;
	u->host_util = 0.5;
}

/* A one-element array of transport information: a NUMA node, a port. */
static cJSON *info(int numa, int n)
{
	cJSON *a = cJSON_CreateArray(), *o;
	int i;

	for (i = 0; i < n; i++) {
		o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "numa_node", numa);
		cJSON_AddNumberToObject(o, "buffer_numa_node", numa);
		cJSON_AddNumberToObject(o, "port", 40000 + i);
		cJSON_AddStringToObject(o, "addr", "127.0.0.1");
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

/* A host that says what its binary was built for (platform/build.h); an
 * older peer's has no "build": both must round-trip. */
static cJSON *host_built(const char *name)
{
	cJSON *h = fx_host(name), *b = cJSON_AddObjectToObject(h, "build");

	cJSON_AddStringToObject(b, "arch", "s390x");
	cJSON_AddStringToObject(b, "os", "linux");
	cJSON_AddNumberToObject(b, "pointer_bits", 64);
	cJSON_AddStringToObject(b, "byte_order", "big");
	cJSON_AddStringToObject(b, "compiler", "gcc");
	cJSON_AddStringToObject(b, "compiler_version", "12.2.0");
	return h;
}

/* Direction @d of @r: @msgs messages over @n streams, unevenly, the flow
 * their sum; its fairness Jain's index of their throughput. */
static void fill_direction(struct rp_result *r, enum rp_dir d, uint64_t msgs,
			   uint32_t n, uint32_t threads)
{
	struct rp_direction *dir = &r->dir[d];
	uint64_t size = r->spec.size_bytes, left = msgs;
	uint32_t i;

	free(dir->per_stream);
	dir->present = true;
	fill_flow(&dir->flow, msgs, size, 0.5, 1500 + d * 100);
	dir->n_streams = n;
	dir->per_stream = calloc(n, sizeof(*dir->per_stream));
	assert_non_null(dir->per_stream);
	for (i = 0; i < n; i++) {
		dir->per_stream[i].stream = i;
		dir->per_stream[i].thread = i % threads;
		fill_flow(&dir->per_stream[i].flow, fx_share(msgs, i, n, &left),
			  size, 0.5 - i * 0.01, 1000 + i * 333.3);
	}
	dir->fairness = fx_fairness(dir);
}

/* The test's totals: the sum of its directions, latency the client's. */
static void totals(struct rp_result *r)
{
	int d;

	r->flow.bytes = r->flow.messages = 0;
	r->flow.seconds = r->flow.bits_per_second = 0;
	r->flow.mib_per_second = r->flow.messages_per_second = 0;
	for (d = 0; d < RP_DIR__COUNT; d++) {
		const struct rp_flow *f = &r->dir[d].flow;

		if (!r->dir[d].present)
			continue;
		r->flow.bytes += f->bytes;
		r->flow.messages += f->messages;
		r->flow.seconds = fmax(r->flow.seconds, f->seconds);
		r->flow.bits_per_second += f->bits_per_second;
		r->flow.mib_per_second += f->mib_per_second;
		r->flow.messages_per_second += f->messages_per_second;
	}
	r->has_bandwidth = r->flow.has_latency = true;
	r->flow.latency = r->dir[RP_DIR_C2S].flow.latency;
}

/* A complete point of @transport at @size and @depth: one stream. */
static void good_result(struct rp_result *r, const char *transport,
			uint32_t point, uint64_t size, uint32_t depth)
{
	rp_result_fini(r);
	fx_result(r, &cfg, transport);
	snprintf(r->spec.transport, sizeof(r->spec.transport), "%s", transport);
	r->spec.size_bytes = size;
	r->spec.queue_depth = depth;
	r->point = point;
	r->warmup_messages = 100 + point;
	fill_direction(r, RP_DIR_C2S, 1000 + 17 * point, 1, 1);
	totals(r);
	r->has_unloaded = true;
	fill_summary(&r->unloaded, 987.6 + point);
	fill_summary(&r->rtt, 2 * (987.6 + point));
	r->unloaded_halved = true;
	fill_side(&r->client, 0.125, r->flow.bytes);
	fill_side(&r->server, 0.375, r->flow.bytes);
	r->client_info = info(0, 1);
	r->server_info = info(1, 1);
	r->client_host = fx_host("cli");
	r->server_host = host_built("srv");
	snprintf(r->notes, sizeof(r->notes), "%s: a note", transport);
}

static void failed_result(struct rp_result *r, const char *transport,
			  uint32_t point, const char *code, const char *msg)
{
	rp_result_fini(r);
	fx_failed(r, &cfg, transport, code, msg);
	r->point = point;
	r->client_host = fx_host("cli");
}

static int setup(void **state)
{
	(void)state;
	memset(res, 0, sizeof(res));
	fx_config(&cfg);
	cfg.test.spec.latency = cfg.test.spec.bandwidth = true;
	cfg.test.spec.streams = cfg.test.spec.threads = 1;
	good_result(&res[0], "tcp", 0, 4096, 16);
	return 0;
}

static int teardown(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < N_RES; i++)
		rp_result_fini(&res[i]);
	return 0;
}

/* ---- the round trip --------------------------------------------------- */

static void write_tmp(const char *text, size_t len, char *path)
{
	int fd;

	strcpy(path, "/tmp/rp_test_read_XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
}

static void write_doc_tmp(const cJSON *doc, char *path)
{
	char *text = cJSON_Print(doc);

	assert_non_null(text);
	write_tmp(text, strlen(text), path);
	free(text);
}

/* Fail, showing where the two texts part. */
static void assert_same_text(const char *what, const char *a, const char *b)
{
	size_t i = 0;

	if (!strcmp(a, b))
		return;
	while (a[i] && a[i] == b[i])
		i++;
	i = i > 120 ? i - 120 : 0;
	fail_msg("%s differ:\n--- written:\n%.400s\n--- read back:\n%.400s",
		 what, a + i, b + i);
}

static char *text_of(const struct rp_test *c, const struct rp_result *r,
		     size_t n)
{
	return fx_render(c, r, n, false);
}

static char *read_text(const char *path)
{
	char *text = fx_read_file(path);

	if (!text)
		fail_msg("cannot open %s: %s", path, strerror(errno));
	return text;
}

/* The document @doc writes again is @want's text, byte for byte, and
 * cJSON_Compare() finds them equal. */
static void assert_same_doc(const char *want, const struct rp_report_doc *doc)
{
	cJSON *w = cJSON_Parse(want), *got;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(w);
	assert_non_null(f);
	assert_int_equal(rp_report_json(f, &doc->test, doc->res, doc->n), 0);
	fclose(f);
	assert_same_text("documents", want, text);
	got = rp_report_json_doc(&doc->test, doc->res, doc->n);
	assert_true(cJSON_Compare(w, got, 1));
	free(text);
	cJSON_Delete(got);
	cJSON_Delete(w);
}

static void load_ok(const char *path, struct rp_report_doc *doc)
{
	struct rp_err why = { { 0 } };
	int err = rp_report_load(path, doc, &why);

	if (err)
		fail_msg("load %s: %d: %s", path, err, why.msg);
}

/* Write @n results of @c, read them back: the same document, the same
 * text. */
static void round_trip(const struct rp_config *c, const struct rp_result *r,
		       size_t n)
{
	struct rp_report_doc doc;
	char path[64], *want, *t1, *t2;
	FILE *f;

	strcpy(path, "/tmp/rp_test_read_XXXXXX");
	f = fdopen(mkstemp(path), "w");
	assert_non_null(f);
	assert_int_equal(rp_report_json(f, &c->test, r, n), 0);
	fclose(f);
	want = read_text(path);
	load_ok(path, &doc);
	unlink(path);
	assert_int_equal(doc.n, n);
	assert_ptr_equal(doc.test.host, doc.host);
	assert_same_doc(want, &doc);
	t1 = text_of(&c->test, r, n);
	t2 = text_of(&doc.test, doc.res, doc.n);
	assert_same_text("texts", t1, t2);
	free(t1);
	free(t2);
	free(want);
	rp_report_doc_free(&doc);
	assert_null(doc.res);
}

/* One point: spectra, both latencies, CPU, hosts, transport information;
 * a figure that is not finite (null) stays null. */
static void test_one_point(void **state)
{
	(void)state;
	fill_spectrum(&res[0].latency_spectrum, 1234.5, 12);
	fill_spectrum(&res[0].unloaded_spectrum, 876.5, 9);
	res[0].unloaded.stddev = NAN;
	round_trip(&cfg, res, 1);
}

/* What the loader sets beyond the document's text: units and flags. */
static void test_fields(void **state)
{
	struct rp_report_doc doc;
	char path[64];
	cJSON *d;

	(void)state;
	cfg.test.spec.verify = true;
	res[0].spec.verify = true;
	fill_spectrum(&res[0].latency_spectrum, 1234.5, 12);
	d = rp_report_json_doc(&cfg.test, res, 1);
	write_doc_tmp(d, path);
	cJSON_Delete(d);
	load_ok(path, &doc);
	unlink(path);
	assert_string_equal(doc.host, "server.example");
	assert_int_equal(doc.test.port, 18520);
	assert_true(doc.test.spec.verify);
	assert_true(doc.res[0].spec.verify);
	assert_int_equal(doc.res[0].spec.warmup, 100);
	assert_true(doc.res[0].has_bandwidth && doc.res[0].flow.has_latency);
	assert_true(fabs(doc.res[0].flow.latency.p50 -
			 res[0].flow.latency.p50) < 1e-6);
	assert_true(doc.res[0].dir[RP_DIR_C2S].present);
	assert_int_equal(doc.res[0].dir[RP_DIR_C2S].n_streams, 1);
	assert_false(doc.res[0].dir[RP_DIR_S2C].present);
	assert_int_equal(doc.res[0].dir[RP_DIR_C2S].flow.bytes,
			 res[0].flow.bytes);
	assert_int_equal(doc.res[0].latency_spectrum.n, 12);
	assert_true(doc.res[0].client.present && doc.res[0].server.present);
	assert_string_equal(doc.res[0].client.cpu.hz_source, "tsc");
	assert_true(cJSON_IsArray(doc.res[0].client_info));
	assert_string_equal(
		cJSON_GetObjectItem(doc.res[0].server_host, "hostname")
			->valuestring,
		"srv");
	rp_report_doc_free(&doc);
}

/* Two transports by three sizes, one point failed and the next not run,
 * one interrupted; iterations per point from the size. */
static void test_sweep(void **state)
{
	static const uint64_t sizes[] = { 64, 4096, 65536 };
	size_t t, p;

	(void)state;
	cfg.test.n_transports = 2;
	snprintf(cfg.test.transports[1], RP_SPEC_NAME_LEN, "rdma");
	cfg.test.n_sizes = 3;
	memcpy(cfg.test.sizes, sizes, sizeof(sizes));
	cfg.test.n_depths = 1;
	cfg.test.depths[0] = 16;
	cfg.test.spec.size_bytes = 65536;
	cfg.test.iterations_defaulted = true;
	for (t = 0; t < 2; t++)
		for (p = 0; p < 3; p++)
			good_result(&res[t * 3 + p], cfg.test.transports[t],
				    (uint32_t)p, sizes[p], 16);
	for (p = 0; p < 6; p++)
		res[p].spec.iterations = 100000 >> p;
	failed_result(&res[4], "rdma", 1, "transport", "rdma: QP error");
	failed_result(&res[5], "rdma", 2, "transport",
		      "not run: rdma: QP error");
	res[2].interrupted = true;
	res[2].interrupted_phase = RP_PHASE_BANDWIDTH;
	round_trip(&cfg, res, 6);
}

/* Three streams on two threads, pinned, time mode, wait event. */
static void test_streams(void **state)
{
	(void)state;
	cfg.test.spec.streams = 3;
	cfg.test.spec.threads = 2;
	cfg.test.spec.wait = RP_WAIT_EVENT;
	cfg.test.spec.iterations = 0;
	cfg.test.spec.duration_ns = 2500000000ULL;
	cfg.test.n_cpus = 2;
	cfg.test.cpus[0] = 2;
	cfg.test.cpus[1] = 5;
	good_result(&res[0], "tcp", 0, 4096, 16);
	fill_direction(&res[0], RP_DIR_C2S, 3001, 3, 2);
	totals(&res[0]);
	cJSON_Delete(res[0].client_info);
	cJSON_Delete(res[0].server_info);
	res[0].client_info = info(0, 3);
	res[0].server_info = info(-1, 3);
	round_trip(&cfg, res, 1);
}

/* --bidir: each direction with its streams; the totals their sum. */
static void test_bidir(void **state)
{
	(void)state;
	cfg.test.spec.bidir = true;
	cfg.test.spec.streams = 2;
	cfg.test.spec.threads = 2;
	good_result(&res[0], "tcp", 0, 4096, 16);
	fill_direction(&res[0], RP_DIR_C2S, 600, 2, 2);
	fill_direction(&res[0], RP_DIR_S2C, 433, 2, 2);
	totals(&res[0]);
	good_result(&res[1], "rdma", 0, 4096, 16);
	fill_direction(&res[1], RP_DIR_C2S, 700, 2, 2);
	totals(&res[1]);
	round_trip(&cfg, res, 2);
}

/* -i: intervals with each stream's share, the range of the full ones; a
 * second result with intervals of one stream and no range. */
static void fill_intervals(struct rp_result *r, uint32_t n, uint32_t streams)
{
	struct rp_interval *iv;
	uint32_t i, s;

	r->intervals = calloc(n, sizeof(*r->intervals));
	assert_non_null(r->intervals);
	r->n_intervals = n;
	for (i = 0; i < n; i++) {
		iv = &r->intervals[i];
		iv->index = i;
		iv->start = i * 0.5;
		fill_flow(&iv->flow, 100 + i * 7, 4096, i + 1 < n ? 0.5 : 0.1,
			  1100 + i);
		iv->n_streams = streams;
		iv->per_stream =
			streams ? calloc(streams, sizeof(*iv->per_stream))
				: NULL;
		for (s = 0; s < streams; s++) {
			iv->per_stream[s].stream = s;
			iv->per_stream[s].thread = s;
			fill_flow(&iv->per_stream[s].flow, 50 + s + i, 4096,
				  0.5, 900 + s);
		}
	}
}

static void test_intervals(void **state)
{
	(void)state;
	cfg.test.interval_s = 0.5;
	cfg.test.spec.streams = 2;
	cfg.test.spec.threads = 2;
	good_result(&res[0], "tcp", 0, 4096, 16);
	fill_direction(&res[0], RP_DIR_C2S, 800, 2, 2);
	totals(&res[0]);
	fill_intervals(&res[0], 5, 2);
	res[0].interval_s = 0.5;
	res[0].has_interval_range = true;
	res[0].interval_min_bps = res[0].intervals[0].flow.bits_per_second;
	res[0].interval_max_bps = res[0].intervals[3].flow.bits_per_second;
	good_result(&res[1], "rdma", 0, 4096, 16);
	fill_intervals(&res[1], 2, 0);
	res[1].interval_s = 0.5;
	round_trip(&cfg, res, 2);
}

/* CPU: the host's split, per thread and per pinned CPU; a server that
 * reported nothing; no clock. */
static void test_cpu(void **state)
{
	struct rp_cpu_usage *u = &res[0].client.cpu;
	unsigned int i;

	(void)state;
	u->has_host = true;
	u->host = (struct rp_cpu_host){ -1, 1.5, 0.5, 0.125, 0.25, 2.5, 0.625 };
	u->n_threads = 3;
	for (i = 0; i < 3; i++)
		u->threads[i] = (struct rp_cpu_thread){ i < 2 ? (int)i + 2 : -1,
							0.0625 * i, 0.1 * i };
	u->n_cpus = 2;
	u->per_cpu[0] = (struct rp_cpu_host){ 2, 0.5, 0.25, 0, 0.1, 0.9, 0.9 };
	u->per_cpu[1] = (struct rp_cpu_host){ 3, 0.4, 0.2, 0.01, 0, 0.7, 0.7 };
	u->hz_source = "cpuinfo";
	res[0].server.present = false;
	good_result(&res[1], "rdma", 0, 4096, 16);
	res[1].client.cpu.hz = 0;
	res[1].client.cpu.cycles_per_kib = 0;
	res[1].client.cpu.hz_source = "none";
	res[1].client.verify_errors = 3;
	round_trip(&cfg, res, 2);
}

/* --qp ud: the loss comes back whole, and the text says it (over a
 * transport's points; here one each): the messages that did not arrive,
 * the pings unanswered; a point without a throughput phase has pings
 * alone. */
static void test_loss(void **state)
{
	char *t;

	(void)state;
	good_result(&res[1], "rdma", 0, 1024, 16);
	res[0].spec.qp = res[1].spec.qp = RP_QP_UD;
	res[0].spec.op = res[1].spec.op = RP_OP_SEND;
	res[0].has_loss = res[0].has_loss_sent = true;
	res[0].loss_sent = 2000;
	res[0].loss_arrived = 1887;
	res[0].pings = 200;
	res[0].pings_lost = 17;
	res[1].has_loss = true;
	res[1].pings = 100;
	res[1].pings_lost = 3;
	round_trip(&cfg, res, 2);
	t = text_of(&cfg.test, res, 2);
	assert_non_null(strstr(t, "queue pairs  UD (unreliable datagram)"));
	assert_non_null(strstr(t, "loss         113 of 2000 messages sent did "
				  "not arrive (5.65 %); 17 of 200 pings had "
				  "no answer within 200 ms\n"));
	assert_non_null(strstr(t, "loss         3 of 100 pings had no answer "
				  "within 200 ms\n"));
	free(t);
}

/* No results at all, and a result that failed before it started. */
static void test_empty(void **state)
{
	(void)state;
	round_trip(&cfg, res, 0);
	failed_result(&res[0], "tcp", 0, "connect", "cannot reach the server");
	round_trip(&cfg, res, 1);
}

/* us -> ns gives the same us back, for nanoseconds of any size. */
static void test_ns_exact(void **state)
{
	uint64_t x = 88172645463325252ULL;
	double ns;
	int i;

	(void)state;
	for (i = 0; i < 200000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		ns = (double)(x % 100000000000ULL) / (double)(1 + x % 1000);
		if (rp_read_ns(ns / 1e3) / 1e3 != ns / 1e3)
			fail_msg("%.17g ns: %.17g us does not come back", ns,
				 ns / 1e3);
	}
	assert_true(isnan(rp_read_ns(NAN)));
}

/* ---- a real document ------------------------------------------------- */

/* tests/fixtures/@name of the source tree (RP_SOURCE_DIR, from CMake). */
static void fixture(const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s/tests/fixtures/%s", RP_SOURCE_DIR, name);
}

/* rdmaperf --loopback -x tcp -S 1K,64K -q 1,4 -C 2000 -P 2 --json: the
 * document (its version aside) comes back as it was. */
static void test_fixture(void **state)
{
	struct rp_report_doc doc;
	char path[4096], *want, *text;
	cJSON *w;

	(void)state;
	fixture("loopback_sweep.json", path, sizeof(path));
	want = read_text(path);
	load_ok(path, &doc);
	assert_int_equal(doc.n, 4);
	assert_int_equal(doc.test.n_sizes, 2);
	assert_int_equal(doc.test.n_depths, 2);
	assert_int_equal(doc.res[3].dir[RP_DIR_C2S].n_streams, 2);
	/* written by another version, it says so */
	w = cJSON_Parse(want);
	assert_non_null(w);
	cJSON_ReplaceItemInObjectCaseSensitive(w, "version",
					       cJSON_CreateString(RP_VERSION));
	free(want);
	want = cJSON_Print(w);
	cJSON_Delete(w);
	text = malloc(strlen(want) + 2);
	assert_non_null(text);
	sprintf(text, "%s\n", want);
	assert_same_doc(text, &doc);
	free(text);
	free(want);
	text = text_of(&doc.test, doc.res, doc.n);
	assert_non_null(strstr(text, "tcp write sweep, 4 points"));
	free(text);
	rp_report_doc_free(&doc);
}

/* ---- refusals ---------------------------------------------------------- */

/* Load @text; want @err and a reason containing @reason. */
static void refused(const char *text, int want, const char *reason)
{
	struct rp_report_doc doc;
	struct rp_err why = { { 0 } };
	char path[64];
	int err;

	write_tmp(text, strlen(text), path);
	err = rp_report_load(path, &doc, &why);
	unlink(path);
	if (err != want || !strstr(why.msg, reason))
		fail_msg("%.60s: got %d \"%s\", want %d \"...%s...\"", text,
			 err, why.msg, want, reason);
	assert_null(doc.res);
	assert_int_equal(doc.n, 0);
}

static void test_refuse_file(void **state)
{
	struct rp_report_doc doc;
	struct rp_err why = { { 0 } };

	(void)state;
	assert_int_equal(rp_report_load("/nonexistent/r.json", &doc, &why),
			 -ENOENT);
	assert_string_equal(why.msg, "cannot read /nonexistent/r.json: "
				     "No such file or directory");
	rp_err_clear(&why);
	assert_int_equal(rp_report_load("/tmp", &doc, &why), -EISDIR);
	assert_non_null(strstr(why.msg, "cannot read /tmp"));
}

static void test_refuse_content(void **state)
{
	(void)state;
	refused("", -EINVAL, "is not JSON (at byte 0)");
	refused("{\"schema\": \"rdmaperf/1\", \"results\": [", -EINVAL,
		"is not JSON (at byte");
	refused("{\"schema\": \"rdmaperf/1\", \"results\": []} trailing",
		-EINVAL, "is not JSON (at byte 40)");
	refused("[1, 2]", -EINVAL, "is not a result document (not an object)");
	refused("{\"results\": []}", -EINVAL,
		"has no schema; this rdmaperf reads rdmaperf/1");
	refused("{\"schema\": \"rdmaperf/2\", \"results\": []}", -EINVAL,
		"has schema \"rdmaperf/2\"; this rdmaperf reads rdmaperf/1");
	refused("{\"schema\": 1, \"results\": []}", -EINVAL, "has no schema");
	refused("{\"schema\": \"rdmaperf/1\"}", -EINVAL,
		"has no \"results\" array");
	refused("{\"schema\": \"rdmaperf/1\", \"results\": {}}", -EINVAL,
		"has no \"results\" array");
	refused("{\"schema\": \"rdmaperf/1\", \"results\": [1]}", -EINVAL,
		"result 0 is not an object");
}

/* A valid document, as text, with @key of "config" (or of the first
 * result when @in_result) set to an array of @n numbers. */
static void refused_list(bool in_result, const char *key, int n,
			 const char *reason)
{
	cJSON *d = rp_report_json_doc(&cfg.test, res, 1),
	      *a = cJSON_CreateArray();
	cJSON *where = cJSON_GetObjectItem(d, in_result ? "results" : "config");
	char *text;
	int i;

	if (in_result)
		where = cJSON_GetArrayItem(where, 0);
	for (i = 0; i < n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber(i));
	cJSON_DeleteItemFromObjectCaseSensitive(where, key);
	cJSON_AddItemToObject(where, key, a);
	text = cJSON_Print(d);
	refused(text, -EINVAL, reason);
	free(text);
	cJSON_Delete(d);
}

static void test_refuse_lists(void **state)
{
	cJSON *d, *a, *e;
	char *text;
	int i;

	(void)state;
	refused_list(false, "sizes", RP_MAX_SIZES + 1,
		     "config.sizes has 33 entries; at most 32");
	refused_list(false, "queue_depths", RP_MAX_DEPTHS + 1,
		     "config.queue_depths has 17 entries; at most 16");
	refused_list(false, "cpus", RP_MAX_CPUS + 1,
		     "config.cpus has 65 entries; at most 64");
	refused_list(false, "transport", RP_MAX_TRANSPORTS + 1,
		     "config.transport has 9 entries; at most 8");
	refused_list(true, "per_stream", RP_SPEC_MAX_STREAMS + 1,
		     "result 0: per_stream has 129 entries; at most 128");
	/* more results than transports times points */
	d = rp_report_json_doc(&cfg.test, res, 0);
	a = cJSON_GetObjectItem(d, "results");
	for (i = 0; i <= RP_MAX_TRANSPORTS * RP_MAX_POINTS; i++)
		cJSON_AddItemToArray(a, cJSON_CreateObject());
	text = cJSON_PrintUnformatted(d);
	refused(text, -EINVAL, "has 4097 results; at most 4096");
	free(text);
	cJSON_Delete(d);
	/* a spectrum longer than its array */
	d = rp_report_json_doc(&cfg.test, res, 1);
	a = cJSON_AddArrayToObject(
		cJSON_GetObjectItem(
			cJSON_GetArrayItem(cJSON_GetObjectItem(d, "results"),
					   0),
			"latency"),
		"spectrum");
	for (i = 0; i <= RP_SPECTRUM_MAX; i++) {
		e = cJSON_CreateArray();
		cJSON_AddItemToArray(e, cJSON_CreateNumber(i));
		cJSON_AddItemToArray(e, cJSON_CreateNumber(i));
		cJSON_AddItemToArray(a, e);
	}
	text = cJSON_Print(d);
	refused(text, -EINVAL, "a latency spectrum has 65 entries; at most 64");
	free(text);
	cJSON_Delete(d);
}

/* ---- hostile values ---------------------------------------------------- */

/* Load what must load: then write it and render it, to catch a crash in
 * what the reporters make of it. */
static void loads(const char *text, size_t len, struct rp_report_doc *doc)
{
	char path[64], *t;
	cJSON *again;

	write_tmp(text, len, path);
	load_ok(path, doc);
	unlink(path);
	again = rp_report_json_doc(&doc->test, doc->res, doc->n);
	assert_non_null(again);
	cJSON_Delete(again);
	t = text_of(&doc->test, doc->res, doc->n);
	free(t);
}

/* A string of 10 MB in every string of a document: cut to its buffer. */
static void test_long_strings(void **state)
{
	size_t big = 10 << 20;
	char *s = malloc(big + 1), *text;
	struct rp_report_doc doc;
	cJSON *d, *r;

	(void)state;
	assert_non_null(s);
	memset(s, 'x', big);
	s[big] = '\0';
	d = rp_report_json_doc(&cfg.test, res, 1);
	r = cJSON_GetArrayItem(cJSON_GetObjectItem(d, "results"), 0);
	cJSON_ReplaceItemInObject(r, "notes", cJSON_CreateString(s));
	cJSON_ReplaceItemInObject(r, "transport", cJSON_CreateString(s));
	cJSON_ReplaceItemInObject(r, "op", cJSON_CreateString(s));
	cJSON_ReplaceItemInObject(cJSON_GetObjectItem(d, "config"), "server",
				  cJSON_CreateString(s));
	cJSON_ReplaceItemInObject(cJSON_GetObjectItem(d, "config"), "transport",
				  cJSON_CreateString(s));
	free(s);
	text = cJSON_PrintUnformatted(d);
	cJSON_Delete(d);
	loads(text, strlen(text), &doc);
	free(text);
	assert_int_equal(strlen(doc.res[0].notes), RP_NOTE_LEN - 1);
	assert_int_equal(strlen(doc.res[0].transport), RP_SPEC_NAME_LEN - 1);
	assert_int_equal(strlen(doc.host), sizeof(doc.host) - 1);
	assert_int_equal(doc.res[0].spec.op, RP_OP_WRITE);
	rp_report_doc_free(&doc);
}

enum mutation {
	MUT_NUM_TO_STR, /* "size": "big" */
	MUT_STR_TO_NUM, /* "op": 5 */
	MUT_NULL,	/* every member null */
	MUT_TRUE,	/* every member true */
	MUT_NEGATIVE,	/* every number -1e300 */
	MUT_HUGE,	/* every number 1e300 */
	MUT_FRACTION,	/* every number 0.5 */
	MUT_NESTED_NUM, /* every object or array member 5 ("latency": 5) */
	MUT_SWAP,	/* objects become [], arrays {} */
	MUT__COUNT
};

static cJSON *mutated_leaf(const cJSON *v, enum mutation m)
{
	switch (m) {
	case MUT_NUM_TO_STR:
		return cJSON_IsNumber(v) ? cJSON_CreateString("big") : NULL;
	case MUT_STR_TO_NUM:
		return cJSON_IsString(v) ? cJSON_CreateNumber(5) : NULL;
	case MUT_NULL:
		return cJSON_CreateNull();
	case MUT_TRUE:
		return cJSON_CreateTrue();
	case MUT_NEGATIVE:
		return cJSON_IsNumber(v) ? cJSON_CreateNumber(-1e300) : NULL;
	case MUT_HUGE:
		return cJSON_IsNumber(v) ? cJSON_CreateNumber(1e300) : NULL;
	case MUT_FRACTION:
		return cJSON_IsNumber(v) ? cJSON_CreateNumber(0.5) : NULL;
	default:
		return NULL;
	}
}

static cJSON *mutated_container(const cJSON *v, enum mutation m)
{
	if (m == MUT_NESTED_NUM)
		return cJSON_CreateNumber(5);
	if (m == MUT_SWAP)
		return cJSON_IsArray(v) ? cJSON_CreateObject()
					: cJSON_CreateArray();
	if (m == MUT_NULL)
		return cJSON_CreateNull();
	return NULL;
}

/* Every member under @o, at every depth, as @m says. */
static void mutate(cJSON *o, enum mutation m)
{
	cJSON *c, *next, *with;

	for (c = o->child; c; c = next) {
		next = c->next;
		if (cJSON_IsObject(c) || cJSON_IsArray(c)) {
			mutate(c, m);
			with = mutated_container(c, m);
		} else {
			with = mutated_leaf(c, m);
		}
		if (with)
			cJSON_ReplaceItemViaPointer(o, c, with);
	}
}

/* A rich document (a sweep with streams, both directions, intervals,
 * spectra, CPU), mutated in @m, inside config, hosts and each result. */
static void test_wrong_types(void **state)
{
	struct rp_report_doc doc;
	cJSON *d, *e;
	char *text;
	int m;

	(void)state;
	cfg.test.spec.bidir = true;
	cfg.test.spec.streams = 2;
	good_result(&res[1], "rdma", 1, 65536, 4);
	fill_direction(&res[1], RP_DIR_C2S, 600, 2, 2);
	fill_direction(&res[1], RP_DIR_S2C, 433, 2, 2);
	totals(&res[1]);
	fill_intervals(&res[1], 3, 2);
	fill_spectrum(&res[1].latency_spectrum, 1234.5, 12);
	res[1].client.cpu.n_threads = 2;
	res[1].has_interval_range = true;
	for (m = 0; m < MUT__COUNT; m++) {
		d = rp_report_json_doc(&cfg.test, res, 2);
		mutate(cJSON_GetObjectItem(d, "config"), (enum mutation)m);
		mutate(cJSON_GetObjectItem(d, "hosts"), (enum mutation)m);
		cJSON_ArrayForEach(e, cJSON_GetObjectItem(d, "results"))
		{
			mutate(e, (enum mutation)m);
		}
		text = cJSON_PrintUnformatted(d);
		cJSON_Delete(d);
		loads(text, strlen(text), &doc);
		free(text);
		assert_int_equal(doc.n, 2);
		rp_report_doc_free(&doc);
	}
}

/* Numbers a double cannot hold, NaN's stand-in and odd shapes. */
static void test_odd_values(void **state)
{
	static const char text[] =
		"{\"schema\": \"rdmaperf/1\", \"config\": {\"size\": 1e999,"
		" \"queue_depth\": -1e999, \"iterations\": "
		"18446744073709551617,"
		" \"port\": 70000, \"cpus\": [-5, 1e99, null],"
		" \"transport\": [\"tcp\", 5], \"interval_s\": null},"
		" \"hosts\": {\"client\": 5, \"server\": \"x\"},"
		" \"results\": [{\"bidir\": true, \"directions\": {"
		"   \"client_to_server\": {\"streams\": 1e99, \"per_stream\": "
		"3},"
		"   \"server_to_client\": []},"
		"  \"per_stream\": [{\"direction\": 7}, 3, {\"direction\":"
		"   \"server_to_client\", \"latency\": {\"p50\": 1e999}}],"
		"  \"latency\": {\"spectrum\": [[1], 5, [null, \"a\"], []]},"
		"  \"intervals\": [5, {\"per_stream\": [1, 2]}, "
		"{\"per_stream\":"
		"   {}}], \"interval_range\": [], \"client_streams\": 5,"
		"  \"server_transport\": null, \"cpu\": {\"client\": [],"
		"   \"server\": {\"threads\": [1, {}], \"host\": 3}},"
		"  \"error\": \"bad\", \"ok\": false, \"interrupted\": true,"
		"  \"phase\": 5, \"duration_s\": 1e300}]}";
	struct rp_report_doc doc;

	(void)state;
	loads(text, sizeof(text) - 1, &doc);
	assert_int_equal(doc.test.spec.size_bytes, RP_SPEC_MAX_SIZE);
	assert_int_equal(doc.test.spec.queue_depth, 0);
	assert_int_equal(doc.test.port, 65535);
	assert_int_equal(doc.test.n_cpus, 3);
	assert_int_equal(doc.test.n_transports, 2);
	assert_true(isnan(doc.test.interval_s));
	assert_true(doc.res[0].failed);
	assert_int_equal(doc.res[0].dir[RP_DIR_S2C].n_streams, 1);
	assert_int_equal(doc.res[0].latency_spectrum.n, 4);
	assert_int_equal(doc.res[0].n_intervals, 3);
	assert_int_equal(doc.res[0].intervals[1].n_streams, 2);
	rp_report_doc_free(&doc);
}

/* ---- bounds (issue 39: 6, 7, 9) --------------------------------------- */

/* A growing text, for the documents below. */
struct text {
	char *s;
	size_t len, cap;
};

static void put(struct text *t, const char *s)
{
	size_t n = strlen(s);

	while (t->len + n + 1 > t->cap) {
		t->cap = t->cap ? 2 * t->cap : 4096;
		t->s = realloc(t->s, t->cap);
		assert_non_null(t->s);
	}
	memcpy(t->s + t->len, s, n + 1);
	t->len += n;
}

static void put_n(struct text *t, const char *s, size_t n, const char *sep)
{
	size_t i;

	for (i = 0; i < n; i++) {
		put(t, i ? sep : "");
		put(t, s);
	}
}

/* A document whose records (per-stream entries of intervals) are far
 * more than its bytes can describe: refused before any is allocated
 * (1.77 GB for --json of 3.2 MB before). */
static void test_refuse_records(void **state)
{
	struct text t = { 0 }, iv = { 0 };

	(void)state;
	put(&iv, "{\"index\":0,\"per_stream\":[");
	put_n(&iv, "{}", 256, ",");
	put(&iv, "]}");
	put(&t, "{\"schema\":\"" RP_JSON_SCHEMA "\",\"config\":{},"
		"\"results\":[{\"intervals\":[");
	put_n(&t, iv.s, 400, ",");
	put(&t, "]}]}");
	refused(t.s, -E2BIG, "more per-stream and interval records");
	free(iv.s);
	free(t.s);
}

/* 4000 results and one large "hosts": loaded once, not once per result
 * (a 216 KB document took 4 GB). */
static void test_hosts_once(void **state)
{
	struct rp_report_doc doc;
	struct text t = { 0 };
	char *out;
	size_t i;

	(void)state;
	put(&t, "{\"schema\":\"" RP_JSON_SCHEMA "\",\"config\":{},"
		"\"hosts\":{\"client\":{\"hostname\":\"c\",\"junk\":[");
	put_n(&t, "0", 50000, ",");
	put(&t, "]},\"server\":{\"hostname\":\"s\"}},\"results\":[");
	put_n(&t, "{}", 4000, ",");
	put(&t, "]}");
	loads(t.s, t.len, &doc);
	assert_int_equal(doc.n, 4000);
	for (i = 1; i < doc.n; i++) {
		assert_ptr_equal(doc.res[i].client_host,
				 doc.res[0].client_host);
		assert_ptr_equal(doc.res[i].server_host,
				 doc.res[0].server_host);
	}
	out = text_of(&doc.test, doc.res, 2);
	assert_non_null(strstr(out, "server s"));
	free(out);
	rp_report_doc_free(&doc);
	free(t.s);
}

/* @s is valid UTF-8 (the JSON text's bytes). */
static bool utf8_valid(const unsigned char *s, size_t n)
{
	size_t i = 0, k, more;

	while (i < n) {
		more = s[i] < 0x80	       ? 0
		       : (s[i] & 0xe0) == 0xc0 ? 1
		       : (s[i] & 0xf0) == 0xe0 ? 2
		       : (s[i] & 0xf8) == 0xf0 ? 3
					       : 9;
		if (more == 9 || (more && i + more >= n))
			return false;
		for (k = 1; k <= more; k++)
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
		i += more + 1;
	}
	return true;
}

/* Terminal escapes and invalid UTF-8 in a document's host, transport
 * and error strings reach neither the text, the CSV nor the JSON: made
 * safe when the document is read. */
static void test_hostile_strings(void **state)
{
	static const char doc_text[] =
		"{\"schema\":\"" RP_JSON_SCHEMA "\",\"config\":{},"
		"\"hosts\":{\"client\":{\"hostname\":\"c\\u001b[2J\xff\"},"
		"\"server\":{\"hostname\":\"s\\u001b[2J\xfe\xff\"}},"
		"\"results\":[{\"transport\":\"t\\u001b[2J\xc3\","
		"\"ok\":false,\"error\":{\"code\":\"x\\u001b]0;\","
		"\"message\":\"m\\u001b[2J\\u0007\xff\"}}]}";
	struct rp_report_doc doc;
	char *out[3] = { NULL, NULL, NULL };
	size_t len[3] = { 0, 0, 0 }, i;
	FILE *f;

	(void)state;
	loads(doc_text, sizeof(doc_text) - 1, &doc);
	assert_null(strchr(doc.res[0].transport, 0x1b));
	assert_null(strchr(doc.res[0].error, 0x1b));
	for (i = 0; i < 3; i++) {
		f = open_memstream(&out[i], &len[i]);
		assert_non_null(f);
		if (i == 0)
			rp_report_text(f, &doc.test, doc.res, doc.n);
		else if (i == 1)
			assert_int_equal(
				rp_report_csv(f, &doc.test, doc.res, doc.n), 0);
		else
			assert_int_equal(
				rp_report_json(f, &doc.test, doc.res, doc.n),
				0);
		fclose(f);
		if (memchr(out[i], 0x1b, len[i]) ||
		    memchr(out[i], 0x07, len[i]))
			fail_msg("output %zu holds a raw control byte:\n%s", i,
				 out[i]);
	}
	assert_true(utf8_valid((const unsigned char *)out[2], len[2]));
	assert_non_null(strstr(out[2], "\\\\x1b[2J"));
	assert_non_null(strstr(out[2], "\xef\xbf\xbd")); /* U+FFFD */
	for (i = 0; i < 3; i++)
		free(out[i]);
	rp_report_doc_free(&doc);
}

/* results: [] reads as no result, with the run's error when it has one
 * (the CLI says so instead of printing nothing). */
static void test_no_results(void **state)
{
	static const char doc_text[] =
		"{\"schema\":\"" RP_JSON_SCHEMA "\",\"config\":{},"
		"\"results\":[],\"error\":{\"code\":\"connect\","
		"\"message\":\"cannot reach it\"}}";
	struct rp_report_doc doc;

	(void)state;
	loads(doc_text, sizeof(doc_text) - 1, &doc);
	assert_int_equal(doc.n, 0);
	assert_string_equal(doc.error, "cannot reach it");
	rp_report_doc_free(&doc);
}

/* A --matrix document of @cells cells (over 3 ranks), the first with
 * @results results. */
static char *matrix_text(size_t cells, size_t results)
{
	struct text t = { 0 };
	size_t i;

	put(&t, "{\"schema\":\"" RP_MATRIX_SCHEMA "\",\"matrix\":{"
		"\"rounds\":1,\"outlier_fraction\":0.8,\"ranks\":[");
	for (i = 0; i < 3; i++) {
		char r[96];

		snprintf(r, sizeof(r),
			 "%s{\"rank\":%zu,\"host\":\"h\",\"address\":\"a\"}",
			 i ? "," : "", i);
		put(&t, r);
	}
	put(&t, "],\"cells\":[{\"client\":0,\"server\":1,\"round\":0,"
		"\"document\":{\"results\":[");
	put_n(&t, "{}", results, ",");
	put(&t, "]}}");
	for (i = 1; i < cells; i++)
		put(&t, ",{\"client\":1,\"server\":2,\"round\":0}");
	put(&t, "]}}");
	return t.s;
}

static int matrix_load_text(const char *text, cJSON **m, struct rp_err *why)
{
	char path[64];
	int err;

	write_tmp(text, strlen(text), path);
	err = rp_matrix_load(path, m, why);
	unlink(path);
	return err;
}

/* Each table lists every cell: a few cells with many results must not
 * multiply into cells x results entries (20000 x 1000 from 740 KB took
 * more than 2 GB); refused with the bound before any table is built. */
static void test_matrix_entries(void **state)
{
	struct rp_err why = { { 0 } };
	char *text = matrix_text(2000, 1000);
	cJSON *m = NULL;

	(void)state;
	assert_int_equal(matrix_load_text(text, &m, &why), -E2BIG);
	assert_null(m);
	assert_non_null(strstr(why.msg, "2000 cells x 1000 results per cell"));
	assert_non_null(strstr(why.msg, "pairs' results"));
	free(text);
	/* what fits is read, its failures in every table */
	text = matrix_text(20, 100);
	assert_int_equal(matrix_load_text(text, &m, &why), 0);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(
				 cJSON_GetObjectItem(m, "matrix"), "tables")),
			 100);
	cJSON_Delete(m);
	free(text);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_one_point),
		T(test_fields),
		T(test_sweep),
		T(test_streams),
		T(test_bidir),
		T(test_intervals),
		T(test_cpu),
		T(test_loss),
		T(test_empty),
		T(test_ns_exact),
		T(test_fixture),
		T(test_refuse_file),
		T(test_refuse_content),
		T(test_refuse_lists),
		T(test_long_strings),
		T(test_wrong_types),
		T(test_odd_values),
		T(test_refuse_records),
		T(test_hosts_once),
		T(test_hostile_strings),
		T(test_no_results),
		T(test_matrix_entries),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
