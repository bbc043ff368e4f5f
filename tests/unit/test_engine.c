// SPDX-License-Identifier: MIT
/*
 * Unit tests of run/engine.c: the measuring loops driven through a scripted
 * fake transport. The fake's post/poll/ping follow a script (complete up to
 * k operations per poll, or a random number of them; stall after N; fail
 * with an errno after N; sleep before answering; set the interrupt flag
 * after N) and check every promise the engine makes to a transport: no
 * more than queue_depth operations in flight, sequence numbers consecutive
 * from 0, no post after an interrupt or after the end of a timed phase.
 * A broken promise is recorded in the fake and fails the test afterwards;
 * a new operation after the interrupt, or any call 10 s into a phase, also
 * returns -ECANCELED, so an engine that does not stop fails the test
 * instead of hanging it.
 *
 * Timing: the machine is shared, so every bound on time is generous (a
 * lower bound the engine must respect; an upper one seconds away).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "core/hist.h"
#include "platform/clock.h"
#include "run/engine.h"
#include "run/run.h"

#define MS	    RP_NS_PER_MS
#define SLACK_NS    (5 * RP_NS_PER_SEC) /* an upper bound nobody will hit */
#define DEFAULT_NS  RP_STALL_TIMEOUT_NS
#define WATCHDOG_NS (10 * RP_NS_PER_SEC) /* a phase that runs on has failed */

/* What the fake transport does; zero fields: never. */
struct script {
	uint32_t per_poll;     /* at most this many complete per poll */
	bool random;	       /* 0..per_poll of them, at random */
	uint64_t stall_after;  /* complete no more after this many */
	uint64_t sleep_ns;     /* every poll and ping sleeps first */
	uint64_t every_ns;     /* busy polling: complete only this often */
	uint64_t post_fail_at; /* a post fails once this many were posted */
	uint64_t poll_fail_at; /* a poll fails once this many completed */
	uint64_t ping_fail_at; /* a ping fails after this many succeeded */
	int err;	       /* the (positive) errno of those failures */
	bool ping_spin;	       /* failing ping: spin to its deadline */
	uint64_t intr_at;      /* set *intr after this many completed */
	atomic_int *intr;
};

struct fake_stream {
	struct rp_stream base;
	struct script sc;
	uint64_t posted, completed, pings;
	uint64_t post_calls, poll_calls;
	uint64_t max_inflight;
	bool intr_fired;
	uint64_t posted_at_intr;
	uint64_t last_poll_ns;	   /* clock when the last poll returned */
	uint64_t last_done_ns;	   /* clock of the last completion */
	uint64_t watchdog_ns;	   /* give up then: the engine runs on */
	uint64_t poll_before_post; /* last_poll_ns at the last post */
	uint64_t ping_call_ns, ping_deadline_ns; /* of the last ping */
	uint64_t rng;
	char bad[256]; /* the first promise the engine broke */
};

static struct fake_stream *fake_of(struct rp_stream *s)
{
	return rp_container_of(s, struct fake_stream, base);
}

__attribute__((format(printf, 2, 3))) static void
fake_bad(struct fake_stream *f, const char *fmt, ...)
{
	va_list ap;

	if (f->bad[0])
		return;
	va_start(ap, fmt);
	vsnprintf(f->bad, sizeof(f->bad), fmt, ap);
	va_end(ap);
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / RP_NS_PER_SEC),
			       .tv_nsec = (long)(ns % RP_NS_PER_SEC) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * A call after the watchdog, or a new operation (@starts) after the
 * interrupt, fails, so that an engine that does not stop fails the test
 * instead of hanging it. Polls after the interrupt drain what is in flight.
 */
static int fake_enter(struct fake_stream *f, const char *what, bool starts)
{
	if (starts && f->intr_fired) {
		fake_bad(f, "%s after the interrupt", what);
		return -ECANCELED;
	}
	if (rp_clock_ns() > f->watchdog_ns) {
		fake_bad(f, "%s: the phase still runs after %llu s", what,
			 (unsigned long long)(WATCHDOG_NS / RP_NS_PER_SEC));
		return -ECANCELED;
	}
	return 0;
}

