// SPDX-License-Identifier: MIT
/*
 * rp_report_plot: which kind of plot a set of results makes, the series
 * they form, the title, and the file. The kinds themselves are in
 * plot/kinds.c and plot/rates.c, a figure's layout in plot/figure.c, the
 * drawing primitives in plot/svg.c.
 *
 * A series is the results of one transport (an entry of -x; the same name
 * twice is two series, "tcp #1" and "tcp #2") at one queue depth ("tcp q16"
 * when the test has several), ordered by message size.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"
#include "platform/os.h"
#include "report/plot/plot.h"
#include "report/text/text.h"
#include "report/plot/svg.h"

/* What makes a series: a transport (the index of its first result when
 * the results do not divide into the sweep's shape) and a depth. */
struct gkey {
	size_t t;
	uint32_t depth;
	size_t i; /* its first result */
};

/* A result's place in the plot: its series, then its size. */
struct slot {
	size_t gid;
	uint64_t size;
	size_t i;
};

static int slot_cmp(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;

	if (x->gid != y->gid)
		return x->gid < y->gid ? -1 : 1;
	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

static size_t transport_of(const struct rp_plot *p, struct rp_report_shape sh,
			   size_t i)
{
	size_t j;

	if (sh.n_points > 1)
		return i / sh.n_points;
	for (j = 0; j < i; j++)
		if (!strcmp(p->res[j].transport, p->res[i].transport))
			break;
	return j;
}

static size_t find_group(struct gkey *k, size_t *n, size_t t, uint32_t depth,
			 size_t i)
{
	size_t j;

	for (j = 0; j < *n; j++)
		if (k[j].t == t && k[j].depth == depth)
			return j;
	k[*n] = (struct gkey){ .t = t, .depth = depth, .i = i };
	return (*n)++;
}

/* 1 + how many transports before group @g's have its name; @total: how
 * many have it. */
static size_t occurrence(const struct rp_plot *p, const struct gkey *k,
			 size_t g, size_t *total)
{
	const char *name = p->res[k[g].i].transport;
	size_t h, j, nth = 1;

	*total = 0;
	for (h = 0; h < p->n_groups; h++) {
		if (strcmp(p->res[k[h].i].transport, name))
			continue;
		for (j = 0; j < h && k[j].t != k[h].t; j++)
			;
		if (j < h)
			continue; /* a transport seen at another depth */
		(*total)++;
		nth += k[h].t < k[g].t;
	}
	return nth;
}

static void name_groups(struct rp_plot *p, const struct gkey *k)
{
	bool depths = false;
	size_t g, nth, total;
	char *s;
	int len;

	for (g = 1; g < p->n_groups; g++)
		depths |= k[g].depth != k[0].depth;
	for (g = 0; g < p->n_groups; g++) {
		s = p->g[g].name;
		nth = occurrence(p, k, g, &total);
		len = snprintf(s, sizeof(p->g[g].name), "%s",
			       p->res[k[g].i].transport);
		if (total > 1)
			len += snprintf(s + len, sizeof(p->g[g].name) - len,
					" #%zu", nth);
		if (depths)
			snprintf(s + len, sizeof(p->g[g].name) - len, " q%u",
				 k[g].depth);
		p->g[g].colour = rp_svg_colour(g);
	}
}

static int group(struct rp_plot *p)
{
	struct rp_report_shape sh = rp_report_shape(p->test, p->n);
	struct gkey *k = calloc(p->n, sizeof(*k));
	struct slot *s = calloc(p->n, sizeof(*s));
	struct rp_plot_group *g;
	size_t i;
	int rc = -ENOMEM;

	p->order = calloc(p->n, sizeof(*p->order));
	p->g = calloc(p->n, sizeof(*p->g));
	if (!k || !s || !p->order || !p->g)
		goto out;
	for (i = 0; i < p->n; i++)
		s[i] = (struct slot){
			.gid = find_group(k, &p->n_groups,
					  transport_of(p, sh, i),
					  p->res[i].spec.queue_depth, i),
			.size = p->res[i].spec.size_bytes,
			.i = i,
		};
	qsort(s, p->n, sizeof(*s), slot_cmp);
	for (i = 0; i < p->n; i++) {
		p->order[i] = s[i].i;
		g = &p->g[s[i].gid];
		if (!g->n++)
			g->first = i;
	}
	name_groups(p, k);
	rc = 0;
out:
	free(k);
	free(s);
	return rc;
}

/* Title */

static void title_sizes(FILE *m, const struct rp_result *res, size_t n)
{
	uint64_t lo = res[0].spec.size_bytes, hi = lo;
	uint32_t qlo = res[0].spec.queue_depth, qhi = qlo;
	char a[32], b[32];
	size_t i;

	for (i = 1; i < n; i++) {
		lo = res[i].spec.size_bytes < lo ? res[i].spec.size_bytes : lo;
		hi = res[i].spec.size_bytes > hi ? res[i].spec.size_bytes : hi;
		qlo = res[i].spec.queue_depth < qlo ? res[i].spec.queue_depth
						    : qlo;
		qhi = res[i].spec.queue_depth > qhi ? res[i].spec.queue_depth
						    : qhi;
	}
	fprintf(m, " %s", rp_units_format_size(lo, a, sizeof(a)));
	if (hi != lo)
		fprintf(m, " \u2013 %s",
			rp_units_format_size(hi, b, sizeof(b)));
	fprintf(m, " q%u", qlo);
	if (qhi != qlo)
		fprintf(m, "\u2013%u", qhi);
}

static void title_transports(FILE *m, const struct rp_result *res, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < i && strcmp(res[j].transport, res[i].transport);
		     j++)
			;
		if (j == i)
			fprintf(m, "%s%s", i ? ", " : " ", res[i].transport);
	}
}

