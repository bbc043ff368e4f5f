// SPDX-License-Identifier: MIT
/*
 * Text reporter, for people. Which layout depends on the shape of the run:
 *
 *   one point        a block per transport (streams, directions, CPU),
 *                    then a comparison table when there are several
 *   a sweep, one     a table, a row per point (ib_write_bw's layout)
 *   transport
 *   a sweep, several a table per metric, transports side by side
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>

#include "core/units.h"
#include "report/priv.h"
#include "report/text/text.h"

static void lat_row(FILE *f, const char *name, const struct rp_hist_summary *s)
{
	fprintf(f, "  %-12s %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f\n", name,
		s->min / 1e3, s->mean / 1e3, s->p50 / 1e3, s->p90 / 1e3,
		s->p99 / 1e3, s->p99_9 / 1e3, s->max / 1e3);
}

static void header(FILE *f, const struct rp_test *test,
		   const struct rp_result *r)
{
	char sz[32];

	fprintf(f, "rdmaperf %s: %s %s, %s messages, queue depth %u",
		RP_VERSION, r->transport, rp_op_name(r->spec.op),
		rp_units_format_size(r->spec.size_bytes, sz, sizeof(sz)),
		r->spec.queue_depth);
	rp_report_test_flags(f, test, &r->spec);
	if (r->spec.duration_ns)
		fprintf(f, ", %.1f s\n", (double)r->spec.duration_ns / 1e9);
	else
		fprintf(f, ", %llu operations\n",
			(unsigned long long)r->spec.iterations);
	rp_report_server_line(f, test, r);
}

/* The throughput phase: the total, then each direction and stream. */
static void throughput(FILE *f, const struct rp_result *r)
{
	rp_report_text_flow(f, r->spec.bidir ? "throughput sum" : "throughput",
			    &r->flow);
	if (r->has_interval_range)
		fprintf(f,
			"  %-14s lowest %.3f Gb/s, highest %.3f Gb/s "
			"(%u intervals of %g s)\n",
			"intervals", r->interval_min_bps / 1e9,
			r->interval_max_bps / 1e9, r->n_intervals,
			r->interval_s);
	rp_report_text_open_loop(f, r);
	rp_report_text_streams(f, r);
	rp_report_text_mcast(f, r);
}

static void latency(FILE *f, const struct rp_result *r)
{
	if (r->flow.has_latency || r->has_unloaded)
		fprintf(f, "  %-12s %9s %9s %9s %9s %9s %9s %9s\n",
			"latency (us)", "min", "mean", "p50", "p90", "p99",
			"p99.9", "max");
	if (r->flow.has_latency)
		lat_row(f, "under load", &r->flow.latency);
	if (r->flow.has_latency && r->spec.rate) {
		lat_row(f, "corrected", &r->dir[RP_DIR_C2S].flow.corrected);
		fprintf(f,
			"  %-12s corrected = from each operation's intended "
			"start on the schedule\n",
			"");
	}
	if (r->has_unloaded) {
		lat_row(f, "unloaded", &r->unloaded);
		if (rp_report_file_of(r))
			fprintf(f,
				"  %-12s unloaded = one operation at a "
				"time, post to CQE\n",
				"");
		else
			fprintf(f, "  %-12s %s; round trip p50 %.2f us\n", "",
				r->unloaded_halved
					? "unloaded = half round trip"
					: "unloaded = whole operation",
				r->rtt.p50 / 1e3);
	}
	rp_report_text_clock(f, r);
}

static void one(FILE *f, const struct rp_test *test, const struct rp_result *r)
{
	header(f, test, r);
	if (r->has_bandwidth)
		throughput(f, r);
	latency(f, r);
	if (r->has_bandwidth) {
		rp_report_text_cpu(f, "client", &r->client);
		if (!rp_report_file_of(r)) {
			rp_report_text_cpu(f, "server", &r->server);
			rp_report_text_numa(f, r);
		}
	}
	rp_report_text_asked(f, r, 1);
	rp_report_text_zerocopy(f, r, 1);
	rp_report_text_link(f, r);
	rp_report_text_counters(f, r);
	rp_report_text_verdict(f, r);
	rp_report_text_repeat(f, r);
	rp_report_text_slo(f, r);
	if (r->interrupted)
		fprintf(f, "  INTERRUPTED in the %s phase: figures so far\n",
			rp_phase_name(r->interrupted_phase));
	if (r->failed)
		fprintf(f, "  FAILED (%s): %s\n", r->error_code, r->error);
}

void rp_report_text(FILE *f, const struct rp_test *test,
		    const struct rp_result *res, size_t n)
{
	struct rp_report_shape shape = rp_report_shape(test, n);
	size_t i;

	if (shape.n_points > 1 && test->n_rates) {
		rp_report_text_load(f, test, res, shape);
		rp_report_text_verdicts(f, res, n);
		rp_report_text_repeats(f, res, n);
	} else if (shape.n_points > 1 && shape.n_transports == 1) {
		rp_report_text_sweep(f, test, res, n);
		rp_report_text_verdicts(f, res, n);
		rp_report_text_repeats(f, res, n);
	} else if (shape.n_points > 1) {
		rp_report_text_matrix(f, test, res, shape);
		rp_report_text_verdicts(f, res, n);
		rp_report_text_repeats(f, res, n);
	} else {
		for (i = 0; i < n; i++) {
			if (i)
				fputc('\n', f);
			one(f, test, &res[i]);
		}
		if (n > 1)
			rp_report_text_compare(f, res, n);
	}
}

int rp_report_out_check(FILE *f)
{
	errno = 0;
	if (fflush(f) == EOF)
		return errno ? -errno : -EIO;
	return ferror(f) ? -EIO : 0;
}