static void fake_interrupt(struct fake_stream *f, uint64_t done)
{
	if (!f->sc.intr_at || f->intr_fired || done < f->sc.intr_at)
		return;
	atomic_store(f->sc.intr, 1);
	f->intr_fired = true;
	f->posted_at_intr = f->posted;
}

static int fake_post(struct rp_stream *s, uint64_t seq, uint32_t count,
		     bool last)
{
	struct fake_stream *f = fake_of(s);
	uint32_t depth = s->spec.queue_depth;
	int err = fake_enter(f, "post", true);

	(void)last;
	f->post_calls++;
	if (err)
		return err;
	if (seq != f->posted)
		fake_bad(f, "post of seq %llu, expected %llu",
			 (unsigned long long)seq,
			 (unsigned long long)f->posted);
	if (!count || count > depth)
		fake_bad(f, "post of %u operations at depth %u", count, depth);
	if (f->sc.post_fail_at && f->posted >= f->sc.post_fail_at)
		return rp_stream_fail(s, -f->sc.err, "fake: post refused");
	f->posted += count;
	if (f->posted - f->completed > depth)
		fake_bad(f, "%llu in flight at depth %u",
			 (unsigned long long)(f->posted - f->completed), depth);
	if (f->posted - f->completed > f->max_inflight)
		f->max_inflight = f->posted - f->completed;
	f->poll_before_post = f->last_poll_ns;
	return 0;
}

static uint64_t fake_ready(struct fake_stream *f)
{
	uint64_t n = f->posted - f->completed;

	if (f->sc.every_ns && rp_clock_ns() - f->last_done_ns < f->sc.every_ns)
		return 0;
	if (n > f->sc.per_poll)
		n = f->sc.per_poll;
	if (f->sc.random)
		n = rng_next(&f->rng) % (n + 1);
	if (f->sc.stall_after && f->completed + n > f->sc.stall_after)
		n = f->sc.stall_after > f->completed
			    ? f->sc.stall_after - f->completed
			    : 0;
	return n;
}

static int fake_poll(struct rp_stream *s)
{
	struct fake_stream *f = fake_of(s);
	uint64_t n;
	int err = fake_enter(f, "poll", false);

	f->poll_calls++;
	if (err)
		return err;
	if (f->sc.sleep_ns)
		sleep_ns(f->sc.sleep_ns);
	if (f->sc.poll_fail_at && f->completed >= f->sc.poll_fail_at)
		return rp_stream_fail(s, -f->sc.err, "fake: poll failed");
	n = fake_ready(f);
	f->completed += n;
	fake_interrupt(f, f->completed);
	f->last_poll_ns = rp_clock_ns();
	if (n)
		f->last_done_ns = f->last_poll_ns;
	return (int)n;
}

static int fake_ping(struct rp_stream *s, uint64_t seq, uint64_t deadline_ns)
{
	struct fake_stream *f = fake_of(s);
	int err = fake_enter(f, "ping", true);

	if (err)
		return err;
	f->ping_call_ns = rp_clock_ns();
	f->ping_deadline_ns = deadline_ns;
	if (seq != f->pings)
		fake_bad(f, "ping seq %llu, expected %llu",
			 (unsigned long long)seq, (unsigned long long)f->pings);
	if (f->sc.sleep_ns)
		sleep_ns(f->sc.sleep_ns);
	if (f->sc.ping_fail_at && f->pings >= f->sc.ping_fail_at) {
		if (!f->sc.ping_spin)
			return rp_stream_fail(s, -f->sc.err, "fake: ping lost");
		while (rp_clock_ns() < deadline_ns &&
		       rp_clock_ns() < f->watchdog_ns)
			;
		return -ETIMEDOUT;
	}
	f->pings++;
	fake_interrupt(f, f->pings);
	return 0;
}

static const struct rp_xport_ops fake_ops = {
	.name = "fake",
	.ping = fake_ping,
	.post = fake_post,
	.poll = fake_poll,
};

