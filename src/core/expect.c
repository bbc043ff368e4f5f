// SPDX-License-Identifier: MIT
/* --expect: parse the comparisons, and judge a point's figures by them. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/expect.h"
#include "core/spec.h"

enum kind { K_BITS, K_RATE, K_NS, K_COUNT };

static const struct metric {
	const char *name;
	enum kind kind;
} metrics[RP_EM__COUNT] = {
	[RP_EM_BW] = { "bw", K_BITS },
	[RP_EM_MSG_RATE] = { "msg_rate", K_RATE },
	[RP_EM_P50] = { "p50", K_NS },
	[RP_EM_P90] = { "p90", K_NS },
	[RP_EM_P99] = { "p99", K_NS },
	[RP_EM_P999] = { "p999", K_NS },
	[RP_EM_MAX] = { "max", K_NS },
	[RP_EM_MEAN] = { "mean", K_NS },
	[RP_EM_UNLOADED_P50] = { "unloaded_p50", K_NS },
	[RP_EM_UNLOADED_P90] = { "unloaded_p90", K_NS },
	[RP_EM_UNLOADED_P99] = { "unloaded_p99", K_NS },
	[RP_EM_UNLOADED_P999] = { "unloaded_p999", K_NS },
	[RP_EM_UNLOADED_MAX] = { "unloaded_max", K_NS },
	[RP_EM_UNLOADED_MEAN] = { "unloaded_mean", K_NS },
	[RP_EM_ERRORS] = { "errors", K_COUNT },
	[RP_EM_RETRANS] = { "retrans", K_COUNT },
	[RP_EM_CONGESTION] = { "congestion", K_COUNT },
};

/* Longest first: ">=" before ">". */
static const struct {
	const char *text;
	enum rp_expect_op op;
} ops[] = {
	{ ">=", RP_EO_GE }, { "<=", RP_EO_LE }, { "==", RP_EO_EQ },
	{ "!=", RP_EO_NE }, { ">", RP_EO_GT },	{ "<", RP_EO_LT },
};

#define N_OPS (sizeof(ops) / sizeof(ops[0]))

#define METRICS                                                                \
	"bw, msg_rate, p50, p90, p99, p999, max, mean, unloaded_p50, "         \
	"unloaded_p90, unloaded_p99, unloaded_p999, unloaded_max, "            \
	"unloaded_mean, errors, retrans, congestion"
#define OPERATORS ">=, <=, >, <, ==, !="

const char *rp_expect_metric_name(enum rp_expect_metric m)
{
	return (unsigned)m < RP_EM__COUNT ? metrics[m].name : "?";
}

static const char *op_text(enum rp_expect_op op)
{
	size_t i;

	for (i = 0; i < N_OPS; i++)
		if (ops[i].op == op)
			return ops[i].text;
	return "?";
}

/* @s as a number and what follows it; false when no number leads. */
static bool lead_num(const char *s, double *v, const char **rest)
{
	char *end;

	if (!*s || isspace((unsigned char)*s) || *s == '+')
		return false;
	errno = 0;
	*v = strtod(s, &end);
	if (end == s || errno == ERANGE || !isfinite(*v) || *v < 0 ||
	    !isdigit((unsigned char)*s))
		return false;
	*rest = end;
	return true;
}

/* A decimal multiplier K M G T (k m g t too) at the start of @s. */
static double prefix(const char **s)
{
	static const char p[] = "kmgt";
	const char *q = strchr(p, tolower((unsigned char)**s));
	double m = 1;
	int i;

	if (!**s || !q)
		return 1;
	for (i = 0; i <= q - p; i++)
		m *= 1000;
	(*s)++;
	return m;
}

