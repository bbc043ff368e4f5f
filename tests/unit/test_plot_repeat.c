// SPDX-License-Identifier: MIT
/*
 * Unit tests of --repeat's error bars in the SVG plots (report/plot/bars.c,
 * svg.c's rp_svg_errbar): the primitive on panels of known scales, exact
 * to the pixel (vertical and horizontal, an end beyond the axis, a bound
 * <= 0 on a logarithmic axis, what is not drawn); then each kind of plot
 * from results carrying a "repeat" object, drawn into a memory FILE, its
 * bars read back and measured against the plot's own scale, recovered
 * from its tick labels: a bar spans its interval's bounds and stands at
 * its point. A figure measured once (interval null) has no bar, and a plot
 * without repeats is the plot of today, byte for byte.
 */
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

#include "report/plot/plot.h"
#include "report/plot/svg.h"
#include "report/report.h"
#include "run/config.h"

#define N_RES	4
#define MAX_BAR 32
#define PX_TOL	0.3 /* coordinates are printed to 0.1 px */

static struct rp_config cfg;
static struct rp_result res[N_RES];

static void set_cfg(size_t n_sizes, size_t n_rates)
{
	memset(&cfg, 0, sizeof(cfg));
	cfg.mode = RP_MODE_CLIENT;
	cfg.test.host = "10.0.0.2";
	cfg.test.port = 18515;
	rp_spec_defaults(&cfg.test.spec);
	cfg.test.spec.iterations = 20000;
	cfg.test.n_transports = 1;
	snprintf(cfg.test.transports[0], RP_SPEC_NAME_LEN, "tcp");
	cfg.test.n_sizes = n_sizes;
	cfg.test.n_depths = 1;
	cfg.test.n_rates = n_rates;
}

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
}

static void reset(struct rp_result *r)
{
	cJSON_Delete(r->client_host);
	cJSON_Delete(r->server_host);
	cJSON_Delete(r->repeat);
	memset(r, 0, sizeof(*r));
}

static void reset_all(void)
{
	size_t i;

	for (i = 0; i < N_RES; i++)
		reset(&res[i]);
}

/* A successful point of @size: @gbps, latency around @p50_us under load
 * (none unloaded, so that the sweep draws the latency under load). */
static void good(struct rp_result *r, uint64_t size, double gbps, double p50_us,
		 uint64_t count)
{
	reset(r);
	snprintf(r->transport, sizeof(r->transport), "tcp");
	r->spec = cfg.test.spec;
	r->spec.size_bytes = size;
	r->spec.queue_depth = 16;
	r->has_bandwidth = true;
	r->flow.bits_per_second = gbps * 1e9;
	r->flow.has_latency = true;
	summary(&r->flow.latency, count, p50_us * 1e3);
	r->client_host = cJSON_CreateObject();
	cJSON_AddStringToObject(r->client_host, "hostname", "client-1");
	r->server_host = cJSON_CreateObject();
	cJSON_AddStringToObject(r->server_host, "hostname", "server-2");
}

/* @r's "repeat" as run/repeat.h writes it, without figures yet. */
static cJSON *repeat(struct rp_result *r, double level, int n)
{
	cJSON_Delete(r->repeat);
	r->repeat = cJSON_CreateObject();
	cJSON_AddNumberToObject(r->repeat, "n", n);
	cJSON_AddNumberToObject(r->repeat, "level", level);
	cJSON_AddStringToObject(r->repeat, "interval", "t");
	cJSON_AddStringToObject(r->repeat, "stopped", "count");
	cJSON_AddObjectToObject(r->repeat, "figures");
	cJSON_AddArrayToObject(r->repeat, "warnings");
	return r->repeat;
}

/* A figure of @r's repeat over @n values: its interval [@lo, @hi], or
 * null (n = 1) when @lo is NaN. */
