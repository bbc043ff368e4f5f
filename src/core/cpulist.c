// SPDX-License-Identifier: MIT
/* CPU lists, "0-3,6": the kernel's cpulist format without strides. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/cpulist.h"

#define FORMS "CPUs and ranges such as 0-3,6"

struct cpu_parse {
	const char *arg;
	int *out;
	size_t cap;
	size_t n;
	char *err;
	size_t errlen;
};

__attribute__((format(printf, 2, 3))) static int fail(struct cpu_parse *cp,
						      const char *fmt, ...)
{
	va_list ap;

	if (!cp->err || !cp->errlen)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(cp->err, cp->errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int not_a_list(struct cpu_parse *cp)
{
	return fail(cp,
		    "--cpu: '%s' is not a CPU list: give " FORMS
		    ", from 0 to %d",
		    cp->arg, RP_CPULIST_MAX_CPU);
}

/* A CPU number at *@s; *@s moves past it. */
static int cpu_number(struct cpu_parse *cp, const char **s, int *out)
{
	unsigned long v;
	char *end;

	if (!isdigit((unsigned char)**s))
		return not_a_list(cp);
	errno = 0;
	v = strtoul(*s, &end, 10);
	if (errno == ERANGE || v > RP_CPULIST_MAX_CPU)
		return fail(cp,
			    "--cpu: CPU %.*s out of range: accepted 0 to %d",
			    (int)(end - *s), *s, RP_CPULIST_MAX_CPU);
	*s = end;
	*out = (int)v;
	return 0;
}

static int add_cpu(struct cpu_parse *cp, int cpu)
{
	size_t i;

	for (i = 0; i < cp->n; i++)
		if (cp->out[i] == cpu)
			return fail(cp,
				    "--cpu: CPU %d given twice in '%s': "
				    "give each once",
				    cpu, cp->arg);
	if (cp->n == cp->cap)
		return fail(cp,
			    "--cpu: '%s' names more than %zu CPUs: "
			    "accepted at most %zu",
			    cp->arg, cp->cap, cp->cap);
	cp->out[cp->n++] = cpu;
	return 0;
}

/* One element, "N" or "LO-HI", at *@s; *@s moves past it. */
static int element(struct cpu_parse *cp, const char **s)
{
	int lo, hi, cpu, ret;

	ret = cpu_number(cp, s, &lo);
	hi = lo;
	if (!ret && **s == '-') {
		(*s)++;
		ret = cpu_number(cp, s, &hi);
	}
	if (!ret && lo > hi)
		return fail(cp,
			    "--cpu: range %d-%d descends: give LO-HI with "
			    "LO <= HI",
			    lo, hi);
	for (cpu = lo; !ret && cpu <= hi; cpu++)
		ret = add_cpu(cp, cpu);
	return ret;
}

int rp_cpulist_parse(const char *s, int *out, size_t cap, size_t *n, char *err,
		     size_t errlen)
{
	struct cpu_parse cp = { s ? s : "", out, cap, 0, err, errlen };
	const char *p = cp.arg;
	int ret;

	do {
		ret = element(&cp, &p);
		if (!ret && *p && *p != ',')
			ret = not_a_list(&cp);
	} while (!ret && *p++ == ',');
	*n = ret ? 0 : cp.n;
	return ret;
}
