// SPDX-License-Identifier: MIT
/*
 * rdmaperf diff OLD.json NEW.json: a regression gate between two saved
 * documents (cli/diff.h).
 *
 *   rdmaperf diff OLD NEW [--threshold PCT] [--figures LIST]
 *                 [--confidence LEVEL] [--json] [--plot FILE.svg]
 *
 * Points pair by what makes them the same test: transport, op, size,
 * depth, streams, threads, bidir, wait and offered rate. A figure's change
 * is the ratio of the geometric means of its repetitions (--repeat; one
 * run: its value), judged by Welch's t on the logs: the two runs were
 * measured apart, so nothing pairs their rounds. Exit status: 0, 2 (bad
 * usage, a document that cannot be read, two different tests), 3 (a
 * figure regressed beyond the threshold, or a point failed in NEW).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/diff.h"
#include "cli/diff_priv.h"
#include "core/units.h"

#define USAGE                                                                  \
	"usage: rdmaperf diff OLD.json NEW.json [--threshold PCT] "            \
	"[--figures LIST]\n"                                                   \
	"                     [--confidence LEVEL] [--json] [--plot "          \
	"FILE.svg]\n"

__attribute__((format(printf, 1, 2))) static int usage(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "rdmaperf diff: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n" USAGE);
	return 2;
}

/* A percentage in (@lo, @hi), a '%' after it allowed. */
static bool percent(const char *s, double lo, double hi, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end != s && *end == '%')
		end++;
	if (end == s || *end || errno || !isfinite(v) || !(v > lo) || !(v < hi))
		return false;
	*out = v;
	return true;
}

/* "throughput,p99": the figures the gate judges and the table shows. */
static int figures(struct rp_diff *d, const char *arg)
{
	char buf[256], *tok, *save = NULL;
	unsigned int f;

	if (strlen(arg) >= sizeof(buf))
		return usage("--figures: %.40s... is too long", arg);
	snprintf(buf, sizeof(buf), "%s", arg);
	memset(d->want, 0, sizeof(d->want));
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		for (f = 0; f < RP_FIG__COUNT; f++)
			if (!strcmp(tok, rp_fig_key(f)))
				break;
		if (f == RP_FIG__COUNT)
			return usage("--figures: no figure %s; there are "
				     "throughput, messages_per_second, p50, "
				     "p99, p99_9, unloaded_p50, client_cpu, "
				     "server_cpu",
				     tok);
		d->want[f] = true;
	}
	for (f = 0; f < RP_FIG__COUNT && !d->want[f]; f++)
		;
	return f == RP_FIG__COUNT ? usage("--figures: no figure in '%s'", arg)
				  : 0;
}

static int parse(struct rp_diff *d, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "threshold", required_argument, NULL, 't' },
		{ "figures", required_argument, NULL, 'f' },
		{ "confidence", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "plot", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 0; /* glibc: 0 resets it */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
		switch (c) {
		case 't':
			if (!percent(optarg, 0, 1000, &d->threshold))
				return usage("--threshold %s is not a "
					     "percentage above 0 and below "
					     "1000, as in --threshold 5",
					     optarg);
			break;
		case 'f':
			if (figures(d, optarg))
				return 2;
			break;
		case 'c':
			if (!percent(optarg, 50, 100, &d->level))
				return usage("--confidence %s is not a level "
					     "between 50 and 100 (exclusive), "
					     "as in --confidence 95",
					     optarg);
			d->level /= 100;
			break;
		case 'j':
			d->json = true;
			break;
		case 's':
			d->plot = optarg;
			break;
		case 'h':
			printf(USAGE
			       "Compares two documents of rdmaperf --json, "
			       "point by point and figure by figure:\n"
			       "the change of each figure, its interval "
			       "(Welch's t on the logs of the --repeat\n"
			       "repetitions) and whether it is significant. "
			       "Exit status 0: no regression;\n"
			       "3: a figure got worse beyond --threshold "
			       "(default 5%%), or a point failed in NEW;\n"
			       "2: bad usage, unreadable documents, or two "
			       "different tests.\n");
			return -1;
		case ':':
			return usage("%s needs an argument", argv[optind - 1]);
		default:
			return usage("unknown option %s", argv[optind - 1]);
		}
	}
	if (argc - optind != 2)
		return usage("%s", argc - optind < 2
					   ? "two documents are needed, OLD "
					     "and NEW"
					   : "more than two documents");
	d->old_path = argv[optind];
	d->new_path = argv[optind + 1];
	return 0;
}

