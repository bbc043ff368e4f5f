/* SPDX-License-Identifier: MIT */
/*
 * What the user sees while a client runs: interval lines (text or JSON
 * lines on stdout), the JSON stream's start, point and result lines, and
 * the progress line on a terminal's stderr. An observer of run/ (struct
 * rp_observer), on the client's main thread.
 */
#ifndef RP_CLI_LIVE_H
#define RP_CLI_LIVE_H

#include <stdatomic.h>
#include <stdint.h>

#include "run/run.h"

struct rp_live {
	const struct rp_config *cfg;
	struct rp_observer obs;
	size_t transport;	/* the transport being run, 0.. */
	size_t point, of;	/* its point, of how many */
	uint64_t t0_ns;		/* the run began */
	bool shown;		/* the progress line is on the screen */
	char label[96];		/* the point: "tcp write 64 KiB q16" */
	atomic_int *stop;	/* set when stdout is lost: the run ends */
	int lost;		/* -errno: the first live line stdout lost; 0 */
	uint32_t round, rounds; /* --repeat: the round being run, of */
};

/** rp_live_init - the observer @cfg asks for; cfg->obs is set to it when
 *  there is anything to see live, else left NULL. A live line that stdout
 *  loses (a full disk, a closed pipe) sets @stop, which ends the run, and
 *  l->lost: no line comes after it. */
void rp_live_init(struct rp_live *l, struct rp_config *cfg, atomic_int *stop);

/** rp_live_begin - the run begins (--json-stream: the start line). */
void rp_live_begin(struct rp_live *l);

/** rp_live_transport - transport @i of the run begins. */
void rp_live_transport(struct rp_live *l, size_t i);

/** rp_live_clear - take the progress line off the screen, before other
 *  output on stderr or at the end. */
void rp_live_clear(struct rp_live *l);

/** rp_live_typed - @o's members after "type": @type, as a new object;
 *  @o freed. Return: NULL on no memory. */
cJSON *rp_live_typed(const char *type, cJSON *o);

/** rp_live_json_line - @o as one line on stdout, flushed; @o freed.
 *  Return: 0, or -errno: the line did not arrive (-ENOMEM: no @o). */
int rp_live_json_line(cJSON *o);

#endif
