// SPDX-License-Identifier: MIT
/* A point's figures over its repetitions, and what they say in sum. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpuspeed.h"
#include "core/stats.h"
#include "platform/clock.h"
#include "run/repeat.h"

static const struct {
	const char *key, *unit;
	double scale; /* from the figure's own unit to the document's */
} figs[RP_FIG__COUNT] = {
	[RP_FIG_THROUGHPUT] = { "throughput", "Gb/s", 1e-9 },
	[RP_FIG_MSG_RATE] = { "messages_per_second", "msg/s", 1 },
	[RP_FIG_P50] = { "p50", "us", 1e-3 },
	[RP_FIG_P99] = { "p99", "us", 1e-3 },
	[RP_FIG_P99_9] = { "p99_9", "us", 1e-3 },
	[RP_FIG_UNLOADED_P50] = { "unloaded_p50", "us", 1e-3 },
	[RP_FIG_CPU_CLIENT] = { "client_cpu", "us/KiB", 1 },
	[RP_FIG_CPU_SERVER] = { "server_cpu", "us/KiB", 1 },
};

const char *rp_fig_key(enum rp_fig f)
{
	return f < RP_FIG__COUNT ? figs[f].key : "";
}

static double pos(double v)
{
	return v > 0 && isfinite(v) ? v : NAN;
}

static double own_s(const struct rp_side *d)
{
	return d->present ? d->cpu.user_s + d->cpu.sys_s : 0;
}

/* @a and @b pinned to a CPU in common */
static bool share_cpus(const struct rp_cpu_usage *a,
		       const struct rp_cpu_usage *b)
{
	unsigned int i, j;

	for (i = 0; i < a->n_cpus; i++)
		for (j = 0; j < b->n_cpus; j++)
			if (a->per_cpu[i].cpu == b->per_cpu[j].cpu)
				return true;
	return false;
}

/* The share of the CPUs side @d is pinned to (--cpu) that was busy with
 * other work than its own (and @also's, the other side's where it runs on
 * them too); NAN when it is not pinned or their time is not known. A
 * spinner on a server's core is half that core: on a 64-CPU host, under
 * 1% of the host, and all of what the test suffers. */
static double pinned_other(const struct rp_side *d, double also)
{
	const struct rp_cpu_usage *u = &d->cpu;
	double busy = 0, elapsed = 0, own = own_s(d) + also;
	unsigned int i;

	if (!d->present || !u->n_cpus)
		return NAN;
	for (i = 0; i < u->n_cpus; i++) {
		busy += u->per_cpu[i].busy_s;
		/* every CPU's elapsed time is the same wall interval */
		if (u->per_cpu[i].util > 0)
			elapsed = fmax(elapsed, u->per_cpu[i].busy_s /
							u->per_cpu[i].util);
	}
	if (!(elapsed > 0))
		return NAN;
	return own < busy ? (busy - own) / (elapsed * u->n_cpus) : 0;
}

/* The share of the CPUs this test ran on that was busy with other work:
 * the host's (all busy time but the client's, and on one host the
 * server's), or of the CPUs a side is pinned to, whichever is higher. */
static double other_busy(const struct rp_result *r)
{
	const struct rp_cpu_usage *u = &r->client.cpu;
	bool one = r->server.present && rp_result_same_host(r);
	double own = own_s(&r->client) + (one ? own_s(&r->server) : 0), all;
	double share = NAN, c, sv;

	if (r->client.present && u->has_host && u->host.util > 0 &&
	    u->host.busy_s > 0) {
		all = u->host.busy_s / u->host.util; /* CPUs' elapsed s */
		share = own < u->host.busy_s ? (u->host.busy_s - own) / all : 0;
	}
	one = one && share_cpus(&r->client.cpu, &r->server.cpu);
	c = pinned_other(&r->client, one ? own_s(&r->server) : 0);
	sv = pinned_other(&r->server, one ? own_s(&r->client) : 0);
	if (!isnan(c))
		share = isnan(share) ? c : fmax(share, c);
	if (!isnan(sv))
		share = isnan(share) ? sv : fmax(share, sv);
	return share;
}

const char *rp_fig_unit(enum rp_fig f)
{
	return f < RP_FIG__COUNT ? figs[f].unit : "";
}

double rp_fig_scale(enum rp_fig f)
{
	return f < RP_FIG__COUNT ? figs[f].scale : 1;
}

bool rp_fig_higher_better(enum rp_fig f)
{
	return f == RP_FIG_THROUGHPUT || f == RP_FIG_MSG_RATE;
}

