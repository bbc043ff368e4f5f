// SPDX-License-Identifier: MIT
/*
 * A sweep with offered rates (--rate list, --load-curve): per transport, a
 * row per point with what was offered and achieved, the latency from each
 * operation's intended start (corrected) and from its post (raw): where
 * the tail turns up is the knee.
 */
#include <stdio.h>

#include "report/text/text.h"

static void load_head(FILE *f, const char *transport)
{
	fprintf(f, "\n  %s\n  %9s %5s %12s %12s %29s %19s\n", transport, "", "",
		"offered", "achieved", "-- corrected latency (us) --",
		"--- raw (us) ---");
	fprintf(f, "  %9s %5s %12s %12s %9s %9s %9s %9s %9s\n", "size", "depth",
		"ops/s", "ops/s", "p50", "p99", "p99.9", "p50", "p99");
}

static void load_row(FILE *f, const struct rp_test *test,
		     const struct rp_result *r, size_t p)
{
	const struct rp_hist_summary *c = &r->dir[RP_DIR_C2S].flow.corrected;
	const struct rp_hist_summary *l = &r->flow.latency;
	char offered[32];

	rp_report_point_cells(f, test, r, p);
	if (r->spec.rate)
		snprintf(offered, sizeof(offered), "%llu",
			 (unsigned long long)r->spec.rate);
	else
		snprintf(offered, sizeof(offered), "closed");
	fprintf(f, " %12s", offered);
	if (r->failed) {
		fprintf(f, "   FAILED (%s): %s\n", r->error_code, r->error);
		return;
	}
	/* the client's direction: what the rate was offered to (the sum of
	 * both under --bidir would count the server's too) */
	fprintf(f, " %12.0f", r->dir[RP_DIR_C2S].flow.messages_per_second);
	if (r->spec.rate)
		fprintf(f, " %9.2f %9.2f %9.2f", c->p50 / 1e3, c->p99 / 1e3,
			c->p99_9 / 1e3);
	else
		fprintf(f, " %9s %9s %9s", "-", "-", "-");
	fprintf(f, " %9.2f %9.2f%s\n", l->p50 / 1e3, l->p99 / 1e3,
		rp_result_saturated(r) ? "  SATURATED" : "");
}

void rp_report_text_load(FILE *f, const struct rp_test *test,
			 const struct rp_result *res,
			 struct rp_report_shape shape)
{
	size_t t, p, np = shape.n_points;

	rp_report_text_title(f, test, res, shape);
	for (t = 0; t < shape.n_transports; t++) {
		load_head(f, res[t * np].transport);
		for (p = 0; p < np; p++)
			load_row(f, test, &res[t * np + p], p);
	}
	fprintf(f,
		"\n  corrected: from each operation's intended start on a "
		"fixed schedule (wrk2); raw: from its post; SATURATED: "
		"achieved under %.0f%% of offered\n",
		RP_RATE_SATURATED * 100);
	rp_report_text_notes(f, res, shape.n_points * shape.n_transports);
}
