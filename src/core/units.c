// SPDX-License-Identifier: MIT
/* Numbers with unit suffixes, each suffix from a table (as wrk does). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/units.h"

struct unit {
	const char *suffix;
	uint64_t scale;
};

static const struct unit size_units[] = {
	{ "", 1 },
	{ "b", 1 },
	{ "k", 1ULL << 10 },
	{ "kb", 1ULL << 10 },
	{ "kib", 1ULL << 10 },
	{ "m", 1ULL << 20 },
	{ "mb", 1ULL << 20 },
	{ "mib", 1ULL << 20 },
	{ "g", 1ULL << 30 },
	{ "gb", 1ULL << 30 },
	{ "gib", 1ULL << 30 },
	{ "t", 1ULL << 40 },
	{ "tb", 1ULL << 40 },
	{ "tib", 1ULL << 40 },
	{ NULL, 0 },
};

static const struct unit count_units[] = {
	{ "", 1 },	     { "k", 1000ULL },
	{ "m", 1000000ULL }, { "g", 1000000000ULL },
	{ NULL, 0 },
};

static const struct unit time_units[] = {
	{ "", 1000000000ULL }, { "s", 1000000000ULL }, { "ms", 1000000ULL },
	{ "us", 1000ULL },     { "ns", 1ULL },	       { NULL, 0 },
};

static int find_scale(const struct unit *t, const char *suffix, uint64_t *out)
{
	for (; t->suffix; t++) {
		if (strcasecmp(t->suffix, suffix) == 0) {
			*out = t->scale;
			return 0;
		}
	}
	return -EINVAL;
}

static int parse_scaled(const char *s, const struct unit *table, uint64_t *out)
{
	uint64_t v, scale;
	char *end;

	if (!s || !isdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (find_scale(table, end, &scale))
		return -EINVAL;
	if (v > UINT64_MAX / scale)
		return -ERANGE;
	*out = v * scale;
	return 0;
}

int rp_units_parse_size(const char *s, uint64_t *out)
{
	return parse_scaled(s, size_units, out);
}

int rp_units_parse_count(const char *s, uint64_t *out)
{
	return parse_scaled(s, count_units, out);
}

int rp_units_parse_seconds(const char *s, uint64_t *out_ns)
{
	uint64_t scale;
	double v;
	char *end;

	if (!s || !(isdigit((unsigned char)s[0]) || s[0] == '.') ||
	    strpbrk(s, "xXeEpP"))
		return -EINVAL; /* decimal only: strtod takes hex, exponents */
	errno = 0;
	v = strtod(s, &end);
	if (errno == ERANGE || !isfinite(v))
		return -ERANGE;
	if (end == s || find_scale(time_units, end, &scale))
		return -EINVAL;
	v *= (double)scale;
	if (v >= 1.8e19)
		return -ERANGE;
	*out_ns = (uint64_t)llround(v);
	return 0;
}

const char *rp_units_format_size(uint64_t bytes, char *buf, size_t len)
{
	static const char *const names[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	int i = 0;

	while (v >= 1024 && i < 4) {
		v /= 1024;
		i++;
	}
	if (i == 0 || v == floor(v))
		snprintf(buf, len, "%.0f %s", v, names[i]);
	else
		snprintf(buf, len, "%.2f %s", v, names[i]);
	return buf;
}

int rp_units_count_in(const char *flag, const char *arg, uint64_t lo,
		      uint64_t hi, uint64_t *out, char *err, size_t errlen)
{
	int ret = rp_units_parse_count(arg, out);

	if (ret == -EINVAL) {
		snprintf(err, errlen, "%s: '%s' is not a number", flag, arg);
		return -EINVAL;
	}
	if (ret || *out < lo || *out > hi) {
		snprintf(err, errlen,
			 "%s: %s out of range: accepted %llu to %llu", flag,
			 arg, (unsigned long long)lo, (unsigned long long)hi);
		return -EINVAL;
	}
	return 0;
}
