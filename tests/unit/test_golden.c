// SPDX-License-Identifier: MIT
/*
 * Golden tests of report/: results built by hand with known numbers,
 * rendered by rp_report_text and rp_report_csv, compared byte for byte
 * with tests/golden/<case>.txt and .csv. A change of layout shows as a
 * diff of those files in review. To regenerate them after a deliberate
 * change, run this test with RP_UPDATE_GOLDEN=1 and read the diff.
 *
 *   one_point      one test: latency under load and unloaded, CPU of
 *                  both sides (host split, threads), five -i intervals
 *   sweep          tcp and rdma over 4 KiB, 64 KiB, 1 MiB at depth 16;
 *                  rdma's 1 MiB point failed (its message needs quoting)
 *   bidir_streams  --bidir -P 2 over two threads
 *
 * The text's "rdmaperf VERSION" reads "rdmaperf @VERSION@" in the files,
 * so a version bump does not touch them. Every CSV row must have as many
 * fields as the header, each line end in CRLF.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fixtures.h"

#define N_RES	  6
#define MSGS	  FX_MSGS
#define SECS	  0.5
#define VERSION_T "rdmaperf " RP_VERSION
#define VERSION_G "rdmaperf @VERSION@"

static struct rp_config cfg;
static struct rp_result res[N_RES];
static struct rp_stream_result streams[N_RES][RP_DIR__COUNT][4];

/* ---- results with known numbers ------------------------------------- */

/* A flow whose latency summary (fx_summary) has base @lat_base. */
static void fill_flow(struct rp_flow *fl, uint64_t msgs, uint64_t size,
		      double secs, double lat_base)
{
	fx_summary(fx_flow(fl, msgs, size, secs), msgs, lat_base);
}

/* A side that used @user_s + @sys_s of CPU moving MSGS messages, @bytes,
 * at 3 GHz. */
static void fill_side(struct rp_side *s, double user_s, double sys_s,
		      uint64_t bytes)
{
	struct rp_cpu_usage *u = &s->cpu;

	fx_side(s, user_s, sys_s, 3e9, MSGS, bytes);
	u->us_per_kib = rp_cpu_service_demand(user_s, sys_s, bytes);
	u->cycles_per_kib = rp_cpu_cycles_per_kib(user_s, sys_s, bytes, u->hz);
}

/* Direction @d of @r: @n streams, stream i carrying msgs[i] in @secs on
 * thread i % @threads, latency base 1 us * (i + 1). */
static void fill_direction(struct rp_result *r, enum rp_dir d,
			   const uint64_t *msgs, uint32_t n, uint32_t threads,
			   double secs)
{
	struct rp_stream_result *s = streams[r - res][d];
	struct rp_direction *dir = &r->dir[d];
	uint64_t size = r->spec.size_bytes, total = 0;
	uint32_t i;

	for (i = 0; i < n; i++) {
		s[i].stream = i;
		s[i].thread = i % threads;
		fill_flow(&s[i].flow, msgs[i], size, secs, 1000.0 * (i + 1));
		total += msgs[i];
	}
	dir->present = true;
	fill_flow(&dir->flow, total, size, secs, 1000);
	dir->n_streams = n;
	dir->per_stream = s;
	dir->fairness = fx_fairness(dir);
}

/* A successful test of @size on @transport: MSGS messages in @secs, one
 * stream, latency base @lat_ns under load and half of it unloaded. */
static void good_result(struct rp_result *r, const char *transport,
			uint64_t size, double secs, double lat_ns)
{
	uint64_t one[1] = { MSGS };

	fx_drop(r);
	fx_result(r, &cfg, transport);
	r->spec.size_bytes = size;
	r->warmup_messages = 100;
	fx_totals(r, MSGS, size, secs);
	r->flow.has_latency = true;
	fx_summary(&r->flow.latency, MSGS, lat_ns);
	r->has_unloaded = true;
	fx_summary(&r->unloaded, 200, lat_ns / 2);
	fx_summary(&r->rtt, 200, lat_ns);
	r->unloaded_halved = true;
	fill_side(&r->client, 0.125, 0.25, r->flow.bytes);
	fill_side(&r->server, 0.0625, 0.1875, r->flow.bytes);
	fill_direction(r, RP_DIR_C2S, one, 1, 1, secs);
}

