// SPDX-License-Identifier: MIT
/* --slo's search (run/slo.h): the walk, and its form in the document. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "run/slo.h"

/* A rate the walk has judged: by one step, or by the median of its
 * confirmation, which then stands. */
struct point {
	double rate;
	bool pass, confirmed;
	uint32_t kept; /* the step that stands for it */
};

struct walk {
	struct rp_slo *s;
	rp_slo_run_fn run;
	void *ctx;
	uint32_t n_pt;
	struct point pt[RP_SLO_MAX_WALK];
};

static const char *const kind_names[] = {
	[RP_SLO_STEP_MAX] = "max",
	[RP_SLO_STEP_FLOOR] = "floor",
	[RP_SLO_STEP_BISECT] = "bisect",
	[RP_SLO_STEP_EDGE] = "edge",
};

static const char *const status_names[] = {
	[RP_SLO_FOUND] = "found",
	[RP_SLO_MET_AT_MAX] = "met_at_max",
	[RP_SLO_NOT_MET] = "not_met",
	[RP_SLO_FAILED] = "failed",
};

const char *rp_slo_status_name(enum rp_slo_status st)
{
	return (unsigned)st <= RP_SLO_FAILED ? status_names[st] : "?";
}

void rp_slo_defaults(struct rp_slo_params *p,
		     const struct rp_expect_term *target)
{
	memset(p, 0, sizeof(*p));
	p->target = *target;
	p->tolerance = RP_SLO_TOLERANCE;
	p->reps = RP_SLO_REPS;
	p->max_steps = RP_SLO_MAX_STEPS;
	p->floor = RP_SLO_FLOOR;
}

bool rp_slo_judge(const struct rp_expect_term *t,
		  const struct rp_slo_step *step)
{
	if (step->saturated || !isfinite(step->measured))
		return false;
	return t->op == RP_EO_LT ? step->measured < t->value
				 : step->measured <= t->value;
}

/* The order of an edge's runs: a run that could not meet any target
 * (saturated, nothing measured) after every measured one. */
static double score(const struct rp_slo_step *st)
{
	return st->saturated || !isfinite(st->measured) ? INFINITY
							: st->measured;
}

/* The median run of steps first.. first + n - 1: the lower one of two,
 * by score (insertion sort: n is at most RP_SLO_MAX_REPS). */
static uint32_t median_step(const struct rp_slo *s, uint32_t first, uint32_t n)
{
	uint32_t idx[RP_SLO_MAX_REPS], i, j, t;

	for (i = 0; i < n; i++)
		idx[i] = first + i;
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && score(&s->step[idx[j - 1]]) >
					     score(&s->step[idx[j]]);
		     j--) {
			t = idx[j];
			idx[j] = idx[j - 1];
			idx[j - 1] = t;
		}
	return idx[(n - 1) / 2];
}

/* The point of @rate, added (failing, unjudged) when new. */
static struct point *point_at(struct walk *w, double rate)
{
	uint32_t i;

	for (i = 0; i < w->n_pt; i++)
		if (w->pt[i].rate == rate)
			return &w->pt[i];
	w->pt[w->n_pt] = (struct point){ .rate = rate };
	return &w->pt[w->n_pt++];
}

/* One run at @rate (the maximum or above it: the closed loop), judged.
 * Return: 0, or the callback's error (the search has failed). */
static int step(struct walk *w, enum rp_slo_kind kind, double rate,
		uint32_t round)
{
	struct rp_slo *s = w->s;
	struct rp_slo_step *st;
	int err;

	if (s->n == RP_SLO_MAX_WALK) /* the bounds make this unreachable */
		return -E2BIG;
	st = &s->step[s->n];
	memset(st, 0, sizeof(*st));
	st->kind = kind;
	st->round = round;
	st->offered = kind == RP_SLO_STEP_MAX || rate >= s->max_ops ? 0 : rate;
	st->measured = NAN;
	err = w->run(w->ctx, st->offered, st);
	s->n++;
	if (err)
		return err;
	st->pass = rp_slo_judge(&s->p.target, st);
	return 0;
}

