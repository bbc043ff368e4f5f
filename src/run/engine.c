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

#include "core/clock.h"
#include "run/run.h"
#include "run/ticker.h"

static const char *const phase_names[RP_PHASE__COUNT] = {
	[RP_PHASE_WARMUP] = "warmup",
	[RP_PHASE_LATENCY] = "latency",
	[RP_PHASE_BANDWIDTH] = "bandwidth",
};

const char *rp_phase_name(enum rp_phase p)
{
	return p < RP_PHASE__COUNT ? phase_names[p] : "unknown";
}

int rp_phase_parse(const char *name, enum rp_phase *out)
{
	int p;

	for (p = 0; p < RP_PHASE__COUNT; p++) {
		if (name && strcmp(name, phase_names[p]) == 0) {
			*out = (enum rp_phase)p;
			return 0;
		}
	}
	return -EINVAL;
}

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

struct bw_state {
	struct rp_engine_stream *es;
	uint64_t *post_ns; /* post time of op seq, at seq % depth */
	uint32_t depth;
	uint64_t target; /* operations to complete; UINT64_MAX: until end */
	uint64_t posted;
	uint64_t done;
	uint64_t last_progress_ns;
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

static uint64_t stall_ns(const struct rp_engine_opts *o)
{
	return o->stall_ns ? o->stall_ns : RP_STALL_TIMEOUT_NS;
}

static bool interrupted(const struct rp_engine_opts *o)
{
	return o->intr && atomic_load_explicit(o->intr, memory_order_relaxed);
}

static int bw_post(struct bw_state *b, uint64_t now)
{
	uint64_t room = b->depth - (b->posted - b->done);
	uint64_t i;

	if (room > b->target - b->posted)
		room = b->target - b->posted;
	if (!room)
		return 0;
	for (i = 0; i < room; i++)
		b->post_ns[(b->posted + i) % b->depth] = now;
	b->posted += room;
	return b->es->s->ops->post(b->es->s, b->posted - room, (uint32_t)room);
}

static void bw_complete(struct bw_state *b, int n, uint64_t now)
{
	struct rp_hist *h = b->es->hist;
	struct rp_ticker *t = b->es->tick;
	uint64_t ns;
	int i;

	for (i = 0; i < n; i++, b->done++) {
		ns = now - b->post_ns[b->done % b->depth];
		if (h)
			rp_hist_record(h, ns);
		if (t)
			rp_ticker_record(t, ns);
	}
	b->last_progress_ns = now;
	b->es->out.last_done_ns = now;
}

/* Time mode, or interrupted: post no more, let what is in flight finish. */
static void bw_maybe_end(struct bw_run *r, struct bw_state *b, uint64_t now)
{
	if ((r->end_ns && now >= r->end_ns) || interrupted(r->o))
		b->target = b->posted;
}

/* One turn on one stream: post what fits, reap what completed. Return:
 * how many completed, or -errno. */
static int bw_turn(struct bw_run *r, struct bw_state *b, uint64_t *now)
{
	struct rp_stream *s = b->es->s;
	int n = bw_post(b, *now);

	if (n < 0)
		return n;
	n = s->ops->poll(s);
	if (n < 0)
		return n;
	*now = rp_clock_ns();
	if (b->es->tick)
		rp_ticker_tick(b->es->tick, *now);
	if (n > 0)
		bw_complete(b, n, *now);
	else if (*now - b->last_progress_ns > stall_ns(r->o))
		return rp_stream_fail(s, -ETIMEDOUT,
				      "no operation completed for %.3g s",
				      (double)stall_ns(r->o) / 1e9);
	bw_maybe_end(r, b, *now);
	if (b->done >= b->target)
		r->active--;
	return n;
}

/* --wait event, nothing moved: arm every stream still going, then sleep
 * until one has progress, the phase's end or a stall check is due. */
static int bw_sleep(struct bw_run *r, uint64_t now)
{
	const struct rp_xport_ops *ops = r->b[0].es->s->ops;
	uint64_t wake = now + 100 * RP_NS_PER_MS;
	rp_nfds_t k = 0;
	unsigned int i;
	int ret;

	for (i = 0; i < r->n; i++) {
		struct bw_state *b = &r->b[i];

		if (b->done >= b->target)
			continue;
		ret = ops->arm(b->es->s, &r->pfd[k].fd, &r->pfd[k].events);
		if (ret)
			return ret < 0 ? ret : 0; /* 1: poll again first */
		k++;
	}
	if (r->end_ns && r->end_ns > now && r->end_ns < wake)
		wake = r->end_ns;
	ret = (ops->wait_poll ? ops->wait_poll : rp_poll)(
		r->pfd, k,
		(int)((wake - now + RP_NS_PER_MS - 1) / RP_NS_PER_MS));
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
			now = rp_clock_ns();
		}
	}
	return 0;
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
		b->target = o->iterations ? o->iterations : UINT64_MAX;
		b->last_progress_ns = now;
		b->post_ns = calloc(b->depth, sizeof(*b->post_ns));
		if (!b->post_ns)
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
	uint64_t now = rp_clock_ns();
	unsigned int i;
	int err = -ENOMEM;

	r.b = calloc(n, sizeof(*r.b));
	r.pfd = calloc(n, sizeof(*r.pfd));
	r.end_ns = o->duration_ns ? now + o->duration_ns : 0;
	if (r.b && r.pfd)
		err = bw_init(&r, es, n, now);
	if (!err)
		err = bw_loop(&r, rp_clock_ns());
	now = rp_clock_ns();
	for (i = 0; i < n; i++)
		if (es[i].tick)
			rp_ticker_finish(es[i].tick, now);
	for (i = 0; r.b && i < n; i++) {
		if (r.b[i].es)
			es[i].out.messages = r.b[i].done;
		free(r.b[i].post_ns);
	}
	free(r.b);
	free(r.pfd);
	return err;
}

int rp_engine_latency(struct rp_engine_stream *es,
		      const struct rp_engine_opts *o)
{
	struct rp_stream *s = es->s;
	uint64_t i, t0, t1 = rp_clock_ns(), stall = stall_ns(o);
	int err = 0;

	es->out.first_post_ns = t1;
	for (i = 0; i < o->iterations && !interrupted(o); i++) {
		t0 = rp_clock_ns();
		err = s->ops->ping(s, i, t0 + stall);
		if (err)
			break;
		t1 = rp_clock_ns();
		if (es->hist)
			rp_hist_record(es->hist, t1 - t0);
	}
	es->out.messages = i;
	es->out.last_done_ns = t1;
	if (err == -ETIMEDOUT)
		rp_stream_fail(s, err, "no answer to a ping for %.3g s",
			       (double)stall_ns(o) / 1e9);
	return err;
}