static void figure(struct rp_result *r, const char *key, const char *unit,
		   int n, double lo, double hi)
{
	cJSON *figs = cJSON_GetObjectItem(r->repeat, "figures");
	cJSON *o = cJSON_AddObjectToObject(figs, key), *iv, *vals;
	double mean = isnan(lo) ? hi : (lo + hi) / 2;
	int i;

	cJSON_AddStringToObject(o, "unit", unit);
	cJSON_AddNumberToObject(o, "n", n);
	cJSON_AddNumberToObject(o, "median", mean);
	cJSON_AddNumberToObject(o, "mean", mean);
	if (isnan(lo)) {
		cJSON_AddNullToObject(o, "interval");
		cJSON_AddNullToObject(o, "half_width_pct");
	} else {
		iv = cJSON_AddArrayToObject(o, "interval");
		cJSON_AddItemToArray(iv, cJSON_CreateNumber(lo));
		cJSON_AddItemToArray(iv, cJSON_CreateNumber(hi));
		cJSON_AddNumberToObject(o, "half_width_pct",
					100 * (hi - mean) / mean);
	}
	cJSON_AddNumberToObject(o, "cov_pct", 3);
	cJSON_AddNumberToObject(o, "min", mean * 0.97);
	cJSON_AddNumberToObject(o, "max", mean * 1.03);
	vals = cJSON_AddArrayToObject(o, "values");
	for (i = 0; i < n; i++)
		cJSON_AddItemToArray(vals, cJSON_CreateNumber(mean));
}

/* Draw @n results with @kind into memory, a series per run of results of
 * one transport; the document (free it). */
static char *draw(int (*kind)(struct rp_plot *), size_t n)
{
	struct rp_plot_group g = { .name = "tcp", .first = 0, .n = n };
	size_t order[N_RES], i, len = 0;
	struct rp_plot p = { .test = &cfg.test, .res = res, .n = n };
	char *buf = NULL;

	for (i = 0; i < n; i++)
		order[i] = i;
	g.colour = rp_svg_colour(0);
	p.order = order;
	p.g = &g;
	p.n_groups = 1;
	p.f = open_memstream(&buf, &len);
	assert_non_null(p.f);
	assert_int_equal(kind(&p), 0);
	assert_int_equal(fclose(p.f), 0);
	assert_non_null(buf);
	assert_true(len > 7 && !strcmp(buf + len - 7, "</svg>\n"));
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

/* What real tools say, where installed: well-formed XML, renders. */
static void tools_check(const char *svg, const char *name)
{
	char path[128], cmd[512];
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/rp_plot_repeat_%d_%s.svg",
		 (int)getpid(), name);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_true(fputs(svg, f) >= 0);
	assert_int_equal(fclose(f), 0);
	snprintf(cmd, sizeof(cmd),
		 "! command -v python3 >/dev/null || python3 -c 'import sys,"
		 "xml.etree.ElementTree as E; E.parse(sys.argv[1])' '%s'",
		 path);
	if (system(cmd) != 0)
		fail_msg("%s is not well-formed XML", path);
	snprintf(cmd, sizeof(cmd),
		 "! command -v rsvg-convert >/dev/null || rsvg-convert -o "
		 "'%s.png' '%s'",
		 path, path);
	if (system(cmd) != 0)
		fail_msg("rsvg-convert could not render %s", path);
	unlink(path);
	snprintf(cmd, sizeof(cmd), "%s.png", path);
	unlink(cmd);
}

/* Reading a plot back */

struct bar {
	char cls[8]; /* errbar, errcap */
	int clip;    /* the panel */
	double x1, y1, x2, y2;
};

/* The errbar and errcap lines of @svg, in order. Return: how many. */
static size_t bars_of(const char *svg, struct bar *b, size_t max)
{
	const char *s = svg;
	char colour[16];
	size_t n = 0;

	while ((s = strstr(s, "<line class=\"err")) && n < max) {
		if (sscanf(s,
			   "<line class=\"%7[a-z]\" clip-path=\"url(#rp-clip%d)"
			   "\" stroke=\"%15[^\"]\" stroke-width=\"1.4\" "
			   "x1=\"%lf\" y1=\"%lf\" x2=\"%lf\" y2=\"%lf\"/>",
			   b[n].cls, &b[n].clip, colour, &b[n].x1, &b[n].y1,
			   &b[n].x2, &b[n].y2) != 7)
			fail_msg("cannot read %.160s", s);
		n++;
		s++;
	}
	return n;
}

/* The scale of one axis of panel @k, recovered from its tick labels:
 * the y labels end at the frame (text-anchor end, 4 px under the tick),
 * the x labels sit centred under it. */
