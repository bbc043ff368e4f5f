// SPDX-License-Identifier: MIT
/* A point's verdict: its figures against --expect. */
#include <string.h>

#include "core/counters.h"
#include "run/verdict.h"

static void set(struct rp_expect_values *v, enum rp_expect_metric m, bool has,
		double x)
{
	v->has[m] = has;
	v->v[m] = has ? x : 0;
}

static void summary(struct rp_expect_values *v, enum rp_expect_metric first,
		    bool has, const struct rp_hist_summary *h)
{
	set(v, first + 0, has, h->p50); /* the order of core/expect.h */
	set(v, first + 1, has, h->p90);
	set(v, first + 2, has, h->p99);
	set(v, first + 3, has, h->p99_9);
	set(v, first + 4, has, h->max);
	set(v, first + 5, has, h->mean);
}

void rp_result_expect_values(const struct rp_result *r,
			     struct rp_expect_values *v)
{
	struct rp_counters_sum c, s;

	memset(v, 0, sizeof(*v));
	set(v, RP_EM_BW, r->has_bandwidth, r->flow.bits_per_second);
	set(v, RP_EM_MSG_RATE, r->has_bandwidth, r->flow.messages_per_second);
	summary(v, RP_EM_P50, r->flow.has_latency, &r->flow.latency);
	summary(v, RP_EM_UNLOADED_P50, r->has_unloaded, &r->unloaded);
	rp_counters_sum(r->client_counters, &c);
	/* on one host the client's read the host's counters already; the
	 * server's connections are its own */
	if (rp_result_same_host(r))
		rp_counters_sum_socket(r->server_counters, &s);
	else
		rp_counters_sum(r->server_counters, &s);
	set(v, RP_EM_ERRORS, c.present || s.present,
	    (double)(c.errors + s.errors));
	set(v, RP_EM_RETRANS, c.present || s.present,
	    (double)(c.retrans + s.retrans));
	set(v, RP_EM_CONGESTION, c.present || s.present,
	    (double)(c.congestion + s.congestion));
	v->rated_bps = rp_result_rated_bps(r);
}

bool rp_result_judge(struct rp_result *r, const struct rp_expect *e)
{
	struct rp_expect_values v;
	const cJSON *pass;

	cJSON_Delete(r->verdict);
	r->verdict = NULL;
	if (!e->n || r->failed)
		return true;
	rp_result_expect_values(r, &v);
	r->verdict = rp_expect_eval(e, &v);
	pass = cJSON_GetObjectItemCaseSensitive(r->verdict, "pass");
	return !r->verdict || cJSON_IsTrue(pass);
}
