// SPDX-License-Identifier: MIT
/*
 * JSON of what moved: latency summaries, throughput, the per-stream array,
 * Jain's fairness and, with --bidir, each direction on its own. Names are
 * fixed by DESIGN.md ("Outputs"). Numbers that are not finite print null.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/fields.h"
#include "core/stats.h"
#include "report/priv.h"

static const char *const dir_names[RP_DIR__COUNT] = {
	[RP_DIR_C2S] = "client_to_server",
	[RP_DIR_S2C] = "server_to_client",
};

void rp_report_num(cJSON *obj, const char *key, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(obj, key, v);
	else
		cJSON_AddNullToObject(obj, key);
}

void rp_report_add_or_null(cJSON *obj, const char *key, bool present,
			   cJSON *item)
{
	if (present && item) {
		cJSON_AddItemToObject(obj, key, item);
		return;
	}
	cJSON_Delete(item);
	cJSON_AddNullToObject(obj, key);
}

cJSON *rp_report_latency_json(const struct rp_hist_summary *s)
{
	cJSON *l = cJSON_CreateObject();

	if (l && rp_fields_write(l, s, rp_hist_summary_fields,
				 RP_HIST_SUMMARY_N_FIELDS, RP_FIELD_DOC)) {
		cJSON_Delete(l);
		return NULL;
	}
	return l;
}

cJSON *rp_report_throughput_json(double bps, double mibps, double msgps)
{
	cJSON *t = cJSON_CreateObject();

	if (!t)
		return NULL;
	rp_report_num(t, "bits_per_second", bps);
	rp_report_num(t, "mib_per_second", mibps);
	rp_report_num(t, "messages_per_second", msgps);
	return t;
}

void rp_report_flow_fields(const struct rp_flow *fl, cJSON *o)
{
	rp_fields_write(o, fl, rp_flow_fields, rp_flow_n_fields, RP_FIELD_DOC);
}

static cJSON *stream_json(const struct rp_stream_result *s, enum rp_dir d)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	cJSON_AddNumberToObject(o, "stream", s->stream);
	cJSON_AddNumberToObject(o, "thread", s->thread);
	cJSON_AddStringToObject(o, "direction", dir_names[d]);
	rp_report_flow_fields(&s->flow, o);
	return o;
}

/* The streams of @dir (those of @r when @dir is RP_DIR__COUNT). */
static cJSON *per_stream_json(const struct rp_result *r, enum rp_dir only)
{
	cJSON *a = cJSON_CreateArray();
	const struct rp_direction *dr;
	uint32_t i;
	int d;

	for (d = 0; a && d < RP_DIR__COUNT; d++) {
		dr = &r->dir[d];
		if (!dr->present || !dr->per_stream ||
		    (only != RP_DIR__COUNT && only != (enum rp_dir)d))
			continue;
		for (i = 0; i < dr->n_streams; i++)
			cJSON_AddItemToArray(a, stream_json(&dr->per_stream[i],
							    (enum rp_dir)d));
	}
	return a;
}

/* @v as a document holds it: cJSON prints 15 digits where they read back
 * nearly the same, so a figure derived from values already written must be
 * derived from them as written, or --report, deriving it again from what
 * it read, would not print the same. */
static double as_printed(double v)
{
	cJSON *n = cJSON_CreateNumber(v);
	char *text = n ? cJSON_PrintUnformatted(n) : NULL;
	double w = text ? strtod(text, NULL) : v;

	free(text);
	cJSON_Delete(n);
	return w;
}

/* Jain's index over every stream of both directions, from their figures as
 * written: the direction's own when only one has streams; NAN when none
 * has. */
static double fairness_all(const struct rp_result *r)
{
	double x[RP_DIR__COUNT * RP_SPEC_MAX_STREAMS];
	const struct rp_direction *dr, *one = NULL;
	size_t n = 0, k = 0;
	uint32_t i;
	int d;

	for (d = 0; d < RP_DIR__COUNT; d++) {
		dr = &r->dir[d];
		if (!dr->present || !dr->per_stream || !dr->n_streams)
			continue;
		one = dr;
		k++;
		for (i = 0; i < dr->n_streams && i < RP_SPEC_MAX_STREAMS; i++)
			x[n++] = as_printed(
				dr->per_stream[i].flow.bits_per_second);
	}
	if (!one)
		return NAN;
	return k == 1 ? one->fairness : rp_stats_jain(x, n);
}

