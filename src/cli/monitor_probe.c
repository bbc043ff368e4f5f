// SPDX-License-Identifier: MIT
/*
 * One probe of one peer: the client's ordinary test of one point (its
 * ping-pong, its burst of --time, the counters read on both sides, the
 * verdict of --expect), through run/'s client with the peer's config, and
 * its result read into the plain figures the exposition renders.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/monitor.h"
#include "platform/clock.h"
#include "run/verdict.h"

void rp_mon_peer_init(const struct rp_mon_peer_conf *pc, struct rp_mon_peer *p)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->peer, sizeof(p->peer), "%s", pc->name);
	snprintf(p->transport, sizeof(p->transport), "%s",
		 pc->cfg.test.transports[0]);
	snprintf(p->op, sizeof(p->op), "%s", rp_op_name(pc->cfg.test.spec.op));
}

/* The link the client's first stream ran on: an RDMA device, or the
 * netdev of a socket. */
static void device_of(const struct rp_result *r, struct rp_mon_peer *p)
{
	const cJSON *link = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetArrayItem(r->client_info, 0), "link");
	const cJSON *d = cJSON_GetObjectItemCaseSensitive(link, "device");

	if (!cJSON_IsString(d))
		d = cJSON_GetObjectItemCaseSensitive(link, "netdev");
	if (cJSON_IsString(d))
		snprintf(p->device, sizeof(p->device), "%s", d->valuestring);
}

/* The quantiles of @h (ns) and its count and sum added to @l's. */
static void latency(struct rp_mon_latency *l, const struct rp_hist_summary *h)
{
	l->has = true;
	l->q[0] = h->p50 / 1e9;
	l->q[1] = h->p99 / 1e9;
	l->q[2] = h->p99_9 / 1e9;
	l->count += h->count;
	l->sum += h->mean * (double)h->count / 1e9;
}

/* Every delta of one side's counters (core/counters.h's JSON form). */
static void side_counters(struct rp_mon_peer *p, const char *side,
			  const cJSON *j)
{
	const cJSON *g, *c;
	struct rp_mon_counter *m;

	cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(j, "deltas"))
	{
		cJSON_ArrayForEach(c, g)
		{
			if (p->n_counters == RP_MON_MAX_COUNTERS)
				return;
			if (!cJSON_IsNumber(c) || !g->string || !c->string)
				continue;
			m = &p->c[p->n_counters++];
			snprintf(m->side, sizeof(m->side), "%s", side);
			snprintf(m->group, sizeof(m->group), "%s", g->string);
			snprintf(m->name, sizeof(m->name), "%s", c->string);
			m->delta = c->valuedouble > 0 ? (uint64_t)c->valuedouble
						      : 0;
		}
	}
}

static void verdict(struct rp_mon_peer *p, const cJSON *v)
{
	const cJSON *c, *t;
	struct rp_mon_check *k;

	if (!v)
		return;
	p->has_verdict = true;
	p->pass = rp_expect_verdict_pass(v);
	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(v, "checks"))
	{
		t = cJSON_GetObjectItemCaseSensitive(c, "expect");
		if (p->n_checks == RP_EXPECT_MAX || !cJSON_IsString(t))
			continue;
		k = &p->k[p->n_checks++];
		snprintf(k->text, sizeof(k->text), "%s", t->valuestring);
		k->pass = cJSON_IsTrue(
			cJSON_GetObjectItemCaseSensitive(c, "pass"));
	}
}

/* A probe that went well: its figures. */
static void figures(struct rp_mon_peer *p, const struct rp_result *r)
{
	const struct rp_hist_summary *rt =
		r->rtt.count ? &r->rtt : &r->unloaded;
	struct rp_expect_values v;

	device_of(r, p);
	p->has_bw = r->has_bandwidth;
	p->bits_per_second = r->flow.bits_per_second;
	p->messages_per_second = r->flow.messages_per_second;
	if (r->has_unloaded)
		latency(&p->unloaded, &r->unloaded);
	if (r->has_bandwidth && r->flow.has_latency)
		latency(&p->loaded, &r->flow.latency);
	p->sending_s =
		(r->has_unloaded ? rt->mean * (double)rt->count / 1e9 : 0) +
		(r->has_bandwidth ? r->flow.seconds : 0);
	rp_result_expect_values(r, &v);
	p->has_sums = v.has[RP_EM_ERRORS];
	p->errors = (uint64_t)v.v[RP_EM_ERRORS];
	p->retrans = v.has[RP_EM_RETRANS] ? (uint64_t)v.v[RP_EM_RETRANS] : 0;
	p->congestion =
		v.has[RP_EM_CONGESTION] ? (uint64_t)v.v[RP_EM_CONGESTION] : 0;
	side_counters(p, "client", r->client_counters);
	side_counters(p, "server", r->server_counters);
	verdict(p, r->verdict);
}

/* The last probe's figures go: a down peer shows none stale. */
static void forget(struct rp_mon_peer *p)
{
	p->has_bw = false;
	p->unloaded.has = false;
	p->loaded.has = false;
	p->has_sums = false;
	p->n_counters = 0;
	p->has_verdict = false;
	p->n_checks = 0;
	p->sending_s = 0;
}

int rp_mon_probe(const struct rp_mon_peer_conf *pc, struct rp_mon_peer *p,
		 const atomic_int *stop)
{
	struct rp_config cfg = pc->cfg;
	struct rp_result *r = calloc(1, sizeof(*r));
	uint64_t t0 = rp_clock_mono_ns();
	struct timespec now;
	int rc = -ENOMEM;

	forget(p);
	cfg.interrupted = stop;
	if (r)
		rc = rp_client_run_test(&cfg, 0, r);
	p->duration_s = (double)(rp_clock_mono_ns() - t0) / 1e9;
	clock_gettime(CLOCK_REALTIME, &now);
	p->end_unix_s = (double)now.tv_sec + (double)now.tv_nsec / 1e9;
	p->probed = true;
	p->probes++;
	if (!rc && r && !r->failed && !r->interrupted) {
		figures(p, r);
		p->up = true;
		p->consecutive_failures = 0;
		p->reason[0] = '\0';
	} else {
		p->up = false;
		p->failures++;
		p->consecutive_failures++;
		snprintf(p->reason, sizeof(p->reason), "%s",
			 r && r->error[0] ? r->error
					  : strerror(rc ? -rc : EIO));
	}
	if (r)
		rp_result_fini(r);
	free(r);
	return p->up ? 0 : -EIO;
}