static void fake_init(struct fake_stream *f, uint32_t depth,
		      const struct script *sc)
{
	struct rp_spec spec;

	memset(f, 0, sizeof(*f));
	rp_spec_defaults(&spec);
	spec.queue_depth = depth;
	rp_stream_init(&f->base, &fake_ops, &spec, RP_ROLE_INITIATOR);
	f->sc = *sc;
	f->rng = 0x5eed;
	f->last_done_ns = rp_clock_ns();
	f->watchdog_ns = f->last_done_ns + WATCHDOG_NS;
}

static void assert_fake_ok(const struct fake_stream *f)
{
	if (f->bad[0])
		fail_msg("the engine broke a promise: %s", f->bad);
}

/* A phase_out full of garbage, so that a field left unset shows. */
static void out_init(struct rp_phase_out *out)
{
	memset(out, 0xa5, sizeof(*out));
}

/* The histogram the next run records into (NULL: none). */
static struct rp_hist *g_hist;

/* Run a phase on @f; a broken promise fails before the return value. */
static int run_bw(struct fake_stream *f, const struct rp_engine_opts *o,
		  struct rp_phase_out *out)
{
	struct rp_engine_stream es = { .s = &f->base, .hist = g_hist };
	int ret;

	out_init(&es.out);
	ret = rp_engine_bandwidth(&es, 1, o);
	*out = es.out;
	assert_fake_ok(f);
	return ret;
}

static int run_lat(struct fake_stream *f, const struct rp_engine_opts *o,
		   struct rp_phase_out *out)
{
	struct rp_engine_stream es = { .s = &f->base, .hist = g_hist };
	int ret;

	out_init(&es.out);
	ret = rp_engine_latency(&es, o);
	*out = es.out;
	assert_fake_ok(f);
	return ret;
}

static struct rp_hist *hist_new(void)
{
	struct rp_hist *h = NULL;

	assert_int_equal(rp_hist_create(&h), 0);
	return h;
}

/* Bandwidth: depth bound and iteration mode */

static void test_bw_depth_bound(void **state)
{
	static const uint32_t depths[] = { 1, 2, 3, 16, 64 };
	const uint64_t n = 1003; /* not a multiple of any depth but 1 */
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(depths) / sizeof(depths[0]); i++) {
		struct script sc = { .per_poll = depths[i], .random = true };
		struct rp_engine_opts o = { .iterations = n };
		struct rp_phase_out out;
		struct fake_stream f;

		fake_init(&f, depths[i], &sc);
		assert_int_equal(run_bw(&f, &o, &out), 0);
		assert_int_equal(out.messages, n);
		assert_int_equal(f.posted, n); /* not one beyond the count */
		assert_int_equal(f.completed, n);
		assert_int_equal(f.max_inflight, depths[i]); /* kept full */
		assert_true(out.first_post_ns <= out.last_done_ns);
		assert_string_equal(f.base.err.msg, "");
	}
}

static void test_bw_iterations(void **state)
{
	struct script sc = { .per_poll = 3 };
	struct rp_engine_opts o = { .iterations = 1000 };
	struct rp_phase_out out;
	struct fake_stream f;

	(void)state;
	g_hist = hist_new();
	fake_init(&f, 8, &sc);
	assert_int_equal(run_bw(&f, &o, &out), 0);
	assert_int_equal(out.messages, 1000);
	assert_int_equal(f.posted, 1000);
	assert_int_equal(rp_hist_count(g_hist), 1000);
	assert_true(rp_hist_max(g_hist) < SLACK_NS);
	assert_true(out.first_post_ns <= out.last_done_ns);
	assert_true(out.last_done_ns - out.first_post_ns < SLACK_NS);
	rp_hist_destroy(g_hist);
	g_hist = NULL;
}

/* Several streams in one engine: each completes its own count at its own
 * depth, into its own histogram, none waits for another to finish. */
