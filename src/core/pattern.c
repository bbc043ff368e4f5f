// SPDX-License-Identifier: MIT
/* Traffic patterns of --matrix --pattern (pattern.h). */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/pattern.h"

static const char *const names[] = {
	[RP_PATTERN_NONE] = "pairs",
	[RP_PATTERN_INCAST] = "incast",
	[RP_PATTERN_ONE_TO_MANY] = "one-to-many",
	[RP_PATTERN_ALL_TO_ALL] = "all-to-all",
	[RP_PATTERN_BISECTION] = "bisection",
	[RP_PATTERN_FILE] = "file",
};

/* @s is @name, then ":" and the rest in *@arg, or exactly @name. */
static bool named(const char *s, const char *name, const char **arg)
{
	size_t n = strlen(name);

	if (strncmp(s, name, n))
		return false;
	*arg = s[n] == ':' ? s + n + 1 : NULL;
	return s[n] == ':' || !s[n];
}

int rp_pattern_parse(const char *s, struct rp_pattern *p, char *why, size_t len)
{
	const char *arg = NULL;
	char *end;
	unsigned long v;

	memset(p, 0, sizeof(*p));
	if (named(s, "incast", &arg) || named(s, "one-to-many", &arg)) {
		p->kind = s[0] == 'i' ? RP_PATTERN_INCAST
				      : RP_PATTERN_ONE_TO_MANY;
		errno = 0;
		v = arg && isdigit((unsigned char)*arg) ? strtoul(arg, &end, 10)
							: 0;
		if (!arg || !isdigit((unsigned char)*arg) || *end || errno ||
		    v < 1 || v > RP_PLAN_MAX_RANKS - 1) {
			snprintf(why, len,
				 "--pattern %s: give %s:N, N the flows of a "
				 "round, 1 to %d",
				 s, names[p->kind], RP_PLAN_MAX_RANKS - 1);
			return -EINVAL;
		}
		p->n = (uint32_t)v;
		return 0;
	}
	if (!strcmp(s, "all-to-all") || !strcmp(s, "bisection")) {
		p->kind = s[0] == 'a' ? RP_PATTERN_ALL_TO_ALL
				      : RP_PATTERN_BISECTION;
		return 0;
	}
	if (named(s, "file", &arg) && arg && *arg &&
	    strlen(arg) < sizeof(p->path)) {
		p->kind = RP_PATTERN_FILE;
		snprintf(p->path, sizeof(p->path), "%s", arg);
		return 0;
	}
	snprintf(why, len,
		 "--pattern '%s': one of incast:N, one-to-many:N, all-to-all, "
		 "bisection, file:PATH",
		 s);
	return -EINVAL;
}

void rp_pattern_name(const struct rp_pattern *p, char *buf, size_t len)
{
	if (p->kind == RP_PATTERN_INCAST || p->kind == RP_PATTERN_ONE_TO_MANY)
		snprintf(buf, len, "%s:%u", names[p->kind], p->n);
	else if (p->kind == RP_PATTERN_FILE)
		snprintf(buf, len, "file:%s", p->path);
	else
		snprintf(buf, len, "%s", names[p->kind]);
}

static int plan_alloc(struct rp_plan *out, uint32_t ranks, size_t n)
{
	memset(out, 0, sizeof(*out));
	out->ranks = ranks;
	out->pairs = calloc(n ? n : 1, sizeof(*out->pairs));
	return out->pairs ? 0 : -ENOMEM;
}

static void add(struct rp_plan *p, uint32_t c, uint32_t s, uint32_t round)
{
	p->pairs[p->n++] = (struct rp_pair){ c, s, round };
	if (round + 1 > p->rounds)
		p->rounds = round + 1;
}

/* incast:N (@in) or one-to-many:N: rank r the one end of round r, the N
 * ranks after it the others. */
static int fan(struct rp_plan *out, uint32_t ranks, uint32_t n, bool in)
{
	uint32_t r, k, o;
	int err = plan_alloc(out, ranks, (size_t)ranks * n);

	for (r = 0; !err && r < ranks; r++)
		for (k = 1; k <= n; k++) {
			o = (r + k) % ranks;
			add(out, in ? o : r, in ? r : o, r);
		}
	return err;
}