static int parse_value(const struct rp_expect_term *t, const char *v,
		       double *out, bool *percent, char *err, size_t len)
{
	const char *rest;
	double x, m;

	*percent = false;
	if (!lead_num(v, &x, &rest))
		goto bad_value;
	switch (metrics[t->metric].kind) {
	case K_BITS:
		if (!strcmp(rest, "%")) {
			if (!(x > 0 && x <= 100))
				return rp_spec_errf(
					err, len,
					"--expect: \"%s\": a share %s%% "
					"out of range (above 0, at most "
					"100)",
					t->text, v);
			*percent = true;
			*out = x / 100;
			return 0;
		}
		m = prefix(&rest);
		if (*rest && strcmp(rest, "bps") && strcmp(rest, "b/s") &&
		    strcmp(rest, "bit/s") && strcmp(rest, "bit"))
			goto bad_value;
		*out = x * m;
		return 0;
	case K_RATE:
		m = prefix(&rest);
		if (*rest && strcmp(rest, "/s"))
			goto bad_value;
		*out = x * m;
		return 0;
	case K_NS:
		m = !*rest || !strcmp(rest, "ns") ? 1
		    : !strcmp(rest, "us")	  ? 1e3
		    : !strcmp(rest, "ms")	  ? 1e6
		    : !strcmp(rest, "s")	  ? 1e9
						  : 0;
		if (!m)
			goto bad_value;
		*out = x * m;
		return 0;
	case K_COUNT:
		if (*rest || x != floor(x))
			goto bad_value;
		*out = x;
		return 0;
	}
bad_value:
	switch (metrics[t->metric].kind) {
	case K_BITS:
		return rp_spec_errf(
			err, len,
			"--expect: \"%s\": bad throughput \"%s\" (bit/s "
			"with K, M, G, T: 180G, 180Gbps; or a share of "
			"the rated rate: 90%%)",
			t->text, v);
	case K_RATE:
		return rp_spec_errf(err, len,
				    "--expect: \"%s\": bad message rate \"%s\" "
				    "(messages/s with K, M, G: 1M)",
				    t->text, v);
	case K_NS:
		return rp_spec_errf(
			err, len,
			"--expect: \"%s\": bad latency \"%s\" (units: ns, "
			"us, ms, s; a bare number is ns)",
			t->text, v);
	default:
		return rp_spec_errf(
			err, len,
			"--expect: \"%s\": bad count \"%s\" (a whole number "
			"from 0)",
			t->text, v);
	}
}

static int parse_term(const char *s, size_t n, struct rp_expect_term *t,
		      char *err, size_t len)
{
	char name[32];
	const char *p, *v;
	size_t i, k, nl;

	while (n && isspace((unsigned char)*s))
		s++, n--;
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	if (!n)
		return rp_spec_errf(
			err, len,
			"--expect: an empty expectation (two commas, or "
			"one at an end): give METRIC OP VALUE, as "
			"p99<=5us");
	if (n >= sizeof(t->text))
		return rp_spec_errf(err, len,
				    "--expect: \"%.*s...\": longer than %zu "
				    "characters",
				    20, s, sizeof(t->text) - 1);
	memset(t, 0, sizeof(*t));
	memcpy(t->text, s, n);
	for (p = t->text; *p && !strchr("<>=!", *p); p++)
		;
	if (!*p)
		goto no_op;
	for (k = 0; k < N_OPS; k++)
		if (!strncmp(p, ops[k].text, strlen(ops[k].text)))
			break;
	if (k == N_OPS)
		goto no_op;
	nl = (size_t)(p - t->text);
	while (nl && isspace((unsigned char)t->text[nl - 1]))
		nl--;
	if (!nl || nl >= sizeof(name))
		return rp_spec_errf(err, len,
				    "--expect: \"%s\": unknown metric \"%.*s\" "
				    "(metrics: " METRICS ")",
				    t->text, (int)nl, t->text);
	memcpy(name, t->text, nl);
	name[nl] = '\0';
	if (!strcmp(name, "p99.9"))
		snprintf(name, sizeof(name), "p999");
	else if (!strcmp(name, "unloaded_p99.9"))
		snprintf(name, sizeof(name), "unloaded_p999");
	for (i = 0; i < RP_EM__COUNT && strcmp(metrics[i].name, name); i++)
		;
	if (i == RP_EM__COUNT)
		return rp_spec_errf(err, len,
				    "--expect: \"%s\": unknown metric \"%s\" "
				    "(metrics: " METRICS ")",
				    t->text, name);
	t->metric = (enum rp_expect_metric)i;
	t->op = ops[k].op;
	v = p + strlen(ops[k].text);
	while (isspace((unsigned char)*v))
		v++;
	if (*v && strchr("<>=!", *v))
		goto no_op;
	return parse_value(t, v, &t->value, &t->percent, err, len);
no_op:
	return rp_spec_errf(
		err, len,
		"--expect: \"%s\": no operator (operators: " OPERATORS
		"), as in p99<=5us",
		t->text);
}

