// SPDX-License-Identifier: MIT
/* Offered load (rate.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rate.h"
#include "core/spec.h"

static const struct {
	const char *suffix;
	double mult;
	enum rp_rate_kind kind;
} suffixes[] = {
	{ "", 1, RP_RATE_OPS },	     { "k", 1e3, RP_RATE_OPS },
	{ "K", 1e3, RP_RATE_OPS },   { "M", 1e6, RP_RATE_OPS },
	{ "b", 1, RP_RATE_BITS },    { "kb", 1e3, RP_RATE_BITS },
	{ "Kb", 1e3, RP_RATE_BITS }, { "Mb", 1e6, RP_RATE_BITS },
	{ "Gb", 1e9, RP_RATE_BITS }, { "Tb", 1e12, RP_RATE_BITS },
	{ "G", 1e9, RP_RATE_BITS },  { "T", 1e12, RP_RATE_BITS },
};

static int bad(const char *arg, size_t len, char *err, size_t errlen)
{
	return rp_spec_errf(err, errlen,
			    "--rate '%.*s' invalid: accepted operations per "
			    "second (200000, 200k, 2M) or a bit rate (500Mb, "
			    "20Gb, 20G), up to %llu ops/s; a comma list",
			    (int)len, arg, RP_SPEC_MAX_RATE);
}

static int parse_one(const char *arg, size_t len, struct rp_rate *out,
		     char *err, size_t errlen)
{
	char buf[64], *end;
	double v;
	size_t i;

	if (!len || len >= sizeof(buf))
		return bad(arg, len, err, errlen);
	memcpy(buf, arg, len);
	buf[len] = '\0';
	v = strtod(buf, &end);
	if (end == buf || !isfinite(v) || !(v > 0) || buf[0] == '-' ||
	    buf[0] == '+')
		return bad(arg, len, err, errlen);
	for (i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		if (strcmp(end, suffixes[i].suffix))
			continue;
		out->kind = suffixes[i].kind;
		out->value = v * suffixes[i].mult;
		if (out->kind == RP_RATE_OPS &&
		    out->value > (double)RP_SPEC_MAX_RATE)
			return bad(arg, len, err, errlen);
		/* the schedule counts whole operations per second */
		if (out->kind == RP_RATE_OPS && out->value < 1)
			return rp_spec_errf(err, errlen,
					    "--rate '%.*s' is below 1 "
					    "operation per second, the lowest "
					    "rate offered",
					    (int)len, arg);
		if (out->kind == RP_RATE_BITS && out->value < 8)
			return bad(arg, len, err, errlen);
		return 0;
	}
	return bad(arg, len, err, errlen);
}

int rp_rate_parse_list(const char *arg, struct rp_rate *out, size_t cap,
		       size_t *n, char *err, size_t errlen)
{
	const char *p = arg, *comma;
	size_t len;

	*n = 0;
	for (;;) {
		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		if (*n == cap)
			return rp_spec_errf(err, errlen,
					    "--rate: at most %zu rates", cap);
		if (parse_one(p, len, &out[*n], err, errlen))
			return -EINVAL;
		(*n)++;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

void rp_rate_curve(struct rp_rate *out, unsigned int points)
{
	unsigned int k;

	out[0] = (struct rp_rate){ RP_RATE_CLOSED, 0 };
	for (k = 1; k <= points; k++)
		out[k] = (struct rp_rate){ RP_RATE_PEAK,
					   (double)k / (double)points };
}

uint64_t rp_rate_ops(const struct rp_rate *r, uint64_t size_bytes,
		     double peak_ops)
{
	double ops;

	switch (r->kind) {
	case RP_RATE_OPS:
		ops = r->value;
		break;
	case RP_RATE_BITS:
		ops = r->value / (8.0 * (double)size_bytes);
		break;
	case RP_RATE_PEAK:
		ops = r->value * peak_ops;
		break;
	default:
		return 0;
	}
	if (!(ops >= 1))
		return 1;
	return ops > (double)RP_SPEC_MAX_RATE ? RP_SPEC_MAX_RATE
					      : (uint64_t)llround(ops);
}

void rp_rate_text(const struct rp_rate *r, char *buf, size_t len)
{
	switch (r->kind) {
	case RP_RATE_OPS:
		snprintf(buf, len, "%.6g", r->value);
		break;
	case RP_RATE_BITS:
		snprintf(buf, len, "%.6gb", r->value);
		break;
	case RP_RATE_PEAK:
		snprintf(buf, len, "%.4g%%", r->value * 100);
		break;
	default:
		snprintf(buf, len, "closed");
	}
}
