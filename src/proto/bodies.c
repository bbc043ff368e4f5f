// SPDX-License-Identifier: MIT
/*
 * START, STOP and DONE bodies to and from JSON (proto/bodies.h). Every
 * number goes out as cJSON_AddNumberToObject prints a double; counts come
 * back through rp_json_u64 (a whole number up to 2^53, or a decimal
 * string).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "core/json.h"
#include "core/spec.h"
#include "proto/bodies.h"

/* ---- START ----------------------------------------------------------- */

cJSON *rp_proto_start_encode(const struct rp_start_body *b)
{
	cJSON *o = cJSON_CreateObject();

	if (!o ||
	    !cJSON_AddStringToObject(o, "phase", rp_phase_name(b->phase)) ||
	    !cJSON_AddNumberToObject(o, "size", (double)b->size_bytes) ||
	    !cJSON_AddNumberToObject(o, "depth", b->queue_depth) ||
	    !cJSON_AddNumberToObject(o, "iterations", (double)b->iterations) ||
	    !cJSON_AddNumberToObject(o, "duration_ns",
				     (double)b->duration_ns) ||
	    !cJSON_AddNumberToObject(o, "rate", (double)b->rate)) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

/* Member @key of @obj, when present, within @min..@max into *@out; left
 * alone when absent. Return: 0 or -EINVAL. */
static int opt_u64(const cJSON *obj, const char *key, uint64_t min,
		   uint64_t max, uint64_t *out)
{
	if (!cJSON_GetObjectItemCaseSensitive(obj, key))
		return 0;
	return rp_json_u64(obj, key, max, out) || *out < min ? -EINVAL : 0;
}

int rp_proto_start_decode(const cJSON *obj, const struct rp_start_bounds *lim,
			  struct rp_start_body *out, char *err, size_t errlen)
{
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(obj, "phase");
	struct rp_start_body b = { .size_bytes = lim->size_bytes };
	uint64_t depth = lim->queue_depth;

	if (!cJSON_IsString(name) ||
	    rp_phase_parse(name->valuestring, &b.phase)) {
		rp_spec_errf(err, errlen, "START without a phase");
		return -EBADMSG;
	}
	if (opt_u64(obj, "size", 1, lim->size_bytes, &b.size_bytes) ||
	    opt_u64(obj, "depth", 1, lim->queue_depth, &depth) ||
	    opt_u64(obj, "iterations", 0, RP_SPEC_MAX_ITERS, &b.iterations) ||
	    opt_u64(obj, "duration_ns", 0, lim->max_duration_ns,
		    &b.duration_ns))
		return rp_spec_errf(err, errlen,
				    "START: size 1 to %llu, depth 1 to %u, "
				    "iterations and duration_ns within the "
				    "spec's limits",
				    (unsigned long long)lim->size_bytes,
				    lim->queue_depth);
	if (opt_u64(obj, "rate", 0, RP_SPEC_MAX_RATE, &b.rate))
		return rp_spec_errf(err, errlen,
				    "START: rate 0 to 4e9 operations/s");
	if (lim->atomic && b.size_bytes != 8)
		return rp_spec_errf(err, errlen,
				    "START: atomics move exactly 8 bytes");
	b.queue_depth = (uint32_t)depth;
	*out = b;
	return 0;
}

/* ---- STOP ------------------------------------------------------------ */

static bool add_sent(cJSON *o, const struct rp_stop_body *b)
{
	cJSON *arr = cJSON_AddArrayToObject(o, "sent");
	unsigned int i;

	for (i = 0; arr && i < b->n_sent; i++)
		if (!cJSON_AddItemToArray(
			    arr, cJSON_CreateNumber((double)b->sent[i])))
			return false;
	return arr != NULL;
}

cJSON *rp_proto_stop_encode(const struct rp_stop_body *b)
{
	cJSON *o = cJSON_CreateObject();

	if (!o ||
	    !cJSON_AddStringToObject(o, "phase", rp_phase_name(b->phase)) ||
	    (b->abort && !cJSON_AddTrueToObject(o, "abort")) ||
	    (b->has_sent && !add_sent(o, b))) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

/* One of "sent"'s counts: a whole number in [0, 2^53], else 0. */
static uint64_t sent_count(const cJSON *item)
{
	double v = cJSON_GetNumberValue(item); /* NaN when not a number */

	if (v >= 0 && v <= RP_JSON_MAX_EXACT && v == (double)(uint64_t)v)
		return (uint64_t)v;
	return 0;
}

int rp_proto_stop_decode(const cJSON *obj, unsigned int n_streams,
			 uint64_t *sent, struct rp_stop_body *out, char *err,
			 size_t errlen)
{
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(obj, "phase");
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(obj, "sent");
	unsigned int i;

	if (!cJSON_IsObject(obj)) {
		rp_spec_errf(err, errlen, "STOP: not an object");
		return -EBADMSG;
	}
	*out = (struct rp_stop_body){ .phase = RP_PHASE__COUNT, .sent = sent };
	if (cJSON_IsString(name) &&
	    rp_phase_parse(name->valuestring, &out->phase))
		out->phase = RP_PHASE__COUNT;
	out->abort =
		cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(obj, "abort"));
	out->has_sent =
		cJSON_IsArray(arr) && cJSON_GetArraySize(arr) == (int)n_streams;
	out->n_sent = out->has_sent ? n_streams : 0;
	for (i = 0; i < n_streams; i++)
		sent[i] = out->has_sent
				  ? sent_count(cJSON_GetArrayItem(arr, (int)i))
				  : 0;
	return 0;
}

/* ---- DONE ------------------------------------------------------------ */

static bool add_copy(cJSON *o, const char *key, const cJSON *item)
{
	cJSON *copy = cJSON_Duplicate(item, 1);

	if (copy && cJSON_AddItemToObject(o, key, copy))
		return true;
	cJSON_Delete(copy);
	return false;
}

static bool add_cpu(cJSON *o, const struct rp_cpu_usage *u)
{
	cJSON *c = cJSON_AddObjectToObject(o, "cpu");

	return c && !rp_cpu_usage_to_json(u, c);
}

static bool add_zc(cJSON *o, const struct rp_zc_count *zc)
{
	cJSON *z = rp_zc_to_json(zc);

	if (z && cJSON_AddItemToObject(o, "zerocopy", z))
		return true;
	cJSON_Delete(z);
	return false;
}

cJSON *rp_proto_done_encode(const struct rp_done_body *b)
{
	cJSON *o = cJSON_CreateObject();

	if (!o || (b->direction && !add_copy(o, "direction", b->direction)) ||
	    !cJSON_AddNumberToObject(o, "messages", (double)b->messages) ||
	    !cJSON_AddNumberToObject(o, "bytes", (double)b->bytes) ||
	    !cJSON_AddNumberToObject(o, "verify_errors",
				     (double)b->verify_errors) ||
	    (b->has_srq &&
	     !cJSON_AddNumberToObject(o, "srq_limit_events",
				      (double)b->srq_limit_events)) ||
	    (b->has_zc && !add_zc(o, &b->zc)) || !add_cpu(o, &b->cpu) ||
	    (b->counters && !add_copy(o, "counters", b->counters))) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

int rp_proto_done_decode(const cJSON *obj, struct rp_done_body *out, char *err,
			 size_t errlen)
{
	const cJSON *zc = cJSON_GetObjectItemCaseSensitive(obj, "zerocopy");
	const cJSON *dir = cJSON_GetObjectItemCaseSensitive(obj, "direction");
	const cJSON *cn = cJSON_GetObjectItemCaseSensitive(obj, "counters");

	if (!cJSON_IsObject(obj)) {
		rp_spec_errf(err, errlen, "DONE: not an object");
		return -EBADMSG;
	}
	memset(out, 0, sizeof(*out));
	out->messages = rp_json_u64_or(obj, "messages", 0);
	out->bytes = rp_json_u64_or(obj, "bytes", 0);
	out->verify_errors = rp_json_u64_or(obj, "verify_errors", 0);
	out->has_srq = cJSON_IsNumber(
		cJSON_GetObjectItemCaseSensitive(obj, "srq_limit_events"));
	out->srq_limit_events = rp_json_u64_or(obj, "srq_limit_events", 0);
	out->has_zc = cJSON_IsObject(zc);
	rp_zc_from_json(zc, &out->zc);
	rp_cpu_usage_from_json(cJSON_GetObjectItemCaseSensitive(obj, "cpu"),
			       &out->cpu);
	out->direction = cJSON_IsObject(dir) ? dir : NULL;
	out->counters = cJSON_IsObject(cn) ? cn : NULL;
	return 0;
}