/* The same test: what a point is, not how long it ran. */
static bool same_point(const struct rp_result *a, const struct rp_result *b)
{
	return !strcmp(a->transport, b->transport) &&
	       a->spec.op == b->spec.op &&
	       a->spec.size_bytes == b->spec.size_bytes &&
	       a->spec.queue_depth == b->spec.queue_depth &&
	       a->spec.streams == b->spec.streams &&
	       a->spec.threads == b->spec.threads &&
	       a->spec.bidir == b->spec.bidir && a->spec.wait == b->spec.wait &&
	       a->spec.rate == b->spec.rate;
}

static void label(const struct rp_result *r, char *buf, size_t len)
{
	char size[32], more[64] = "";
	size_t k = 0;

	rp_units_format_size(r->spec.size_bytes, size, sizeof(size));
	if (r->spec.streams > 1)
		k += (size_t)snprintf(more + k, sizeof(more) - k, " -P %u",
				      r->spec.streams);
	if (r->spec.threads > 1 && k < sizeof(more))
		k += (size_t)snprintf(more + k, sizeof(more) - k, " -T %u",
				      r->spec.threads);
	if (r->spec.bidir && k < sizeof(more))
		k += (size_t)snprintf(more + k, sizeof(more) - k, " bidir");
	if (r->spec.wait == RP_WAIT_EVENT && k < sizeof(more))
		k += (size_t)snprintf(more + k, sizeof(more) - k, " event");
	if (r->spec.rate && k < sizeof(more))
		snprintf(more + k, sizeof(more) - k, " at %llu/s",
			 (unsigned long long)r->spec.rate);
	snprintf(buf, len, "%s %s %s q%u%s", r->transport,
		 rp_op_name(r->spec.op), size, r->spec.queue_depth, more);
}

/* Figure @f of @r: its repetitions' values (document units) when it was
 * repeated, else its one value. Return: how many (0: none). */
static size_t values(const struct rp_result *r, enum rp_fig f, double *out)
{
	const cJSON *figs = cJSON_GetObjectItemCaseSensitive(r->repeat,
							     "figures"),
		    *vals, *v;
	double one[RP_FIG__COUNT];
	size_t k = 0;

	if (r->failed)
		return 0;
	if (cJSON_IsObject(figs)) {
		vals = cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(figs, rp_fig_key(f)),
			"values");
		cJSON_ArrayForEach(v, vals)
		{
			if (k < RP_REPEAT_MAX && cJSON_IsNumber(v) &&
			    v->valuedouble > 0 && isfinite(v->valuedouble))
				out[k++] = v->valuedouble;
		}
		return k;
	}
	rp_fig_values(r, one);
	if (!(one[f] > 0) || !isfinite(one[f]))
		return 0;
	out[0] = one[f] * rp_fig_scale(f);
	return 1;
}

static double geomean(const double *x, size_t n)
{
	double s = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s += log(x[i]);
	return exp(s / (double)n);
}

static void judge(struct rp_diff *d, struct rp_diff_point *p, enum rp_fig f)
{
	double a[RP_REPEAT_MAX], b[RP_REPEAT_MAX], worse;
	struct rp_diff_fig *g = &p->fig[f];

	g->n_old = values(p->old, f, a);
	g->n_new = values(p->new, f, b);
	g->present = g->n_old && g->n_new &&
		     rp_stat_unpaired_ratio(a, g->n_old, b, g->n_new, d->level,
					    &g->r);
	if (!g->present)
		return;
	g->old_v = geomean(a, g->n_old);
	g->new_v = geomean(b, g->n_new);
	/* how much worse, in %: throughput down, latency or CPU cost up */
	worse = rp_fig_higher_better(f) ? (1 - g->r.ratio) * 100
					: (g->r.ratio - 1) * 100;
	if (!g->r.has_ci)
		g->v = worse > d->threshold ? RP_DV_REGRESSED : RP_DV_UNJUDGED;
	else if (!g->r.significant)
		g->v = RP_DV_SAME;
	else if (worse > d->threshold)
		g->v = RP_DV_REGRESSED;
	else
		g->v = worse > 0 ? RP_DV_WORSE : RP_DV_BETTER;
	if (g->v == RP_DV_REGRESSED)
		d->regressed++, d->unjudged_regressed += !g->r.has_ci;
	if (g->r.has_ci)
		d->judged++;
	else
		d->unjudged++;
}

