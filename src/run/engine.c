// SPDX-License-Identifier: MIT
/*
 * The client's measuring loops. Between the first post and the last
 * completion: no allocation, no lock, no output, no system call beyond the
 * transport's own; one clock read per turn of the loop, shared by the posts
 * and the completions of that turn.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "platform/clock.h"
#include "run/engine.h"
#include "run/run.h"
#include "run/ticker.h"

#define SLEEP_MIN_NS (50 * 1000ULL) /* --wait event: shorter waits spin */
/* A transport whose operations complete in any order (poll_seqs): an
 * operation may be posted while one this many depths older is still out. */
#define UNORDERED_WINDOW 4

int rp_streams_set_point(struct rp_stream *const *s, unsigned int n,
			 uint64_t size_bytes, uint32_t depth,
			 struct rp_stream **failed)
{
	unsigned int i;
	int err;

	if (!n || (s[0]->spec.size_bytes == size_bytes &&
		   s[0]->spec.queue_depth == depth))
		return 0;
	for (i = 0; i < n; i++) {
		err = s[i]->ops->set_point(s[i], size_bytes, depth);
		if (err) {
			*failed = s[i];
			return err;
		}
	}
	return 0;
}

void rp_streams_zerocopy(struct rp_stream *const *s, unsigned int n,
			 struct rp_zc_count *out)
{
	struct rp_zc_count one;
	unsigned int i;

	*out = (struct rp_zc_count){ 0 };
	for (i = 0; i < n && s[i]->ops->zerocopy; i++) {
		s[i]->ops->zerocopy(s[i], &one);
		rp_zc_add(out, &one);
	}
}

struct bw_state {
	struct rp_engine_stream *es;
	uint64_t *post_ns; /* post time of op seq, at seq % window */
	uint32_t depth;
	uint32_t window; /* depth; UNORDERED_WINDOW depths when unordered */
	/* unordered (ops->poll_seqs): what poll_seqs reported, which of the
	 * window completed, and the oldest operation still out */
	uint64_t *seqs;
	uint8_t *fin;
	uint64_t oldest;
	uint32_t signal; /* operations per signaled completion */
	uint64_t target; /* operations to complete; UINT64_MAX: until end */
	uint64_t posted;
	uint64_t done;
	uint64_t last_progress_ns;
	bool ending; /* no more posts beyond target */
	/* open loop (--rate): op k's intended start is t0 + k * period */
	double period; /* ns; 0: closed loop */
	uint64_t t0;
	uint64_t blocked; /* ops below this were due while the queue was full */
};

/* The streams of one engine and the phase's limits. */
struct bw_run {
	struct bw_state *b;
	unsigned int n;
	unsigned int active; /* streams not done yet */
	uint64_t end_ns;     /* time mode: stop posting then; 0: count */
	const struct rp_engine_opts *o;
	struct pollfd *pfd; /* --wait event: one per stream */
};

double rp_engine_period_ns(uint64_t rate, unsigned int streams)
{
	return rate ? (double)streams * 1e9 / (double)rate : 0;
}

static uint64_t stall_ns(const struct rp_engine_opts *o)
{
	return o->stall_ns ? o->stall_ns : RP_STALL_TIMEOUT_NS;
}

static uint64_t now_ns(const struct rp_engine_opts *o)
{
	return o->clock ? o->clock() : rp_clock_ns();
}

static bool interrupted(const struct rp_engine_opts *o)
{
	return o->intr && atomic_load_explicit(o->intr, memory_order_relaxed);
}

/* Open loop: how many operations are due by @now. */
static uint64_t sched_due(const struct bw_state *b, uint64_t now)
{
	uint64_t due;

	if (now < b->t0)
		return 0;
	due = (uint64_t)((double)(now - b->t0) / b->period) + 1;
	return due < b->target ? due : b->target;
}

static uint64_t sched_at(const struct bw_state *b, uint64_t seq)
{
	return b->t0 + (uint64_t)((double)seq * b->period);
}

/* Open loop: of the operations the queue has room for (up to @end), those
 * due; count the ones that had to wait for room. */
static uint64_t sched_limit(struct bw_state *b, uint64_t end, uint64_t now)
{
	struct rp_phase_out *out = &b->es->out;
	uint64_t due = sched_due(b, now);

	if (b->blocked > b->posted)
		out->backlogged +=
			(b->blocked < end ? b->blocked : end) - b->posted;
	if (due <= end)
		return due;
	if (due - end > out->max_backlog)
		out->max_backlog = due - end;
	b->blocked = due;
	return end;
}

static int bw_post(struct bw_state *b, uint64_t now)
{
	uint64_t end = b->done + b->depth, i, room;

	if (end > b->target)
		end = b->target;
	if (b->seqs && end > b->oldest + b->window)
		end = b->oldest + b->window; /* the oldest holds its slot */
	if (b->period)
		end = sched_limit(b, end, now);
	if (end <= b->posted)
		return 0;
	room = end - b->posted;
	for (i = b->posted; i < end; i++)
		b->post_ns[i % b->window] = now;
	b->posted = end;
	/* the last of a batch is signaled when no post may follow it soon:
	 * the phase's last operations, and every batch of the open loop */
	return b->es->s->ops->post(b->es->s, end - room, (uint32_t)room,
				   b->period || end == b->target);
}