/* "rdmaperf tcp: write 64 KiB q16, 2 streams, 3 s" */
static void title(struct rp_plot *p)
{
	const struct rp_result *r = p->res;
	FILE *m;

	memset(p->title, 0, sizeof(p->title));
	m = rp_os_fmemopen(p->title, sizeof(p->title) - 1, "w");
	if (!m)
		return;
	fputs("rdmaperf", m);
	if (p->n) {
		title_transports(m, p->res, p->n);
		fprintf(m, ": %s", rp_op_name(r->spec.op));
		title_sizes(m, p->res, p->n);
		rp_report_test_flags(m, p->test, &r->spec);
		if (r->spec.duration_ns)
			fprintf(m, ", %.3g s",
				(double)r->spec.duration_ns / 1e9);
		else if (r->spec.iterations)
			fprintf(m, ", %llu operations",
				(unsigned long long)r->spec.iterations);
		if (r->n_intervals && r->interval_s > 0)
			fprintf(m, ", intervals of %.3g s", r->interval_s);
	}
	fclose(m);
}

/* "client NAME → server NAME (ADDRESS)" */
static void subtitle(struct rp_plot *p)
{
	const cJSON *c = NULL, *s = NULL;
	const char *host = p->test ? p->test->host : NULL;
	size_t i;

	for (i = 0; i < p->n && !(c && s); i++) {
		c = c ? c : p->res[i].client_host;
		s = s ? s : p->res[i].server_host;
	}
	snprintf(p->subtitle, sizeof(p->subtitle),
		 "client %.64s \u2192 server %.64s%s%.64s%s",
		 rp_report_host_name(c), rp_report_host_name(s),
		 host ? " (" : "", host ? host : "", host ? ")" : "");
}

static bool several_sizes(const struct rp_plot *p)
{
	size_t i;

	for (i = 1; i < p->n; i++)
		if (p->res[i].spec.size_bytes != p->res[0].spec.size_bytes)
			return true;
	return false;
}

static bool has_intervals(const struct rp_plot *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (p->res[i].n_intervals && p->res[i].intervals)
			return true;
	return false;
}

static int draw(struct rp_plot *p)
{
	int rc;

	title(p);
	subtitle(p);
	if (!p->n) {
		rp_plot_no_data(p);
		return 0;
	}
	if (p->test->n_rates && p->n % p->test->n_rates == 0)
		return rp_plot_load(p);
	rc = group(p);
	if (rc)
		return rc;
	if (several_sizes(p))
		return rp_plot_sweep(p);
	if (has_intervals(p))
		return rp_plot_time(p);
	return rp_plot_distribution(p);
}

/* Close @f, and say why when something could not be written. */
static int close_file(FILE *f, const char *path, struct rp_err *why)
{
	int err = 0;

	if (fflush(f) == EOF || ferror(f))
		err = errno ? errno : EIO;
	if (fclose(f) == EOF && !err)
		err = errno ? errno : EIO;
	if (err)
		return rp_errf(why, -err, "cannot write %s: %s", path,
			       strerror(err));
	return 0;
}

int rp_report_plot(const char *path, const struct rp_test *test,
		   const struct rp_result *res, size_t n, struct rp_err *why)
{
	struct rp_plot p = { .test = test, .res = res, .n = res ? n : 0 };
	int rc;

	p.f = fopen(path, "w");
	if (!p.f)
		return rp_errf(why, -errno, "cannot write %s: %s", path,
			       strerror(errno));
	errno = 0;
	rc = draw(&p);
	if (rc) {
		fclose(p.f);
		rc = rp_errf(why, rc, "cannot plot into %s: %s", path,
			     strerror(-rc));
	} else {
		rc = close_file(p.f, path, why);
	}
	free(p.order);
	free(p.g);
	return rc;
}
