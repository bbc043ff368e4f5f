/* SPDX-License-Identifier: MIT */
/* Reading numbers out of JSON bodies (cJSON keeps every number a double). */
#ifndef RP_CORE_JSON_H
#define RP_CORE_JSON_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

/* The largest integer a double (and so cJSON) holds exactly: 2^53. */
#define RP_JSON_MAX_EXACT 9007199254740992.0

/**
 * rp_json_u64 - the member @key of @obj as an unsigned integer no larger
 * than @max: a whole number in [0, 2^53], or a decimal string (for values
 * such as addresses that a double cannot hold).
 * Return: 0; -ENOENT when absent; -EPROTO when malformed or above @max.
 */
int rp_json_u64(const cJSON *obj, const char *key, uint64_t max, uint64_t *out);

/**
 * rp_json_u64_or - rp_json_u64(), or @def when the member is absent or
 * malformed (figures a peer reports, where 0 means "not known").
 */
uint64_t rp_json_u64_or(const cJSON *obj, const char *key, uint64_t def);

/** rp_json_double_or - the number member @key of @obj, or @def. */
double rp_json_double_or(const cJSON *obj, const char *key, double def);

/**
 * rp_json_text_has_nul - whether the JSON text @buf of @len bytes holds a
 * NUL in a string, raw or escaped (\u0000): C would see the string end
 * there ("tcp\u0000x" reads as "tcp"), so no message may carry one.
 */
bool rp_json_text_has_nul(const char *buf, size_t len);

/**
 * rp_json_has_duplicate_key - whether an object anywhere in @o has a key
 * twice: which value counts would be cJSON's choice (the first), not the
 * sender's. O(n log n) per object.
 */
bool rp_json_has_duplicate_key(const cJSON *o);

#endif