void rp_fig_values(const struct rp_result *r, double *v)
{
	unsigned int f;

	for (f = 0; f < RP_FIG__COUNT; f++)
		v[f] = NAN;
	if (r->failed)
		return;
	if (r->has_bandwidth) {
		v[RP_FIG_THROUGHPUT] = pos(r->flow.bits_per_second);
		v[RP_FIG_MSG_RATE] = pos(r->flow.messages_per_second);
	}
	if (r->flow.has_latency) {
		v[RP_FIG_P50] = pos(r->flow.latency.p50);
		v[RP_FIG_P99] = pos(r->flow.latency.p99);
		v[RP_FIG_P99_9] = pos(r->flow.latency.p99_9);
	}
	if (r->has_unloaded)
		v[RP_FIG_UNLOADED_P50] = pos(r->unloaded.p50);
	if (r->client.present)
		v[RP_FIG_CPU_CLIENT] = pos(r->client.cpu.us_per_kib);
	if (r->server.present)
		v[RP_FIG_CPU_SERVER] = pos(r->server.cpu.us_per_kib);
}

void rp_repeat_round_begin(struct rp_round *c)
{
	c->speed_begin = rp_cpu_speed_ns();
	c->speed_end = NAN;
	c->drift_ppm = NAN;
	c->ours0 = rp_clock_ns();
	c->mono0 = rp_clock_mono_ns();
}

void rp_repeat_round_end(struct rp_round *c)
{
	uint64_t ours = rp_clock_ns(), mono = rp_clock_mono_ns();

	/* both clocks read together (tens of ns apart) at both ends: over a
	 * round of a second or more, a ppm is well above that */
	if (mono > c->mono0 + RP_NS_PER_MS && ours > c->ours0)
		c->drift_ppm = ((double)(ours - c->ours0) -
				(double)(mono - c->mono0)) *
			       1e6 / (double)(mono - c->mono0);
	c->speed_end = rp_cpu_speed_ns();
}

void rp_repeat_add(struct rp_repeat *rep, const struct rp_result *r,
		   const struct rp_round *c)
{
	if (rep->n >= RP_REPEAT_MAX)
		return;
	if (c)
		rep->round[rep->n] = *c;
	else
		rep->round[rep->n] = (struct rp_round){ NAN, NAN, 0, 0, NAN };
	rp_fig_values(r, rep->v[rep->n]);
	rep->seconds[rep->n] = 0;
	rep->ops[rep->n] = 0;
	rep->other_busy[rep->n] = NAN;
	if (!r->failed) {
		if (r->has_bandwidth) {
			rep->seconds[rep->n] = r->flow.seconds;
			rep->ops[rep->n] = r->flow.messages;
		} else if (r->has_unloaded) {
			rep->ops[rep->n] = r->unloaded.count;
			rep->seconds[rep->n] = r->unloaded.mean * 1e-9 *
					       (double)r->unloaded.count *
					       (r->unloaded_halved ? 2 : 1);
		}
		rep->other_busy[rep->n] = other_busy(r);
	}
	rep->n++;
}

static void column(const struct rp_repeat *rep, unsigned int f, double *out)
{
	uint32_t i;

	for (i = 0; i < rep->n; i++)
		out[i] = rep->v[i][f];
}

uint32_t rp_repeat_median_row(const struct rp_repeat *rep)
{
	static const unsigned int by[] = { RP_FIG_THROUGHPUT,
					   RP_FIG_UNLOADED_P50, RP_FIG_P50 };
	uint32_t i, j, k, below, row = 0;
	unsigned int b;
	double x;

	for (b = 0; b < sizeof(by) / sizeof(by[0]); b++) {
		for (i = 0, k = 0; i < rep->n; i++)
			k += !isnan(rep->v[i][by[b]]);
		if (!k)
			continue;
		/* the row with (k - 1) / 2 measured values below it */
		for (i = 0; i < rep->n; i++) {
			x = rep->v[i][by[b]];
			if (isnan(x))
				continue;
			for (j = 0, below = 0; j < rep->n; j++)
				below += !isnan(rep->v[j][by[b]]) &&
					 (rep->v[j][by[b]] < x ||
					  (rep->v[j][by[b]] == x && j < i));
			if (below == (k - 1) / 2)
				row = i;
		}
		return row;
	}
	return 0;
}

/* The figures --confidence judges: the central ones, as netperf's -I
 * judges throughput. A tail (p99, p99.9) or a CPU cost of a short point
 * moves by tens of percent between runs: waiting for it to narrow would
 * run every test to --repeat's end. Its interval is still reported. */
