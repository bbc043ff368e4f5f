// SPDX-License-Identifier: MIT
/*
 * Text tables: one point on several transports (a row per figure), a sweep
 * on one transport (a row per point, the layout of ib_write_bw's sweep),
 * a sweep on several (a table per metric, transports side by side, ratios
 * to the first). What a cell shows comes from one const table of figures;
 * a figure that is missing, failed or not finite prints "-".
 */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "core/units.h"
#include "report/text/text.h"

/* When a figure exists. */
enum fig_has { FIG_BW, FIG_LOAD, FIG_UNLOADED, FIG_CLIENT, FIG_SERVER };

/* One figure of a result: where it is, its scale, width and precision. */
struct figure {
	const char *name;
	size_t offset; /* of a double in struct rp_result */
	double scale;
	enum fig_has has;
	int width;
	int prec;
};

#define FIG(name, field, scale, has, width, prec)                              \
	{                                                                      \
		name, offsetof(struct rp_result, field), scale, has, width,    \
			prec                                                   \
	}

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* One point, several transports: a row each. */
static const struct figure compare_figs[] = {
	FIG("throughput Gb/s", flow.bits_per_second, 1e-9, FIG_BW, 20, 2),
	FIG("messages/s", flow.messages_per_second, 1, FIG_BW, 20, 2),
	FIG("load p50 us", flow.latency.p50, 1e-3, FIG_LOAD, 20, 2),
	FIG("load p99 us", flow.latency.p99, 1e-3, FIG_LOAD, 20, 2),
	FIG("load max us", flow.latency.max, 1e-3, FIG_LOAD, 20, 2),
	FIG("unloaded p50 us", unloaded.p50, 1e-3, FIG_UNLOADED, 20, 2),
	FIG("unloaded p99 us", unloaded.p99, 1e-3, FIG_UNLOADED, 20, 2),
	FIG("unloaded max us", unloaded.max, 1e-3, FIG_UNLOADED, 20, 2),
	FIG("client cpu us/KiB", client.cpu.us_per_kib, 1, FIG_CLIENT, 20, 2),
	FIG("server cpu us/KiB", server.cpu.us_per_kib, 1, FIG_SERVER, 20, 2),
};

/* compare_figs' figures in --repeat's "against" (NULL: not among them) */
static const char *const compare_repeat_keys[] = {
	"throughput", "messages_per_second", "p50", "p99",
	NULL,	      "unloaded_p50",	     NULL,  NULL,
	"client_cpu", "server_cpu",
};

_Static_assert(N_OF(compare_repeat_keys) == N_OF(compare_figs),
	       "a repeat key per compared figure");

/* A sweep on one transport: a column each, after size, depth, iterations. */
static const struct figure sweep_figs[] = {
	FIG("Gb/s", flow.bits_per_second, 1e-9, FIG_BW, 9, 3),
	FIG("MiB/s", flow.mib_per_second, 1, FIG_BW, 10, 2),
	FIG("msg/s", flow.messages_per_second, 1, FIG_BW, 11, 0),
	FIG("p50", flow.latency.p50, 1e-3, FIG_LOAD, 8, 2),
	FIG("p99", flow.latency.p99, 1e-3, FIG_LOAD, 8, 2),
	FIG("max", flow.latency.max, 1e-3, FIG_LOAD, 8, 2),
	FIG("p50", unloaded.p50, 1e-3, FIG_UNLOADED, 8, 2),
	FIG("client", client.cpu.us_per_kib, 1, FIG_CLIENT, 8, 3),
	FIG("server", server.cpu.us_per_kib, 1, FIG_SERVER, 8, 3),
};

/* A sweep on several transports: a table each. */
static const struct figure matrix_figs[] = {
	FIG("throughput, Gb/s", flow.bits_per_second, 1e-9, FIG_BW, 12, 3),
	FIG("messages/s", flow.messages_per_second, 1, FIG_BW, 12, 0),
	FIG("latency under load, p50 us", flow.latency.p50, 1e-3, FIG_LOAD, 12,
	    2),
	FIG("latency under load, p99 us", flow.latency.p99, 1e-3, FIG_LOAD, 12,
	    2),
	FIG("unloaded latency, p50 us", unloaded.p50, 1e-3, FIG_UNLOADED, 12,
	    2),
	FIG("client cpu, us/KiB", client.cpu.us_per_kib, 1, FIG_CLIENT, 12, 3),
};

static double figure_value(const struct rp_result *r, const struct figure *g)
{
	return *(const double *)((const char *)r + g->offset) * g->scale;
}

