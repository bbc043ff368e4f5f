/* SPDX-License-Identifier: MIT */
/*
 * A crew: the threads of one role on one side for one phase. Stream i goes
 * to thread i % threads; an initiator thread runs the engine over its
 * streams, a responder thread serves its streams until stopped. Each
 * thread owns its streams' histograms and counters; nothing is shared on
 * the hot path, the caller reads them after the join.
 */
#ifndef RP_RUN_CREW_H
#define RP_RUN_CREW_H

#include <stdbool.h>

#include "core/cpu.h"
#include "run/engine.h"
#include "run/run.h"

struct rp_crew;

/** How a crew runs. */
struct rp_crew_opts {
	enum rp_phase phase;
	struct rp_engine_opts eng; /* initiators */
	const int *cpus; /* thread k runs on cpus[(cpu_base + k) % n] */
	size_t n_cpus;	 /* 0: not pinned */
	unsigned int cpu_base;
};

/**
 * rp_crew_start - start @threads threads of @role over the @n streams of
 * @es (initiators: each es[i].hist records, es[i].out is filled at the
 * join; responders: st[i] counts stream i at the join).
 * Return: 0, or -errno (no thread left running).
 */
int rp_crew_start(struct rp_crew **out, enum rp_role role,
		  struct rp_engine_stream *es, struct rp_side_stats *st,
		  unsigned int n, unsigned int threads,
		  const struct rp_crew_opts *o);

/** rp_crew_stop - tell responders to finish (initiators end by
 *  themselves). */
void rp_crew_stop(struct rp_crew *c);

/** rp_crew_failed - true when a thread has already returned an error. */
bool rp_crew_failed(const struct rp_crew *c);

/** rp_crew_done - true when every thread has returned (join at once). */
bool rp_crew_done(const struct rp_crew *c);

/**
 * rp_crew_join - wait for every thread, copy the figures out, give each
 * thread's CPU time into @cpu (appended to cpu->threads) and free.
 * @failed: receives the stream that failed first, or NULL.
 * Return: 0, or the first thread's -errno.
 */
int rp_crew_join(struct rp_crew *c, struct rp_cpu_usage *cpu,
		 struct rp_stream **failed);

#endif
