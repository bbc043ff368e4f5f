/* SPDX-License-Identifier: MIT */
/*
 * Intervals (-i) without a lock on the hot path. Each initiator stream has
 * a ticker of two slots: its engine thread fills one (a histogram and a
 * count) and, at each interval's boundary, hands it over with one release
 * store and goes on in the other, which the sampler emptied meanwhile. If
 * the sampler has not emptied it yet, the thread keeps filling the slot it
 * has: that interval lasts longer and its slot says so. When its phase
 * ends the thread leaves its last slot, partly filled, for the sampler.
 *
 * The sampler (the client's main thread, which otherwise waits for the
 * crew) gathers interval k of every stream, merges, and hands it on.
 */
#ifndef RP_RUN_TICKER_H
#define RP_RUN_TICKER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "core/hist.h"
#include "platform/sock.h"

struct rp_result;
struct rp_interval;

struct rp_tick_slot {
	struct rp_hist *hist;
	uint64_t messages;
	uint64_t start_ns, end_ns;
};

/** One stream's ticker: the slots and who owns which. */
struct rp_ticker {
	struct rp_tick_slot slot[2]; /* interval k is in slot k % 2 */
	uint64_t interval_ns;
	uint64_t next_ns; /* the engine thread's next boundary */
	uint64_t end_ns;  /* past it (time mode): one last interval */
	unsigned int cur; /* the slot the engine thread fills */
	atomic_uint_least64_t published; /* slots handed over */
	atomic_uint_least64_t taken;	 /* slots the sampler emptied */
	atomic_int finished;		 /* the thread let go of every slot */
};

/** rp_ticker_init - two empty slots. Return: 0 or -ENOMEM. */
int rp_ticker_init(struct rp_ticker *t);

/** rp_ticker_fini - free the slots; a zeroed ticker is accepted. */
void rp_ticker_fini(struct rp_ticker *t);

/** rp_ticker_arm - before the phase: interval 0 begins at @t0_ns; from
 *  @end_ns on (0: none) the phase is draining, and what completes then
 *  belongs to the interval that was running, not to a sliver of its own. */
void rp_ticker_arm(struct rp_ticker *t, uint64_t t0_ns, uint64_t interval_ns,
		   uint64_t end_ns);

/** rp_ticker_record - the engine thread: one completion of latency @ns. */
static inline void rp_ticker_record(struct rp_ticker *t, uint64_t ns)
{
	struct rp_tick_slot *s = &t->slot[t->cur];

	rp_hist_record(s->hist, ns);
	s->messages++;
}

/** rp_ticker_turn_slow - rp_ticker_tick() past a boundary. */
void rp_ticker_turn_slow(struct rp_ticker *t, uint64_t now);

/** rp_ticker_tick - the engine thread, at each clock read: hand over the
 *  slot when a boundary has passed. */
static inline void rp_ticker_tick(struct rp_ticker *t, uint64_t now)
{
	if (now >= t->next_ns)
		rp_ticker_turn_slow(t, now);
}

/** rp_ticker_finish - the engine thread, at the phase's end: its last slot
 *  ends @now and is the sampler's. */
void rp_ticker_finish(struct rp_ticker *t, uint64_t now);

/** What the sampler hands on, once per interval. */
struct rp_sampler_sink {
	/* -i: append each interval to the result (r->intervals) */
	bool keep;
	/* may be NULL; @iv is valid during the call only */
	void (*interval)(void *ctx, const struct rp_result *r,
			 const struct rp_interval *iv);
	void *ctx;
	/* between intervals, watch @watch_fd (the control connection;
	 * RP_SOCK_INVALID: none): input there during a phase is the peer ending
	 * it, and sets *@abort */
	rp_sock_t watch_fd;
	atomic_int *abort;
	/* may be NULL: the link counters' deltas since the last call, as
	 * JSON (the caller owns them), or NULL; read as each interval is
	 * gathered, into its counters */
	cJSON *(*counters)(void *ctx);
	void *counters_ctx;
};

/**
 * rp_sampler_run - gather the intervals of the @n tickers of @t (stream i
 * driven by thread i % @threads, messages of @size bytes) until every one
 * has finished; each interval goes to @sink, and into @r when sink->keep.
 * @t0_ns: when the phase began (rp_ticker_arm's).
 * Return: 0 or -ENOMEM (the figures of the run are not affected).
 */
int rp_sampler_run(struct rp_ticker *t, unsigned int n, unsigned int threads,
		   uint64_t size, uint64_t t0_ns, struct rp_result *r,
		   const struct rp_sampler_sink *sink);

/**
 * rp_watch_peer - wait @ms, watching @fd (the control connection,
 * RP_SOCK_INVALID: none) for input, which during a phase means the peer ended
 * it: then set *@abort (the engines stop at once).
 */
void rp_watch_peer(rp_sock_t fd, atomic_int *abort, int ms);

/** rp_interval_range - @r's lowest and highest interval throughput among
 *  the intervals at least half r->interval_s long. */
void rp_interval_range(struct rp_result *r);

#endif
