// SPDX-License-Identifier: MIT
/* Numbers out of JSON: one set of rules for every layer. */
#include <errno.h>
#include <stdlib.h>

#include "core/json.h"

static int string_u64(const char *s, uint64_t *out)
{
	unsigned long long x;
	char *end;

	if (*s < '0' || *s > '9')
		return -EPROTO;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || *end)
		return -EPROTO;
	*out = x;
	return 0;
}

static int number_u64(double d, uint64_t *out)
{
	if (!(d >= 0 && d <= RP_JSON_MAX_EXACT) || (double)(uint64_t)d != d)
		return -EPROTO;
	*out = (uint64_t)d;
	return 0;
}

int rp_json_u64(const cJSON *obj, const char *key, uint64_t max, uint64_t *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	uint64_t x;
	int err;

	if (!v)
		return -ENOENT;
	if (cJSON_IsString(v))
		err = string_u64(v->valuestring, &x);
	else if (cJSON_IsNumber(v))
		err = number_u64(v->valuedouble, &x);
	else
		err = -EPROTO;
	if (err)
		return err;
	if (x > max)
		return -EPROTO;
	*out = x;
	return 0;
}

uint64_t rp_json_u64_or(const cJSON *obj, const char *key, uint64_t def)
{
	uint64_t v;

	return rp_json_u64(obj, key, UINT64_MAX, &v) ? def : v;
}

double rp_json_double_or(const cJSON *obj, const char *key, double def)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	return cJSON_IsNumber(v) ? v->valuedouble : def;
}
