// SPDX-License-Identifier: MIT
/*
 * The sampler's side of the tickers (ticker.h): interval k of every
 * stream, merged into one interval of the phase, handed to the sink.
 * It runs on the client's main thread while the crew measures; between
 * boundaries it sleeps.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "platform/clock.h"
#include "run/flow.h"
#include "run/ticker.h"

struct sampler {
	struct rp_ticker *t;
	unsigned int n, threads;
	uint64_t size, t0;
	struct rp_result *r;
	const struct rp_sampler_sink *sink;
	struct rp_hist *merged;
	struct rp_stream_result *ps; /* n: this interval's streams */
	uint64_t k;		     /* the interval being gathered */
	uint64_t lo, hi; /* its earliest start and latest end, any stream */
};

/* Where stream @t stands for interval @k: 1 its slot holds it, 0 not yet,
 * -1 it has ended before. */
static int slot_state(struct rp_ticker *t, uint64_t k)
{
	bool done = atomic_load_explicit(&t->finished, memory_order_acquire);
	uint64_t pub =
		atomic_load_explicit(&t->published, memory_order_acquire);

	if (!done)
		return pub > k ? 1 : 0;
	return pub >= k ? 1 : -1;
}

/* Take stream @i's slot of interval k into ps[i] (@has: it has one; if
 * not, it has ended and counts nothing), merge its latencies, give the
 * slot back. */
static void take(struct sampler *sm, unsigned int i, bool has)
{
	struct rp_ticker *t = &sm->t[i];
	struct rp_tick_slot *s = &t->slot[sm->k % 2];
	struct rp_flow *f = &sm->ps[i].flow;

	memset(&sm->ps[i], 0, sizeof(sm->ps[i]));
	sm->ps[i].stream = i;
	sm->ps[i].thread = sm->threads ? i % sm->threads : 0;
	if (!has)
		return;
	f->messages = s->messages;
	f->bytes = s->messages * sm->size;
	f->seconds = (double)(s->end_ns - s->start_ns) / 1e9;
	sm->lo = s->start_ns < sm->lo ? s->start_ns : sm->lo;
	sm->hi = s->end_ns > sm->hi ? s->end_ns : sm->hi;
	rp_flow_rates(f);
	f->has_latency = s->messages > 0;
	rp_hist_summarize(s->hist, &f->latency);
	rp_hist_merge(sm->merged, s->hist);
	rp_hist_reset(s->hist);
	s->messages = 0;
	if (atomic_load_explicit(&t->published, memory_order_relaxed) > sm->k)
		atomic_store_explicit(&t->taken, sm->k + 1,
				      memory_order_release);
}

/* Interval k from what take() copied (the slots are the threads' again). */
static void merge(struct sampler *sm, struct rp_interval *iv)
{
	uint64_t lo = sm->lo, hi = sm->hi;
	unsigned int i;

	memset(iv, 0, sizeof(*iv));
	iv->index = (uint32_t)sm->k;
	for (i = 0; i < sm->n; i++) {
		iv->flow.messages += sm->ps[i].flow.messages;
		iv->flow.bytes += sm->ps[i].flow.bytes;
	}
	iv->start = lo > sm->t0 && lo != UINT64_MAX
			    ? (double)(lo - sm->t0) / 1e9
			    : 0;
	iv->flow.seconds = hi > lo ? (double)(hi - lo) / 1e9 : 0;
	rp_flow_rates(&iv->flow);
	iv->flow.has_latency = iv->flow.messages > 0;
	rp_hist_summarize(sm->merged, &iv->flow.latency);
	if (sm->n > 1) {
		iv->n_streams = sm->n;
		iv->per_stream = sm->ps;
	}
}

/* Append @iv (with a copy of its streams) to the result. */
static int keep(struct rp_result *r, const struct rp_interval *iv)
{
	struct rp_interval *a;
	size_t bytes = iv->n_streams * sizeof(*iv->per_stream);

	a = realloc(r->intervals, (r->n_intervals + 1) * sizeof(*a));
	if (!a)
		return -ENOMEM;
	r->intervals = a;
	a[r->n_intervals] = *iv;
	if (iv->n_streams) {
		a[r->n_intervals].per_stream = malloc(bytes);
		if (!a[r->n_intervals].per_stream) {
			a[r->n_intervals].n_streams = 0;
			a[r->n_intervals].counters = NULL;
			r->n_intervals++;
			return -ENOMEM;
		}
		memcpy(a[r->n_intervals].per_stream, iv->per_stream, bytes);
	}
	r->n_intervals++;
	return 0;
}

