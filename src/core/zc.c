// SPDX-License-Identifier: MIT
/* Zero-copy send accounting: see zc.h. */
#include "core/zc.h"
#include "core/json.h"

uint64_t rp_zc_notified(struct rp_zc_count *c, uint32_t lo, uint32_t hi,
			bool copied)
{
	uint64_t n = (uint64_t)(uint32_t)(hi - lo) + 1;

	if (n > rp_zc_pending(c))
		n = rp_zc_pending(c);
	c->sends += n;
	if (copied)
		c->copied += n;
	return n;
}

void rp_zc_add(struct rp_zc_count *a, const struct rp_zc_count *b)
{
	a->issued += b->issued;
	a->sends += b->sends;
	a->copied += b->copied;
}

struct rp_zc_count rp_zc_sub(const struct rp_zc_count *a,
			     const struct rp_zc_count *b)
{
	struct rp_zc_count d = { a->issued - b->issued, a->sends - b->sends,
				 a->copied - b->copied };

	return d;
}

cJSON *rp_zc_to_json(const struct rp_zc_count *c)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	if (!cJSON_AddNumberToObject(o, "issued", (double)c->issued) ||
	    !cJSON_AddNumberToObject(o, "sends", (double)c->sends) ||
	    !cJSON_AddNumberToObject(o, "copied", (double)c->copied)) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

void rp_zc_from_json(const cJSON *o, struct rp_zc_count *c)
{
	c->issued = rp_json_u64_or(o, "issued", 0);
	c->sends = rp_json_u64_or(o, "sends", 0);
	c->copied = rp_json_u64_or(o, "copied", 0);
}