static int load(const char *path, struct rp_report_doc *doc)
{
	struct rp_err why = { 0 };

	if (!rp_report_load(path, doc, &why))
		return 0;
	fprintf(stderr, "rdmaperf diff: %s\n", why.msg);
	return 2;
}

/* Every point of NEW with its twin in OLD, then OLD's without one. */
static int pair(struct rp_diff *d)
{
	bool *used = calloc(d->a.n + 1, sizeof(*used));
	size_t i, j, common = 0;
	unsigned int f;

	d->p = calloc(d->a.n + d->b.n + 1, sizeof(*d->p));
	if (!used || !d->p) {
		free(used);
		fprintf(stderr, "rdmaperf diff: out of memory\n");
		return 1;
	}
	for (i = 0; i < d->b.n; i++) {
		struct rp_diff_point *p = &d->p[d->n++];

		p->new = &d->b.res[i];
		label(p->new, p->label, sizeof(p->label));
		for (j = 0; j < d->a.n; j++)
			if (!used[j] && same_point(&d->a.res[j], p->new))
				break;
		if (j == d->a.n)
			continue;
		used[j] = true;
		p->old = &d->a.res[j];
		common++;
		if (p->new->failed && !p->old->failed)
			d->regressed++;
		for (f = 0; f < RP_FIG__COUNT; f++)
			if (d->want[f])
				judge(d, p, f);
	}
	for (j = 0; j < d->a.n; j++)
		if (!used[j]) {
			d->p[d->n].old = &d->a.res[j];
			label(&d->a.res[j], d->p[d->n].label,
			      sizeof(d->p[d->n].label));
			d->n++;
		}
	free(used);
	if (common)
		return 0;
	fprintf(stderr,
		"rdmaperf diff: %s and %s have no point in common (%s: %s; "
		"%s: %s): a diff compares runs of the same test\n",
		d->old_path, d->new_path, d->old_path,
		d->a.n ? d->p[d->b.n].label : "no results", d->new_path,
		d->b.n ? d->p[0].label : "no results");
	return 2;
}

int rp_diff_main(int argc, char **argv)
{
	struct rp_diff *d = calloc(1, sizeof(*d));
	unsigned int f;
	int rc;

	if (!d) {
		fprintf(stderr, "rdmaperf diff: out of memory\n");
		return 1;
	}
	d->threshold = RP_DIFF_THRESHOLD;
	d->level = RP_REPEAT_LEVEL;
	for (f = 0; f < RP_FIG__COUNT; f++)
		d->want[f] = true;
	rc = parse(d, argc, argv);
	if (!rc)
		rc = load(d->old_path, &d->a);
	if (!rc)
		rc = load(d->new_path, &d->b);
	if (!rc)
		rc = pair(d);
	if (!rc && d->plot) {
		rc = rp_diff_svg(d->plot, d);
		if (rc)
			fprintf(stderr, "rdmaperf diff: cannot write %s: %s\n",
				d->plot, strerror(-rc));
		rc = rc ? 1 : 0;
	}
	if (!rc) {
		if (d->json)
			rc = rp_diff_json(stdout, d) ? 1 : 0;
		else
			rp_diff_text(stdout, d);
	}
	if (!rc && d->regressed)
		rc = 3;
	rp_report_doc_free(&d->a);
	rp_report_doc_free(&d->b);
	free(d->p);
	free(d);
	return rc < 0 ? 0 : rc;
}
