// SPDX-License-Identifier: MIT
/*
 * What the text says of --repeat: each figure over the repetitions, as
 * "throughput 41.7 Gb/s ±1.2% (95%, n=5)", a transport against the first
 * one round by round, and the warnings. Read from the result's "repeat"
 * (run/repeat.h's form), so --report prints a saved document alike.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/units.h"
#include "report/text/text.h"

static const struct {
	const char *key, *label;
	int higher_is_better;
} figs[] = {
	{ "throughput", "throughput", 1 },
	{ "messages_per_second", "msg rate", 1 },
	{ "p50", "p50", 0 },
	{ "p99", "p99", 0 },
	{ "p99_9", "p99.9", 0 },
	{ "unloaded_p50", "unloaded p50", 0 },
	{ "client_cpu", "client cpu", 0 },
	{ "server_cpu", "server cpu", 0 },
};

#define N_FIGS (sizeof(figs) / sizeof(figs[0]))

static bool num(const cJSON *o, const char *key, double *v)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!cJSON_IsNumber(j) || !isfinite(j->valuedouble))
		return false;
	*v = j->valuedouble;
	return true;
}

static bool pair(const cJSON *o, const char *key, double *a, double *b)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, key);
	const cJSON *x = cJSON_GetArrayItem(j, 0),
		    *y = cJSON_GetArrayItem(j, 1);

	if (!cJSON_IsArray(j) || !cJSON_IsNumber(x) || !cJSON_IsNumber(y))
		return false;
	*a = x->valuedouble;
	*b = y->valuedouble;
	return true;
}

static const char *str(const cJSON *o, const char *key, const char *def)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(j) ? j->valuestring : def;
}

/* @v in @buf: four digits, or the whole number from 10,000 on */
static const char *fig(double v, char *buf, size_t len)
{
	snprintf(buf, len, fabs(v) >= 1e4 ? "%.0f" : "%.4g", v);
	return buf;
}

/* "41.7 Gb/s ±1.2% (95%, n=5)  median 41.9, 40.8-42.3, CoV 1.5%" */
static void figure(FILE *f, const char *label, const cJSON *x, double level)
{
	double mean, med, lo, hi, hw, cov, n;
	const char *unit = str(x, "unit", "");
	char a[32], b[32], c[32];

	if (!num(x, "mean", &mean) || !num(x, "n", &n))
		return;
	fprintf(f, "    %-13s %s %s", label, fig(mean, a, sizeof(a)), unit);
	if (num(x, "half_width_pct", &hw))
		fprintf(f, " \u00b1%.1f%% (%.4g%%, n=%.0f)", hw, level, n);
	else
		fprintf(f, " (n=%.0f: no interval)", n);
	if (num(x, "median", &med) && num(x, "min", &lo) && num(x, "max", &hi))
		fprintf(f, "  median %s, %s-%s", fig(med, a, sizeof(a)),
			fig(lo, b, sizeof(b)), fig(hi, c, sizeof(c)));
	if (num(x, "cov_pct", &cov))
		fprintf(f, ", CoV %.1f%%", cov);
	fputc('\n', f);
}

/* "vs tcp  throughput 1.23x (1.10-1.37): higher" */
static void against(FILE *f, const cJSON *ag)
{
	const cJSON *figures = cJSON_GetObjectItemCaseSensitive(ag, "figures");
	const char *name = str(ag, "transport", "?");
	double ratio, lo, hi;
	const cJSON *x, *sig;
	bool first = true;
	size_t i;

	for (i = 0; i < N_FIGS; i++) {
		x = cJSON_GetObjectItemCaseSensitive(figures, figs[i].key);
		if (!num(x, "ratio", &ratio))
			continue;
		sig = cJSON_GetObjectItemCaseSensitive(x, "significant");
		fprintf(f, "  %-12s %-13s %.3fx", first ? "vs" : "",
			figs[i].label, ratio);
		if (first)
			fprintf(f, " of %s", name);
		first = false;
		if (pair(x, "interval", &lo, &hi))
			fprintf(f, " (%.3f-%.3f)", lo, hi);
		if (!cJSON_IsBool(sig))
			fprintf(f, ": too few rounds to judge\n");
		else if (!cJSON_IsTrue(sig))
			fprintf(f, ": no significant difference\n");
		else
			fprintf(f, ": %s\n",
				(ratio > 1) == (figs[i].higher_is_better == 1)
					? "better"
					: "worse");
	}
}

