// SPDX-License-Identifier: MIT
/*
 * The open loop's part of a document read back (--report): a result's
 * "rate" (json/rate.c writes it) and the config's "rates" or "load_curve".
 */
#include <errno.h>

#include "core/json.h"
#include "report/priv.h"
#include "report/read/read.h"

void rp_read_rate(const cJSON *o, struct rp_result *r)
{
	const cJSON *rate = rp_read_get(o, "rate");
	struct rp_flow *f = &r->dir[RP_DIR_C2S].flow;

	if (!cJSON_IsObject(rate))
		return;
	/* achieved and saturated come from the direction's own figures,
	 * read with the rest of the result */
	r->spec.rate =
		rp_read_u64(rate, "offered_ops_per_second", RP_SPEC_MAX_RATE);
	f->backlogged = rp_read_u64(rate, "backlogged", RP_JSON_MAX_EXACT);
	f->max_backlog = rp_read_u64(rate, "max_backlog", RP_JSON_MAX_EXACT);
	f->unsent = rp_read_u64(rate, "unsent", RP_JSON_MAX_EXACT);
	f->has_corrected = true;
	rp_read_summary(rp_read_get(rate, "latency_corrected"), &f->corrected);
}

int rp_read_rates(const struct rp_reader *l, const cJSON *c,
		  struct rp_test *test)
{
	const cJSON *a = rp_read_get(c, "rates"), *e;
	char err[160];

	test->load_curve = (unsigned int)rp_read_u64(c, "load_curve",
						     RP_RATE_MAX_POINTS - 1);
	if (test->load_curve) {
		rp_rate_curve(test->rates, test->load_curve);
		test->n_rates = test->load_curve + 1;
		return 0;
	}
	if (cJSON_GetArraySize(a) > RP_RATE_MAX_POINTS)
		return rp_errf(l->why, -EINVAL, "%s: more than %d rates",
			       l->path, RP_RATE_MAX_POINTS);
	if (!cJSON_IsArray(a))
		return 0;
	cJSON_ArrayForEach(e, a)
	{
		size_t one;

		if (!cJSON_IsString(e) ||
		    rp_rate_parse_list(e->valuestring,
				       &test->rates[test->n_rates], 1, &one,
				       err, sizeof(err)))
			return rp_errf(l->why, -EINVAL, "%s: config.rates: %s",
				       l->path, err);
		test->n_rates++;
	}
	return 0;
}
