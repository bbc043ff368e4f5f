// SPDX-License-Identifier: MIT
/* The counters of a test's link around a phase or a point. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/counters.h"

/* The link's counters, read on the first stream (every stream runs on
 * one link), and each stream's own added up. A stream whose own cannot be
 * read is left out of the sum, both times alike, or its group is absent. */
static int snapshot(const struct rp_xport_ops *ops, struct rp_stream **s,
		    unsigned int n, struct rp_counters *out)
{
	unsigned int i;
	int err;

	if (!ops->counters || !n || !s[0])
		return -EOPNOTSUPP;
	err = ops->counters(s[0], out);
	for (i = 0; !err && ops->stream_counters && i < n; i++)
		if (s[i])
			(void)ops->stream_counters(s[i], out);
	return err;
}

void rp_counter_watch_start(struct rp_counter_watch *w,
			    const struct rp_xport_ops *ops,
			    struct rp_stream **s, unsigned int n)
{
	w->ok = !snapshot(ops, s, n, &w->before);
}

/* The delta since w->before; with @lap, what was read now becomes
 * w->before (a failed read ends the watch). */
static cJSON *watch_read(struct rp_counter_watch *w,
			 const struct rp_xport_ops *ops, struct rp_stream **s,
			 unsigned int n, bool lap)
{
	struct rp_counters *now, *d;
	cJSON *j = NULL;
	bool ok = false;

	if (!w->ok)
		return NULL;
	now = malloc(sizeof(*now));
	d = malloc(sizeof(*d));
	if (now && d && !snapshot(ops, s, n, now)) {
		rp_counters_delta(&w->before, now, d);
		j = rp_counters_json(d);
		if (lap) {
			w->before = *now;
			ok = true;
		}
	}
	w->ok = ok;
	free(now);
	free(d);
	return j;
}

cJSON *rp_counter_watch_end(struct rp_counter_watch *w,
			    const struct rp_xport_ops *ops,
			    struct rp_stream **s, unsigned int n)
{
	return watch_read(w, ops, s, n, false);
}

cJSON *rp_counter_watch_lap(struct rp_counter_watch *w,
			    const struct rp_xport_ops *ops,
			    struct rp_stream **s, unsigned int n)
{
	return watch_read(w, ops, s, n, true);
}

#define RP_COUNTER_EXACT 9007199254740992.0 /* 2^53: what a double holds */

/* The deltas of @j (rp_counters_json's form: "deltas" holds an object per
 * group, each counter by name) added into @c, name by name. */
static void add_deltas(struct rp_counters *c, const cJSON *j)
{
	const cJSON *deltas = cJSON_GetObjectItemCaseSensitive(j, "deltas");
	const cJSON *prov = cJSON_GetObjectItemCaseSensitive(j, "provider");
	const cJSON *g, *e;
	unsigned int i;

	if (cJSON_IsString(prov) && !c->provider[0])
		snprintf(c->provider, sizeof(c->provider), "%s",
			 prov->valuestring);
	cJSON_ArrayForEach(g, deltas)
	{
		if (!cJSON_IsObject(g) || !g->string)
			continue;
		cJSON_ArrayForEach(e, g)
		{
			if (!cJSON_IsNumber(e) || !e->string ||
			    !(e->valuedouble >= 0) ||
			    !(e->valuedouble < RP_COUNTER_EXACT))
				continue;
			for (i = 0; i < c->n; i++)
				if (!strcmp(c->c[i].group, g->string) &&
				    !strcmp(c->c[i].name, e->string))
					break;
			if (i == c->n && c->n == RP_COUNTERS_MAX)
				continue;
			if (i == c->n) {
				snprintf(c->c[i].group, sizeof(c->c[i].group),
					 "%s", g->string);
				snprintf(c->c[i].name, sizeof(c->c[i].name),
					 "%s", e->string);
				c->c[c->n++].value = 0;
			}
			c->c[i].value += (uint64_t)e->valuedouble;
		}
	}
}

int rp_counters_json_add(cJSON **acc, const cJSON *more)
{
	struct rp_counters *c;
	cJSON *j;

	if (!cJSON_IsObject(more))
		return 0;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	add_deltas(c, *acc);
	add_deltas(c, more);
	j = rp_counters_json(c);
	free(c);
	if (!j)
		return -ENOMEM;
	cJSON_Delete(*acc);
	*acc = j;
	return 0;
}