/* Interval k, once every stream has it or has ended. Return: 1 gathered,
 * 0 not yet, -1 every stream has ended; *@err: a failure to keep it. */
static int gather(struct sampler *sm, int *state, int *err)
{
	struct rp_interval iv;
	unsigned int i, have = 0;
	bool kept;

	for (i = 0; i < sm->n; i++) {
		state[i] = slot_state(&sm->t[i], sm->k);
		if (!state[i])
			return 0;
		have += state[i] == 1;
	}
	if (!have)
		return -1;
	rp_hist_reset(sm->merged);
	sm->lo = UINT64_MAX;
	sm->hi = 0;
	for (i = 0; i < sm->n; i++)
		take(sm, i, state[i] == 1);
	merge(sm, &iv);
	iv.counters = sm->sink->counters
			      ? sm->sink->counters(sm->sink->counters_ctx)
			      : NULL;
	kept = sm->sink->keep && !keep(sm->r, &iv);
	if (sm->sink->keep && !kept)
		*err = -ENOMEM;
	if (sm->sink->interval)
		sm->sink->interval(sm->sink->ctx, sm->r, &iv);
	if (!kept)
		cJSON_Delete(iv.counters); /* else the result's */
	sm->k++;
	return 1;
}

/* Sleep until the next boundary, at most a tenth of a second at a time
 * (watching the control connection meanwhile); past it, in steps of a
 * millisecond while the streams' threads hand their slots over. */
static void nap(const struct sampler *sm)
{
	uint64_t due = sm->t0 + (sm->k + 1) * sm->t[0].interval_ns;
	uint64_t now = rp_clock_ns();
	uint64_t ms = due > now ? (due - now) / RP_NS_PER_MS : 1;

	rp_watch_peer(sm->sink->watch_fd, sm->sink->abort,
		      (int)(ms > 100 ? 100
			    : ms     ? ms
				     : 1));
}

int rp_sampler_run(struct rp_ticker *t, unsigned int n, unsigned int threads,
		   uint64_t size, uint64_t t0_ns, struct rp_result *r,
		   const struct rp_sampler_sink *sink)
{
	struct sampler sm = { .t = t,
			      .n = n,
			      .threads = threads,
			      .size = size,
			      .t0 = t0_ns,
			      .r = r,
			      .sink = sink };
	int *state = calloc(n, sizeof(*state));
	int err = 0, ret;

	sm.ps = calloc(n, sizeof(*sm.ps));
	/* Without memory nobody takes the slots: the threads keep filling
	 * theirs, the phase's own figures stand. */
	if (!state || !sm.ps || rp_hist_create(&sm.merged))
		err = -ENOMEM;
	while (n && sm.merged && state && sm.ps &&
	       (ret = gather(&sm, state, &err)) >= 0)
		if (!ret)
			nap(&sm);
	rp_hist_destroy(sm.merged);
	free(sm.ps);
	free(state);
	return err;
}

void rp_watch_peer(rp_sock_t fd, atomic_int *abort, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct timespec ts = { .tv_sec = ms / 1000,
			       .tv_nsec = (long)(ms % 1000) * 1000000L };

	if (!rp_sock_valid(fd) || !abort) {
		nanosleep(&ts, NULL);
		return;
	}
	if (rp_poll(&pfd, 1, ms) > 0) {
		atomic_store(abort, 1);
		nanosleep(&ts, NULL); /* no busy loop on a closed socket */
	}
}

void rp_interval_range(struct rp_result *r)
{
	uint32_t i;

	r->has_interval_range = false;
	for (i = 0; i < r->n_intervals; i++) {
		double bps = r->intervals[i].flow.bits_per_second;

		if (r->intervals[i].flow.seconds < r->interval_s / 2)
			continue;
		if (!r->has_interval_range || bps < r->interval_min_bps)
			r->interval_min_bps = bps;
		if (!r->has_interval_range || bps > r->interval_max_bps)
			r->interval_max_bps = bps;
		r->has_interval_range = true;
	}
}