/* Where the flag that says a figure exists is. */
static const size_t has_at[] = {
	[FIG_BW] = offsetof(struct rp_result, has_bandwidth),
	[FIG_LOAD] = offsetof(struct rp_result, flow.has_latency),
	[FIG_UNLOADED] = offsetof(struct rp_result, has_unloaded),
	[FIG_CLIENT] = offsetof(struct rp_result, client.present),
	[FIG_SERVER] = offsetof(struct rp_result, server.present),
};

/* CPU figures are over the throughput phase: they need it too. */
static bool figure_present(const struct rp_result *r, const struct figure *g)
{
	const bool *flag = (const bool *)((const char *)r + has_at[g->has]);

	if (r->failed || !*flag || !isfinite(figure_value(r, g)))
		return false;
	return g->has < FIG_CLIENT || r->has_bandwidth;
}

/* The cell of @g in @r, or "-", @g->width wide after a space. */
static void cell(FILE *f, const struct rp_result *r, const struct figure *g)
{
	if (figure_present(r, g))
		fprintf(f, " %*.*f", g->width, g->prec, figure_value(r, g));
	else
		fprintf(f, " %*s", g->width, "-");
}

/* The ratio of @r's figure to @base's, "x1.85", or "-". */
static void ratio_cell(FILE *f, const struct rp_result *base,
		       const struct rp_result *r, const struct figure *g)
{
	char buf[32];
	double b;

	if (!figure_present(base, g) || !figure_present(r, g) ||
	    (b = figure_value(base, g)) == 0) {
		fprintf(f, " %*s", g->width, "-");
		return;
	}
	snprintf(buf, sizeof(buf), "x%.2f", figure_value(r, g) / b);
	fprintf(f, " %*s", g->width, buf);
}

/* --repeat: @r's paired ratio of figure @key to the first transport's,
 * round by round: 1 significant, 0 not, -1 none to judge by. */
static int paired(const struct rp_result *r, const char *key, double *ratio)
{
	const cJSON *ag =
		cJSON_GetObjectItemCaseSensitive(r->repeat, "against");
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(ag, "figures"), key);
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(x, "ratio");
	const cJSON *sig = cJSON_GetObjectItemCaseSensitive(x, "significant");

	if (!key || !cJSON_IsNumber(v) || !cJSON_IsBool(sig))
		return -1;
	*ratio = v->valuedouble;
	return cJSON_IsTrue(sig);
}

static void compare_cell(FILE *f, const struct rp_result *base,
			 const struct rp_result *r, const struct figure *g,
			 const char *key)
{
	char c[40];
	double v, ratio;
	int sig;

	if (!figure_present(r, g)) {
		fprintf(f, " %20s", "-");
		return;
	}
	v = figure_value(r, g);
	sig = r != base ? paired(r, key, &ratio) : -1;
	if (sig == 0)
		snprintf(c, sizeof(c), "%.2f (n.s.)", v);
	else if (sig == 1)
		snprintf(c, sizeof(c), "%.2f (%.2fx)", v, ratio);
	else if (r == base || !figure_present(base, g) ||
		 figure_value(base, g) == 0)
		snprintf(c, sizeof(c), "%.2f", v);
	else
		snprintf(c, sizeof(c), "%.2f (%.2fx)", v,
			 v / figure_value(base, g));
	fprintf(f, " %20s", c);
}

void rp_report_text_compare(FILE *f, const struct rp_result *res, size_t n)
{
	char name[RP_SPEC_NAME_LEN + 24];
	size_t i, k;

	rp_report_column(res, n, 1, 0, name, sizeof(name));
	fprintf(f, "\ncomparison (ratio to %s)\n%-18s", name, "");
	for (i = 0; i < n; i++) {
		rp_report_column(res, n, 1, i, name, sizeof(name));
		fprintf(f, " %20s", name);
	}
	fputc('\n', f);
	for (k = 0; k < N_OF(compare_figs); k++) {
		fprintf(f, "%-18s", compare_figs[k].name);
		for (i = 0; i < n; i++)
			compare_cell(f, &res[0], &res[i], &compare_figs[k],
				     compare_repeat_keys[k]);
		fputc('\n', f);
	}

	fprintf(f, "%-18s", "status");
	for (i = 0; i < n; i++)
		fprintf(f, " %20s", res[i].failed ? "FAILED" : "ok");
	fputc('\n', f);
	if (n > 1 && res[1].repeat)
		fprintf(f,
			"  --repeat: throughput, messages/s, the p50s, load "
			"p99 and cpu are ratios paired round by round (n.s.: "
			"no significant difference at the intervals' level); "
			"the other rows compare the median runs\n");
	for (i = 0; i < n; i++)
		if (res[i].failed)
			fprintf(f, "  %s: %s\n", res[i].transport,
				res[i].error);
	rp_report_text_files(f, res, n, 1);
}