int rp_expect_parse(const char *s, struct rp_expect *out, char *err, size_t len)
{
	const char *comma;
	int rc;

	memset(out, 0, sizeof(*out));
	if (err && len)
		err[0] = '\0';
	if (!s || !*s)
		return rp_spec_errf(
			err, len,
			"--expect: nothing to expect: give METRIC OP VALUE, "
			"comma-separated (bw>=90%%,p99<=5us)");
	for (;;) {
		comma = strchr(s, ',');
		if (out->n == RP_EXPECT_MAX) {
			out->n = 0;
			return rp_spec_errf(
				err, len, "--expect: more than %d expectations",
				RP_EXPECT_MAX);
		}
		rc = parse_term(s, comma ? (size_t)(comma - s) : strlen(s),
				&out->t[out->n], err, len);
		if (rc) {
			out->n = 0;
			return rc;
		}
		out->n++;
		if (!comma)
			return 0;
		s = comma + 1;
	}
}

static bool compare(double m, enum rp_expect_op op, double lim)
{
	switch (op) {
	case RP_EO_GE:
		return m >= lim;
	case RP_EO_LE:
		return m <= lim;
	case RP_EO_GT:
		return m > lim;
	case RP_EO_LT:
		return m < lim;
	case RP_EO_EQ:
		return m == lim;
	default:
		return m != lim;
	}
}

static const char *unit_of(enum rp_expect_metric m)
{
	switch (metrics[m].kind) {
	case K_BITS:
		return "bit/s";
	case K_RATE:
		return "msg/s";
	case K_NS:
		return "ns";
	default:
		return "count";
	}
}

/* Why a check could not be judged. */
static const char *why_not(enum rp_expect_metric m)
{
	if (m == RP_EM_BW || m == RP_EM_MSG_RATE)
		return "no throughput: the test has no throughput phase";
	if (m >= RP_EM_P50 && m <= RP_EM_MEAN)
		return "no latency under load: the test has no throughput "
		       "phase";
	if (m >= RP_EM_UNLOADED_P50 && m <= RP_EM_UNLOADED_MEAN)
		return "no unloaded latency: the test has no ping-pong phase";
	return "no counters were read: neither side's link has them";
}

static cJSON *check_json(const struct rp_expect_term *t,
			 const struct rp_expect_values *v, bool *pass)
{
	cJSON *c = cJSON_CreateObject();
	double lim = t->value;
	const char *why = NULL;
	bool ok;

	if (!c)
		return NULL;
	if (t->percent)
		lim = v->rated_bps > 0 ? t->value * v->rated_bps : NAN;
	if (!v->has[t->metric])
		why = why_not(t->metric);
	else if (t->percent && !(v->rated_bps > 0))
		why = "the link's rated rate is not known (no speed on either "
		      "side's link)";
	*pass = !why && compare(v->v[t->metric], t->op, lim);
	ok = cJSON_AddStringToObject(c, "expect", t->text) &&
	     cJSON_AddStringToObject(c, "metric",
				     rp_expect_metric_name(t->metric)) &&
	     cJSON_AddStringToObject(c, "op", op_text(t->op)) &&
	     (v->has[t->metric]
		      ? cJSON_AddNumberToObject(c, "measured",
						v->v[t->metric]) != NULL
		      : cJSON_AddNullToObject(c, "measured") != NULL) &&
	     (isfinite(lim) ? cJSON_AddNumberToObject(c, "limit", lim) != NULL
			    : cJSON_AddNullToObject(c, "limit") != NULL) &&
	     cJSON_AddStringToObject(c, "unit", unit_of(t->metric)) &&
	     cJSON_AddBoolToObject(c, "pass", *pass);
	if (ok && t->percent)
		ok = cJSON_AddNumberToObject(c, "share", t->value) &&
		     (!(v->rated_bps > 0) ||
		      cJSON_AddNumberToObject(c, "rated_bps", v->rated_bps));
	if (ok && why)
		ok = cJSON_AddStringToObject(c, "why", why) != NULL;
	if (!ok) {
		cJSON_Delete(c);
		return NULL;
	}
	return c;
}