static void test_bw_several_streams(void **state)
{
	static const uint32_t depths[] = { 1, 4, 16 };
	struct rp_engine_stream es[3];
	struct rp_engine_opts o = { .iterations = 777 };
	struct fake_stream f[3];
	struct script sc = { .per_poll = 2, .random = true };
	int i;

	(void)state;
	for (i = 0; i < 3; i++) {
		fake_init(&f[i], depths[i], &sc);
		es[i] = (struct rp_engine_stream){ .s = &f[i].base,
						   .hist = hist_new() };
		out_init(&es[i].out);
	}
	assert_int_equal(rp_engine_bandwidth(es, 3, &o), 0);
	for (i = 0; i < 3; i++) {
		assert_fake_ok(&f[i]);
		assert_int_equal(es[i].out.messages, 777);
		assert_int_equal(f[i].posted, 777);
		assert_int_equal(f[i].max_inflight, depths[i]);
		assert_int_equal(rp_hist_count(es[i].hist), 777);
		assert_true(es[i].out.first_post_ns <= es[i].out.last_done_ns);
		rp_hist_destroy(es[i].hist);
	}
}

/* Fewer operations than the depth: only those are posted. */
static void test_bw_fewer_than_depth(void **state)
{
	struct script sc = { .per_poll = 2 };
	struct rp_engine_opts o = { .iterations = 5 };
	struct rp_phase_out out;
	struct fake_stream f;

	(void)state;
	fake_init(&f, 16, &sc);
	assert_int_equal(run_bw(&f, &o, &out), 0);
	assert_int_equal(out.messages, 5);
	assert_int_equal(f.posted, 5);
	assert_int_equal(f.post_calls, 1);
	assert_int_equal(f.max_inflight, 5);
}

/*
 * Each poll sleeps 1 ms and completes one operation, at depth 4: every
 * operation waits at least one poll (>= 1 ms), and in the steady state it
 * waits behind three others (>= 4 ms).
 */
static void test_bw_latency_plausible(void **state)
{
	struct script sc = { .per_poll = 1, .sleep_ns = MS };
	struct rp_engine_opts o = { .iterations = 40 };
	struct rp_phase_out out;
	struct fake_stream f;

	(void)state;
	g_hist = hist_new();
	fake_init(&f, 4, &sc);
	assert_int_equal(run_bw(&f, &o, &out), 0);
	assert_int_equal(rp_hist_count(g_hist), 40);
	assert_true(rp_hist_min(g_hist) >= MS);
	assert_true(rp_hist_max(g_hist) >= 4 * MS);
	assert_true(rp_hist_max(g_hist) < SLACK_NS);
	assert_true(out.last_done_ns - out.first_post_ns >= 40 * MS);
	rp_hist_destroy(g_hist);
	g_hist = NULL;
}

/* Bandwidth: time mode */

static void run_time_mode(uint32_t depth, const struct script *sc)
{
	const uint64_t dur = 50 * MS;
	struct rp_engine_opts o = { .duration_ns = dur };
	struct rp_phase_out out;
	struct fake_stream f;

	g_hist = hist_new();
	fake_init(&f, depth, sc);
	assert_int_equal(run_bw(&f, &o, &out), 0);
	assert_true(out.messages > 0);
	/* what was in flight at the end finished, and nothing else */
	assert_int_equal(out.messages, f.posted);
	assert_int_equal(out.messages, f.completed);
	assert_int_equal(rp_hist_count(g_hist), out.messages);
	/* every post came before the end (the engine's clock is read after
	 * the fake's last poll, so that poll was before the end too) */
	assert_true(f.poll_before_post < out.first_post_ns + dur);
	assert_true(out.last_done_ns - out.first_post_ns >= dur);
	assert_true(out.last_done_ns - out.first_post_ns < dur + SLACK_NS);
	rp_hist_destroy(g_hist);
	g_hist = NULL;
}

static void test_bw_time_mode(void **state)
{
	struct script fast = { .per_poll = 2, .sleep_ns = 100 * RP_NS_PER_US };
	struct script slow = { .per_poll = 1, .sleep_ns = 20 * MS };

	(void)state;
	run_time_mode(8, &fast);
	run_time_mode(4, &slow); /* 4 in flight at the end, 80 ms to drain */
}

