// SPDX-License-Identifier: MIT
/*
 * Unit tests of the SVG plots (report/plot/: plot.c, the kinds, svg.c): each
 * kind of plot from results built by hand (a sweep of two transports with a
 * failed point, several depths, a latency distribution from real histogram
 * spectra, intervals over time, every test failed, hostile host names, NaN),
 * counted by the markup the plots promise (a <g class="series"> per series,
 * a <circle class="point"> per point of the first panel), and, where the
 * tools are installed, parsed by Python's XML parser and rendered by
 * rsvg-convert. RP_PLOT_DIR=DIR keeps the files there (to look at them).
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
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "report/report.h"
#include "run/config.h"
#include "report/plot/svg.h"

#define N_RES	  24
#define N_IV	  10
#define HIST_SIZE 20000

static struct rp_config cfg;
static struct rp_result res[N_RES];
static struct rp_interval iv[N_IV];
static char dir[256];
static bool keep;

static void set_hosts(struct rp_result *r, const char *client,
		      const char *server)
{
	r->client_host = cJSON_CreateObject();
	cJSON_AddStringToObject(r->client_host, "hostname", client);
	r->server_host = cJSON_CreateObject();
	cJSON_AddStringToObject(r->server_host, "hostname", server);
}

/* Forget @r, and free the host objects it holds. */
static void reset(struct rp_result *r)
{
	cJSON_Delete(r->client_host);
	cJSON_Delete(r->server_host);
	memset(r, 0, sizeof(*r));
}

static void set_cfg(size_t n_transports, size_t n_sizes, size_t n_depths)
{
	size_t i;

	memset(&cfg, 0, sizeof(cfg));
	cfg.mode = RP_MODE_CLIENT;
	cfg.test.host = "10.0.0.2";
	cfg.test.port = 18515;
	rp_spec_defaults(&cfg.test.spec);
	cfg.test.spec.iterations = 2000;
	cfg.test.n_transports = n_transports;
	for (i = 0; i < n_transports; i++)
		snprintf(cfg.test.transports[i], RP_SPEC_NAME_LEN, "tcp");
	cfg.test.n_sizes = n_sizes;
	cfg.test.n_depths = n_depths;
}

/* A plausible summary of @count values around @p50 ns. */
static void summary(struct rp_hist_summary *s, uint64_t count, double p50)
{
	memset(s, 0, sizeof(*s));
	s->count = count;
	s->min = 0.7 * p50;
	s->mean = 1.1 * p50;
	s->p50 = p50;
	s->p90 = 1.5 * p50;
	s->p99 = 2.5 * p50;
	s->p99_9 = 4 * p50;
	s->p99_99 = 6 * p50;
	s->max = 9 * p50;
	s->stddev = 0.3 * p50;
}

/* A successful point: throughput that grows with the size towards 90
 * Gb/s, latency that grows with it too. */
static void good(struct rp_result *r, const char *transport, uint64_t size,
		 uint32_t depth, double scale)
{
	double s = (double)size;

	reset(r);
	snprintf(r->transport, sizeof(r->transport), "%s", transport);
	r->spec = cfg.test.spec;
	r->spec.size_bytes = size;
	r->spec.queue_depth = depth;
	r->has_bandwidth = true;
	r->flow.bits_per_second = scale * 90e9 * s / (s + 4096);
	r->flow.has_latency = true;
	summary(&r->flow.latency, 2000, (2000 + s / 10) / scale);
	r->has_unloaded = true;
	r->unloaded_halved = true;
	summary(&r->unloaded, 1000, (1500 + s / 12) / scale);
	set_hosts(r, "client-1", "server-2");
}

