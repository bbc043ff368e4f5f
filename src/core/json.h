/* SPDX-License-Identifier: MIT */
/* Reading numbers out of JSON bodies (cJSON keeps every number a double). */
#ifndef RP_CORE_JSON_H
#define RP_CORE_JSON_H

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

#endif