struct scale {
	double v0, px0, v1, px1;
	bool log;
};

static double map(const struct scale *s, double v)
{
	double t = s->log ? log(v / s->v0) / log(s->v1 / s->v0)
			  : (v - s->v0) / (s->v1 - s->v0);

	return s->px0 + t * (s->px1 - s->px0);
}

/* The percentile axis' labels ("99.9%") as its values, x = 1 / (1 - p). */
static double label_value(const char *label, bool percentile)
{
	double v = strtod(label, NULL);

	return percentile ? 100 / (100 - v) : v;
}

static struct scale scale_of(const char *svg, int k, bool y, bool log_scale,
			     bool percentile)
{
	const char *s = svg, *end;
	char label[32], anchor[8];
	struct scale sc = { .log = log_scale };
	double x, py, v;
	int n = 0;

	for (; k >= 0; k--) {
		s = strstr(s, "<g class=\"axes\">");
		assert_non_null(s);
		s++;
	}
	end = strstr(s, "</g>");
	assert_non_null(end);
	while ((s = strstr(s, "<text x=\"")) && s < end) {
		if (sscanf(s,
			   "<text x=\"%lf\" y=\"%lf\" class=\"tick\" "
			   "text-anchor=\"%7[a-z]\">%31[^<]<",
			   &x, &py, anchor, label) == 4 &&
		    !strcmp(anchor, y ? "end" : "middle")) {
			v = label_value(label, percentile);
			if (!n++) {
				sc.v0 = v;
				sc.px0 = y ? py - 4 : x;
			} else {
				sc.v1 = v;
				sc.px1 = y ? py - 4 : x;
			}
		}
		s++;
	}
	assert_true(n >= 2);
	return sc;
}

/* The n-th <circle class="point"> of @svg. */
static void point_of(const char *svg, size_t n, double *cx, double *cy)
{
	const char *s = svg;
	size_t i;

	for (i = 0; i <= n; i++) {
		s = strstr(s, "<circle class=\"point\"");
		assert_non_null(s);
		s++;
	}
	assert_int_equal(sscanf(s - 1,
				"<circle class=\"point\" cx=\"%lf\" cy=\"%lf\"",
				cx, cy),
			 2);
}

/* The bottom of panel @k's frame. */
static double frame_bottom(const char *svg, int k)
{
	const char *s = svg;
	double x, y, w, h;

	for (; k >= 0; k--) {
		s = strstr(s, "<rect class=\"frame\"");
		assert_non_null(s);
		s++;
	}
	assert_int_equal(sscanf(s - 1,
				"<rect class=\"frame\" x=\"%lf\" y=\"%lf\" "
				"width=\"%lf\" height=\"%lf\"",
				&x, &y, &w, &h),
			 4);
	return y + h;
}

static void near(double got, double want, const char *what)
{
	if (!(fabs(got - want) <= PX_TOL))
		fail_msg("%s at %.2f px, want %.2f", what, got, want);
}

/* The primitive */

/* A panel at (100, 50), 400 x 300, its data inset 12 px (x), 8 px (y). */
static struct rp_svg_panel panel(double xlo, double xhi, double ylo, double yhi,
				 bool ylog)
{
	struct rp_svg_panel p = { .x = 100, .y = 50, .w = 400, .h = 300 };

	p.id = 3;
	p.ax.sc = (struct rp_svg_scale){ .lo = xlo, .hi = xhi };
	p.ay.sc = (struct rp_svg_scale){ .lo = ylo, .hi = yhi, .log = ylog };
	rp_svg_panel_place(&p);
	return p;
}

/* rp_svg_errbar of @b into a string (free it); @drawn what it returned. */
static char *errbar(const struct rp_svg_panel *p, struct rp_svg_bar b,
		    bool *drawn)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	*drawn = rp_svg_errbar(f, p, &b, "#123456");
	assert_int_equal(fclose(f), 0);
	return buf;
}

#define LINE(cls, x1, y1, x2, y2)                                              \
	"<line class=\"" cls "\" clip-path=\"url(#rp-clip3)\" "                \
	"stroke=\"#123456\" stroke-width=\"1.4\" x1=\"" x1 "\" y1=\"" y1       \
	"\" x2=\"" x2 "\" y2=\"" y2 "\"/>\n"

