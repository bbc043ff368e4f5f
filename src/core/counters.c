// SPDX-License-Identifier: MIT
/*
 * What a point's counter deltas say (core/counters.h): the deltas of two
 * snapshots, their JSON with the errors and congestion apart, their sums
 * and the text line; each name classified by counter_names.c's tables.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/counters.h"

static const struct rp_counter *find_counter(const struct rp_counters *c,
					     const struct rp_counter *like)
{
	unsigned int i;

	for (i = 0; i < c->n; i++)
		if (!strcmp(c->c[i].name, like->name) &&
		    !strcmp(c->c[i].group, like->group))
			return &c->c[i];
	return NULL;
}

void rp_counters_delta(const struct rp_counters *before,
		       const struct rp_counters *after,
		       struct rp_counters *delta)
{
	const struct rp_counter *b;
	unsigned int i;

	memset(delta, 0, sizeof(*delta));
	memcpy(delta->provider, after->provider, sizeof(delta->provider));
	for (i = 0; i < after->n && i < RP_COUNTERS_MAX; i++) {
		b = find_counter(before, &after->c[i]);
		if (!b)
			continue; /* appeared meanwhile: nothing to compare */
		delta->c[delta->n] = after->c[i];
		delta->c[delta->n].value =
			after->c[i].value >= b->value
				? after->c[i].value - b->value
				: 0; /* reset */
		delta->n++;
	}
}

void rp_counters_add(struct rp_counters *c, const char *group, const char *name,
		     uint64_t v)
{
	struct rp_counter like = { .value = v }, *x;

	if (strlen(name) >= sizeof(like.name) ||
	    strlen(group) >= sizeof(like.group))
		return;
	snprintf(like.name, sizeof(like.name), "%s", name);
	snprintf(like.group, sizeof(like.group), "%s", group);
	x = (struct rp_counter *)find_counter(c, &like);
	if (x)
		x->value += v;
	else if (c->n < RP_COUNTERS_MAX)
		c->c[c->n++] = like;
}

/* A counter of @group classified as its name says, unless it is the
 * host's TCP counters' and the test's own sockets' were read (@own). */
static enum rp_counter_class class_in(const char *provider, const char *group,
				      const char *name, bool own)
{
	if (own && !strcmp(group, "tcp"))
		return RP_COUNTER_INFO;
	return rp_counter_class(provider, name);
}

static bool add_num(cJSON *o, const char *key, uint64_t v)
{
	return cJSON_AddNumberToObject(o, key, (double)v) != NULL;
}