/* Bandwidth: stall */

static void run_stall(uint64_t stall_after, uint64_t expect_done)
{
	struct script sc = { .per_poll = stall_after ? 1 : 0,
			     .stall_after = stall_after };
	struct rp_engine_opts o = { .iterations = 100, .stall_ns = 100 * MS };
	struct rp_phase_out out;
	struct fake_stream f;
	uint64_t t0 = rp_clock_ns(), dt;

	fake_init(&f, 4, &sc);
	assert_int_equal(run_bw(&f, &o, &out), -ETIMEDOUT);
	dt = rp_clock_ns() - t0;
	assert_int_equal(out.messages, expect_done);
	assert_int_equal(f.posted, expect_done + 4); /* kept the queue full */
	assert_true(f.base.err.msg[0] != '\0');
	assert_non_null(strstr(f.base.err.msg, "no operation completed"));
	assert_true(dt >= 100 * MS);
	assert_true(dt < SLACK_NS);
}

static void test_bw_stall(void **state)
{
	(void)state;
	run_stall(0, 0); /* never completes anything */
	run_stall(5, 5); /* completes 5, then nothing */
}

/*
 * Busy polling that finds a completion every 10 ms: the stall time counts
 * from the last completion, not from the start, so a phase longer than the
 * stall time is no stall.
 */
static void test_bw_slow_is_no_stall(void **state)
{
	struct script sc = { .per_poll = 1, .every_ns = 10 * MS };
	struct rp_engine_opts o = { .iterations = 30, .stall_ns = 200 * MS };
	struct rp_phase_out out;
	struct fake_stream f;

	(void)state;
	fake_init(&f, 2, &sc);
	assert_int_equal(run_bw(&f, &o, &out), 0);
	assert_int_equal(out.messages, 30);
	assert_true(out.last_done_ns - out.first_post_ns > 200 * MS);
	assert_string_equal(f.base.err.msg, "");
}

/* Bandwidth: interrupt */

static void run_bw_interrupt(uint64_t iterations, uint64_t duration_ns)
{
	atomic_int intr = 0;
	struct script sc = { .per_poll = 1, .intr_at = 20, .intr = &intr };
	struct rp_engine_opts o = { .iterations = iterations,
				    .duration_ns = duration_ns,
				    .intr = &intr };
	struct rp_phase_out out;
	struct fake_stream f;

	g_hist = hist_new();
	fake_init(&f, 8, &sc);
	assert_int_equal(run_bw(&f, &o, &out), 0);
	assert_true(f.intr_fired);
	assert_int_equal(f.posted, f.posted_at_intr);
	assert_int_equal(out.messages, f.posted); /* in flight finished */
	assert_int_equal(out.messages, f.completed);
	assert_int_equal(rp_hist_count(g_hist), out.messages);
	assert_true(out.messages >= 20 && out.messages <= 20 + 8);
	assert_true(out.last_done_ns - out.first_post_ns < SLACK_NS);
	rp_hist_destroy(g_hist);
	g_hist = NULL;
}

static void test_bw_interrupt(void **state)
{
	(void)state;
	run_bw_interrupt(1000000000, 0);	   /* iteration mode */
	run_bw_interrupt(0, 3600 * RP_NS_PER_SEC); /* time mode, an hour */
}

static void test_bw_interrupt_before_start(void **state)
{
	atomic_int intr = 1;
	struct script sc = { .per_poll = 1 };
	struct rp_engine_opts o = { .iterations = 100, .intr = &intr };
	struct rp_phase_out out;
	struct fake_stream f;

	(void)state;
	fake_init(&f, 8, &sc);
	assert_int_equal(run_bw(&f, &o, &out), 0);
	assert_int_equal(out.messages, 0);
	assert_int_equal(f.post_calls, 0);
	assert_int_equal(f.poll_calls, 0);

	o.iterations = 0; /* time mode */
	o.duration_ns = 3600 * RP_NS_PER_SEC;
	assert_int_equal(run_bw(&f, &o, &out), 0);
	assert_int_equal(out.messages, 0);
	assert_int_equal(f.post_calls, 0);
}

