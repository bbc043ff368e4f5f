/* SPDX-License-Identifier: MIT */
/*
 * Traffic patterns of --matrix --pattern: which flows (client -> server,
 * the client the initiator) run at once, round by round, among N ranks.
 * Unlike the all-pairs plan (core/plan.h), a rank may be in several flows
 * of a round: N senders into one receiver (incast), one sender into N
 * receivers, every ordered pair at once (all-to-all), the two halves
 * paired across (bisection), or rounds read from a pattern file.
 */
#ifndef RP_CORE_PATTERN_H
#define RP_CORE_PATTERN_H

#include <stddef.h>
#include <stdint.h>

#include "core/plan.h"

#define RP_PATTERN_PATH_LEN 256
/* a pattern's flows at most (all-to-all of 64 ranks is 4032) */
#define RP_PATTERN_MAX_FLOWS 65536

enum rp_pattern_kind {
	RP_PATTERN_NONE, /* the all-pairs matrix */
	RP_PATTERN_INCAST,
	RP_PATTERN_ONE_TO_MANY,
	RP_PATTERN_ALL_TO_ALL,
	RP_PATTERN_BISECTION,
	RP_PATTERN_FILE,
};

struct rp_pattern {
	enum rp_pattern_kind kind;
	uint32_t n; /* incast:N, one-to-many:N */
	char path[RP_PATTERN_PATH_LEN];
};

/**
 * rp_pattern_parse - @s (incast:N, one-to-many:N, all-to-all, bisection,
 * file:PATH) into @p. Return: 0, or -EINVAL with the reason in @why.
 */
int rp_pattern_parse(const char *s, struct rp_pattern *p, char *why,
		     size_t len);

/** rp_pattern_name - @p as rp_pattern_parse() takes it, into @buf. */
void rp_pattern_name(const struct rp_pattern *p, char *buf, size_t len);

/**
 * rp_pattern_plan - @p's rounds among @ranks ranks into @out (free with
 * rp_plan_free()): incast:N, rank r the receiver of round r, ranks r+1 ..
 * r+N (mod ranks) its senders; one-to-many:N the other way; all-to-all,
 * one round of every ordered pair; bisection, rank i -> i + ranks/2 in
 * round 0 and back in round 1 (with an odd count the last rank sits
 * out). A file pattern's rounds come from @text (rp_pattern_plan_text).
 * Return: 0, -EINVAL (a pattern these ranks cannot run) with @why, or
 * -ENOMEM.
 */
int rp_pattern_plan(const struct rp_pattern *p, uint32_t ranks,
		    const char *text, struct rp_plan *out, char *why,
		    size_t len);

/**
 * rp_pattern_plan_text - a pattern file's rounds: a line a round, its
 * flows "C->S" apart by spaces or commas, '#' to the end of a line a
 * comment, blank lines none. A rank beyond @ranks, a flow from a rank to
 * itself, the same flow twice in a round or a line that is not flows is
 * refused, naming its line. Return: 0, -EINVAL with @why, -ENOMEM.
 */
int rp_pattern_plan_text(const char *text, uint32_t ranks, struct rp_plan *out,
			 char *why, size_t len);

/** rp_plan_most_served - the most flows into one rank in any round of
 *  @p: the tests its server must run at once. */
uint32_t rp_plan_most_served(const struct rp_plan *p);

#endif
