// SPDX-License-Identifier: MIT
/* The doctor's list of checks, and what it prints (cli/doctor.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "cli/doctor.h"

static const char *const verdict_names[] = { "ok", "info", "warning",
					     "problem" };

void rp_doctor_say(struct rp_doctor *d, const char *name,
		   enum rp_doctor_verdict v, const char *hint, const char *fmt,
		   ...)
{
	struct rp_doctor_check *c;
	va_list ap;

	if (d->n == RP_DOCTOR_MAX_CHECKS)
		return;
	c = &d->c[d->n++];
	c->name = name;
	c->v = v;
	va_start(ap, fmt);
	vsnprintf(c->what, sizeof(c->what), fmt, ap);
	va_end(ap);
	snprintf(c->hint, sizeof(c->hint), "%s", hint ? hint : "");
}

unsigned int rp_doctor_count(const struct rp_doctor *d,
			     enum rp_doctor_verdict v)
{
	unsigned int i, n = 0;

	for (i = 0; i < d->n; i++)
		n += d->c[i].v == v;
	return n;
}

static void print_text(const struct rp_doctor *d, unsigned int problems,
		       unsigned int warnings)
{
	static const char *const tags[] = { "ok", "info", "WARNING",
					    "PROBLEM" };
	unsigned int i;

	printf("rdmaperf doctor: %u problem%s, %u warning%s\n", problems,
	       problems == 1 ? "" : "s", warnings, warnings == 1 ? "" : "s");
	for (i = 0; i < d->n; i++) {
		printf("  %-8s %-9s %s\n", tags[d->c[i].v], d->c[i].name,
		       d->c[i].what);
		if (d->c[i].v >= RP_DOC_WARN && d->c[i].hint[0])
			printf("  %-8s %-9s fix: %s\n", "", "", d->c[i].hint);
	}
}

static int print_json(const struct rp_doctor *d, unsigned int problems,
		      unsigned int warnings)
{
	cJSON *o = cJSON_CreateObject(), *a;
	unsigned int i;
	char *s;

	a = o ? cJSON_AddArrayToObject(o, "checks") : NULL;
	for (i = 0; a && i < d->n; i++) {
		cJSON *c = cJSON_CreateObject();

		if (!c || !cJSON_AddItemToArray(a, c))
			break;
		cJSON_AddStringToObject(c, "check", d->c[i].name);
		cJSON_AddStringToObject(c, "status", verdict_names[d->c[i].v]);
		cJSON_AddStringToObject(c, "what", d->c[i].what);
		if (d->c[i].hint[0])
			cJSON_AddStringToObject(c, "hint", d->c[i].hint);
	}
	if (o) {
		cJSON_AddBoolToObject(o, "ok", !problems);
		cJSON_AddNumberToObject(o, "problems", problems);
		cJSON_AddNumberToObject(o, "warnings", warnings);
	}
	s = o ? cJSON_Print(o) : NULL;
	cJSON_Delete(o);
	if (!s) {
		fprintf(stderr, "rdmaperf doctor: out of memory\n");
		return 1;
	}
	printf("%s\n", s);
	free(s);
	return 0;
}

int rp_doctor_print(const struct rp_doctor *d)
{
	unsigned int problems = rp_doctor_count(d, RP_DOC_PROBLEM);
	unsigned int warnings = rp_doctor_count(d, RP_DOC_WARN);

	if (d->json)
		return print_json(d, problems, warnings);
	print_text(d, problems, warnings);
	return 0;
}