/* Unordered: @seq is done; the oldest moves past every done one. */
static void bw_retire(struct bw_state *b, uint64_t seq)
{
	b->fin[seq % b->window] = 1;
	while (b->oldest < b->posted && b->fin[b->oldest % b->window])
		b->fin[b->oldest++ % b->window] = 0;
}

/* The @n operations that completed: each timed from its own post (and,
 * in the open loop, from its intended start too). */
static void bw_complete(struct bw_state *b, int n, uint64_t now)
{
	struct rp_hist *h = b->es->hist;
	struct rp_ticker *t = b->es->tick;
	uint64_t ns, seq, at;
	int i;

	for (i = 0; i < n; i++) {
		seq = b->seqs ? b->seqs[i] : b->done + (uint64_t)i;
		ns = now - b->post_ns[seq % b->window];
		if (h)
			rp_hist_record(h, ns);
		if (t)
			rp_ticker_record(t, ns);
		if (b->period && b->es->corr) {
			at = sched_at(b, seq);
			rp_hist_record(b->es->corr, now > at ? now - at : 0);
		}
		if (b->seqs)
			bw_retire(b, seq);
	}
	b->done += (uint64_t)n;
	b->last_progress_ns = now;
	b->es->out.last_done_ns = now;
}

/* Time mode over, or interrupted: post no more (the open loop counts what
 * was due and never went out), let what is in flight finish. The closed
 * loop first completes its run of unsignaled operations (--signal). */
static void bw_maybe_end(struct bw_run *r, struct bw_state *b, uint64_t now)
{
	uint64_t last;

	if (b->ending ||
	    !((r->end_ns && now >= r->end_ns) || interrupted(r->o)))
		return;
	b->ending = true;
	if (b->period) {
		last = sched_due(b, r->end_ns && r->end_ns < now ? r->end_ns
								 : now);
		b->es->out.unsent = last > b->posted ? last - b->posted : 0;
		b->target = b->posted;
		return;
	}
	last = (b->posted + b->signal - 1) / b->signal * b->signal;
	b->target = last < b->target ? last : b->target;
}

/* One turn on one stream: post what fits, reap what completed. Return:
 * how many completed, or -errno. */
static int bw_turn(struct bw_run *r, struct bw_state *b, uint64_t *now)
{
	struct rp_stream *s = b->es->s;
	int n = bw_post(b, *now);

	if (n < 0)
		return n;
	n = b->seqs ? s->ops->poll_seqs(s, b->seqs, b->depth) : s->ops->poll(s);
	if (n < 0)
		return n;
	*now = now_ns(r->o);
	if (b->es->tick)
		rp_ticker_tick(b->es->tick, *now);
	if (n > 0)
		bw_complete(b, n, *now);
	else if (b->posted == b->done) /* the open loop's idle time */
		b->last_progress_ns = *now;
	else if (*now - b->last_progress_ns > stall_ns(r->o))
		return rp_stream_fail(s, -ETIMEDOUT,
				      "no operation completed for %.3g s",
				      (double)stall_ns(r->o) / 1e9);
	bw_maybe_end(r, b, *now);
	if (b->done >= b->target)
		r->active--;
	return n;
}

/* When the engine must be awake again: the phase's end, the next intended
 * start of an open loop, at most 100 ms from @now. */
static uint64_t bw_wake(const struct bw_run *r, uint64_t now)
{
	uint64_t wake = now + 100 * RP_NS_PER_MS, at;
	unsigned int i;

	if (r->end_ns && r->end_ns < wake)
		wake = r->end_ns > now ? r->end_ns : now;
	for (i = 0; r->b[0].period && i < r->n; i++) {
		if (r->b[i].posted >= r->b[i].target)
			continue;
		at = sched_at(&r->b[i], r->b[i].posted);
		wake = at < wake ? (at > now ? at : now) : wake;
	}
	return wake;
}

/* --wait event, nothing moved: arm every stream still going, then sleep
 * until one has progress, the phase's end, the next intended start or a
 * stall check is due (under SLEEP_MIN_NS away: spin instead). */
static int bw_sleep(struct bw_run *r, uint64_t now)
{
	const struct rp_xport_ops *ops = r->b[0].es->s->ops;
	uint64_t ns = bw_wake(r, now) - now;
	rp_nfds_t k = 0;
	unsigned int i;
	int ret;

	/* a wake-up takes tens of microseconds: a shorter wait spins (rpoll
	 * counts milliseconds) */
	if (ns < SLEEP_MIN_NS || (ops->wait_poll && ns < RP_NS_PER_MS))
		return 0;
	for (i = 0; i < r->n; i++) {
		struct bw_state *b = &r->b[i];

		if (b->done >= b->target)
			continue;
		ret = ops->arm(b->es->s, &r->pfd[k].fd, &r->pfd[k].events);
		if (ret)
			return ret < 0 ? ret : 0; /* 1: poll again first */
		k++;
	}
	ret = ops->wait_poll
		      ? ops->wait_poll(r->pfd, k, (int)(ns / RP_NS_PER_MS))
		      : rp_poll_ns(r->pfd, k, ns);
	return ret < 0 && errno != EINTR ? -errno : 0;
}