static void failed(struct rp_result *r, const char *transport, uint64_t size,
		   uint32_t depth, const char *why)
{
	reset(r);
	snprintf(r->transport, sizeof(r->transport), "%s", transport);
	r->spec = cfg.test.spec;
	r->spec.size_bytes = size;
	r->spec.queue_depth = depth;
	r->failed = true;
	snprintf(r->error_code, sizeof(r->error_code), "transport");
	snprintf(r->error, sizeof(r->error), "%s", why);
	set_hosts(r, "client-1", "server-2");
}

/* Spectra from real histograms: a body around @base ns and a tail. */
static void spectrum(struct rp_spectrum *sp, struct rp_hist_summary *s,
		     uint64_t base, uint64_t tail)
{
	struct rp_hist *h;
	uint64_t i;

	assert_int_equal(rp_hist_create(&h), 0);
	for (i = 0; i < HIST_SIZE; i++)
		rp_hist_record(h, base + (i * 7919) % 1000 +
					  (i % 97 == 0 ? tail * (i % 5) : 0) +
					  (i == 4242 ? 40 * tail : 0));
	rp_hist_spectrum(h, sp);
	rp_hist_summarize(h, s);
	rp_hist_destroy(h);
}

static int setup(void **state)
{
	const char *d = getenv("RP_PLOT_DIR");

	(void)state;
	keep = d && *d;
	if (keep) {
		snprintf(dir, sizeof(dir), "%s", d);
		mkdir(dir, 0755);
		return 0;
	}
	snprintf(dir, sizeof(dir), "/tmp/rp_plot_XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[300];

	(void)state;
	if (!keep) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			return -1;
	}
	return 0;
}

static void drop(size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		cJSON_Delete(res[i].client_host);
		cJSON_Delete(res[i].server_host);
		res[i].client_host = res[i].server_host = NULL;
	}
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long len;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	len = ftell(f);
	assert_true(len > 0);
	rewind(f);
	buf = malloc((size_t)len + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
	buf[len] = '\0';
	fclose(f);
	return buf;
}

static size_t count(const char *s, const char *needle)
{
	size_t n = 0;

	while ((s = strstr(s, needle))) {
		n++;
		s += strlen(needle);
	}
	return n;
}

/* A number printed from NaN or infinity, anywhere a number goes. */
static bool not_finite(const char *svg)
{
	static const char *const bad[] = { "\"nan", "\"-nan", ",nan", " nan",
					   "\"inf", "\"-inf", ",inf", ",-inf",
					   " inf",  "NaN" };
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		if (strstr(svg, bad[i]))
			return true;
	return false;
}

static bool have(const char *tool)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", tool);
	return system(cmd) == 0;
}

/* What real tools say of the file: well-formed XML, renders to a PNG. */
static void tools_check(const char *path)
{
	char cmd[1200], png[520];
	struct stat st;

	if (have("python3")) {
		snprintf(cmd, sizeof(cmd),
			 "python3 -c 'import sys,xml.etree.ElementTree as E; "
			 "E.parse(sys.argv[1])' '%s'",
			 path);
		if (system(cmd) != 0)
			fail_msg("%s is not well-formed XML", path);
	}
	if (!have("rsvg-convert"))
		return;
	snprintf(png, sizeof(png), "%s.png", path);
	unlink(png);
	snprintf(cmd, sizeof(cmd), "rsvg-convert -o '%s' '%s'", png, path);
	if (system(cmd) != 0)
		fail_msg("rsvg-convert could not render %s", path);
	assert_int_equal(stat(png, &st), 0);
	if (st.st_size <= 5000)
		fail_msg("%s: only %lld bytes", png, (long long)st.st_size);
}

/* Plot @n results into DIR/@name; its text (free it). */
static char *render(const char *name, size_t n)
{
	struct rp_err why = { { 0 } };
	char path[512], *svg;
	size_t len;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (rp_report_plot(path, &cfg.test, res, n, &why))
		fail_msg("rp_report_plot: %s", why.msg);
	svg = slurp(path);
	len = strlen(svg);
	assert_true(!strncmp(svg, "<?xml", 5) || !strncmp(svg, "<svg", 4));
	assert_true(len > 7 && !strcmp(svg + len - 7, "</svg>\n"));
	assert_int_equal(count(svg, "<svg"), 1);
	assert_false(not_finite(svg));
	tools_check(path);
	return svg;
}

