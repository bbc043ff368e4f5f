// SPDX-License-Identifier: MIT
/*
 * JSON of a result's shape over time and over percentiles: the intervals
 * of -i with their range, and the latency spectra the plots draw. Names are
 * fixed by DESIGN.md ("Outputs"); latencies in microseconds.
 */
#include <math.h>

#include "report/priv.h"

void rp_report_spectrum_json(const struct rp_spectrum *sp, cJSON *l)
{
	cJSON *a, *pt;
	uint32_t i;

	if (!l || !sp->n)
		return;
	a = cJSON_AddArrayToObject(l, "spectrum");
	for (i = 0; a && i < sp->n && i < RP_SPECTRUM_MAX; i++) {
		pt = cJSON_CreateArray();
		if (!pt)
			return;
		cJSON_AddItemToArray(pt, cJSON_CreateNumber(sp->pct[i]));
		cJSON_AddItemToArray(pt,
				     cJSON_CreateNumber(sp->value[i] / 1e3));
		cJSON_AddItemToArray(a, pt);
	}
}

static cJSON *interval_stream_json(const struct rp_stream_result *s)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	cJSON_AddNumberToObject(o, "stream", s->stream);
	cJSON_AddNumberToObject(o, "thread", s->thread);
	rp_report_flow_fields(&s->flow, o);
	return o;
}

cJSON *rp_report_interval_json(const struct rp_interval *iv)
{
	cJSON *o = cJSON_CreateObject(), *a;
	uint32_t i;

	if (!o)
		return NULL;
	cJSON_AddNumberToObject(o, "index", iv->index);
	rp_report_num(o, "start", iv->start);
	rp_report_flow_fields(&iv->flow, o);
	if (iv->counters)
		cJSON_AddItemToObject(o, "counters",
				      cJSON_Duplicate(iv->counters, 1));
	if (!iv->n_streams || !iv->per_stream)
		return o;
	a = cJSON_AddArrayToObject(o, "per_stream");
	for (i = 0; a && i < iv->n_streams; i++)
		cJSON_AddItemToArray(a,
				     interval_stream_json(&iv->per_stream[i]));
	return o;
}

static cJSON *range_json(const struct rp_result *r)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	rp_report_num(o, "interval_s", r->interval_s);
	rp_report_num(o, "min_bits_per_second", r->interval_min_bps);
	rp_report_num(o, "max_bits_per_second", r->interval_max_bps);
	return o;
}

void rp_report_intervals_json(const struct rp_result *r, cJSON *o)
{
	cJSON *a = cJSON_AddArrayToObject(o, "intervals");
	uint32_t i;

	for (i = 0; a && r->intervals && i < r->n_intervals; i++)
		cJSON_AddItemToArray(a,
				     rp_report_interval_json(&r->intervals[i]));
	rp_report_add_or_null(o, "interval_range", r->has_interval_range,
			      range_json(r));
}