cJSON *rp_expect_eval(const struct rp_expect *e,
		      const struct rp_expect_values *v)
{
	cJSON *o = cJSON_CreateObject(), *checks, *c;
	bool all = true, pass;
	unsigned int i;

	if (!o || !cJSON_AddBoolToObject(o, "pass", true) ||
	    !(checks = cJSON_AddArrayToObject(o, "checks")))
		goto nomem;
	for (i = 0; i < e->n; i++) {
		c = check_json(&e->t[i], v, &pass);
		if (!c || !cJSON_AddItemToArray(checks, c)) {
			cJSON_Delete(c);
			goto nomem;
		}
		all = all && pass;
	}
	cJSON_ReplaceItemInObjectCaseSensitive(o, "pass",
					       cJSON_CreateBool(all));
	return o;
nomem:
	cJSON_Delete(o);
	return NULL;
}

bool rp_expect_verdict_pass(const cJSON *verdict)
{
	return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(verdict, "pass"));
}

/* @x in @unit as a reader wants it: 93.1 Gb/s, 3.2 us, 850 ns, 12. */
static void human(double x, const char *unit, char *buf, size_t len)
{
	if (!strcmp(unit, "bit/s")) {
		if (x >= 1e9)
			snprintf(buf, len, "%.3g Gb/s", x / 1e9);
		else if (x >= 1e6)
			snprintf(buf, len, "%.3g Mb/s", x / 1e6);
		else
			snprintf(buf, len, "%.3g kb/s", x / 1e3);
	} else if (!strcmp(unit, "msg/s")) {
		snprintf(buf, len, "%.3g msg/s", x);
	} else if (!strcmp(unit, "ns")) {
		if (x >= 1e6)
			snprintf(buf, len, "%.3g ms", x / 1e6);
		else if (x >= 1e3)
			snprintf(buf, len, "%.3g us", x / 1e3);
		else
			snprintf(buf, len, "%.0f ns", x);
	} else {
		snprintf(buf, len, "%.0f", x);
	}
}

static void append(char *buf, size_t len, size_t *off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void append(char *buf, size_t len, size_t *off, const char *fmt, ...)
{
	va_list ap;
	int w;

	if (*off >= len)
		return;
	va_start(ap, fmt);
	w = vsnprintf(buf + *off, len - *off, fmt, ap);
	va_end(ap);
	if (w > 0)
		*off = *off + (size_t)w < len ? *off + (size_t)w : len;
}

void rp_expect_line(const cJSON *verdict, char *buf, size_t len)
{
	const cJSON *checks =
		cJSON_GetObjectItemCaseSensitive(verdict, "checks");
	bool pass = rp_expect_verdict_pass(verdict);
	const cJSON *c;
	size_t off = 0;
	bool first = true;

	if (!len)
		return;
	buf[0] = '\0';
	append(buf, len, &off, "%s", pass ? "PASS" : "FAIL");
	cJSON_ArrayForEach(c, checks)
	{
		const cJSON *ex = cJSON_GetObjectItemCaseSensitive(c, "expect");
		const cJSON *me =
			cJSON_GetObjectItemCaseSensitive(c, "measured");
		const cJSON *un = cJSON_GetObjectItemCaseSensitive(c, "unit");
		const cJSON *why = cJSON_GetObjectItemCaseSensitive(c, "why");
		const cJSON *rated =
			cJSON_GetObjectItemCaseSensitive(c, "rated_bps");
		bool ok = cJSON_IsTrue(
			cJSON_GetObjectItemCaseSensitive(c, "pass"));
		char m[32], r[32];

		if (!cJSON_IsString(ex) || (!pass && ok))
			continue; /* a FAIL lists the failing checks */
		append(buf, len, &off,
		       "%s%s%s: ", first ? (pass ? " (" : ": ") : "",
		       first ? "" : "; ", ex->valuestring);
		first = false;
		if (cJSON_IsString(why)) {
			append(buf, len, &off, "%s", why->valuestring);
			continue;
		}
		if (!cJSON_IsNumber(me))
			continue;
		human(me->valuedouble,
		      cJSON_IsString(un) ? un->valuestring : "count", m,
		      sizeof(m));
		if (cJSON_IsNumber(rated)) {
			human(rated->valuedouble, "bit/s", r, sizeof(r));
			append(buf, len, &off, "%s%s of %s (%.1f%%)",
			       pass ? "" : "measured ", m, r,
			       100 * me->valuedouble / rated->valuedouble);
		} else {
			append(buf, len, &off, "%s%s", pass ? "" : "measured ",
			       m);
		}
	}
	if (pass && !first)
		append(buf, len, &off, ")");
}