static void expect_bar(const struct rp_svg_panel *p, struct rp_svg_bar b,
		       const char *want)
{
	bool drawn;
	char *got = errbar(p, b, &drawn);

	assert_int_equal(drawn, want[0] != '\0');
	assert_string_equal(got, want);
	free(got);
}

static void test_errbar(void **state)
{
	/* x 0..10 on 112..488 px; y 0..100 on 342..58 px */
	struct rp_svg_panel lin = panel(0, 10, 0, 100, false);
	/* y 1..1000 us, log: a decade is 284 / 3 px */
	struct rp_svg_panel lg = panel(0, 10, 1, 1000, true);

	(void)state;
	/* x 5 at 300 px, y 20 at 285.2, y 60 at 171.6 */
	expect_bar(&lin, (struct rp_svg_bar){ .at = 5, .lo = 20, .hi = 60 },
		   LINE("errbar", "300.0", "285.2", "300.0", "171.6") LINE(
			   "errcap", "296.0", "285.2", "304.0", "285.2")
			   LINE("errcap", "296.0", "171.6", "304.0", "171.6"));
	/* a bound beyond the axis runs to the frame (350 px, 50 px) and
	 * has no cap: the interval goes on there */
	expect_bar(&lin, (struct rp_svg_bar){ .at = 5, .lo = -5, .hi = 60 },
		   LINE("errbar", "300.0", "350.0", "300.0", "171.6")
			   LINE("errcap", "296.0", "171.6", "304.0", "171.6"));
	expect_bar(&lin, (struct rp_svg_bar){ .at = 5, .lo = 20, .hi = 150 },
		   LINE("errbar", "300.0", "285.2", "300.0", "50.0")
			   LINE("errcap", "296.0", "285.2", "304.0", "285.2"));
	/* log: 10 at 247.3 px, 100 at 152.7; a lower bound of 0 or under
	 * the axis runs to its bottom */
	expect_bar(&lg, (struct rp_svg_bar){ .at = 5, .lo = 10, .hi = 100 },
		   LINE("errbar", "300.0", "247.3", "300.0", "152.7") LINE(
			   "errcap", "296.0", "247.3", "304.0", "247.3")
			   LINE("errcap", "296.0", "152.7", "304.0", "152.7"));
	expect_bar(&lg, (struct rp_svg_bar){ .at = 5, .lo = 0, .hi = 100 },
		   LINE("errbar", "300.0", "350.0", "300.0", "152.7")
			   LINE("errcap", "296.0", "152.7", "304.0", "152.7"));
	expect_bar(&lg, (struct rp_svg_bar){ .at = 5, .lo = 0.01, .hi = 100 },
		   LINE("errbar", "300.0", "350.0", "300.0", "152.7")
			   LINE("errcap", "296.0", "152.7", "304.0", "152.7"));
	/* horizontal: y 50 at 200 px, x 2..8 at 187.2..412.8 px */
	expect_bar(&lin,
		   (struct rp_svg_bar){
			   .at = 50, .lo = 2, .hi = 8, .horizontal = true },
		   LINE("errbar", "187.2", "200.0", "412.8", "200.0") LINE(
			   "errcap", "187.2", "196.0", "187.2", "204.0")
			   LINE("errcap", "412.8", "196.0", "412.8", "204.0"));
	/* nothing to draw: the whole bar under a log axis, bounds out of
	 * order, no place to stand, a bound not a number */
	expect_bar(&lg, (struct rp_svg_bar){ .at = 5, .lo = 0, .hi = 0 }, "");
	expect_bar(&lin, (struct rp_svg_bar){ .at = 5, .lo = 60, .hi = 20 },
		   "");
	expect_bar(&lin, (struct rp_svg_bar){ .at = NAN, .lo = 2, .hi = 3 },
		   "");
	expect_bar(&lin, (struct rp_svg_bar){ .at = 5, .lo = NAN, .hi = 3 },
		   "");
	expect_bar(&lin, (struct rp_svg_bar){ .at = 5, .lo = 120, .hi = 130 },
		   "");
}

/* The sweep */

