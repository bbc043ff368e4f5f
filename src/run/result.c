// SPDX-License-Identifier: MIT
/*
 * The members of a flow (result.h), once: run/flow.c sends and reads them
 * on the wire (DONE), report/ writes them into the user's document and
 * reads them back (--report).
 *
 *   key                wire      document
 *   bytes              yes       yes
 *   messages           yes       yes
 *   seconds            yes       yes
 *   throughput {...}   -         yes (derived: rp_flow_rates on the wire)
 *   latency            if any    if any, else null (us)
 *   latency_corrected  if any    -   (the document's "rate" holds it)
 *   backlogged ...     if corr.  -
 */
#include <stddef.h>
#include <string.h>

#include "core/fields.h"
#include "run/result.h"

#define FLOW(m, k, fl)                                                         \
	.key = #m, .off = offsetof(struct rp_flow, m), .kind = (k),            \
	.flags = (fl)

static const struct rp_field throughput_fields[] = {
	{ FLOW(bits_per_second, RP_FIELD_DOUBLE, RP_FIELD_IN_DOC) },
	{ FLOW(mib_per_second, RP_FIELD_DOUBLE, RP_FIELD_IN_DOC) },
	{ FLOW(messages_per_second, RP_FIELD_DOUBLE, RP_FIELD_IN_DOC) },
};

#define SUMMARY .sub = rp_hist_summary_fields, .n_sub = RP_HIST_SUMMARY_N_FIELDS

/* the open loop's schedule: on the wire only with its corrected latency */
#define IF_CORRECTED(m)                                                        \
	{                                                                      \
		FLOW(m, RP_FIELD_U64, RP_FIELD_IN_WIRE | RP_FIELD_HAS),        \
			.has_off = offsetof(struct rp_flow, has_corrected)     \
	}

const struct rp_field rp_flow_fields[] = {
	{ FLOW(bytes, RP_FIELD_U64, RP_FIELD_IN_BOTH) },
	{ FLOW(messages, RP_FIELD_U64, RP_FIELD_IN_BOTH) },
	{ FLOW(seconds, RP_FIELD_DOUBLE, RP_FIELD_IN_BOTH) },
	{ .key = "throughput",
	  .kind = RP_FIELD_GROUP,
	  .flags = RP_FIELD_IN_DOC,
	  .sub = throughput_fields,
	  .n_sub = RP_FIELDS_N(throughput_fields) },
	{ FLOW(latency, RP_FIELD_OBJECT, RP_FIELD_IN_BOTH | RP_FIELD_HAS),
	  .has_off = offsetof(struct rp_flow, has_latency), SUMMARY },
	{ .key = "latency_corrected",
	  .off = offsetof(struct rp_flow, corrected),
	  .kind = RP_FIELD_OBJECT,
	  .flags = RP_FIELD_IN_WIRE | RP_FIELD_HAS,
	  .has_off = offsetof(struct rp_flow, has_corrected),
	  SUMMARY },
	IF_CORRECTED(backlogged),
	IF_CORRECTED(max_backlog),
	IF_CORRECTED(unsent),
};

const size_t rp_flow_n_fields = RP_FIELDS_N(rp_flow_fields);

/* The rated rate of one side's link, Gb/s: its first stream's "link"
 * (xport/link.h), 0 when not known. */
static double side_rated_gbps(const cJSON *info)
{
	const cJSON *first =
		cJSON_IsArray(info) ? cJSON_GetArrayItem(info, 0) : info;
	const cJSON *link = cJSON_GetObjectItemCaseSensitive(first, "link");
	const cJSON *g = cJSON_GetObjectItemCaseSensitive(link, "rate_gbps");

	return cJSON_IsNumber(g) && g->valuedouble > 0 ? g->valuedouble : 0;
}

double rp_result_rated_bps(const struct rp_result *r)
{
	double c = side_rated_gbps(r->client_info);
	double s = side_rated_gbps(r->server_info);

	if (c > 0 && s > 0)
		return 1e9 * (c < s ? c : s);
	return 1e9 * (c > 0 ? c : s);
}

bool rp_result_same_host(const struct rp_result *r)
{
	const cJSON *c =
		cJSON_GetObjectItemCaseSensitive(r->client_host, "hostname");
	const cJSON *s =
		cJSON_GetObjectItemCaseSensitive(r->server_host, "hostname");

	return cJSON_IsString(c) && cJSON_IsString(s) &&
	       !strcmp(c->valuestring, s->valuestring);
}
