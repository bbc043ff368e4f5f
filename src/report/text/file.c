// SPDX-License-Identifier: MIT
/*
 * The file transport in the text reports: what a result did to which
 * file (path, O_DIRECT or the page cache, sequential or random, the
 * region, fsync), from the transport's information (its local_info), and
 * the columns of a table that holds several files.
 */
#include <string.h>

#include "core/units.h"
#include "report/priv.h"
#include "report/text/text.h"

const cJSON *rp_report_file_of(const struct rp_result *r)
{
	const cJSON *first = cJSON_IsArray(r->client_info)
				     ? cJSON_GetArrayItem(r->client_info, 0)
				     : r->client_info;
	const cJSON *path = cJSON_GetObjectItemCaseSensitive(first, "path");

	return cJSON_IsString(path) && !strcmp(r->transport, "file") ? first
								     : NULL;
}

static double num_of(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static const char *str_of(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : "?";
}

bool rp_report_text_file(FILE *f, const char *label, const struct rp_result *r)
{
	const cJSON *fi = rp_report_file_of(r);
	double every;
	char sz[32];

	if (!fi)
		return false;
	every = num_of(fi, "fsync_every");
	fprintf(f, "  %s %s: %s, %s, %s region%s, ", label, str_of(fi, "path"),
		cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(fi, "direct"))
			? "O_DIRECT"
			: "buffered",
		str_of(fi, "access"),
		rp_units_format_size((uint64_t)num_of(fi, "file_size"), sz,
				     sizeof(sz)),
		cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(fi, "created"))
			? " (created, removed after)"
			: "");
	if (r->spec.op != RP_OP_WRITE)
		fprintf(f, "no server%s\n",
			r->spec.verify ? ", reads verified" : "");
	else if (every > 0)
		fprintf(f, "fsync every %.0f writes%s\n", every,
			r->spec.verify ? ", payload written" : "");
	else
		fprintf(f, "no fsync (writes not durable)\n");
	return true;
}

void rp_report_column(const struct rp_result *res, size_t n, size_t stride,
		      size_t t, char *buf, size_t len)
{
	const char *name = res[t * stride].transport;
	size_t i, nth = 0, total = 0;

	for (i = 0; i < n; i++) {
		if (strcmp(res[i * stride].transport, name))
			continue;
		total++;
		nth += i <= t;
	}
	if (total > 1)
		snprintf(buf, len, "%s #%zu", name, nth);
	else
		snprintf(buf, len, "%s", name);
}

void rp_report_text_files(FILE *f, const struct rp_result *res, size_t n,
			  size_t stride)
{
	char label[RP_SPEC_NAME_LEN + 24];
	size_t t;

	for (t = 0; t < n; t++) {
		rp_report_column(res, n, stride, t, label, sizeof(label));
		rp_report_text_file(f, label, &res[t * stride]);
	}
}