static const uint64_t sizes[N_RES] = { 64, 1024, 16384, 65536 };
static const double sweep_gbps[N_RES] = { 2, 10, 40, 80 };
static const double sweep_p50[N_RES] = { 5, 8, 30, 90 };

/* Four points with a repeat each: throughput's interval but at point 2
 * (measured once there), p50's at every point, p99's at point 3 alone,
 * its lower bound 0. */
static void sweep_results(void)
{
	size_t i;

	set_cfg(N_RES, 0);
	for (i = 0; i < N_RES; i++) {
		good(&res[i], sizes[i], sweep_gbps[i], sweep_p50[i], 20000);
		repeat(&res[i], 95, 5);
		if (i == 2)
			figure(&res[i], "throughput", "Gb/s", 1, NAN,
			       sweep_gbps[i]);
		else
			figure(&res[i], "throughput", "Gb/s", 5,
			       0.8 * sweep_gbps[i], 1.15 * sweep_gbps[i]);
		figure(&res[i], "p50", "us", 5, 0.6 * sweep_p50[i],
		       1.3 * sweep_p50[i]);
		figure(&res[i], "p99", "us", 5, i == 3 ? 0 : NAN,
		       3 * sweep_p50[i]);
	}
}

static void test_sweep_bars(void **state)
{
	struct bar b[MAX_BAR];
	struct scale bw, lat;
	double cx, cy, lo, hi;
	size_t n, i, k = 0;
	char *svg;

	(void)state;
	sweep_results();
	svg = draw(rp_plot_sweep, N_RES);
	tools_check(svg, "sweep");
	n = bars_of(svg, b, MAX_BAR);
	/* 3 throughput bars, 4 of p50, 1 of p99 with no lower cap */
	assert_int_equal(count(svg, "class=\"errbar\""), 3 + 4 + 1);
	assert_int_equal(count(svg, "class=\"errcap\""), 2 * (3 + 4) + 1);
	assert_non_null(strstr(svg, ">bars: 95% confidence interval of the "
				    "mean, n=5; points: the median run<"));
	/* under the lines: all of a series' bars before its first line */
	assert_true(strstr(svg, "class=\"errcap\"") < strstr(svg, "<polyline"));
	bw = scale_of(svg, 0, true, false, false);
	lat = scale_of(svg, 1, true, true, false);
	for (i = 0; i < N_RES; i++) {
		if (i == 2)
			continue; /* n = 1: no interval, no bar */
		point_of(svg, i, &cx, &cy);
		while (strcmp(b[k].cls, "errbar"))
			k++;
		assert_int_equal(b[k].clip, 0);
		near(b[k].x1, cx, "a throughput bar");
		near(b[k].x2, cx, "a throughput bar");
		near(b[k].y1, map(&bw, 0.8 * sweep_gbps[i]), "its lower end");
		near(b[k].y2, map(&bw, 1.15 * sweep_gbps[i]), "its upper end");
		k++;
	}
	for (i = 0; i < N_RES; i++) {
		while (strcmp(b[k].cls, "errbar"))
			k++;
		assert_int_equal(b[k].clip, 1);
		lo = map(&lat, 0.6 * sweep_p50[i]);
		hi = map(&lat, 1.3 * sweep_p50[i]);
		near(b[k].y1, lo, "a p50 bar's lower end");
		near(b[k].y2, hi, "a p50 bar's upper end");
		near(b[k + 1].y1, lo, "a p50 bar's lower cap");
		near(b[k + 2].y1, hi, "a p50 bar's upper cap");
		k++;
	}
	/* p99 at point 3: from 0, the frame's bottom, to 270 us, one cap */
	while (strcmp(b[k].cls, "errbar"))
		k++;
	near(b[k].y1, frame_bottom(svg, 1), "a lower bound of 0");
	near(b[k].y2, map(&lat, 3 * sweep_p50[3]), "the p99 bar's top");
	assert_int_equal(n, k + 2);
	near(b[k + 1].y1, b[k].y2, "the p99 bar's only cap");
	free(svg);
	reset_all();
}

/* A lower bound far under the lowest point does not stretch the log
 * axis over decades: it runs to the frame, capless, as a bound of 0. */