static const unsigned int judged[] = { RP_FIG_THROUGHPUT, RP_FIG_MSG_RATE,
				       RP_FIG_P50, RP_FIG_UNLOADED_P50 };

bool rp_repeat_narrow(const struct rp_repeat *rep, double level, double width)
{
	double col[RP_REPEAT_MAX];
	struct rp_stat s;
	unsigned int k, f;
	bool any = false;

	for (k = 0; k < sizeof(judged) / sizeof(judged[0]); k++) {
		f = judged[k];
		column(rep, f, col);
		if (!rp_stat_summarize(col, rep->n, level, &s))
			continue;
		if (!s.has_ci || s.half_width > width)
			return false;
		any = true;
	}
	return any;
}

static void add_pair(cJSON *o, const char *key, double a, double b)
{
	cJSON *p = cJSON_AddArrayToObject(o, key);

	if (!p)
		return;
	cJSON_AddItemToArray(p, cJSON_CreateNumber(a));
	cJSON_AddItemToArray(p, cJSON_CreateNumber(b));
}

static cJSON *warning(cJSON *a, const char *kind, const char *figure,
		      double value, double limit)
{
	cJSON *w = cJSON_CreateObject();

	if (!w)
		return NULL;
	cJSON_AddStringToObject(w, "kind", kind);
	if (figure)
		cJSON_AddStringToObject(w, "figure", figure);
	cJSON_AddNumberToObject(w, "value", value);
	cJSON_AddNumberToObject(w, "limit", limit);
	cJSON_AddItemToArray(a, w);
	return w;
}

static void figure_json(cJSON *figures, cJSON *warns, unsigned int f,
			const double *col, uint32_t n, double level)
{
	double sc = figs[f].scale;
	struct rp_stat s;
	cJSON *o, *vals;
	uint32_t i;

	if (!rp_stat_summarize(col, n, level, &s))
		return;
	o = cJSON_AddObjectToObject(figures, figs[f].key);
	if (!o)
		return;
	cJSON_AddStringToObject(o, "unit", figs[f].unit);
	cJSON_AddNumberToObject(o, "n", (double)s.n);
	cJSON_AddNumberToObject(o, "median", s.median * sc);
	cJSON_AddNumberToObject(o, "mean", s.mean * sc);
	if (s.has_ci) { /* every figure is positive: so is its bound */
		add_pair(o, "interval", (s.lo > 0 ? s.lo : 0) * sc, s.hi * sc);
		cJSON_AddNumberToObject(o, "half_width_pct",
					s.half_width * 100);
	} else {
		cJSON_AddNullToObject(o, "interval");
		cJSON_AddNullToObject(o, "half_width_pct");
	}
	cJSON_AddNumberToObject(o, "cov_pct", s.cov * 100);
	cJSON_AddNumberToObject(o, "min", s.min * sc);
	cJSON_AddNumberToObject(o, "max", s.max * sc);
	vals = cJSON_AddArrayToObject(o, "values");
	for (i = 0; vals && i < n; i++)
		cJSON_AddItemToArray(
			vals, isnan(col[i]) ? cJSON_CreateNull()
					    : cJSON_CreateNumber(col[i] * sc));
	if (s.n > 1 && s.cov > RP_REPEAT_COV_WARN)
		warning(warns, "cov", figs[f].key, s.cov * 100,
			RP_REPEAT_COV_WARN * 100);
}

/* The rounds' conditions: the CPU's speed moved between its fastest and
 * slowest measure (a governor, turbo, throttling, a VM's host), or the
 * clock the figures are timed with ran off the kernel's (a TSC that is
 * not invariant, a VM migrated). */
static void round_warnings(cJSON *warns, const struct rp_repeat *rep)
{
	double lo = INFINITY, hi = 0, drift = 0, s[2];
	uint32_t i;
	unsigned int k;
	cJSON *w;

	for (i = 0; i < rep->n; i++) {
		s[0] = rep->round[i].speed_begin;
		s[1] = rep->round[i].speed_end;
		for (k = 0; k < 2; k++)
			if (s[k] > 0 && isfinite(s[k])) {
				lo = fmin(lo, s[k]);
				hi = fmax(hi, s[k]);
			}
		if (isfinite(rep->round[i].drift_ppm) &&
		    fabs(rep->round[i].drift_ppm) > fabs(drift))
			drift = rep->round[i].drift_ppm;
	}
	/* slowest against fastest: how much slower the CPU ran at times */
	if (hi > 0 && isfinite(lo) && hi / lo - 1 > RP_REPEAT_SPEED_WARN) {
		w = warning(warns, "cpu_speed", NULL, (hi / lo - 1) * 100,
			    RP_REPEAT_SPEED_WARN * 100);
		if (w)
			cJSON_AddNumberToObject(w, "fastest_ns_per_op", lo);
	}
	if (fabs(drift) > RP_REPEAT_DRIFT_WARN) {
		w = warning(warns, "clock_drift", NULL, drift,
			    RP_REPEAT_DRIFT_WARN);
		if (w)
			cJSON_AddStringToObject(w, "unit", "ppm");
	}
}