/* One step of the walk at @rate, which judges it unless it is confirmed. */
static int probe(struct walk *w, enum rp_slo_kind kind, double rate)
{
	struct point *pt;
	int err = step(w, kind, rate, 0);

	if (err)
		return err;
	if (kind == RP_SLO_STEP_MAX)
		rate = w->s->max_ops = w->s->step[w->s->n - 1].achieved;
	pt = point_at(w, rate);
	if (!pt->confirmed) {
		pt->pass = w->s->step[w->s->n - 1].pass;
		pt->kept = w->s->n - 1;
	}
	return 0;
}

/* @rate run p.reps times more; the median run's verdict stands (once:
 * a confirmed rate is not run again). */
static int confirm(struct walk *w, double rate)
{
	struct rp_slo *s = w->s;
	struct point *pt = point_at(w, rate);
	uint32_t first = s->n, i;
	int err;

	if (pt->confirmed)
		return 0;
	for (i = 0; i < s->p.reps; i++) {
		err = step(w, RP_SLO_STEP_EDGE, rate, s->rounds);
		if (err)
			return err;
	}
	s->rounds++;
	pt->kept = median_step(s, first, s->p.reps);
	pt->pass = s->step[pt->kept].pass;
	pt->confirmed = true;
	return 0;
}

/* The highest rate below @rate judged passing; 0: none. */
static double below(const struct walk *w, double rate)
{
	double best = 0;
	uint32_t i;

	for (i = 0; i < w->n_pt; i++)
		if (w->pt[i].pass && w->pt[i].rate < rate &&
		    w->pt[i].rate > best)
			best = w->pt[i].rate;
	return best;
}

/* The lowest rate above @rate judged failing; 0: none. */
static double above(const struct walk *w, double rate)
{
	double best = 0;
	uint32_t i;

	for (i = 0; i < w->n_pt; i++)
		if (!w->pt[i].pass && w->pt[i].rate > rate &&
		    (!best || w->pt[i].rate < best))
			best = w->pt[i].rate;
	return best;
}

/* The search ends at @rate's point with @status. Return: 1. */
static int end_at(struct walk *w, enum rp_slo_status status, double rate)
{
	struct rp_slo *s = w->s;

	s->status = status;
	s->kept = point_at(w, rate)->kept;
	s->found = status == RP_SLO_NOT_MET ? 0 : rate;
	s->lo = status == RP_SLO_NOT_MET ? 0 : rate;
	s->hi = status == RP_SLO_MET_AT_MAX ? 0 : s->hi;
	s->settled = point_at(w, rate)->confirmed;
	s->narrow =
		status != RP_SLO_FOUND || s->hi <= s->lo * (1 + s->p.tolerance);
	return 1;
}

/* The closed loop, then the floor: the bracket's ends. Return: 1 when
 * either ends the search, 0 when there is a bracket to bisect, or the
 * callback's error. */
static int ends(struct walk *w)
{
	struct rp_slo *s = w->s;
	int err = probe(w, RP_SLO_STEP_MAX, 0);

	if (err)
		return err;
	if (!(s->max_ops >= 1))
		return -ENODATA; /* the closed loop moved nothing */
	if (point_at(w, s->max_ops)->pass && (err = confirm(w, s->max_ops)))
		return err;
	if (point_at(w, s->max_ops)->pass)
		return end_at(w, RP_SLO_MET_AT_MAX, s->max_ops);
	s->hi = s->max_ops;
	s->floor_ops = ceil(s->max_ops * s->p.floor);
	if (s->floor_ops >= s->max_ops) /* no rate below the max to try */
		return end_at(w, RP_SLO_NOT_MET, s->max_ops);
	err = probe(w, RP_SLO_STEP_FLOOR, s->floor_ops);
	if (!err && !point_at(w, s->floor_ops)->pass)
		err = confirm(w, s->floor_ops);
	if (err)
		return err;
	s->hi = s->floor_ops;
	if (!point_at(w, s->floor_ops)->pass)
		return end_at(w, RP_SLO_NOT_MET, s->floor_ops);
	s->lo = s->floor_ops;
	s->hi = s->max_ops;
	return 0;
}

