// SPDX-License-Identifier: MIT
/* Numbers out of JSON: one set of rules for every layer. */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
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

/* A NUL inside a string, raw or escaped (\u0000): C sees the string end
 * there ("tcp\u0000x" would read as "tcp"), so no body may hold one. */
bool rp_json_text_has_nul(const char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (!buf[i])
			return true;
		if (buf[i] == '\\' && i + 5 < len && buf[i + 1] == 'u' &&
		    !memcmp(buf + i + 2, "0000", 4))
			return true;
		if (buf[i] == '\\')
			i++; /* an escaped backslash is no escape's start */
	}
	return false;
}

static int key_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Two members of object @o with one key: sorted, they are neighbours
 * (O(n log n): a body may hold many thousand keys). */
static bool keys_repeat(const cJSON *o)
{
	const cJSON *c;
	const char **k;
	size_t n = 0, i;
	bool dup = false;

	for (c = o->child; c; c = c->next)
		n++;
	if (n < 2)
		return false;
	k = malloc(n * sizeof(*k));
	if (!k)
		return true; /* no memory to tell: refuse */
	for (c = o->child, i = 0; c; c = c->next)
		k[i++] = c->string ? c->string : "";
	qsort(k, n, sizeof(*k), key_cmp);
	for (i = 1; i < n && !dup; i++)
		dup = !strcmp(k[i - 1], k[i]);
	free(k);
	return dup;
}

/* The same key twice in an object, anywhere: which value counts would be
 * cJSON's choice (the first), not the sender's; refuse instead. */
bool rp_json_has_duplicate_key(const cJSON *o)
{
	const cJSON *c;

	if (cJSON_IsObject(o) && keys_repeat(o))
		return true;
	for (c = o ? o->child : NULL; c; c = c->next)
		if ((cJSON_IsObject(c) || cJSON_IsArray(c)) &&
		    rp_json_has_duplicate_key(c))
			return true;
	return false;
}
