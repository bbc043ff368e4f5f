// SPDX-License-Identifier: MIT
/* Figures of a set of operations (flow.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/fields.h"
#include "core/json.h"
#include "core/stats.h"
#include "run/flow.h"

void rp_flow_rates(struct rp_flow *f)
{
	if (!(f->seconds > 0)) {
		f->bits_per_second = f->mib_per_second = 0;
		f->messages_per_second = 0;
		return;
	}
	f->bits_per_second = (double)f->bytes * 8 / f->seconds;
	f->mib_per_second = (double)f->bytes / 1048576.0 / f->seconds;
	f->messages_per_second = (double)f->messages / f->seconds;
}

static void stream_flow(struct rp_stream_result *r,
			const struct rp_engine_stream *es, uint64_t size)
{
	r->flow.messages = es->out.messages;
	r->flow.bytes = es->out.messages * size;
	r->flow.seconds =
		(double)(es->out.last_done_ns - es->out.first_post_ns) / 1e9;
	rp_flow_rates(&r->flow);
	if (es->hist) {
		rp_hist_summarize(es->hist, &r->flow.latency);
		r->flow.has_latency = true;
	}
	if (es->corr && rp_hist_count(es->corr)) {
		rp_hist_summarize(es->corr, &r->flow.corrected);
		r->flow.has_corrected = true;
	}
	r->flow.backlogged = es->out.backlogged;
	r->flow.max_backlog = es->out.max_backlog;
	r->flow.unsent = es->out.unsent;
}

/* Open loop: every stream's latency from intended starts, merged in
 * @scratch, and the schedule's counts summed. */
static void corrected(struct rp_direction *d, const struct rp_engine_stream *es,
		      unsigned int n, struct rp_hist *scratch)
{
	unsigned int i;

	rp_hist_reset(scratch);
	for (i = 0; i < n; i++) {
		const struct rp_flow *f = &d->per_stream[i].flow;

		d->flow.has_corrected |= f->has_corrected;
		if (f->has_corrected)
			rp_hist_merge(scratch, es[i].corr);
		d->flow.backlogged += f->backlogged;
		d->flow.unsent += f->unsent;
		if (f->max_backlog > d->flow.max_backlog)
			d->flow.max_backlog = f->max_backlog;
	}
	if (d->flow.has_corrected)
		rp_hist_summarize(scratch, &d->flow.corrected);
}

static void fairness(struct rp_direction *d)
{
	double *x = calloc(d->n_streams ? d->n_streams : 1, sizeof(*x));
	uint32_t i;

	if (!x) {
		d->fairness = 0;
		return;
	}
	for (i = 0; i < d->n_streams; i++)
		x[i] = d->per_stream[i].flow.bits_per_second;
	d->fairness = rp_stats_jain(x, d->n_streams);
	free(x);
}

int rp_direction_build(struct rp_direction *d,
		       const struct rp_engine_stream *es, unsigned int n,
		       unsigned int threads, uint64_t size,
		       struct rp_hist *scratch)
{
	uint64_t first = UINT64_MAX, last = 0;
	unsigned int i;

	d->per_stream = calloc(n, sizeof(*d->per_stream));
	if (!d->per_stream)
		return -ENOMEM;
	d->present = true;
	d->n_streams = n;
	rp_hist_reset(scratch);
	for (i = 0; i < n; i++) {
		d->per_stream[i].stream = i;
		d->per_stream[i].thread = threads ? i % threads : 0;
		stream_flow(&d->per_stream[i], &es[i], size);
		d->flow.bytes += d->per_stream[i].flow.bytes;
		d->flow.messages += d->per_stream[i].flow.messages;
		first = es[i].out.first_post_ns < first
				? es[i].out.first_post_ns
				: first;
		last = es[i].out.last_done_ns > last ? es[i].out.last_done_ns
						     : last;
		if (es[i].hist)
			rp_hist_merge(scratch, es[i].hist);
	}
	d->flow.seconds = n && last > first ? (double)(last - first) / 1e9 : 0;
	rp_flow_rates(&d->flow);
	rp_hist_summarize(scratch, &d->flow.latency);
	corrected(d, es, n, scratch);
	rp_hist_reset(scratch); /* the caller's spectrum: under load */
	for (i = 0; i < n; i++)
		if (es[i].hist)
			rp_hist_merge(scratch, es[i].hist);
	d->flow.has_latency = true;
	fairness(d);
	return 0;
}

void rp_direction_fini(struct rp_direction *d)
{
	free(d->per_stream);
	d->per_stream = NULL;
	d->n_streams = 0;
}

/* ---- the wire ---------------------------------------------------------- */

/* A flow as run/result.c's table has it on the wire; its rates are not
 * sent but derived again on reading. */
static cJSON *flow_json(const struct rp_flow *f)
{
	cJSON *o = cJSON_CreateObject();

	if (o && rp_fields_write(o, f, rp_flow_fields, rp_flow_n_fields,
				 RP_FIELD_WIRE)) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static void flow_read(const cJSON *o, struct rp_flow *f)
{
	rp_fields_read(o, f, rp_flow_fields, rp_flow_n_fields, RP_FIELD_WIRE);
	rp_flow_rates(f);
}

cJSON *rp_direction_to_json(const struct rp_direction *d)
{
	cJSON *o = flow_json(&d->flow), *a, *e;
	uint32_t i;

	a = o ? cJSON_AddArrayToObject(o, "per_stream") : NULL;
	if (!a) {
		cJSON_Delete(o);
		return NULL;
	}
	for (i = 0; i < d->n_streams; i++) {
		e = flow_json(&d->per_stream[i].flow);
		if (!e) {
			cJSON_Delete(o);
			return NULL;
		}
		cJSON_AddNumberToObject(e, "thread", d->per_stream[i].thread);
		cJSON_AddItemToArray(a, e);
	}
	return o;
}

int rp_direction_from_json(const cJSON *o, uint32_t max_streams,
			   struct rp_direction *d)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "per_stream");
	const cJSON *e;
	uint32_t n = 0;

	memset(d, 0, sizeof(*d));
	flow_read(o, &d->flow);
	d->present = true;
	if (!cJSON_IsArray(a))
		return 0;
	d->per_stream =
		calloc(max_streams ? max_streams : 1, sizeof(*d->per_stream));
	if (!d->per_stream)
		return -ENOMEM;
	cJSON_ArrayForEach(e, a)
	{
		if (n == max_streams)
			break;
		d->per_stream[n].stream = n;
		d->per_stream[n].thread =
			(uint32_t)rp_json_u64_or(e, "thread", 0) % 65536;
		flow_read(e, &d->per_stream[n++].flow);
	}
	d->n_streams = n;
	fairness(d);
	return 0;
}