/* Bandwidth: transport errors */

static void test_bw_post_error(void **state)
{
	struct script sc = { .per_poll = 1, .post_fail_at = 20, .err = EIO };
	struct rp_engine_opts o = { .iterations = 1000 };
	struct rp_phase_out out;
	struct fake_stream f;

	(void)state;
	fake_init(&f, 8, &sc);
	assert_int_equal(run_bw(&f, &o, &out), -EIO);
	assert_string_equal(f.base.err.msg, "fake: post refused");
	assert_int_equal(f.posted, 20);
	assert_int_equal(out.messages, f.completed);
	assert_true(out.messages <= 20);
}

static void test_bw_poll_error(void **state)
{
	struct script sc = { .per_poll = 1,
			     .poll_fail_at = 12,
			     .err = ECONNRESET };
	struct rp_engine_opts o = { .iterations = 1000 };
	struct rp_phase_out out;
	struct fake_stream f;

	(void)state;
	g_hist = hist_new();
	fake_init(&f, 8, &sc);
	assert_int_equal(run_bw(&f, &o, &out), -ECONNRESET);
	assert_string_equal(f.base.err.msg, "fake: poll failed");
	assert_int_equal(out.messages, 12);
	assert_int_equal(rp_hist_count(g_hist), 12);
	rp_hist_destroy(g_hist);
	g_hist = NULL;
}

/* Latency */

static void test_lat_iterations(void **state)
{
	struct script sc = { 0 };
	struct rp_engine_opts o = { .iterations = 100 };
	struct rp_phase_out out;
	struct fake_stream f;

	(void)state;
	g_hist = hist_new();
	fake_init(&f, 1, &sc);
	assert_int_equal(run_lat(&f, &o, &out), 0);
	assert_int_equal(out.messages, 100);
	assert_int_equal(f.pings, 100);
	assert_int_equal(rp_hist_count(g_hist), 100);
	assert_true(rp_hist_max(g_hist) < SLACK_NS);
	assert_true(out.first_post_ns <= out.last_done_ns);
	/* stall_ns 0: each ping gets the default 30 s */
	assert_true(f.ping_deadline_ns > f.ping_call_ns);
	assert_true(f.ping_deadline_ns - f.ping_call_ns <= DEFAULT_NS);
	assert_true(f.ping_deadline_ns - f.ping_call_ns >
		    DEFAULT_NS - SLACK_NS);
	rp_hist_destroy(g_hist);
	g_hist = NULL;
}

static void test_lat_plausible(void **state)
{
	struct script sc = { .sleep_ns = MS };
	struct rp_engine_opts o = { .iterations = 20 };
	struct rp_phase_out out;
	struct fake_stream f;

	(void)state;
	g_hist = hist_new();
	fake_init(&f, 1, &sc);
	assert_int_equal(run_lat(&f, &o, &out), 0);
	assert_int_equal(rp_hist_count(g_hist), 20);
	assert_true(rp_hist_min(g_hist) >= MS);
	assert_true(rp_hist_max(g_hist) < SLACK_NS);
	assert_true(out.last_done_ns - out.first_post_ns >= 20 * MS);
	rp_hist_destroy(g_hist);
	g_hist = NULL;
}

static void test_lat_error(void **state)
{
	struct script sc = { .ping_fail_at = 5, .err = EPROTO };
	struct rp_engine_opts o = { .iterations = 100 };
	struct rp_phase_out out;
	struct fake_stream f;

	(void)state;
	g_hist = hist_new();
	fake_init(&f, 1, &sc);
	assert_int_equal(run_lat(&f, &o, &out), -EPROTO);
	assert_int_equal(out.messages, 5);
	assert_int_equal(rp_hist_count(g_hist), 5);
	assert_string_equal(f.base.err.msg, "fake: ping lost");
	rp_hist_destroy(g_hist);
	g_hist = NULL;
}

