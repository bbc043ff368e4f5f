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

struct bw_state {
	struct rp_stream *s;
	uint64_t *post_ns; /* post time of op seq, at seq % depth */
	uint32_t depth;
	uint64_t target; /* operations to complete; UINT64_MAX: until end */
	uint64_t end_ns; /* time mode: stop posting then */
	uint64_t posted;
	uint64_t done;
	uint64_t last_progress_ns;
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
	return b->s->ops->post(b->s, b->posted - room, (uint32_t)room);
}

static void bw_complete(struct bw_state *b, int n, uint64_t now,
			struct rp_hist *h)
{
	int i;

	for (i = 0; i < n; i++, b->done++)
		if (h)
			rp_hist_record(h, now - b->post_ns[b->done % b->depth]);
	b->last_progress_ns = now;
}

/* Time mode, or interrupted: post no more, let what is in flight finish. */
static void bw_maybe_end(struct bw_state *b, uint64_t now,
			 const struct rp_engine_opts *o)
{
	if ((b->end_ns && now >= b->end_ns) || interrupted(o))
		b->target = b->posted;
}

/* One turn: post what fits, reap what completed. 0, or -errno. */
static int bw_turn(struct bw_state *b, const struct rp_engine_opts *o,
		   uint64_t *now, struct rp_phase_out *out)
{
	int n = bw_post(b, *now);

	if (n < 0)
		return n;
	n = b->s->ops->poll(b->s);
	if (n < 0)
		return n;
	*now = rp_clock_ns();
	if (n > 0) {
		bw_complete(b, n, *now, o->hist);
		out->last_done_ns = *now;
	} else if (*now - b->last_progress_ns > stall_ns(o)) {
		return rp_stream_fail(b->s, -ETIMEDOUT,
				      "no operation completed for %.3g s",
				      (double)stall_ns(o) / 1e9);
	}
	bw_maybe_end(b, *now, o);
	return 0;
}

int rp_engine_bandwidth(struct rp_stream *s, const struct rp_engine_opts *o,
			struct rp_phase_out *out)
{
	struct bw_state b = { .s = s,
			      .depth = s->spec.queue_depth,
			      .target = o->iterations ? o->iterations
						      : UINT64_MAX };
	uint64_t now = rp_clock_ns();
	int err = 0;

	b.post_ns = calloc(b.depth, sizeof(*b.post_ns));
	if (!b.post_ns)
		return -ENOMEM;
	out->first_post_ns = out->last_done_ns = now;
	b.end_ns = o->duration_ns ? now + o->duration_ns : 0;
	b.last_progress_ns = now;
	bw_maybe_end(&b, now, o);
	while (!err && b.done < b.target)
		err = bw_turn(&b, o, &now, out);
	out->messages = b.done;
	free(b.post_ns);
	return err;
}

int rp_engine_latency(struct rp_stream *s, const struct rp_engine_opts *o,
		      struct rp_phase_out *out)
{
	uint64_t i, t0, t1 = rp_clock_ns(), stall = stall_ns(o);
	int err = 0;

	out->first_post_ns = t1;
	for (i = 0; i < o->iterations && !interrupted(o); i++) {
		t0 = rp_clock_ns();
		err = s->ops->ping(s, i, t0 + stall);
		if (err)
			break;
		t1 = rp_clock_ns();
		if (o->hist)
			rp_hist_record(o->hist, t1 - t0);
	}
	out->messages = i;
	out->last_done_ns = t1;
	if (err == -ETIMEDOUT)
		rp_stream_fail(s, err, "no answer to a ping for %.3g s",
			       (double)stall_ns(o) / 1e9);
	return err;
}