void rp_report_streams_json(const struct rp_result *r, cJSON *o)
{
	cJSON_AddItemToObject(o, "per_stream",
			      per_stream_json(r, RP_DIR__COUNT));
	rp_report_num(o, "fairness", fairness_all(r));
}

unsigned int rp_report_rails(const struct rp_result *r,
			     struct rp_rail_figures *out)
{
	unsigned int n = r->spec.rails, k, i;
	const struct rp_direction *dr;
	double best = 0;
	int d;

	if (!n || n > RP_SPEC_MAX_RAILS || !r->has_bandwidth)
		return 0;
	memset(out, 0, n * sizeof(*out));
	for (d = 0; d < RP_DIR__COUNT; d++) {
		dr = &r->dir[d];
		if (!dr->present)
			continue;
		if (!dr->per_stream || !dr->n_streams) {
			if (n != 1) /* a rail each needs its streams' figures */
				return 0;
			out[0].streams += 1;
			out[0].bps += as_printed(dr->flow.bits_per_second);
			out[0].msgps +=
				as_printed(dr->flow.messages_per_second);
			continue;
		}
		for (i = 0; i < dr->n_streams; i++) {
			k = dr->per_stream[i].stream % n;
			out[k].streams++;
			out[k].bps += as_printed(
				dr->per_stream[i].flow.bits_per_second);
			out[k].msgps += as_printed(
				dr->per_stream[i].flow.messages_per_second);
		}
	}
	for (k = 0; k < n; k++)
		best = out[k].bps > best ? out[k].bps : best;
	for (k = 0; k < n; k++) {
		out[k].share = best > 0 ? out[k].bps / best : NAN;
		out[k].is_short =
			best > 0 && out[k].share < RP_RAIL_SHORT_SHARE;
	}
	return n;
}

/* A rail's side as its description has it, "" where it says nothing. */
const char *rp_report_rail_str(const struct rp_result *r, unsigned int k,
			       const char *side, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(
			cJSON_GetArrayItem(r->rails, (int)k), side),
		key);

	return cJSON_IsString(v) ? v->valuestring : "";
}

cJSON *rp_report_rails_json(const struct rp_result *r)
{
	struct rp_rail_figures f[RP_SPEC_MAX_RAILS];
	unsigned int n = rp_report_rails(r, f), k;
	cJSON *a, *o;

	if (!r->spec.rails || !cJSON_IsArray(r->rails))
		return cJSON_CreateNull();
	a = cJSON_CreateArray();
	for (k = 0; a && k < r->spec.rails; k++) {
		o = cJSON_Duplicate(cJSON_GetArrayItem(r->rails, (int)k), 1);
		if (!o)
			o = cJSON_CreateObject();
		if (!o || !cJSON_AddItemToArray(a, o)) {
			cJSON_Delete(o);
			break;
		}
		if (k >= n) { /* no throughput phase, or no streams' figures */
			cJSON_AddNullToObject(o, "throughput");
			continue;
		}
		cJSON_AddNumberToObject(o, "streams", f[k].streams);
		cJSON_AddItemToObject(
			o, "throughput",
			rp_report_throughput_json(
				f[k].bps, f[k].bps / 8 / 1048576, f[k].msgps));
		rp_report_num(o, "share_of_best", f[k].share);
		cJSON_AddBoolToObject(o, "short", f[k].is_short);
	}
	return a;
}

static cJSON *direction_json(const struct rp_result *r, enum rp_dir d)
{
	const struct rp_direction *dr = &r->dir[d];
	cJSON *o;

	if (!dr->present)
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	if (!o)
		return NULL;
	rp_report_flow_fields(&dr->flow, o);
	cJSON_AddNumberToObject(o, "streams", dr->n_streams);
	cJSON_AddItemToObject(o, "per_stream", per_stream_json(r, d));
	rp_report_num(o, "fairness",
		      dr->n_streams && dr->per_stream ? dr->fairness : NAN);
	return o;
}

cJSON *rp_report_directions_json(const struct rp_result *r)
{
	cJSON *o;
	int d;

	if (!r->spec.bidir)
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	for (d = 0; o && d < RP_DIR__COUNT; d++)
		cJSON_AddItemToObject(o, dir_names[d],
				      direction_json(r, (enum rp_dir)d));
	return o;
}
