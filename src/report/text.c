// SPDX-License-Identifier: MIT
/* Text reporter: one block a person reads at a glance, per result. */
#include <stddef.h>
#include <string.h>

#include "core/units.h"
#include "report/report.h"

static void lat_row(FILE *f, const char *name, const struct rp_hist_summary *s)
{
	fprintf(f, "  %-12s %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f\n", name,
		s->min / 1e3, s->mean / 1e3, s->p50 / 1e3, s->p90 / 1e3,
		s->p99 / 1e3, s->p99_9 / 1e3, s->max / 1e3);
}

static void cpu_side(FILE *f, const char *name, const struct rp_side *s)
{
	if (!s->present) {
		fprintf(f, "  cpu %-7s  (not reported)\n", name);
		return;
	}
	fprintf(f,
		"  cpu %-7s  user %.3f s  sys %.3f s  %.3f us/KiB"
		"  (host busy %.0f%%)\n",
		name, s->cpu.user_s, s->cpu.sys_s, s->cpu.us_per_kib,
		s->cpu.host_util * 100);
}

static const char *host_name(const cJSON *h)
{
	const cJSON *n = cJSON_GetObjectItemCaseSensitive(h, "hostname");

	return cJSON_IsString(n) ? n->valuestring : "?";
}

static void header(FILE *f, const struct rp_config *cfg,
		   const struct rp_result *r)
{
	char sz[32];

	fprintf(f, "rdmaperf %s: %s %s, %s messages, queue depth %u",
		RP_VERSION, r->transport, rp_op_name(r->spec.op),
		rp_units_format_size(r->spec.size_bytes, sz, sizeof(sz)),
		r->spec.queue_depth);
	if (r->spec.duration_ns)
		fprintf(f, ", %.1f s\n", (double)r->spec.duration_ns / 1e9);
	else
		fprintf(f, ", %llu operations\n",
			(unsigned long long)r->spec.iterations);
	fprintf(f, "  server %s (%s port %u)%s\n", host_name(r->server_host),
		cfg->host, cfg->port,
		r->spec.verify ? ", payload verified" : "");
}

static void throughput(FILE *f, const struct rp_result *r)
{
	char sz[32];

	fprintf(f,
		"  throughput   %.3f Gb/s   %.2f MiB/s   %.0f msg/s"
		"   (%llu messages, %s in %.3f s)\n",
		r->bits_per_second / 1e9, r->mib_per_second,
		r->messages_per_second, (unsigned long long)r->messages,
		rp_units_format_size(r->bytes, sz, sizeof(sz)), r->seconds);
}

static void one(FILE *f, const struct rp_config *cfg, const struct rp_result *r)
{
	header(f, cfg, r);
	if (r->has_bandwidth)
		throughput(f, r);
	if (r->has_latency || r->has_unloaded)
		fprintf(f, "  %-12s %9s %9s %9s %9s %9s %9s %9s\n",
			"latency (us)", "min", "mean", "p50", "p90", "p99",
			"p99.9", "max");
	if (r->has_latency)
		lat_row(f, "under load", &r->latency);
	if (r->has_unloaded) {
		lat_row(f, "unloaded", &r->unloaded);
		fprintf(f, "  %-12s %s; round trip p50 %.2f us\n", "",
			r->unloaded_halved ? "unloaded = half round trip"
					   : "unloaded = whole operation",
			r->rtt.p50 / 1e3);
	}
	if (r->has_bandwidth) {
		cpu_side(f, "client", &r->client);
		cpu_side(f, "server", &r->server);
	}
	if (r->failed)
		fprintf(f, "  FAILED (%s): %s\n", r->error_code, r->error);
}

/* One figure of the comparison table: where it is and when it exists. */
struct figure {
	const char *name;
	size_t offset; /* of a double in struct rp_result */
	double scale;
	int has; /* 0: bandwidth, 1: latency, 2: unloaded */
};

#define FIG(name, field, scale, has)                                           \
	{                                                                      \
		name, offsetof(struct rp_result, field), scale, has            \
	}

static const struct figure figures[] = {
	FIG("throughput Gb/s", bits_per_second, 1e-9, 0),
	FIG("messages/s", messages_per_second, 1, 0),
	FIG("load p50 us", latency.p50, 1e-3, 1),
	FIG("load p99 us", latency.p99, 1e-3, 1),
	FIG("load max us", latency.max, 1e-3, 1),
	FIG("unloaded p50 us", unloaded.p50, 1e-3, 2),
	FIG("unloaded p99 us", unloaded.p99, 1e-3, 2),
	FIG("unloaded max us", unloaded.max, 1e-3, 2),
	FIG("client cpu us/KiB", client.cpu.us_per_kib, 1, 0),
	FIG("server cpu us/KiB", server.cpu.us_per_kib, 1, 0),
};

static bool figure_present(const struct rp_result *r, const struct figure *g)
{
	if (r->failed)
		return false;
	return g->has == 0   ? r->has_bandwidth
	       : g->has == 1 ? r->has_latency
			     : r->has_unloaded;
}

static double figure_value(const struct rp_result *r, const struct figure *g)
{
	return *(const double *)((const char *)r + g->offset) * g->scale;
}

static void compare_cell(FILE *f, const struct rp_result *base,
			 const struct rp_result *r, const struct figure *g)
{
	char cell[40];
	double v, b;

	if (!figure_present(r, g)) {
		fprintf(f, " %20s", "-");
		return;
	}
	v = figure_value(r, g);
	if (r == base || !figure_present(base, g) ||
	    (b = figure_value(base, g)) == 0)
		snprintf(cell, sizeof(cell), "%.2f", v);
	else
		snprintf(cell, sizeof(cell), "%.2f (%.2fx)", v, v / b);
	fprintf(f, " %20s", cell);
}

/* Several transports: one table, a column each, ratios to the first. */
static void compare(FILE *f, const struct rp_result *res, size_t n)
{
	size_t i, k;

	fprintf(f, "\ncomparison (ratio to %s)\n%-18s", res[0].transport, "");
	for (i = 0; i < n; i++)
		fprintf(f, " %20s", res[i].transport);
	fputc('\n', f);
	for (k = 0; k < sizeof(figures) / sizeof(figures[0]); k++) {
		fprintf(f, "%-18s", figures[k].name);
		for (i = 0; i < n; i++)
			compare_cell(f, &res[0], &res[i], &figures[k]);
		fputc('\n', f);
	}
	fprintf(f, "%-18s", "status");
	for (i = 0; i < n; i++)
		fprintf(f, " %20s", res[i].failed ? "FAILED" : "ok");
	fputc('\n', f);
	for (i = 0; i < n; i++)
		if (res[i].failed)
			fprintf(f, "  %s: %s\n", res[i].transport,
				res[i].error);
}

void rp_report_text(FILE *f, const struct rp_config *cfg,
		    const struct rp_result *res, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (i)
			fputc('\n', f);
		one(f, cfg, &res[i]);
	}
	if (n > 1)
		compare(f, res, n);
	fflush(f);
}
