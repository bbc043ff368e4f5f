/* SPDX-License-Identifier: MIT */
/*
 * The initiator's phase loops (engine.c): post, poll and time operations
 * on the streams of one thread, closed or open loop.
 */
#ifndef RP_RUN_ENGINE_H
#define RP_RUN_ENGINE_H

#include <stdatomic.h>
#include <stdint.h>

#include "core/zc.h"
#include "xport/xport.h"

struct rp_hist;
struct rp_ticker;

/** What the initiator saw on one stream in one phase. */
struct rp_phase_out {
	uint64_t messages;
	uint64_t first_post_ns;
	uint64_t last_done_ns;
	/* Open loop (--rate) only: */
	uint64_t backlogged;  /* ops due while the queue was full */
	uint64_t max_backlog; /* most ops due and not yet posted at once */
	uint64_t unsent;      /* due before the phase's end, never posted */
	/* Latency phase: pings the transport said were lost (RP_PING_LOST:
	 * UD), among messages; they have no sample */
	uint64_t lost;
};

/** One stream an engine drives, and where its figures go. */
struct rp_engine_stream {
	struct rp_stream *s;
	struct rp_hist *hist;	/* one record per operation; may be NULL */
	struct rp_ticker *tick; /* -i: intervals (run/ticker.h); or NULL */
	/* --rate: each operation from its intended start on the schedule
	 * to its completion (coordinated omission corrected); or NULL */
	struct rp_hist *corr;
	struct rp_phase_out out;
};

/** How long and how one phase runs. */
struct rp_engine_opts {
	uint64_t iterations;	 /* operations per stream; 0: time mode */
	uint64_t duration_ns;	 /* time mode: post for this long */
	uint64_t stall_ns;	 /* no completion this long: -ETIMEDOUT;
				  * 0: RP_STALL_TIMEOUT_NS */
	const atomic_int *intr;	 /* set: post no more, let the rest finish */
	const atomic_int *abort; /* set: the peer ended the phase: stop at
				  * once (-ECONNABORTED), nothing to wait for */
	/* --rate: each stream's interval between intended starts, in ns
	 * (rp_engine_period_ns); 0: closed loop */
	double period_ns;
	/* the clock; NULL: rp_clock_ns (tests script time with their own) */
	uint64_t (*clock)(void);
};

/** rp_engine_period_ns - the interval of each of @streams streams that
 *  offer @rate operations per second together; 0 for rate 0. */
double rp_engine_period_ns(uint64_t rate, unsigned int streams);

/**
 * rp_engine_bandwidth - keep up to queue_depth operations posted on each of
 * the @n streams of @es (one transport, all initiators) until each
 * completed @o->iterations, or for @o->duration_ns; record each one's
 * completion latency in its stream's hist. Open loop (@o->period_ns):
 * stream i of the @n posts operation k at t0 + (i / n + k) * period
 * (staggered), or as soon after as its queue has room; each operation's
 * latency from that intended start goes to es[i].corr (wrk2's correction
 * of coordinated omission), its post-to-completion one to hist. Under --wait
 * event it sleeps in poll(2) over the streams' arm() descriptors when nothing
 * moved. Return: 0, -ETIMEDOUT when a stream saw nothing complete for the stall
 * time, or the transport's -errno (its reason in that stream's err).
 * Each es[i].out counts what completed.
 */
int rp_engine_bandwidth(struct rp_engine_stream *es, unsigned int n,
			const struct rp_engine_opts *o);

/**
 * rp_engine_latency - @o->iterations ping-pongs at depth 1 on @es->s, each
 * round trip time into @es->hist; each must finish within the stall time.
 * Return: 0 or -errno, as rp_engine_bandwidth().
 */
int rp_engine_latency(struct rp_engine_stream *es,
		      const struct rp_engine_opts *o);

/**
 * rp_streams_set_point - move the @n streams of one side to a point of the
 * sweep (rp_xport_ops.set_point), unless they are there already (their spec
 * says: both ends start at the test's largest point and move together).
 * Return: 0, or the transport's -errno with *@failed the stream whose err
 * holds the reason.
 */
int rp_streams_set_point(struct rp_stream *const *s, unsigned int n,
			 uint64_t size_bytes, uint32_t depth,
			 struct rp_stream **failed);

/**
 * rp_streams_zerocopy - the zero-copy sends (--zerocopy) of the @n streams
 * of one side over their lives, summed into *@out; all zero where the
 * transport has none.
 */
void rp_streams_zerocopy(struct rp_stream *const *s, unsigned int n,
			 struct rp_zc_count *out);

#endif