/* The conditions each repetition ran in: too short, a busy host. */
static void condition_warnings(cJSON *warns, const struct rp_repeat *rep)
{
	double shortest = INFINITY, busiest = -1;
	uint64_t fewest = UINT64_MAX;
	uint32_t i;
	cJSON *w;

	for (i = 0; i < rep->n; i++) {
		if (rep->ops[i] && rep->seconds[i] < shortest)
			shortest = rep->seconds[i];
		if (rep->ops[i] && rep->ops[i] < fewest)
			fewest = rep->ops[i];
		if (!isnan(rep->other_busy[i]) && rep->other_busy[i] > busiest)
			busiest = rep->other_busy[i];
	}
	if (isfinite(shortest) && shortest < RP_REPEAT_SHORT_S) {
		w = warning(warns, "short", NULL, shortest * 1e3,
			    RP_REPEAT_SHORT_S * 1e3);
		if (w)
			cJSON_AddStringToObject(w, "unit", "ms");
	}
	if (fewest != UINT64_MAX && fewest < RP_REPEAT_SHORT_OPS)
		warning(warns, "few_operations", NULL, (double)fewest,
			RP_REPEAT_SHORT_OPS);
	if (busiest > RP_REPEAT_BUSY_WARN)
		warning(warns, "host_busy", NULL, busiest * 100,
			RP_REPEAT_BUSY_WARN * 100);
	round_warnings(warns, rep);
}

static void against_json(cJSON *o, const struct rp_repeat *rep,
			 const struct rp_repeat *base, const char *name,
			 double level)
{
	double a[RP_REPEAT_MAX], b[RP_REPEAT_MAX];
	uint32_t n = rep->n < base->n ? rep->n : base->n;
	struct rp_stat_ratio r;
	cJSON *ag, *figures, *x;
	unsigned int f;

	ag = cJSON_AddObjectToObject(o, "against");
	if (!ag)
		return;
	cJSON_AddStringToObject(ag, "transport", name);
	cJSON_AddStringToObject(ag, "method", "paired log ratio, t");
	figures = cJSON_AddObjectToObject(ag, "figures");
	for (f = 0; figures && f < RP_FIG__COUNT; f++) {
		column(base, f, a);
		column(rep, f, b);
		if (!rp_stat_paired_ratio(a, b, n, level, &r))
			continue;
		x = cJSON_AddObjectToObject(figures, figs[f].key);
		if (!x)
			return;
		cJSON_AddNumberToObject(x, "n", (double)r.n);
		cJSON_AddNumberToObject(x, "ratio", r.ratio);
		if (r.has_ci)
			add_pair(x, "interval", r.lo, r.hi);
		else
			cJSON_AddNullToObject(x, "interval");
		/* without an interval nothing can be judged either way */
		if (r.has_ci)
			cJSON_AddBoolToObject(x, "significant", r.significant);
		else
			cJSON_AddNullToObject(x, "significant");
	}
}

cJSON *rp_repeat_json(const struct rp_repeat *rep, double level, double width,
		      const char *stopped, const struct rp_repeat *base,
		      const char *base_transport)
{
	double col[RP_REPEAT_MAX];
	cJSON *o = cJSON_CreateObject(), *figures, *warns;
	unsigned int f;

	if (!o)
		return NULL;
	cJSON_AddNumberToObject(o, "n", rep->n);
	cJSON_AddNumberToObject(o, "level", level * 100);
	cJSON_AddStringToObject(o, "interval", "t");
	cJSON_AddStringToObject(o, "stopped", stopped);
	if (width > 0) /* --confidence's target half-width */
		cJSON_AddNumberToObject(o, "target_pct", width * 100);
	figures = cJSON_AddObjectToObject(o, "figures");
	warns = cJSON_AddArrayToObject(o, "warnings");
	if (!figures || !warns) {
		cJSON_Delete(o);
		return NULL;
	}
	for (f = 0; f < RP_FIG__COUNT; f++) {
		column(rep, f, col);
		figure_json(figures, warns, f, col, rep->n, level);
	}
	condition_warnings(warns, rep);
	if (base && base_transport)
		against_json(o, rep, base, base_transport, level);
	return o;
}
