// SPDX-License-Identifier: MIT
/*
 * What the text says of --slo: the highest rate meeting the target and
 * what was measured there, where the search stopped and why, and the
 * curve it walked, step by step. Read from the result's "slo" (run/slo.h's
 * form), so --report prints a saved document alike.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/text/text.h"

static bool num(const cJSON *o, const char *key, double *v)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!cJSON_IsNumber(j) || !isfinite(j->valuedouble))
		return false;
	*v = j->valuedouble;
	return true;
}

static const char *str(const cJSON *o, const char *key, const char *def)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(j) ? j->valuestring : def;
}

static bool is(const cJSON *o, const char *key)
{
	return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, key));
}

/* The step kept for the rate found: the one marked so. */
static const cJSON *kept(const cJSON *s)
{
	const cJSON *st;

	cJSON_ArrayForEach(st, cJSON_GetObjectItemCaseSensitive(s, "steps"))
	{
		if (is(st, "kept"))
			return st;
	}
	return NULL;
}

/* "; p99 15.20 us there (the median of 3 runs, shown above)" */
static void measured(FILE *f, const cJSON *s)
{
	double us, reps = 0;

	num(s, "repetitions", &reps);
	if (num(s, "measured_us", &us))
		fprintf(f, "; %s %.2f us there", str(s, "metric", "?"), us);
	if (!strcmp(str(kept(s), "kind", ""), "edge"))
		fprintf(f, " (the median of %.0f runs, shown above)\n", reps);
	else
		fprintf(f, " (one run, shown above)\n");
}

/* The rate found, or why there is none. */
static void headline(FILE *f, const cJSON *s, const struct rp_result *r)
{
	const char *st = str(s, "status", "?"), *t = str(s, "target", "?");
	double ops = 0, bps = 0, max = 0;
	double bits = 8.0 * (double)r->spec.size_bytes;

	num(s, "found_ops_per_second", &ops);
	num(s, "found_bits_per_second", &bps);
	num(s, "max_ops_per_second", &max);
	fprintf(f, "  %-12s ", "slo");
	if (!strcmp(st, "found")) {
		fprintf(f, "%s met up to %.0f msg/s offered (%.3f Gb/s)", t,
			ops, bps / 1e9);
	} else if (!strcmp(st, "met_at_max")) {
		fprintf(f,
			"%s met at the closed-loop maximum, %.0f msg/s "
			"(%.3f Gb/s)",
			t, ops, bps / 1e9);
	} else if (!strcmp(st, "not_met") &&
		   num(s, "floor_ops_per_second", &ops)) {
		fprintf(f,
			"%s NOT MET even at the lowest rate tried, %.0f msg/s "
			"(%.3f Gb/s, %.0f%% of the closed-loop maximum)",
			t, ops, ops * bits / 1e9,
			max > 0 ? 100 * ops / max : 0);
	} else if (!strcmp(st, "not_met")) {
		fprintf(f,
			"%s NOT MET even at the closed-loop maximum, and "
			"no lower rate to try",
			t);
	} else {
		fprintf(f,
			"%s: the search stopped at its last step, which "
			"did not complete (shown above)\n",
			t);
		return;
	}
	measured(f, s);
}

/* Where the search ended: the maximum, the bracket against the
 * tolerance, and whether the edge settled. */
static void bracket(FILE *f, const cJSON *s)
{
	const cJSON *b = cJSON_GetObjectItemCaseSensitive(s, "bracket");
	const cJSON *lo = cJSON_GetArrayItem(b, 0),
		    *hi = cJSON_GetArrayItem(b, 1);
	double max, width, tol = 0, steps = 0;

	num(s, "tolerance_pct", &tol);
	num(s, "bisect_steps", &steps);
	if (strcmp(str(s, "status", ""), "found"))
		return;
	fprintf(f, "  %-12s", "");
	if (num(s, "max_ops_per_second", &max))
		fprintf(f, " the closed-loop maximum %.0f msg/s;", max);
	if (cJSON_IsNumber(lo) && cJSON_IsNumber(hi))
		fprintf(f, " bracket %.0f-%.0f msg/s", lo->valuedouble,
			hi->valuedouble);
	if (num(s, "width_pct", &width))
		fprintf(f, ", %.1f%% wide", width);
	if (!strcmp(str(s, "stopped", ""), "steps"))
		fprintf(f,
			", wider than the tolerance %g%%: the %.0f "
			"bisection steps ran out\n",
			tol, steps);
	else if (!strcmp(str(s, "stopped", ""), "rounds"))
		fprintf(f,
			", wider than the tolerance %g%%: the edge's "
			"confirmations ran out\n",
			tol);
	else
		fprintf(f, " (tolerance %g%%), %.0f bisection steps\n", tol,
			steps);
	if (!is(s, "settled"))
		fprintf(f,
			"  %-12s the edge did not settle: confirmations "
			"disagreed with single steps (latency is noisy "
			"here: see the curve)\n",
			"");
}

/* "       3 bisect          48000           47990      15.20  pass" */
static void step_row(FILE *f, size_t i, const cJSON *st)
{
	const char *kind = str(st, "kind", "?");
	double offered, achieved, us, round;
	char k[16];

	if (!strcmp(kind, "edge") && num(st, "round", &round))
		snprintf(k, sizeof(k), "edge %.0f", round + 1);
	else
		snprintf(k, sizeof(k), "%s", kind);
	fprintf(f, "    %4zu %-8s", i, k);
	if (num(st, "offered_ops_per_second", &offered))
		fprintf(f, " %14.0f", offered);
	else
		fprintf(f, " %14s", "closed");
	if (num(st, "achieved_ops_per_second", &achieved))
		fprintf(f, " %15.0f", achieved);
	else
		fprintf(f, " %15s", "-");
	if (num(st, "measured_us", &us))
		fprintf(f, " %10.2f", us);
	else
		fprintf(f, " %10s", "-");
	fprintf(f, "  %s%s%s\n", is(st, "pass") ? "pass" : "fail",
		is(st, "saturated") ? " (saturated)" : "",
		is(st, "kept") ? "  kept" : "");
}

static void curve(FILE *f, const cJSON *s)
{
	const cJSON *steps = cJSON_GetObjectItemCaseSensitive(s, "steps"), *st;
	char head[32];
	size_t i = 0;

	if (!cJSON_IsArray(steps) || !cJSON_GetArraySize(steps))
		return;
	snprintf(head, sizeof(head), "%s us", str(s, "metric", "?"));
	fprintf(f, "    %4s %-8s %14s %15s %10s\n", "step", "kind",
		"offered msg/s", "achieved msg/s", head);
	cJSON_ArrayForEach(st, steps)
	{
		step_row(f, i++, st);
	}
}

void rp_report_text_slo(FILE *f, const struct rp_result *r)
{
	if (!cJSON_IsObject(r->slo))
		return;
	headline(f, r->slo, r);
	bracket(f, r->slo);
	curve(f, r->slo);
}