int rp_pattern_plan(const struct rp_pattern *p, uint32_t ranks,
		    const char *text, struct rp_plan *out, char *why,
		    size_t len)
{
	uint32_t i, j, h = ranks / 2;
	int err;

	if (ranks < 2 || ranks > RP_PLAN_MAX_RANKS) {
		snprintf(why, len, "a pattern needs 2 to %d ranks, not %u",
			 RP_PLAN_MAX_RANKS, ranks);
		return -EINVAL;
	}
	switch (p->kind) {
	case RP_PATTERN_INCAST:
	case RP_PATTERN_ONE_TO_MANY:
		if (p->n > ranks - 1) {
			snprintf(why, len,
				 "--pattern %s:%u needs %u ranks; this job "
				 "has %u",
				 names[p->kind], p->n, p->n + 1, ranks);
			return -EINVAL;
		}
		return fan(out, ranks, p->n, p->kind == RP_PATTERN_INCAST);
	case RP_PATTERN_ALL_TO_ALL:
		if ((size_t)ranks * (ranks - 1) > RP_PATTERN_MAX_FLOWS) {
			snprintf(why, len,
				 "--pattern all-to-all of %u ranks is %llu "
				 "flows at once, over %d",
				 ranks, (unsigned long long)ranks * (ranks - 1),
				 RP_PATTERN_MAX_FLOWS);
			return -EINVAL;
		}
		err = plan_alloc(out, ranks, (size_t)ranks * (ranks - 1));
		for (i = 0; !err && i < ranks; i++)
			for (j = 0; j < ranks; j++)
				if (i != j)
					add(out, i, j, 0);
		return err;
	case RP_PATTERN_BISECTION:
		err = plan_alloc(out, ranks, 2 * (size_t)h);
		for (i = 0; !err && i < h; i++)
			add(out, i, i + h, 0);
		for (i = 0; !err && i < h; i++)
			add(out, i + h, i, 1);
		return err;
	case RP_PATTERN_FILE:
		return rp_pattern_plan_text(text ? text : "", ranks, out, why,
					    len);
	case RP_PATTERN_NONE:
		break;
	}
	snprintf(why, len, "no pattern");
	return -EINVAL;
}

uint32_t rp_plan_most_served(const struct rp_plan *p)
{
	uint32_t *into = calloc(p->ranks ? p->ranks : 1, sizeof(*into));
	uint32_t most = 1, round = 0;
	size_t i, start = 0, k;

	if (!into)
		return RP_PLAN_MAX_RANKS; /* never too few */
	for (i = 0; i <= p->n; i++) {
		if (i == p->n || p->pairs[i].round != round) {
			for (k = start; k < i; k++)
				into[p->pairs[k].server] = 0;
			if (i == p->n)
				break;
			start = i;
			round = p->pairs[i].round;
		}
		if (p->pairs[i].server < p->ranks &&
		    ++into[p->pairs[i].server] > most)
			most = into[p->pairs[i].server];
	}
	free(into);
	return most;
}

static int cmp_pair(const void *a, const void *b)
{
	const struct rp_pair *x = a, *y = b;

	if (x->client != y->client)
		return x->client < y->client ? -1 : 1;
	return (x->server > y->server) - (x->server < y->server);
}

/* "C->S" at *@s into @c and @s's end; false when it is not one. */
static bool flow_at(const char **s, unsigned long *c, unsigned long *srv)
{
	char *end;

	if (!isdigit((unsigned char)**s))
		return false;
	*c = strtoul(*s, &end, 10);
	if (end[0] != '-' || end[1] != '>' || !isdigit((unsigned char)end[2]))
		return false;
	*srv = strtoul(end + 2, &end, 10);
	*s = end;
	return !**s || **s == ',' || isspace((unsigned char)**s);
}

/* One line's flows into @out as round @round; @line for the errors. */
static int line_flows(const char *s, const char *stop, uint32_t ranks,
		      struct rp_plan *out, unsigned int line, char *why,
		      size_t len)
{
	size_t first = out->n, k;
	unsigned long c, srv;

	for (;;) {
		while (s < stop && (*s == ',' || isspace((unsigned char)*s)))
			s++;
		if (s >= stop || *s == '#')
			break;
		if (!flow_at(&s, &c, &srv) || s > stop) {
			snprintf(why, len,
				 "line %u: not a flow CLIENT->SERVER (0->1)",
				 line);
			return -EINVAL;
		}
		if (c >= ranks || srv >= ranks || c == srv) {
			snprintf(why, len,
				 "line %u: %lu->%lu: %s (ranks 0 to %u)", line,
				 c, srv,
				 c == srv ? "a rank to itself"
					  : "a rank beyond this job",
				 ranks - 1);
			return -EINVAL;
		}
		if (out->n >= RP_PATTERN_MAX_FLOWS) {
			snprintf(why, len, "line %u: over %d flows", line,
				 RP_PATTERN_MAX_FLOWS);
			return -EINVAL;
		}
		out->pairs[out->n++] =
			(struct rp_pair){ (uint32_t)c, (uint32_t)srv,
					  out->rounds };
	}
	if (out->n == first)
		return 0; /* a blank or comment line: no round */
	qsort(out->pairs + first, out->n - first, sizeof(*out->pairs),
	      cmp_pair);
	for (k = first + 1; k < out->n; k++)
		if (!cmp_pair(&out->pairs[k - 1], &out->pairs[k])) {
			snprintf(why, len, "line %u: %u->%u twice in a round",
				 line, out->pairs[k].client,
				 out->pairs[k].server);
			return -EINVAL;
		}
	out->rounds++;
	return 0;
}

int rp_pattern_plan_text(const char *text, uint32_t ranks, struct rp_plan *out,
			 char *why, size_t len)
{
	const char *s = text, *nl;
	unsigned int line = 0;
	int err = plan_alloc(out, ranks, RP_PATTERN_MAX_FLOWS);

	while (!err && *s) {
		nl = strchr(s, '\n');
		nl = nl ? nl : s + strlen(s);
		err = line_flows(s, nl, ranks, out, ++line, why, len);
		s = *nl ? nl + 1 : nl;
	}
	if (!err && !out->n) {
		snprintf(why, len, "no flow in it");
		err = -EINVAL;
	}
	if (err)
		rp_plan_free(out);
	return err;
}