static void test_lat_timeout(void **state)
{
	struct script sc = { .ping_fail_at = 3, .ping_spin = true };
	struct rp_engine_opts o = { .iterations = 100, .stall_ns = 100 * MS };
	struct rp_phase_out out;
	struct fake_stream f;
	uint64_t t0, dt;

	(void)state;
	fake_init(&f, 1, &sc);
	t0 = rp_clock_ns();
	assert_int_equal(run_lat(&f, &o, &out), -ETIMEDOUT);
	dt = rp_clock_ns() - t0;
	assert_int_equal(out.messages, 3);
	assert_true(f.base.err.msg[0] != '\0');
	assert_non_null(strstr(f.base.err.msg, "ping"));
	/* the deadline handed down is the stall time from the ping's start */
	assert_true(f.ping_deadline_ns > f.ping_call_ns);
	assert_true(f.ping_deadline_ns - f.ping_call_ns <= 100 * MS);
	assert_true(dt >= 100 * MS);
	assert_true(dt < SLACK_NS);
}

static void test_lat_interrupt(void **state)
{
	atomic_int intr = 0;
	struct script sc = { .intr_at = 7, .intr = &intr };
	struct rp_engine_opts o = { .iterations = 1000, .intr = &intr };
	struct rp_phase_out out;
	struct fake_stream f;

	(void)state;
	g_hist = hist_new();
	fake_init(&f, 1, &sc);
	assert_int_equal(run_lat(&f, &o, &out), 0);
	assert_int_equal(out.messages, 7);
	assert_int_equal(f.pings, 7);
	assert_int_equal(rp_hist_count(g_hist), 7);
	rp_hist_destroy(g_hist);
	g_hist = NULL;
}

static void test_lat_interrupt_before_start(void **state)
{
	atomic_int intr = 1;
	struct script sc = { 0 };
	struct rp_engine_opts o = { .iterations = 1000, .intr = &intr };
	struct rp_phase_out out;
	struct fake_stream f;

	(void)state;
	fake_init(&f, 1, &sc);
	assert_int_equal(run_lat(&f, &o, &out), 0);
	assert_int_equal(out.messages, 0);
	assert_int_equal(f.pings, 0);
	assert_int_equal(f.ping_call_ns, 0);
}

/* Phase names */

static void test_phase_names(void **state)
{
	enum rp_phase p, q;

	(void)state;
	for (p = 0; p < RP_PHASE__COUNT; p++) {
		assert_int_equal(rp_phase_parse(rp_phase_name(p), &q), 0);
		assert_int_equal(q, p);
	}
	assert_string_equal(rp_phase_name(RP_PHASE_WARMUP), "warmup");
	assert_string_equal(rp_phase_name(RP_PHASE__COUNT), "unknown");
	assert_int_equal(rp_phase_parse("unknown", &q), -EINVAL);
	assert_int_equal(rp_phase_parse(NULL, &q), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bw_depth_bound),
		cmocka_unit_test(test_bw_iterations),
		cmocka_unit_test(test_bw_several_streams),
		cmocka_unit_test(test_bw_fewer_than_depth),
		cmocka_unit_test(test_bw_latency_plausible),
		cmocka_unit_test(test_bw_time_mode),
		cmocka_unit_test(test_bw_stall),
		cmocka_unit_test(test_bw_slow_is_no_stall),
		cmocka_unit_test(test_bw_interrupt),
		cmocka_unit_test(test_bw_interrupt_before_start),
		cmocka_unit_test(test_bw_post_error),
		cmocka_unit_test(test_bw_poll_error),
		cmocka_unit_test(test_lat_iterations),
		cmocka_unit_test(test_lat_plausible),
		cmocka_unit_test(test_lat_error),
		cmocka_unit_test(test_lat_timeout),
		cmocka_unit_test(test_lat_interrupt),
		cmocka_unit_test(test_lat_interrupt_before_start),
		cmocka_unit_test(test_phase_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