static void failed_result(struct rp_result *r, const char *transport,
			  uint64_t size, const char *code, const char *msg)
{
	fx_drop(r);
	fx_failed(r, &cfg, transport, code, msg);
	r->spec.size_bytes = size;
}

static int setup(void **state)
{
	(void)state;
	fx_config(&cfg);
	cfg.test.spec.lat_iterations = 200;
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

/* ---- rendering and comparing ---------------------------------------- */

/* @text with every "rdmaperf VERSION" as "rdmaperf @VERSION@" (freed). */
static char *without_version(char *text)
{
	size_t cap = strlen(text) * 2 + 1, len = 0;
	char *out = malloc(cap), *p = text, *hit;

	assert_non_null(out);
	while ((hit = strstr(p, VERSION_T))) {
		len += (size_t)snprintf(out + len, cap - len, "%.*s%s",
					(int)(hit - p), p, VERSION_G);
		p = hit + strlen(VERSION_T);
	}
	snprintf(out + len, cap - len, "%s", p);
	free(text);
	return out;
}

static void golden_path(char *buf, size_t len, const char *name,
			const char *ext)
{
	const char *file = __FILE__, *slash = strrchr(file, '/');

	if (slash)
		snprintf(buf, len, "%.*s/../golden/%s.%s", (int)(slash - file),
			 file, name, ext);
	else
		snprintf(buf, len, "../golden/%s.%s", name, ext);
}

/* The first line where @want and @got differ, both shown. */
static void report_diff(const char *path, const char *want, const char *got)
{
	size_t i = 0, line = 1, start = 0;

	while (want[i] && want[i] == got[i]) {
		if (want[i++] == '\n') {
			line++;
			start = i;
		}
	}
	fail_msg("%s differs at line %zu:\n  want: %.*s\n  got:  %.*s\n"
		 "(RP_UPDATE_GOLDEN=1 rewrites it; review the diff)",
		 path, line, (int)strcspn(want + start, "\n"), want + start,
		 (int)strcspn(got + start, "\n"), got + start);
}

static void compare_golden(const char *name, const char *ext, char *got)
{
	const char *update = getenv("RP_UPDATE_GOLDEN");
	char path[4096], *want;
	FILE *f;

	golden_path(path, sizeof(path), name, ext);
	if (update && !strcmp(update, "1")) {
		f = fopen(path, "wb");
		if (!f)
			fail_msg("%s: %s", path, strerror(errno));
		assert_int_equal(fputs(got, f) >= 0, 1);
		assert_int_equal(fclose(f), 0);
		print_message("wrote %s\n", path);
		return;
	}
	want = fx_read_file(path);
	if (!want)
		fail_msg("%s: %s (RP_UPDATE_GOLDEN=1 creates it)", path,
			 strerror(errno));
	if (strcmp(want, got))
		report_diff(path, want, got);
	free(want);
}

/* Fields of the RFC 4180 record at *@p; *@p moves past its CRLF. */
static size_t csv_record(const char **p)
{
	size_t fields = 1;
	bool quoted = false;
	const char *s = *p;

	for (; *s; s++) {
		if (*s == '"')
			quoted = !quoted; /* "" toggles twice */
		else if (!quoted && *s == ',')
			fields++;
		else if (!quoted && *s == '\n')
			fail_msg("a bare LF ends a CSV line: %.40s", *p);
		else if (!quoted && s[0] == '\r' && s[1] == '\n')
			break;
	}
	if (!*s)
		fail_msg("CSV line without CRLF: %.40s", *p);
	*p = s + 2;
	return fields;
}

/* A header, then @rows rows of as many fields. */
static void check_csv_shape(const char *csv, size_t rows)
{
	const char *p = csv;
	size_t n = csv_record(&p), i;

	assert_true(n > 1);
	for (i = 0; i < rows; i++) {
		if (!*p)
			fail_msg("%zu CSV rows, want %zu", i, rows);
		assert_int_equal(csv_record(&p), n);
	}
	assert_string_equal(p, "");
}

static void check_case(const char *name, size_t n)
{
	char *text = without_version(fx_render(&cfg.test, res, n, false));
	char *csv = fx_render(&cfg.test, res, n, true);

	check_csv_shape(csv, n);
	compare_golden(name, "txt", text);
	compare_golden(name, "csv", csv);
	free(text);
	free(csv);
}

/* ---- the cases ------------------------------------------------------- */

/* Five 0.1 s intervals of @r (4 KiB messages): 180, 200, 220, 200 and
 * 200 messages, so 58982400 to 72089600 b/s. */
static void fill_intervals(struct rp_result *r)
{
	static const uint64_t msgs[] = { 180, 200, 220, 200, 200 };
	uint32_t i, n = sizeof(msgs) / sizeof(msgs[0]);

	r->intervals = calloc(n, sizeof(*r->intervals));
	assert_non_null(r->intervals);
	r->n_intervals = n;
	for (i = 0; i < n; i++) {
		r->intervals[i].index = i;
		r->intervals[i].start = 0.1 * i;
		fill_flow(&r->intervals[i].flow, msgs[i], 4096, 0.1, 1000);
	}
	r->interval_s = 0.1;
	r->has_interval_range = true;
	r->interval_min_bps = r->intervals[0].flow.bits_per_second;
	r->interval_max_bps = r->intervals[2].flow.bits_per_second;
}

static void test_one_point(void **state)
{
	struct rp_cpu_usage *u = &res[0].client.cpu;

	(void)state;
	good_result(&res[0], "tcp", 4096, SECS, 1000);
	res[0].client_host = fx_host("cli");
	res[0].server_host = fx_host("srv");
	u->has_host = true;
	u->host = (struct rp_cpu_host){ -1, 0.5, 0.25, 0.0625, 0.125, 1, 0.5 };
	u->n_threads = 2;
	u->threads[0] = (struct rp_cpu_thread){ 2, 0.0625, 0.125 };
	u->threads[1] = (struct rp_cpu_thread){ 3, 0.0625, 0.125 };
	fill_intervals(&res[0]);
	cfg.test.interval_s = 0.1;
	check_case("one_point", 1);
}

static void test_sweep(void **state)
{
	static const uint64_t sizes[] = { 4096, 65536, 1048576 };
	static const char *const names[] = { "tcp", "rdma" };
	size_t t, p;

	(void)state;
	memcpy(cfg.test.sizes, sizes, sizeof(sizes));
	cfg.test.n_sizes = 3;
	cfg.test.depths[0] = 16;
	cfg.test.n_depths = 1;
	cfg.test.n_transports = 2;
	for (t = 0; t < 2; t++) {
		snprintf(cfg.test.transports[t], RP_SPEC_NAME_LEN, "%s",
			 names[t]);
		for (p = 0; p < 3; p++) {
			/* rdma twice as fast, half the latency */
			good_result(&res[t * 3 + p], names[t], sizes[p],
				    SECS / (double)(t + 1) * (double)(p + 1),
				    1000.0 * (double)(p + 1) / (double)(t + 1));
			res[t * 3 + p].point = (uint32_t)p;
		}
	}
	failed_result(&res[5], "rdma", sizes[2], "setup",
		      "rdma: cannot register 1 MiB on \"mlx5_0\", "
		      "ibv_reg_mr: Cannot allocate memory");
	res[5].point = 2;
	res[0].client_host = fx_host("cli");
	res[0].server_host = fx_host("srv");
	check_case("sweep", 6);
}

static void test_bidir_streams(void **state)
{
	static const uint64_t c2s[] = { 200, 400 }, s2c[] = { 150, 250 };
	struct rp_result *r = &res[0];

	(void)state;
	cfg.test.spec.bidir = true;
	cfg.test.spec.streams = 2;
	cfg.test.spec.threads = 2;
	good_result(r, "tcp", 4096, SECS, 1000);
	fill_direction(r, RP_DIR_C2S, c2s, 2, 2, SECS);
	fill_direction(r, RP_DIR_S2C, s2c, 2, 2, SECS);
	r->client_host = fx_host("cli");
	r->server_host = fx_host("srv");
	check_case("bidir_streams", 1);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_one_point),
		T(test_sweep),
		T(test_bidir_streams),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