static void test_sweep_log_floor(void **state)
{
	char *with, *tiny, *a, *b;
	struct bar bars[MAX_BAR];
	size_t n;

	(void)state;
	sweep_results();
	with = draw(rp_plot_sweep, N_RES);
	cJSON_Delete(cJSON_DetachItemFromObject(
		cJSON_GetObjectItem(res[3].repeat, "figures"), "p99"));
	figure(&res[3], "p99", "us", 5, 1e-4, 3 * sweep_p50[3]);
	tiny = draw(rp_plot_sweep, N_RES);
	/* the same axes: the second panel's ticks alike */
	a = strstr(strstr(with, "<g class=\"axes\">") + 1,
		   "<g class=\"axes\">");
	b = strstr(strstr(tiny, "<g class=\"axes\">") + 1,
		   "<g class=\"axes\">");
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(strstr(a, "</g>") - a, strstr(b, "</g>") - b);
	assert_memory_equal(a, b, (size_t)(strstr(a, "</g>") - a));
	n = bars_of(tiny, bars, MAX_BAR);
	near(bars[n - 2].y1, frame_bottom(tiny, 1), "a bound of 1e-4 us");
	assert_string_equal(bars[n - 1].cls, "errcap");
	assert_string_equal(bars[n - 2].cls, "errbar");
	free(with);
	free(tiny);
	reset_all();
}

/* Figures measured once (interval null), or in another unit, draw as if
 * there were no repeat at all: byte for byte. */
static void test_no_interval_no_bar(void **state)
{
	char *plain, *once;
	size_t i;

	(void)state;
	sweep_results();
	for (i = 0; i < N_RES; i++) {
		cJSON_Delete(res[i].repeat);
		res[i].repeat = NULL;
	}
	plain = draw(rp_plot_sweep, N_RES);
	for (i = 0; i < N_RES; i++) {
		repeat(&res[i], 95, 1);
		figure(&res[i], "throughput", "Gb/s", 1, NAN, sweep_gbps[i]);
		figure(&res[i], "p50", "us", 1, NAN, sweep_p50[i]);
		figure(&res[i], "p99", "ns", 5, 1e3, 9e3); /* not the axis' */
	}
	once = draw(rp_plot_sweep, N_RES);
	assert_null(strstr(once, "errbar"));
	assert_null(strstr(once, "bars:"));
	assert_string_equal(once, plain);
	free(plain);
	free(once);
	reset_all();
}

/* A sweep without --repeat, through rp_report_plot, is the document the
 * plots wrote before error bars: the length and FNV-1a digest of all
 * from its legend on (the title above it is the text reporter's line of
 * the test's flags, not the plot's), taken from that build. A change to
 * the plots without repeats shows here. */
#define PLAIN_LEN    7121
#define PLAIN_DIGEST 0xcd3983689f0233a0ULL

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

static void test_plain_unchanged(void **state)
{
	struct rp_err why = { { 0 } };
	char path[64], *svg, *body;
	size_t i, len = 0;
	FILE *f;

	(void)state;
	sweep_results();
	for (i = 0; i < N_RES; i++) {
		cJSON_Delete(res[i].repeat);
		res[i].repeat = NULL;
	}
	snprintf(path, sizeof(path), "/tmp/rp_plot_plain_%d.svg",
		 (int)getpid());
	if (rp_report_plot(path, &cfg.test, res, N_RES, &why))
		fail_msg("rp_report_plot: %s", why.msg);
	f = fopen(path, "r");
	assert_non_null(f);
	svg = calloc(1, 1 << 16);
	assert_non_null(svg);
	len = fread(svg, 1, (1 << 16) - 1, f);
	fclose(f);
	unlink(path);
	assert_true(len > 0 && len < (1 << 16) - 1);
	body = strstr(svg, "<g class=\"legend\">");
	assert_non_null(body);
	if (strlen(body) != PLAIN_LEN || fnv1a(body) != PLAIN_DIGEST)
		fail_msg("the plot without --repeat changed: %zu bytes, "
			 "digest %#llx (was %d, %#llx)",
			 strlen(body), (unsigned long long)fnv1a(body),
			 PLAIN_LEN, (unsigned long long)PLAIN_DIGEST);
	free(svg);
	reset_all();
}

/* The distribution */