static const uint64_t sizes6[] = { 64, 256, 1024, 4096, 16384, 65536 };

static void test_sweep_two_transports(void **state)
{
	char *svg;
	size_t t, i;

	(void)state;
	set_cfg(2, 6, 1);
	snprintf(cfg.test.transports[1], RP_SPEC_NAME_LEN, "rdma");
	for (t = 0; t < 2; t++)
		for (i = 0; i < 6; i++)
			good(&res[t * 6 + i], t ? "rdma" : "tcp", sizes6[i], 16,
			     t ? 1.0 : 0.6);
	failed(&res[9], "rdma", 4096, 16, "connection reset");
	svg = render("sweep.svg", 12);
	assert_int_equal(count(svg, "class=\"series\""), 2);
	assert_int_equal(count(svg, "<circle class=\"point\""), 11);
	assert_non_null(strstr(svg, "data-name=\"tcp\""));
	assert_non_null(strstr(svg, "data-name=\"rdma\""));
	/* tcp: one line each of throughput, p50, p99; rdma: each broken */
	assert_int_equal(count(svg, "<polyline"), 3 + 6);
	assert_non_null(strstr(svg, "unloaded latency"));
	assert_non_null(strstr(svg, "throughput (Gb/s)"));
	assert_non_null(strstr(svg, ">64 B<"));
	assert_non_null(strstr(svg, ">64 KiB<"));
	assert_non_null(strstr(svg, "client-1"));
	assert_non_null(strstr(svg, "server-2"));
	assert_non_null(strstr(svg, "10.0.0.2"));
	free(svg);
	drop(12);
}

/* Two entries of -x with the same name, two depths: four series. */
static void test_sweep_depths(void **state)
{
	static const uint32_t depths[] = { 1, 16 };
	char *svg;
	size_t t, i, d, k = 0;

	(void)state;
	set_cfg(2, 3, 2);
	for (t = 0; t < 2; t++)
		for (i = 0; i < 3; i++)
			for (d = 0; d < 2; d++)
				good(&res[k++], "tcp", sizes6[i * 2], depths[d],
				     (d ? 1 : 0.4) * (1 - 0.3 * t));
	for (k = 0; k < 12; k++)
		res[k].has_unloaded = false;
	svg = render("sweep_depths.svg", 12);
	assert_int_equal(count(svg, "class=\"series\""), 4);
	assert_int_equal(count(svg, "<circle class=\"point\""), 12);
	assert_non_null(strstr(svg, "data-name=\"tcp #1 q1\""));
	assert_non_null(strstr(svg, "data-name=\"tcp #1 q16\""));
	assert_non_null(strstr(svg, "data-name=\"tcp #2 q1\""));
	assert_non_null(strstr(svg, "data-name=\"tcp #2 q16\""));
	assert_non_null(strstr(svg, "latency under load"));
	free(svg);
	drop(12);
}