static void sweep_head(FILE *f)
{
	size_t k;

	fprintf(f, "  %59s %26s %8s %17s\n", "", "---- under load (us) -----",
		"unloaded", "--- cpu us/KiB --");
	fprintf(f, "  %9s %5s %10s", "size", "depth", "iterations");
	for (k = 0; k < N_OF(sweep_figs); k++)
		fprintf(f, " %*s", sweep_figs[k].width, sweep_figs[k].name);
	fputc('\n', f);
}

static void sweep_row(FILE *f, const struct rp_test *test,
		      const struct rp_result *r, size_t p)
{
	char it[32];
	size_t k;

	rp_report_point_cells(f, test, r, p);
	if (r->spec.duration_ns)
		snprintf(it, sizeof(it), "%.1f s",
			 (double)r->spec.duration_ns / 1e9);
	else
		snprintf(it, sizeof(it), "%llu",
			 (unsigned long long)r->spec.iterations);
	fprintf(f, " %10s", it);
	if (r->failed) {
		fprintf(f, "   FAILED (%s): %s\n", r->error_code, r->error);
		return;
	}
	for (k = 0; k < N_OF(sweep_figs); k++)
		cell(f, r, &sweep_figs[k]);
	fputc('\n', f);
}

void rp_report_text_sweep(FILE *f, const struct rp_test *test,
			  const struct rp_result *res, size_t n)
{
	struct rp_report_shape shape = { .n_points = n, .n_transports = 1 };
	size_t p;

	rp_report_text_title(f, test, res, shape);
	sweep_head(f);
	for (p = 0; p < n; p++)
		sweep_row(f, test, &res[p], p);
	rp_report_text_notes(f, res, n);
}

/* One metric's table: a row per point, a column per transport, then the
 * ratio of each other transport to the first. */
static void metric_table(FILE *f, const struct rp_test *test,
			 const struct rp_result *res, struct rp_report_shape sh,
			 const struct figure *g)
{
	size_t p, t, np = sh.n_points, nt = sh.n_transports;
	char head[2 * (RP_SPEC_NAME_LEN + 24) + 2], a[RP_SPEC_NAME_LEN + 24];
	char b[RP_SPEC_NAME_LEN + 24];

	fprintf(f, "\n%s\n  %9s %5s", g->name, "size", "depth");
	for (t = 0; t < nt; t++) {
		rp_report_column(res, nt, np, t, a, sizeof(a));
		fprintf(f, " %*s", g->width, a);
	}
	rp_report_column(res, nt, np, 0, b, sizeof(b));
	for (t = 1; t < nt; t++) {
		rp_report_column(res, nt, np, t, a, sizeof(a));
		snprintf(head, sizeof(head), "%s/%s", a, b);
		fprintf(f, " %*s", g->width, head);
	}
	fputc('\n', f);
	for (p = 0; p < np; p++) {
		rp_report_point_cells(f, test, &res[p], p);
		for (t = 0; t < sh.n_transports; t++)
			cell(f, &res[t * np + p], g);
		for (t = 1; t < sh.n_transports; t++)
			ratio_cell(f, &res[p], &res[t * np + p], g);
		fputc('\n', f);
	}
}

static void failures(FILE *f, const struct rp_result *res, size_t n)
{
	char sz[32];
	size_t i;

	for (i = 0; i < n; i++)
		if (res[i].failed)
			fprintf(f, "  FAILED %s %s depth %u (%s): %s\n",
				res[i].transport,
				rp_units_format_size(res[i].spec.size_bytes, sz,
						     sizeof(sz)),
				res[i].spec.queue_depth, res[i].error_code,
				res[i].error);
}

void rp_report_text_matrix(FILE *f, const struct rp_test *test,
			   const struct rp_result *res,
			   struct rp_report_shape shape)
{
	size_t k, n = shape.n_points * shape.n_transports;

	rp_report_text_title(f, test, res, shape);
	for (k = 0; k < N_OF(matrix_figs); k++)
		metric_table(f, test, res, shape, &matrix_figs[k]);
	fputc('\n', f);
	failures(f, res, n);
	rp_report_text_files(f, res, shape.n_transports, shape.n_points);
	rp_report_text_notes(f, res, n);
}