/* Halve [lo, hi] by ratio until within the tolerance, out of steps, or
 * too narrow for a whole rate between them. */
static int bisect(struct walk *w)
{
	struct rp_slo *s = w->s;
	double mid;
	int err;

	while (s->hi > s->lo * (1 + s->p.tolerance) &&
	       s->bisects < s->p.max_steps) {
		mid = round(sqrt(s->lo * s->hi));
		if (mid <= s->lo || mid >= s->hi)
			break;
		s->bisects++;
		err = probe(w, RP_SLO_STEP_BISECT, mid);
		if (err)
			return err;
		if (point_at(w, mid)->pass)
			s->lo = mid;
		else
			s->hi = mid;
	}
	return 0;
}

/* One round: bisect, then confirm lo and hi. Return: 1 when the search
 * ended, 0 when the bracket moved (a confirmation disagreed), or the
 * callback's error. */
static int round_once(struct walk *w)
{
	struct rp_slo *s = w->s;
	int err = bisect(w);

	if (!err)
		err = confirm(w, s->lo);
	if (err)
		return err;
	if (!point_at(w, s->lo)->pass) { /* a lucky lo: step down */
		s->hi = s->lo;
		s->lo = below(w, s->hi);
		return s->lo ? 0 : end_at(w, RP_SLO_NOT_MET, s->hi);
	}
	err = confirm(w, s->hi);
	if (err)
		return err;
	if (point_at(w, s->hi)->pass) { /* an unlucky hi: step up */
		s->lo = s->hi;
		s->hi = above(w, s->lo);
		return s->hi ? 0 : end_at(w, RP_SLO_MET_AT_MAX, s->lo);
	}
	end_at(w, RP_SLO_FOUND, s->lo);
	return 1;
}

static int search(struct walk *w)
{
	struct rp_slo *s = w->s;
	uint32_t r;
	int rc = ends(w);

	for (r = 0; !rc && r < RP_SLO_MAX_ROUNDS; r++)
		rc = round_once(w);
	if (rc < 0)
		return rc;
	if (!rc) { /* the rounds ran out with the bracket still moving:
		    * settled only if both its ends are confirmed */
		end_at(w, RP_SLO_FOUND, s->lo);
		s->settled = point_at(w, s->lo)->confirmed &&
			     point_at(w, s->hi)->confirmed &&
			     !point_at(w, s->hi)->pass;
	}
	return 0;
}

int rp_slo_search(struct rp_slo *s, const struct rp_slo_params *p,
		  rp_slo_run_fn run, void *ctx)
{
	struct walk w;
	int err;

	memset(s, 0, sizeof(*s));
	memset(&w, 0, sizeof(w));
	s->p = *p;
	if (s->p.reps < 1)
		s->p.reps = 1;
	if (s->p.reps > RP_SLO_MAX_REPS)
		s->p.reps = RP_SLO_MAX_REPS;
	if (s->p.max_steps > RP_SLO_MAX_STEPS)
		s->p.max_steps = RP_SLO_MAX_STEPS;
	w.s = s;
	w.run = run;
	w.ctx = ctx;
	err = search(&w);
	if (err) {
		s->status = RP_SLO_FAILED;
		s->err = err;
		s->found = 0;
		s->kept = s->n ? s->n - 1 : 0;
	}
	return err;
}

