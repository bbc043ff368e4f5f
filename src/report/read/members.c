// SPDX-License-Identifier: MIT
/*
 * The bottom file of the document reader (--report): a member read by its
 * type and bounded, a microsecond figure back to its nanoseconds, a latency
 * summary, and the records' budget. read/doc.c, read/result.c
 * and json/rate.c all read through these, and these call none of them.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "core/fields.h"
#include "core/json.h"
#include "report/read/read.h"

/* ---- typed members ---------------------------------------------------- */

const cJSON *rp_read_get(const cJSON *o, const char *key)
{
	if (!cJSON_IsObject(o))
		return NULL;
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

uint64_t rp_read_item_u64(const cJSON *v, uint64_t max)
{
	double d;

	if (!cJSON_IsNumber(v))
		return 0;
	d = v->valuedouble;
	if (!(d > 0))
		return 0;
	if (d >= (double)max)
		return max;
	return (uint64_t)d;
}

uint64_t rp_read_u64(const cJSON *o, const char *key, uint64_t max)
{
	return rp_read_item_u64(rp_read_get(o, key), max);
}

double rp_read_item_num(const cJSON *v)
{
	if (cJSON_IsNumber(v))
		return v->valuedouble;
	return cJSON_IsNull(v) ? NAN : 0;
}

double rp_read_num(const cJSON *o, const char *key)
{
	return rp_read_item_num(rp_read_get(o, key));
}

bool rp_read_bool(const cJSON *o, const char *key)
{
	return cJSON_IsTrue(rp_read_get(o, key));
}

void rp_read_str(const cJSON *o, const char *key, char *buf, size_t len)
{
	const cJSON *v = rp_read_get(o, key);

	snprintf(buf, len, "%s",
		 cJSON_IsString(v) && v->valuestring ? v->valuestring : "");
}

double rp_read_ns(double us)
{
	return rp_fields_unscale(us, 1e3);
}

int rp_read_records(const struct rp_reader *l, size_t n)
{
	if (!l->records || n <= *l->records) {
		if (l->records)
			*l->records -= n;
		return 0;
	}
	return rp_errf(l->why, -E2BIG,
		       "%s: result %zu: more per-stream and interval records "
		       "than one per %d bytes of the document: not a document "
		       "rdmaperf wrote",
		       l->path, l->index, RP_READ_RECORD_BYTES);
}

/* ---- figures ------------------------------------------------------------ */

void rp_read_summary(const cJSON *o, struct rp_hist_summary *s)
{
	rp_fields_read(o, s, rp_hist_summary_fields, RP_HIST_SUMMARY_N_FIELDS,
		       RP_FIELD_DOC);
}