static void test_distribution(void **state)
{
	struct rp_result *r = &res[0];
	char *svg;
	size_t pts;

	(void)state;
	set_cfg(1, 1, 1);
	good(r, "tcp", 4096, 16, 1);
	spectrum(&r->latency_spectrum, &r->flow.latency, 20000, 30000);
	spectrum(&r->unloaded_spectrum, &r->unloaded, 6000, 4000);
	pts = r->latency_spectrum.n + r->unloaded_spectrum.n;
	assert_true(r->latency_spectrum.n > 20);
	svg = render("distribution.svg", 1);
	assert_int_equal(count(svg, "class=\"series\""), 2);
	assert_int_equal(count(svg, "<circle class=\"point\""), pts);
	assert_non_null(strstr(svg, "data-name=\"tcp under load\""));
	assert_non_null(strstr(svg, "data-name=\"tcp unloaded\""));
	assert_non_null(strstr(svg, ">0%<"));
	assert_non_null(strstr(svg, ">99%<"));
	assert_non_null(strstr(svg, ">99.9%<"));
	free(svg);

	/* no unloaded phase, no spectrum: the summary's percentiles */
	r->has_unloaded = false;
	r->unloaded_spectrum.n = 0;
	r->latency_spectrum.n = 0;
	svg = render("distribution_summary.svg", 1);
	assert_int_equal(count(svg, "class=\"series\""), 1);
	/* 0, 50, 90, 99, 99.9, 99.99 (1 / (1 - p) within 20000), max */
	assert_int_equal(count(svg, "<circle class=\"point\""), 7);
	free(svg);
	drop(1);
}

static void test_time(void **state)
{
	struct rp_result *r = &res[0];
	char *svg;
	size_t i;

	(void)state;
	set_cfg(1, 1, 1);
	good(r, "tcp", 65536, 16, 1);
	r->spec.duration_ns = 5000000000ULL;
	r->interval_s = 0.5;
	for (i = 0; i < N_IV; i++) {
		memset(&iv[i], 0, sizeof(iv[i]));
		iv[i].index = (uint32_t)i;
		iv[i].start = 0.5 * (double)i;
		iv[i].flow.seconds = 0.5;
		iv[i].flow.bits_per_second = 40e9 + 5e9 * sin((double)i);
		iv[i].flow.has_latency = true;
		iv[i].flow.latency.p99 = 30000 + 8000 * cos((double)i);
	}
	r->intervals = iv;
	r->n_intervals = N_IV;
	svg = render("time.svg", 1);
	assert_int_equal(count(svg, "class=\"series\""), 1);
	assert_int_equal(count(svg, "<circle class=\"point\""), N_IV);
	assert_non_null(strstr(svg, "p99 latency"));
	assert_non_null(strstr(svg, "time since"));
	free(svg);
	r->intervals = NULL;
	drop(1);
}

static void test_all_failed(void **state)
{
	char *svg;
	size_t i;

	(void)state;
	set_cfg(1, 3, 1);
	for (i = 0; i < 3; i++)
		failed(&res[i], "tcp", sizes6[i], 16,
		       "no route to <host> & \"more\"");
	svg = render("failed.svg", 3);
	assert_int_equal(count(svg, "class=\"series\""), 0);
	assert_int_equal(count(svg, "class=\"point\""), 0);
	assert_non_null(strstr(svg, ">no data<"));
	assert_non_null(strstr(svg, "no route to &lt;host&gt; &amp; "
				    "&quot;more&quot;"));
	free(svg);
	drop(3);
	svg = render("empty.svg", 0);
	assert_non_null(strstr(svg, ">no data<"));
	free(svg);
}

/* Host names come from the network: markup, control characters and
 * invalid UTF-8 in them still make a well-formed document. */
static void test_hostile_host(void **state)
{
	char *svg;

	(void)state;
	set_cfg(1, 1, 1);
	good(&res[0], "tcp", 4096, 16, 1);
	drop(1);
	set_hosts(&res[0], "evil<&\">", "bad\x01\xff\xc3(name");
	cfg.test.host = "a'b";
	svg = render("hostile.svg", 1);
	assert_non_null(strstr(svg, "evil&lt;&amp;&quot;&gt;"));
	assert_null(strstr(svg, "<&\">"));
	assert_non_null(strstr(svg, "bad??"
				    "?(name"));
	assert_non_null(strstr(svg, "a&apos;b"));
	free(svg);
	drop(1);
}