/* Turns over every stream until all are done. */
static int bw_loop(struct bw_run *r, uint64_t now)
{
	bool event = r->b[0].es->s->spec.wait == RP_WAIT_EVENT;
	unsigned int i;
	int n, moved;

	while (r->active) {
		if (r->o->abort &&
		    atomic_load_explicit(r->o->abort, memory_order_relaxed))
			return rp_stream_fail(r->b[0].es->s, -ECONNABORTED,
					      "the server ended the phase");
		moved = 0;
		for (i = 0; i < r->n; i++) {
			if (r->b[i].done >= r->b[i].target)
				continue;
			n = bw_turn(r, &r->b[i], &now);
			if (n < 0)
				return n;
			moved += n;
		}
		if (event && !moved && r->active) {
			n = bw_sleep(r, now);
			if (n < 0)
				return rp_stream_fail(r->b[0].es->s, n,
						      "waiting for completions:"
						      " %s",
						      strerror(-n));
			now = now_ns(r->o);
		}
	}
	return 0;
}

/* The post times; for an unordered transport, a window of them. */
static int bw_alloc(struct bw_state *b, bool unordered)
{
	b->window = unordered ? UNORDERED_WINDOW * b->depth : b->depth;
	b->post_ns = calloc(b->window, sizeof(*b->post_ns));
	if (unordered) {
		b->seqs = calloc(b->depth, sizeof(*b->seqs));
		b->fin = calloc(b->window, sizeof(*b->fin));
	}
	return !b->post_ns || (unordered && (!b->seqs || !b->fin)) ? -ENOMEM
								   : 0;
}

static int bw_init(struct bw_run *r, struct rp_engine_stream *es,
		   unsigned int n, uint64_t now)
{
	const struct rp_engine_opts *o = r->o;
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct bw_state *b = &r->b[i];

		b->es = &es[i];
		b->depth = es[i].s->spec.queue_depth;
		b->signal = rp_spec_signal(&es[i].s->spec);
		b->target = o->iterations ? o->iterations : UINT64_MAX;
		b->last_progress_ns = now;
		b->period = o->period_ns;
		b->t0 = now + (uint64_t)(o->period_ns * i / n); /* staggered */
		if (bw_alloc(b, es[i].s->ops->poll_seqs != NULL))
			return -ENOMEM;
		es[i].out = (struct rp_phase_out){ .first_post_ns = now,
						   .last_done_ns = now };
		bw_maybe_end(r, b, now);
		if (b->done < b->target)
			r->active++;
	}
	return 0;
}

int rp_engine_bandwidth(struct rp_engine_stream *es, unsigned int n,
			const struct rp_engine_opts *o)
{
	struct bw_run r = { .n = n, .o = o };
	uint64_t now = now_ns(o);
	unsigned int i;
	int err = -ENOMEM;

	r.b = calloc(n, sizeof(*r.b));
	r.pfd = calloc(n, sizeof(*r.pfd));
	r.end_ns = o->duration_ns ? now + o->duration_ns : 0;
	if (r.b && r.pfd)
		err = bw_init(&r, es, n, now);
	if (!err)
		err = bw_loop(&r, now_ns(o));
	now = now_ns(o);
	for (i = 0; i < n; i++)
		if (es[i].tick)
			rp_ticker_finish(es[i].tick, now);
	for (i = 0; r.b && i < n; i++) {
		if (r.b[i].es)
			es[i].out.messages = r.b[i].done;
		free(r.b[i].post_ns);
		free(r.b[i].seqs);
		free(r.b[i].fin);
	}
	free(r.b);
	free(r.pfd);
	return err;
}

int rp_engine_latency(struct rp_engine_stream *es,
		      const struct rp_engine_opts *o)
{
	struct rp_stream *s = es->s;
	uint64_t i, t0, t1 = rp_clock_ns(), stall = stall_ns(o), answered = t1;
	struct rp_hist_stage stage;
	int err = 0;

	stage.n = 0;
	es->out.first_post_ns = t1;
	es->out.lost = 0;
	for (i = 0; i < o->iterations && !interrupted(o); i++) {
		t0 = rp_clock_ns();
		err = s->ops->ping(s, i, t0 + stall);
		if (err == RP_PING_LOST) { /* counted; lost for long: a stall */
			es->out.lost++;
			err = t0 - answered > stall ? -ETIMEDOUT : 0;
			if (err)
				break;
			continue;
		}
		if (err)
			break;
		t1 = answered = rp_clock_ns();
		if (es->hist)
			rp_hist_stage_put(&stage, es->hist, t1 - t0);
	}
	if (es->hist)
		rp_hist_stage_flush(&stage, es->hist);
	es->out.messages = i;
	es->out.last_done_ns = t1;
	if (err == -ETIMEDOUT)
		rp_stream_fail(s, err, "no answer to a ping for %.3g s",
			       (double)stall_ns(o) / 1e9);
	return err;
}
