// SPDX-License-Identifier: MIT
/*
 * Sweeps: the sizes and depths of -S and -q as lists and ranges (the forms
 * are drawn in sweep.h). One grammar serves both; what differs (the flag's
 * name, how a number is read, its limit) is a struct list_kind.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sweep.h"
#include "core/units.h"

#define TOKEN_LEN 32 /* one number as text, suffix included */

struct list_kind {
	const char *flag;  /* "-S/--size" */
	const char *forms; /* what the user may give, for errors */
	const char *unit;  /* " bytes" or "" */
	int (*parse)(const char *s, uint64_t *out);
	uint64_t max;
	bool suffixes; /* K, M, G: also in messages */
};

/* Where the values go: one of u64 or u32, at most cap of them. */
struct sink {
	uint64_t *u64;
	uint32_t *u32;
	size_t cap;
	size_t n;
};

struct list_parse {
	const struct list_kind *kind;
	const char *arg;
	struct sink *out;
	char *err;
	size_t errlen;
};

__attribute__((format(printf, 2, 3))) static int fail(struct list_parse *lp,
						      const char *fmt, ...)
{
	va_list ap;

	if (!lp->err || !lp->errlen)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(lp->err, lp->errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Plain digits, no suffix: queue depths. */
static int parse_plain(const char *s, uint64_t *out)
{
	char *end;

	if (!isdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	*out = strtoull(s, &end, 10);
	if (*end)
		return -EINVAL;
	return errno == ERANGE ? -ERANGE : 0;
}

/* The kind's limit for a message: "1G", "64K", "4096" (the largest
 * 1024-based suffix that divides it, where the kind takes suffixes). */
static const char *format_max(const struct list_kind *k, char *buf, size_t len)
{
	static const char sfx[] = "GMK";
	int shift;

	for (shift = 30; k->suffixes && shift > 0; shift -= 10) {
		if (k->max >= (1ULL << shift) &&
		    !(k->max & ((1ULL << shift) - 1))) {
			snprintf(buf, len, "%llu%c",
				 (unsigned long long)(k->max >> shift),
				 sfx[(30 - shift) / 10]);
			return buf;
		}
	}
	snprintf(buf, len, "%llu", (unsigned long long)k->max);
	return buf;
}

static bool sink_has(const struct sink *s, uint64_t v)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if ((s->u64 ? s->u64[i] : s->u32[i]) == v)
			return true;
	return false;
}

static int put(struct list_parse *lp, uint64_t v)
{
	struct sink *s = lp->out;

	if (sink_has(s, v))
		return fail(lp, "%s: %llu given twice in '%s': give each once",
			    lp->kind->flag, (unsigned long long)v, lp->arg);
	if (s->n == s->cap)
		return fail(lp,
			    "%s: '%s' gives more than %zu values: accepted "
			    "at most %zu",
			    lp->kind->flag, lp->arg, s->cap, s->cap);
	if (s->u64)
		s->u64[s->n++] = v;
	else
		s->u32[s->n++] = (uint32_t)v;
	return 0;
}

/* One number of @len chars at @s, checked against the kind's range. */
static int value(struct list_parse *lp, const char *s, size_t len,
		 uint64_t *out)
{
	const struct list_kind *k = lp->kind;
	char tok[TOKEN_LEN], max[24];
	int ret;

	if (len == 0)
		return fail(lp, "%s: empty value in '%s': give %s", k->flag,
			    lp->arg, k->forms);
	if (len >= sizeof(tok))
		return fail(lp, "%s: '%.*s' is too long: give %s", k->flag,
			    TOKEN_LEN, s, k->forms);
	memcpy(tok, s, len);
	tok[len] = '\0';
	ret = k->parse(tok, out);
	if (ret == -EINVAL)
		return fail(lp, "%s: '%s' is not a number: give %s", k->flag,
			    tok, k->forms);
	if (ret || *out < 1 || *out > k->max)
		return fail(lp, "%s: %s out of range: accepted 1 to %s%s",
			    k->flag, tok, format_max(k, max, sizeof(max)),
			    k->unit);
	return 0;
}

/* LO, the powers of two strictly between, HI. */
static int parse_range(struct list_parse *lp, const char *dash)
{
	const char *a = lp->arg;
	uint64_t lo, hi, p;
	int ret;

	ret = value(lp, a, (size_t)(dash - a), &lo);
	if (!ret)
		ret = value(lp, dash + 1, strlen(dash + 1), &hi);
	if (ret)
		return ret;
	if (lo > hi)
		return fail(lp,
			    "%s: range '%s' descends: give LO-HI with LO "
			    "<= HI",
			    lp->kind->flag, a);
	ret = put(lp, lo);
	for (p = 1; p <= lo; p <<= 1)
		;
	for (; !ret && p < hi; p <<= 1)
		ret = put(lp, p);
	if (!ret && hi != lo)
		ret = put(lp, hi);
	return ret;
}

static int parse_list(struct list_parse *lp)
{
	const char *s = lp->arg, *comma;
	size_t len;
	uint64_t v;
	int ret;

	do {
		comma = strchr(s, ',');
		len = comma ? (size_t)(comma - s) : strlen(s);
		ret = value(lp, s, len, &v);
		if (!ret)
			ret = put(lp, v);
		if (comma)
			s = comma + 1;
	} while (!ret && comma);
	return ret;
}

static int parse_any(const struct list_kind *k, const char *arg,
		     struct sink *out, size_t *n, char *err, size_t errlen)
{
	struct list_parse lp = { k, arg ? arg : "", out, err, errlen };
	const char *dash = strchr(lp.arg, '-');
	int ret;

	if (dash && strchr(lp.arg, ','))
		ret = fail(&lp, "%s: '%s' mixes a list and a range: give %s",
			   k->flag, lp.arg, k->forms);
	else if (dash)
		ret = parse_range(&lp, dash);
	else
		ret = parse_list(&lp);
	*n = ret ? 0 : out->n;
	return ret;
}

int rp_sweep_parse_sizes(const char *arg, uint64_t max_size, uint64_t *out,
			 size_t cap, size_t *n, char *err, size_t errlen)
{
	const struct list_kind k = {
		.flag = "-S/--size",
		.forms = "N, a list N,N,... or a range LO-HI of powers of "
			 "two (K, M, G suffixes)",
		.unit = " bytes",
		.parse = rp_units_parse_size,
		.max = max_size,
		.suffixes = true,
	};
	struct sink s = { .u64 = out, .cap = cap };

	return parse_any(&k, arg, &s, n, err, errlen);
}

int rp_sweep_parse_depths(const char *arg, uint32_t max_depth, uint32_t *out,
			  size_t cap, size_t *n, char *err, size_t errlen)
{
	const struct list_kind k = {
		.flag = "-q/--queue-depth",
		.forms = "N, a list N,N,... or a range LO-HI of powers of two",
		.unit = "",
		.parse = parse_plain,
		.max = max_depth,
	};
	struct sink s = { .u32 = out, .cap = cap };

	return parse_any(&k, arg, &s, n, err, errlen);
}

size_t rp_sweep_all_sizes(uint64_t *out, size_t cap)
{
	uint64_t v;
	size_t n = 0;

	for (v = RP_SWEEP_ALL_MIN; v <= RP_SWEEP_ALL_MAX && n < cap; v <<= 1)
		out[n++] = v;
	return n;
}

uint64_t rp_sweep_iterations(uint64_t size_bytes)
{
	uint64_t n =
		size_bytes ? RP_SWEEP_BUDGET / size_bytes : RP_SWEEP_MAX_ITERS;

	if (n < RP_SWEEP_MIN_ITERS)
		return RP_SWEEP_MIN_ITERS;
	return n > RP_SWEEP_MAX_ITERS ? RP_SWEEP_MAX_ITERS : n;
}

uint64_t rp_sweep_max_u64(const uint64_t *v, size_t n)
{
	uint64_t m = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] > m)
			m = v[i];
	return m;
}

uint32_t rp_sweep_max_u32(const uint32_t *v, size_t n)
{
	uint32_t m = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] > m)
			m = v[i];
	return m;
}
