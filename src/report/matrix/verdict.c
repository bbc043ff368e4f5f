// SPDX-License-Identifier: MIT
/*
 * --matrix with --expect: which pairs failed their expectations, and which
 * nodes every judged pair through them failed (the node, not a link: as
 * ClusterKit tells a bad host from a bad cable). Derived from the cells'
 * documents, so a saved matrix (--report) gets the same.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/expect.h"
#include "report/matrix/matrix.h"

#define GET(o, k) cJSON_GetObjectItemCaseSensitive(o, k)

/* The failing checks of @verdict as one text: "bw>=90%, p99<=5us". */
static cJSON *failing_checks(const cJSON *verdict)
{
	cJSON *a = cJSON_CreateArray();
	const cJSON *c;

	cJSON_ArrayForEach(c, GET(verdict, "checks"))
	{
		const cJSON *ex = GET(c, "expect");

		if (a && cJSON_IsString(ex) && !cJSON_IsTrue(GET(c, "pass")))
			cJSON_AddItemToArray(
				a, cJSON_CreateString(ex->valuestring));
	}
	return a;
}

static int rank_of(const cJSON *cell, const char *key, size_t n)
{
	const cJSON *j = GET(cell, key);

	return cJSON_IsNumber(j) && j->valuedouble >= 0 &&
			       j->valuedouble < (double)n
		       ? (int)j->valuedouble
		       : -1;
}

int rp_matrix_verdicts(cJSON *doc)
{
	cJSON *m = GET(doc, "matrix"), *v, *failing, *nodes, *o;
	size_t n = (size_t)cJSON_GetArraySize(GET(m, "ranks"));
	unsigned int *judged, *failed, pairs = 0, bad = 0;
	const cJSON *cell, *r;
	size_t k;
	int i, j;

	cJSON_DeleteItemFromObjectCaseSensitive(m, "verdict");
	judged = calloc(n ? n : 1, sizeof(*judged));
	failed = calloc(n ? n : 1, sizeof(*failed));
	v = cJSON_CreateObject();
	failing = v ? cJSON_AddArrayToObject(v, "failing") : NULL;
	nodes = v ? cJSON_AddArrayToObject(v, "nodes") : NULL;
	if (!judged || !failed || !nodes) {
		free(judged);
		free(failed);
		cJSON_Delete(v);
		return -ENOMEM;
	}
	cJSON_ArrayForEach(cell, GET(m, "cells"))
	{
		bool pass = true, any = false;
		int idx = 0;

		i = rank_of(cell, "client", n);
		j = rank_of(cell, "server", n);
		cJSON_ArrayForEach(r, GET(GET(cell, "document"), "results"))
		{
			const cJSON *vd = GET(r, "verdict");

			idx++;
			if (!cJSON_IsObject(vd))
				continue;
			any = true;
			if (rp_expect_verdict_pass(vd))
				continue;
			pass = false;
			o = cJSON_CreateObject();
			if (!o || !cJSON_AddItemToArray(failing, o)) {
				cJSON_Delete(o);
				continue;
			}
			cJSON_AddNumberToObject(o, "client", i);
			cJSON_AddNumberToObject(o, "server", j);
			cJSON_AddNumberToObject(o, "result", idx - 1);
			if (cJSON_IsString(GET(r, "transport")))
				cJSON_AddStringToObject(
					o, "transport",
					GET(r, "transport")->valuestring);
			cJSON_AddItemToObject(o, "expect", failing_checks(vd));
		}
		if (!any || i < 0 || j < 0)
			continue;
		pairs++;
		bad += !pass;
		judged[i]++;
		judged[j]++;
		failed[i] += !pass;
		failed[j] += !pass;
	}
	/* a node whose every judged pair failed, two pairs at least, among
	 * three ranks or more (with two, the node and the link are one) */
	for (k = 0; n >= 3 && k < n; k++)
		if (judged[k] >= 2 && failed[k] == judged[k])
			cJSON_AddItemToArray(nodes,
					     cJSON_CreateNumber((double)k));
	free(judged);
	free(failed);
	if (!pairs) {
		cJSON_Delete(v);
		return 0;
	}
	cJSON_AddNumberToObject(v, "pairs", pairs);
	cJSON_AddNumberToObject(v, "failed", bad);
	cJSON_AddBoolToObject(v, "pass", !bad);
	if (!cJSON_AddItemToObject(m, "verdict", v)) {
		cJSON_Delete(v);
		return -ENOMEM;
	}
	return 0;
}

bool rp_matrix_expect_failed(const cJSON *doc)
{
	const cJSON *v = GET(GET(doc, "matrix"), "verdict");

	return cJSON_IsObject(v) && !cJSON_IsTrue(GET(v, "pass"));
}

/* The host of rank @r, or "?". */
static const char *host_of(const cJSON *doc, int r)
{
	const cJSON *h =
		GET(cJSON_GetArrayItem(GET(GET(doc, "matrix"), "ranks"), r),
		    "host");

	return cJSON_IsString(h) ? h->valuestring : "?";
}

void rp_matrix_verdict_text(FILE *f, const cJSON *doc)
{
	const cJSON *v = GET(GET(doc, "matrix"), "verdict"), *o, *e;
	int shown = 0;

	if (!cJSON_IsObject(v))
		return;
	if (cJSON_IsTrue(GET(v, "pass"))) {
		fprintf(f, "\nverdict: PASS, every one of %.0f pairs\n",
			cJSON_GetNumberValue(GET(v, "pairs")));
		return;
	}
	fprintf(f, "\nverdict: FAIL, %.0f of %.0f pairs\n",
		cJSON_GetNumberValue(GET(v, "failed")),
		cJSON_GetNumberValue(GET(v, "pairs")));
	cJSON_ArrayForEach(o, GET(v, "failing"))
	{
		int c = (int)cJSON_GetNumberValue(GET(o, "client"));
		int s = (int)cJSON_GetNumberValue(GET(o, "server"));

		if (++shown > 20) {
			fprintf(f, "  ... (the document lists them all)\n");
			break;
		}
		fprintf(f, "  %s -> %s (%s):", host_of(doc, c), host_of(doc, s),
			cJSON_IsString(GET(o, "transport"))
				? GET(o, "transport")->valuestring
				: "?");
		cJSON_ArrayForEach(e, GET(o, "expect"))
		{
			if (cJSON_IsString(e))
				fprintf(f, " %s", e->valuestring);
		}
		fputc('\n', f);
	}
	cJSON_ArrayForEach(o, GET(v, "nodes"))
	{
		fprintf(f,
			"  node %s (rank %.0f): every pair through it failed: "
			"suspect the node, not one link\n",
			host_of(doc, (int)o->valuedouble), o->valuedouble);
	}
}