/* @v under @key; null when it is not finite (the document is JSON). */
static void num(cJSON *o, const char *key, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

/* A rate in operations/s; null for the closed loop's (none offered). */
static void rate(cJSON *o, const char *key, double ops)
{
	num(o, key, ops > 0 ? ops : NAN);
}

static cJSON *step_json(const struct rp_slo *s, uint32_t i)
{
	const struct rp_slo_step *st = &s->step[i];
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "kind", kind_names[st->kind]);
	if (st->kind == RP_SLO_STEP_EDGE)
		cJSON_AddNumberToObject(o, "round", st->round);
	rate(o, "offered_ops_per_second", st->offered);
	num(o, "achieved_ops_per_second", st->achieved);
	num(o, "measured_us", st->measured / 1e3);
	cJSON_AddBoolToObject(o, "saturated", st->saturated);
	cJSON_AddBoolToObject(o, "pass", st->pass);
	if (i == s->kept && s->status != RP_SLO_FAILED)
		cJSON_AddTrueToObject(o, "kept");
	return o;
}

/* The target as given, and as judged: its metric, operator, limit. */
static void target_json(const struct rp_slo *s, cJSON *o)
{
	const struct rp_expect_term *t = &s->p.target;

	cJSON_AddStringToObject(o, "target", t->text);
	cJSON_AddStringToObject(o, "metric", rp_expect_metric_name(t->metric));
	cJSON_AddStringToObject(o, "operator", t->op == RP_EO_LT ? "<" : "<=");
	num(o, "limit_us", t->value / 1e3);
}

/* Where the search ended: the bracket, its width against the tolerance,
 * and why it stopped there. */
static void bracket_json(const struct rp_slo *s, cJSON *o)
{
	cJSON *b = cJSON_AddArrayToObject(o, "bracket");
	bool bisected = s->status == RP_SLO_FOUND;

	if (b) {
		cJSON_AddItemToArray(b, cJSON_CreateNumber(s->lo));
		cJSON_AddItemToArray(b, s->hi > 0 ? cJSON_CreateNumber(s->hi)
						  : cJSON_CreateNull());
	}
	num(o, "width_pct",
	    bisected && s->lo > 0 ? 100 * (s->hi / s->lo - 1) : NAN);
	num(o, "tolerance_pct", 100 * s->p.tolerance);
	cJSON_AddStringToObject(o, "stopped",
				s->status == RP_SLO_FAILED     ? "failed"
				: !bisected		       ? "range"
				: s->narrow		       ? "tolerance"
				: s->bisects >= s->p.max_steps ? "steps"
							       : "rounds");
	cJSON_AddBoolToObject(o, "settled", s->settled);
	cJSON_AddNumberToObject(o, "bisect_steps", s->bisects);
	cJSON_AddNumberToObject(o, "max_steps", s->p.max_steps);
	cJSON_AddNumberToObject(o, "confirmations", s->rounds);
}

cJSON *rp_slo_json(const struct rp_slo *s, uint64_t size_bytes)
{
	const struct rp_slo_step *k = s->n ? &s->step[s->kept] : NULL;
	bool ok = s->status != RP_SLO_FAILED && k;
	cJSON *o = cJSON_CreateObject(), *a;
	uint32_t i;

	if (!o)
		return NULL;
	target_json(s, o);
	cJSON_AddStringToObject(o, "status", rp_slo_status_name(s->status));
	num(o, "found_ops_per_second", s->found);
	num(o, "found_bits_per_second", s->found * 8.0 * (double)size_bytes);
	num(o, "achieved_ops_per_second", ok ? k->achieved : NAN);
	num(o, "measured_us", ok ? k->measured / 1e3 : NAN);
	cJSON_AddNumberToObject(o, "repetitions", s->p.reps);
	num(o, "max_ops_per_second", s->max_ops > 0 ? s->max_ops : NAN);
	rate(o, "floor_ops_per_second", s->floor_ops);
	bracket_json(s, o);
	a = cJSON_AddArrayToObject(o, "steps");
	for (i = 0; a && i < s->n; i++)
		cJSON_AddItemToArray(a, step_json(s, i));
	if (!a) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}