static void test_distribution_bars(void **state)
{
	struct rp_result *r = &res[0];
	struct bar b[MAX_BAR];
	struct scale x, y;
	size_t n;
	char *svg;

	(void)state;
	set_cfg(1, 0);
	good(r, 4096, 40, 20, 20000);
	r->has_unloaded = true;
	r->unloaded_halved = true;
	summary(&r->unloaded, 20000, 6e3);
	repeat(r, 99, 4);
	figure(r, "p50", "us", 4, 15, 26);
	figure(r, "p99", "us", 4, 40, 60);
	figure(r, "p99_9", "us", 3, 70, 95);
	figure(r, "unloaded_p50", "us", 4, 5, 7);
	svg = draw(rp_plot_distribution, 1);
	tools_check(svg, "distribution");
	assert_non_null(strstr(svg, ">bars: 99% confidence interval of the "
				    "mean, n=3\u20134; points: the median "
				    "run<"));
	n = bars_of(svg, b, MAX_BAR);
	assert_int_equal(n, 4 * 3);
	x = scale_of(svg, 0, false, true, true);
	/* the max (180 us) over 20 times the lower p50 (6 us): a log axis */
	y = scale_of(svg, 0, true, true, false);
	/* under load: p50 at 50%, p99 at 99%, p99.9 at 99.9%; unloaded p50 */
	near(b[0].x1, map(&x, 2), "the p50 bar");
	near(b[0].y1, map(&y, 15), "the p50 bar's lower end");
	near(b[0].y2, map(&y, 26), "the p50 bar's upper end");
	near(b[3].x1, map(&x, 100), "the p99 bar");
	near(b[3].y2, map(&y, 60), "the p99 bar's upper end");
	near(b[6].x1, map(&x, 1000), "the p99.9 bar");
	near(b[6].y1, map(&y, 70), "the p99.9 bar's lower end");
	near(b[9].x1, map(&x, 2), "the unloaded p50 bar");
	near(b[9].y2, map(&y, 7), "the unloaded p50 bar's upper end");
	free(svg);

	/* 500 operations: no point reaches p99.9, nor does its bar */
	r->flow.latency.count = 500;
	svg = draw(rp_plot_distribution, 1);
	assert_int_equal(count(svg, "class=\"errbar\""), 3);
	free(svg);
	reset_all();
}

/* The load curve: the throughput's bar across each point, p50 and p99. */
static void test_load_bars(void **state)
{
	static const double gbps[2] = { 10, 30 };
	struct bar b[MAX_BAR];
	double cx, cy;
	struct scale x;
	size_t i, n;
	char *svg;

	(void)state;
	set_cfg(1, 2);
	for (i = 0; i < 2; i++) {
		good(&res[i], 4096, gbps[i], 20, 20000);
		res[i].spec.rate = 1000000 * (i + 1);
		res[i].dir[RP_DIR_C2S].flow.has_corrected = true;
		summary(&res[i].dir[RP_DIR_C2S].flow.corrected, 20000,
			25e3 * (double)(i + 1));
		repeat(&res[i], 95, 5);
		figure(&res[i], "throughput", "Gb/s", 5, gbps[i] - 2,
		       gbps[i] + 3);
	}
	svg = draw(rp_plot_load, 2);
	tools_check(svg, "load");
	assert_non_null(strstr(svg, ">bars: 95% confidence interval of the "
				    "mean throughput, n=5; points: the median "
				    "run<"));
	n = bars_of(svg, b, MAX_BAR);
	assert_int_equal(n, 4 * 3);
	x = scale_of(svg, 0, false, false, false);
	/* the p50 points' bars, then the p99 points' */
	for (i = 0; i < 4; i++) {
		point_of(svg, i, &cx, &cy);
		near(b[3 * i].y1, cy, "a throughput bar");
		near(b[3 * i].y2, cy, "a throughput bar");
		near(b[3 * i].x1, map(&x, gbps[i % 2] - 2), "its lower end");
		near(b[3 * i].x2, map(&x, gbps[i % 2] + 3), "its upper end");
	}
	free(svg);
	reset_all();
}

#define T(f) cmocka_unit_test(f)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_errbar),		 T(test_sweep_bars),
		T(test_sweep_log_floor), T(test_no_interval_no_bar),
		T(test_plain_unchanged), T(test_distribution_bars),
		T(test_load_bars),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
