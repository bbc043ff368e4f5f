// SPDX-License-Identifier: MIT
/*
 * What the text layouts share (text.h), below text/text.c, text/table.c and
 * text/rates.c: a run's shape, the title and server lines, the test's
 * flags, the notes under a table, the clock's warning.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "core/units.h"
#include "platform/clock.h"
#include "report/priv.h"
#include "report/text/text.h"

struct rp_report_shape rp_report_shape(const struct rp_test *test, size_t n)
{
	size_t p = rp_test_points(test);
	struct rp_report_shape one = { .n_points = 1, .n_transports = n };

	if (p <= 1 || n < p || n % p)
		return one;
	return (struct rp_report_shape){ .n_points = p, .n_transports = n / p };
}

const char *rp_report_host_name(const cJSON *h)
{
	const cJSON *n = cJSON_GetObjectItemCaseSensitive(h, "hostname");

	return cJSON_IsString(n) ? n->valuestring : "?";
}

void rp_report_text_clock(FILE *f, const struct rp_result *r)
{
	const cJSON *c =
		cJSON_GetObjectItemCaseSensitive(r->client_host, "clock");
	const cJSON *src = cJSON_GetObjectItemCaseSensitive(c, "source");
	const cJSON *ns = cJSON_GetObjectItemCaseSensitive(c, "read_ns");

	if (!(r->flow.has_latency || r->has_unloaded) || !cJSON_IsString(src) ||
	    !cJSON_IsNumber(ns) || !(ns->valuedouble >= RP_CLOCK_SLOW_NS))
		return;
	fprintf(f,
		"  %-12s %s: %.2f us a read on the client, about one in each\n"
		"  %-12s latency figure (RP_CLOCK=tsc reads the TSC, "
		"unchecked, as perftest)\n",
		"clock", src->valuestring, ns->valuedouble / 1e3, "");
}

void rp_report_test_flags(FILE *f, const struct rp_test *test,
			  const struct rp_spec *sp)
{
	size_t i;

	if (sp->streams > 1 || sp->threads > 1)
		fprintf(f, ", %u stream%s over %u thread%s", sp->streams,
			sp->streams == 1 ? "" : "s",
			sp->threads ? sp->threads : 1,
			sp->threads > 1 ? "s" : "");
	if (sp->wait != RP_WAIT_BUSY)
		fprintf(f, ", wait %s", rp_wait_name(sp->wait));
	if (sp->bidir)
		fprintf(f, ", both directions");
	if (sp->signal > 1)
		fprintf(f, ", signal 1 in %u", sp->signal);
	if (sp->post_list)
		fprintf(f, ", post list %u", sp->post_list);
	for (i = 0; i < test->n_cpus; i++)
		fprintf(f, "%s%d", i ? "," : ", on cpus ", test->cpus[i]);
}

void rp_report_server_line(FILE *f, const struct rp_test *test,
			   const struct rp_result *r)
{
	if (rp_report_text_file(f, "file", r) || !strcmp(r->transport, "file"))
		return; /* a local transport: no server */
	fprintf(f, "  server %s (%s port %u)%s\n",
		rp_report_host_name(r->server_host),
		test->host ? test->host : "?", test->port,
		r->spec.verify ? ", payload verified" : "");
}

/* Size and depth of point @p (size-major), from the sweep's lists. */
void rp_report_point_cells(FILE *f, const struct rp_test *test,
			   const struct rp_result *r, size_t p)
{
	size_t si, di, ri;
	uint64_t size;
	uint32_t depth;
	char sz[32];

	rp_test_point(test, p, &si, &di, &ri);
	size = test->n_sizes ? test->sizes[si] : r->spec.size_bytes;
	depth = test->n_depths ? test->depths[di] : r->spec.queue_depth;

	fprintf(f, "  %9s %5u", rp_units_format_size(size, sz, sizeof(sz)),
		depth);
}

/* "rdmaperf V: tcp write sweep, 6 points (3 sizes x 2 depths)..." */
void rp_report_text_title(FILE *f, const struct rp_test *test,
			  const struct rp_result *res,
			  struct rp_report_shape shape)
{
	size_t t, ns = test->n_sizes ? test->n_sizes : 1;
	size_t nd = test->n_depths ? test->n_depths : 1;
	char name[RP_SPEC_NAME_LEN + 24];

	fprintf(f, "rdmaperf %s: ", RP_VERSION);
	if (shape.n_transports == 1)
		fprintf(f, "%s ", res[0].transport);
	fprintf(f, "%s %s, %zu points (%zu size%s x %zu depth%s",
		rp_op_name(test->spec.op),
		test->load_curve ? "load curve" : "sweep", shape.n_points, ns,
		ns == 1 ? "" : "s", nd, nd == 1 ? "" : "s");
	if (test->n_rates)
		fprintf(f, " x %zu rate%s", test->n_rates,
			test->n_rates == 1 ? "" : "s");
	fputc(')', f);
	for (t = 0; shape.n_transports > 1 && t < shape.n_transports; t++) {
		rp_report_column(res, shape.n_transports, shape.n_points, t,
				 name, sizeof(name));
		fprintf(f, "%s%s", t ? ", " : " on ", name);
	}
	rp_report_test_flags(f, test, &test->spec);
	if (test->spec.duration_ns)
		fprintf(f, ", %.1f s per point",
			(double)test->spec.duration_ns / 1e9);
	fputc('\n', f);
	rp_report_server_line(f, test, &res[0]);
}

static bool same_note(const struct rp_result *a, const struct rp_result *b)
{
	return !strcmp(a->transport, b->transport) &&
	       !strcmp(a->notes, b->notes);
}

void rp_report_text_notes(FILE *f, const struct rp_result *res, size_t n)
{
	bool streams = false, bidir = false, seen;
	const struct rp_result *unl = NULL;
	size_t i, j;

	for (i = 0; i < n; i++) {
		streams |= res[i].spec.streams > 1;
		bidir |= res[i].spec.bidir;
		if (!unl && res[i].has_unloaded)
			unl = &res[i];
	}
	if (unl)
		fprintf(f, "  unloaded p50: %s at depth 1\n",
			unl->unloaded_halved ? "half round trip, ping-pong"
			: rp_report_file_of(unl)
				? "one operation at a time"
				: "whole operation, ping-pong");
	if (streams)
		fprintf(f, "  several streams: figures are their aggregate;"
			   " per stream and fairness in --json\n");
	if (bidir)
		fprintf(f, "  --bidir: figures are both directions' sum;"
			   " each direction in --json\n");
	rp_report_text_asked(f, res, n);
	rp_report_text_zerocopy(f, res, n);
	for (i = 0; i < n; i++)
		if ((res[i].flow.has_latency || res[i].has_unloaded) &&
		    res[i].client_host) {
			rp_report_text_clock(f, &res[i]);
			break;
		}
	for (i = 0; i < n; i++) {
		for (j = 0, seen = false; j < i && !seen; j++)
			seen = same_note(&res[i], &res[j]);
		if (res[i].notes[0] && !seen)
			fprintf(f, "  note: %s: %s\n", res[i].transport,
				res[i].notes);
	}
}
