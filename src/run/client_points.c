// SPDX-License-Identifier: MIT
/*
 * The client's sweep: each point's spec and result (size-major, rate
 * innermost; --load-curve's shares of the peak), running them in turn, and
 * what the points that did not run say.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/sweep.h"
#include "run/client.h"
#include "run/flow.h"
#include "run/verdict.h"

#define fail client_fail

/* Point i of the sweep: size-major, rate innermost, the spec of that
 * point (a share of a peak gets its rate once the peak is known). An open
 * loop without -C or -t runs for RP_RATE_DEFAULT_NS. */
static void point_spec(const struct rp_config *cfg, const char *transport,
		       size_t i, struct rp_spec *sp)
{
	size_t si, di, ri;

	rp_test_point(&cfg->test, i, &si, &di, &ri);
	*sp = cfg->test.spec;
	snprintf(sp->transport, sizeof(sp->transport), "%s", transport);
	sp->size_bytes = cfg->test.sizes[si];
	sp->queue_depth = cfg->test.depths[di];
	sp->rate = cfg->test.n_rates ? rp_rate_ops(&cfg->test.rates[ri],
						   sp->size_bytes, 0)
				     : 0;
	if (cfg->test.n_rates && cfg->test.rates[ri].kind == RP_RATE_PEAK)
		sp->rate = 0; /* rate_from_peak() */
	if (cfg->test.iterations_defaulted && !sp->duration_ns &&
	    cfg->test.n_rates && cfg->test.rates[ri].kind != RP_RATE_CLOSED) {
		sp->iterations = 0;
		sp->duration_ns = RP_RATE_DEFAULT_NS;
	} else if (cfg->test.iterations_defaulted && !sp->duration_ns) {
		sp->iterations = rp_sweep_iterations(sp->size_bytes);
	}
}

/* --load-curve: point @i offers its share of what the closed-loop point
 * of its size and depth achieved. */
static int rate_from_peak(struct client *c, struct rp_result *res, size_t i)
{
	const struct rp_result *peak;
	size_t si, di, ri;

	rp_test_point(&c->cfg->test, i, &si, &di, &ri);
	if (!c->cfg->test.n_rates ||
	    c->cfg->test.rates[ri].kind != RP_RATE_PEAK)
		return 0;
	peak = &res[i - ri];
	if (peak->failed || !(peak->flow.messages_per_second > 0))
		return fail(&res[i], -EINVAL, "load",
			    "no peak to take a share of: the closed-loop point "
			    "%s",
			    peak->failed ? "failed" : "moved nothing");
	res[i].spec.rate =
		rp_rate_ops(&c->cfg->test.rates[ri], res[i].spec.size_bytes,
			    peak->dir[RP_DIR_C2S].flow.messages_per_second);
	return 0;
}

void client_init_results(struct client *c, const char *transport,
			 struct rp_result *res, size_t n)
{
	size_t i;

	c->spec = c->cfg->test.spec;
	snprintf(c->spec.transport, sizeof(c->spec.transport), "%s", transport);
	for (i = 0; i < n; i++) {
		memset(&res[i], 0, sizeof(res[i]));
		snprintf(res[i].transport, sizeof(res[i].transport), "%s",
			 transport);
		point_spec(c->cfg, transport, i, &res[i].spec);
		res[i].point = (uint32_t)i;
	}
	res[0].client_host = rp_host_info();
	c->n_fwd = c->spec.streams;
	c->n_rev = c->spec.bidir ? c->spec.streams : 0;
}

/* What every point shares, from the first point's result. */
static void share_first(struct rp_result *res, size_t i)
{
	if (!i || res[i].client_host)
		return;
	res[i].client_host = cJSON_Duplicate(res[0].client_host, 1);
	res[i].server_host = cJSON_Duplicate(res[0].server_host, 1);
	res[i].client_info = cJSON_Duplicate(res[0].client_info, 1);
	res[i].server_info = cJSON_Duplicate(res[0].server_info, 1);
	res[i].rails = cJSON_Duplicate(res[0].rails, 1);
	memcpy(res[i].notes, res[0].notes, sizeof(res[i].notes));
}

/* The points not told yet (a point after a failure did not run). */
void client_finish_results(const struct client *c, struct rp_result *res,
			   size_t n, size_t ran, size_t told)
{
	const struct rp_observer *obs = c->cfg->obs;
	size_t i;

	for (i = 0; i < n; i++) {
		share_first(res, i);
		if (i >= ran && !res[i].failed && res[ran - 1].interrupted)
			fail(&res[i], -EINTR, "interrupted",
			     "not run: interrupted");
		else if (i >= ran && !res[i].failed)
			fail(&res[i], -ECANCELED, res[ran - 1].error_code,
			     "not run: %s", res[ran - 1].error);
		if (i >= told && obs && obs->result)
			obs->result(obs->ctx, &res[i]);
	}
}

/* --retry: the point runs again; what it measured goes, what it is (its
 * spec, the hosts, the transports' info and notes) stays. */
static void point_again(struct rp_result *r)
{
	struct rp_result keep = *r;

	rp_direction_fini(&r->dir[RP_DIR_C2S]);
	rp_direction_fini(&r->dir[RP_DIR_S2C]);
	rp_intervals_free(r->intervals, r->n_intervals);
	cJSON_Delete(r->client_counters);
	cJSON_Delete(r->server_counters);
	cJSON_Delete(r->verdict);
	memset(r, 0, sizeof(*r));
	memcpy(r->transport, keep.transport, sizeof(r->transport));
	memcpy(r->notes, keep.notes, sizeof(r->notes));
	r->spec = keep.spec;
	r->point = keep.point;
	r->client_info = keep.client_info;
	r->server_info = keep.server_info;
	r->client_host = keep.client_host;
	r->server_host = keep.server_host;
	r->rails = keep.rails;
	r->retries = keep.retries + 1;
}

/* One point, and under --retry again while it fails its --expect. */
static int run_judged(struct client *c)
{
	const struct rp_test *t = &c->cfg->test;
	int err;

	for (;;) {
		err = client_run_point(c);
		if (err || c->res->interrupted ||
		    rp_result_judge(c->res, &t->expect) ||
		    c->res->retries >= t->retry)
			return err;
		point_again(c->res);
	}
}

/* Every point of the sweep once setup ended with @err (0: it went well):
 * 0, or -errno with the reason in the current point's result; *@ran
 * counts the points that ran. */
int client_run_points(struct client *c, struct rp_result *res, size_t n,
		      int err, size_t *ran, size_t *told)
{
	const struct rp_observer *obs = c->cfg->obs;

	for (*ran = 0; !err && *ran < n; (*ran)++) {
		c->res = &res[*ran];
		if (obs && obs->point)
			obs->point(obs->ctx, c->res, *ran, n);
		err = rate_from_peak(c, res, *ran);
		if (!err)
			err = run_judged(c);
		share_first(res, *ran);
		if (!err && c->res->interrupted)
			n = *ran + 1; /* the points after it do not run */
		if (!err && obs && obs->result)
			obs->result(obs->ctx, c->res);
		*told = *ran + !err;
	}
	if (err && !*ran)
		*ran = 1; /* setup failed: the first point says why */
	return err;
}