/* NaN and infinity are skipped like a failed point. */
static void test_not_finite(void **state)
{
	char *svg;
	size_t i;

	(void)state;
	set_cfg(1, 6, 1);
	for (i = 0; i < 6; i++)
		good(&res[i], "tcp", sizes6[i], 16, 1);
	res[1].flow.bits_per_second = NAN;
	res[2].unloaded.p99 = INFINITY;
	res[4].flow.bits_per_second = -INFINITY;
	svg = render("not_finite.svg", 6);
	assert_int_equal(count(svg, "class=\"series\""), 1);
	assert_int_equal(count(svg, "<circle class=\"point\""), 4);
	free(svg);
	drop(6);
}

static void test_write_error(void **state)
{
	struct rp_err why = { { 0 } };
	int rc;

	(void)state;
	set_cfg(1, 1, 1);
	good(&res[0], "tcp", 4096, 16, 1);
	rc = rp_report_plot("/nonexistent-dir/x.svg", &cfg.test, res, 1, &why);
	assert_int_equal(rc, -ENOENT);
	assert_non_null(strstr(why.msg, "cannot write /nonexistent-dir/x.svg"));
	if (access("/dev/full", W_OK) == 0) {
		rp_err_clear(&why);
		rc = rp_report_plot("/dev/full", &cfg.test, res, 1, &why);
		assert_int_equal(rc, -ENOSPC);
		assert_non_null(strstr(why.msg, "cannot write /dev/full"));
	}
	drop(1);
}

static char *escaped(const char *s, size_t max)
{
	static char buf[256];
	FILE *f;

	memset(buf, 0, sizeof(buf));
	f = fmemopen(buf, sizeof(buf) - 1, "w");
	assert_non_null(f);
	rp_svg_escape(f, s, max);
	fclose(f);
	return buf;
}

static void test_escape(void **state)
{
	(void)state;
	assert_string_equal(escaped("a<b>&\"c'", 0),
			    "a&lt;b&gt;&amp;&quot;c&apos;");
	assert_string_equal(escaped("x\x01y\x7f", 0), "x?y\x7f");
	assert_string_equal(escaped("\xc3\xa9\xc3", 0), "\xc3\xa9?");
	assert_string_equal(escaped("\xed\xa0\x80", 0), "???");
	assert_string_equal(escaped("\xc0\xaf", 0), "??"); /* overlong */
	assert_string_equal(escaped("abcdef", 4), "abc\u2026");
	assert_string_equal(escaped("abcd", 4), "abcd");
	assert_string_equal(escaped("", 0), "");
}

static void fmt_g(double v, char *buf, size_t len)
{
	snprintf(buf, len, "%g", v);
}

static void test_ticks(void **state)
{
	struct rp_svg_axis a;
	size_t i, labels = 0;

	(void)state;
	rp_svg_ticks_linear(&a, 0, 87.3, 6);
	assert_true(a.sc.lo == 0 && a.sc.hi == 100);
	assert_string_equal(a.t[a.n - 1].label, "100");

	rp_svg_ticks_pow2(&a, 2, 8 << 20, 10, fmt_g);
	assert_true(a.sc.lo == 2 && a.sc.hi == 8 << 20);
	assert_int_equal(a.n, 23);
	for (i = 0; i < a.n; i++)
		labels += a.t[i].major;
	assert_true(labels >= 5 && labels <= 10);

	rp_svg_ticks_percentile(&a, 20000);
	assert_string_equal(a.t[0].label, "0%");
	for (i = 0; i < a.n && a.t[i].v != 1000; i++)
		;
	assert_true(i < a.n);
	assert_string_equal(a.t[i].label, "99.9%");

	rp_svg_ticks_log(&a, 3, 60);
	assert_true(a.sc.log && a.sc.lo == 2 && a.sc.hi == 100);
	assert_true(a.t[0].major);
}

#define T(f) cmocka_unit_test(f)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_sweep_two_transports),
		T(test_sweep_depths),
		T(test_distribution),
		T(test_time),
		T(test_all_failed),
		T(test_hostile_host),
		T(test_not_finite),
		T(test_write_error),
		T(test_escape),
		T(test_ticks),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
