// SPDX-License-Identifier: MIT
/*
 * The open loop's part of a result (--rate, --load-curve): "rate" in JSON
 * (read/rate.c reads it back for --report), and the config's rates. Present
 * only for a point that ran on a schedule, so a closed-loop document is as
 * it always was.
 */
#include "core/json.h"
#include "report/priv.h"

static cJSON *rate_json(const struct rp_result *r)
{
	const struct rp_flow *f = &r->dir[RP_DIR_C2S].flow;
	double bits = 8.0 * (double)r->spec.size_bytes;
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	rp_report_num(o, "offered_ops_per_second", (double)r->spec.rate);
	rp_report_num(o, "offered_bits_per_second",
		      (double)r->spec.rate * bits);
	rp_report_num(o, "achieved_ops_per_second", f->messages_per_second);
	rp_report_num(o, "achieved_bits_per_second", f->bits_per_second);
	cJSON_AddBoolToObject(o, "saturated", rp_result_saturated(r));
	rp_report_num(o, "backlogged", (double)f->backlogged);
	rp_report_num(o, "max_backlog", (double)f->max_backlog);
	rp_report_num(o, "unsent", (double)f->unsent);
	cJSON_AddStringToObject(o, "correction", "intended_start");
	cJSON_AddItemToObject(o, "latency_corrected",
			      rp_report_latency_json(&f->corrected));
	return o;
}

void rp_report_rate_add(const struct rp_result *r, cJSON *o)
{
	if (r->spec.rate && r->has_bandwidth)
		cJSON_AddItemToObject(o, "rate", rate_json(r));
}

void rp_report_rates_json(const struct rp_test *test, cJSON *c)
{
	char text[48];
	cJSON *a;
	size_t i;

	if (!test->n_rates)
		return;
	if (test->load_curve) {
		cJSON_AddNumberToObject(c, "load_curve", test->load_curve);
		return;
	}
	a = cJSON_AddArrayToObject(c, "rates");
	for (i = 0; a && i < test->n_rates; i++) {
		rp_rate_text(&test->rates[i], text, sizeof(text));
		cJSON_AddItemToArray(a, cJSON_CreateString(text));
	}
}