static const char *label_of(const char *key)
{
	size_t i;

	for (i = 0; i < N_FIGS; i++)
		if (!strcmp(figs[i].key, key))
			return figs[i].label;
	return key;
}

/* The figures whose CoV is high on one line, then the conditions. */
static void warnings(FILE *f, const cJSON *a)
{
	const cJSON *w;
	double v, lim, cov_lim = 0;
	bool any = false;

	cJSON_ArrayForEach(w, a)
	{
		if (strcmp(str(w, "kind", ""), "cov") || !num(w, "value", &v) ||
		    !num(w, "limit", &cov_lim))
			continue;
		fprintf(f, "%s%s %.1f%%",
			any ? ", " : "  unstable     CoV above the limit: ",
			label_of(str(w, "figure", "?")), v);
		any = true;
	}
	if (any)
		fprintf(f, " (limit %.0f%%)\n", cov_lim);
	cJSON_ArrayForEach(w, a)
	{
		const char *kind = str(w, "kind", "?");

		if (!num(w, "value", &v) || !num(w, "limit", &lim))
			continue;
		if (!strcmp(kind, "short"))
			fprintf(f,
				"  %-12s a repetition lasted %.1f ms, under "
				"%.0f ms\n",
				"unstable", v, lim);
		else if (!strcmp(kind, "few_operations"))
			fprintf(f,
				"  %-12s a repetition timed %.0f operations, "
				"under %.0f\n",
				"unstable", v, lim);
		else if (!strcmp(kind, "host_busy"))
			fprintf(f,
				"  %-12s the test's CPUs were %.0f%% busy with "
				"other work (limit %.0f%%)\n",
				"unstable", v, lim);
		else if (!strcmp(kind, "cpu_speed"))
			fprintf(f,
				"  %-12s the CPU ran up to %.0f%% slower at "
				"times than at its fastest (measured around "
				"each round: frequency scaling, throttling or "
				"a busy hyperthread sibling; limit %.0f%%)\n",
				"unstable", v, lim);
		else if (!strcmp(kind, "clock_drift"))
			fprintf(f,
				"  %-12s the clock the figures are timed with "
				"ran %+.0f ppm off the kernel's over a round "
				"(limit %.0f)\n",
				"unstable", v, lim);
	}
}

void rp_report_text_repeat(FILE *f, const struct rp_result *r)
{
	const cJSON *rep = r->repeat, *figures, *x;
	double n, level = 95, target;
	size_t i;

	if (!cJSON_IsObject(rep) || !num(rep, "n", &n))
		return;
	num(rep, "level", &level);
	fprintf(f, "  %-12s %.0f times", "repeated", n);
	if (num(rep, "target_pct", &target))
		fprintf(f,
			!strcmp(str(rep, "stopped", ""), "confidence")
				? " (--confidence: the central intervals "
				  "within "
				  "\u00b1%g%%)"
				: " (--confidence: not all central intervals "
				  "within "
				  "\u00b1%g%% by then)",
			target);
	fprintf(f, "; the median run is shown above\n");
	figures = cJSON_GetObjectItemCaseSensitive(rep, "figures");
	for (i = 0; i < N_FIGS; i++) {
		x = cJSON_GetObjectItemCaseSensitive(figures, figs[i].key);
		if (cJSON_IsObject(x))
			figure(f, figs[i].label, x, level);
	}
	x = cJSON_GetObjectItemCaseSensitive(rep, "against");
	if (cJSON_IsObject(x))
		against(f, x);
	warnings(f, cJSON_GetObjectItemCaseSensitive(rep, "warnings"));
}

void rp_report_text_repeats(FILE *f, const struct rp_result *res, size_t n)
{
	char size[32];
	size_t i;

	for (i = 0; i < n; i++) {
		if (!res[i].repeat)
			continue;
		rp_units_format_size(res[i].spec.size_bytes, size,
				     sizeof(size));
		fprintf(f, "\n  %s %s -q %u\n", res[i].transport, size,
			res[i].spec.queue_depth);
		rp_report_text_repeat(f, &res[i]);
	}
}