cJSON *rp_counters_json(const struct rp_counters *d)
{
	cJSON *o = cJSON_CreateObject(), *deltas = NULL, *errs = NULL;
	cJSON *cong = NULL, *g;
	uint64_t et = 0, ct = 0;
	unsigned int i;
	bool ok, own = false;

	if (!o)
		return NULL;
	ok = cJSON_AddStringToObject(o, "provider", d->provider) &&
	     (deltas = cJSON_AddObjectToObject(o, "deltas")) &&
	     (errs = cJSON_AddObjectToObject(o, "errors")) &&
	     (cong = cJSON_AddObjectToObject(o, "congestion"));
	for (i = 0; i < d->n; i++)
		own = own || !strcmp(d->c[i].group, RP_COUNTERS_SOCKET);
	for (i = 0; ok && i < d->n; i++) {
		const struct rp_counter *c = &d->c[i];
		enum rp_counter_class cls =
			class_in(d->provider, c->group, c->name, own);
		cJSON *to = cls == RP_COUNTER_ERROR	   ? errs
			    : cls == RP_COUNTER_CONGESTION ? cong
							   : NULL;

		g = cJSON_GetObjectItemCaseSensitive(deltas, c->group);
		if (!g)
			g = cJSON_AddObjectToObject(deltas, c->group);
		if (!g) {
			ok = false;
			break;
		}
		if (cJSON_GetObjectItemCaseSensitive(g, c->name))
			continue; /* a name twice in a group: the first holds */
		ok = add_num(g, c->name, c->value);
		if (!ok || !c->value || !to ||
		    cJSON_GetObjectItemCaseSensitive(to, c->name))
			continue;
		ok = add_num(to, c->name, c->value);
		if (cls == RP_COUNTER_ERROR)
			et += c->value;
		else
			ct += c->value;
	}
	if (ok)
		ok = add_num(o, "error_total", et) &&
		     add_num(o, "congestion_total", ct);
	if (!ok) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

/* A count a document holds: a whole number from 0 to 2^53, else 0. */
static uint64_t count_of(const cJSON *j)
{
	if (!cJSON_IsNumber(j) || !(j->valuedouble >= 0) ||
	    !(j->valuedouble <= 9007199254740992.0))
		return 0;
	return (uint64_t)j->valuedouble;
}

/* @j's sum (rp_counters_sum); with @socket_only, of its connections'
 * own counters alone. */
static void sum(const cJSON *j, bool socket_only, struct rp_counters_sum *out)
{
	const cJSON *prov = cJSON_GetObjectItemCaseSensitive(j, "provider");
	const cJSON *deltas = cJSON_GetObjectItemCaseSensitive(j, "deltas");
	const char *p = cJSON_IsString(prov) ? prov->valuestring : NULL;
	bool own = cJSON_GetObjectItemCaseSensitive(deltas,
						    RP_COUNTERS_SOCKET) != NULL;
	const cJSON *g, *e;

	memset(out, 0, sizeof(*out));
	if (!cJSON_IsObject(j))
		return;
	out->present = !socket_only || own;
	/* from the deltas, classified here: a document from another
	 * version's table is judged by this one's */
	cJSON_ArrayForEach(g, deltas)
	{
		if (!cJSON_IsObject(g))
			continue;
		cJSON_ArrayForEach(e, g)
		{
			uint64_t v = count_of(e);

			if (!e->string || !v || !g->string ||
			    (socket_only &&
			     strcmp(g->string, RP_COUNTERS_SOCKET)))
				continue;
			switch (class_in(p, g->string, e->string, own)) {
			case RP_COUNTER_ERROR:
				out->errors += v;
				break;
			case RP_COUNTER_CONGESTION:
				out->congestion += v;
				break;
			default:
				break;
			}
			if (rp_counter_is_retrans(p, e->string) &&
			    !(own && !strcmp(g->string, "tcp")))
				out->retrans += v;
		}
	}
}

void rp_counters_sum(const cJSON *j, struct rp_counters_sum *out)
{
	sum(j, false, out);
}

void rp_counters_sum_socket(const cJSON *j, struct rp_counters_sum *out)
{
	sum(j, true, out);
}

struct named {
	const char *name;
	uint64_t v;
};

static int by_value(const void *a, const void *b)
{
	const struct named *x = a, *y = b;

	if (x->v != y->v)
		return x->v < y->v ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* printf @fmt at @*off of @buf (@len): @*off moves on, at most to the end
 * (the text truncated there, always terminated). */
__attribute__((format(printf, 4, 5))) static void
append(char *buf, size_t len, size_t *off, const char *fmt, ...)
{
	va_list ap;
	int w;

	if (*off + 1 >= len)
		return;
	va_start(ap, fmt);
	w = vsnprintf(buf + *off, len - *off, fmt, ap);
	va_end(ap);
	if (w > 0)
		*off = *off + (size_t)w < len ? *off + (size_t)w : len - 1;
}

/* "N errors (a 8, b 4, ...)": the class @cls among @j's deltas, the
 * largest first, at most four named. */
static void class_part(const cJSON *j, enum rp_counter_class cls,
		       uint64_t total, const char *what, char *buf, size_t len,
		       size_t *off)
{
	const cJSON *prov = cJSON_GetObjectItemCaseSensitive(j, "provider");
	const cJSON *deltas = cJSON_GetObjectItemCaseSensitive(j, "deltas");
	const char *p = cJSON_IsString(prov) ? prov->valuestring : NULL;
	struct named top[RP_COUNTERS_MAX];
	bool own = cJSON_GetObjectItemCaseSensitive(deltas,
						    RP_COUNTERS_SOCKET) != NULL;
	const cJSON *g, *e;
	size_t n = 0, i;

	cJSON_ArrayForEach(g, deltas)
	{
		if (!cJSON_IsObject(g))
			continue;
		cJSON_ArrayForEach(e, g)
		{
			if (n < RP_COUNTERS_MAX && e->string && count_of(e) &&
			    g->string &&
			    class_in(p, g->string, e->string, own) == cls)
				top[n++] = (struct named){ e->string,
							   count_of(e) };
		}
	}
	qsort(top, n, sizeof(top[0]), by_value);
	append(buf, len, off, "%llu %s (", (unsigned long long)total, what);
	for (i = 0; i < n && i < 4; i++)
		append(buf, len, off, "%s%s %llu", i ? ", " : "", top[i].name,
		       (unsigned long long)top[i].v);
	append(buf, len, off, "%s)", n > 4 ? ", ..." : "");
}

void rp_counters_line(const cJSON *j, char *buf, size_t len)
{
	struct rp_counters_sum s;
	size_t off = 0;

	if (!len)
		return;
	buf[0] = '\0';
	rp_counters_sum(j, &s);
	if (!s.present) {
		append(buf, len, &off, "not read");
		return;
	}
	if (!s.errors && !s.congestion) {
		append(buf, len, &off, "clean");
		return;
	}
	append(buf, len, &off, "%s: ", s.errors ? "lossy" : "congested");
	if (s.errors)
		class_part(j, RP_COUNTER_ERROR, s.errors,
			   s.errors == 1 ? "error" : "errors", buf, len, &off);
	if (s.errors && s.congestion)
		append(buf, len, &off, ", ");
	if (s.congestion)
		class_part(j, RP_COUNTER_CONGESTION, s.congestion, "congestion",
			   buf, len, &off);
}
