// SPDX-License-Identifier: MIT
/*
 * One point of the client's sweep: move every stream to the point, then
 * warm-up, latency and throughput phases, each START/READY ... STOP/DONE.
 * The client's initiators run in a crew of -T threads; under --bidir its
 * responders serve the server's streams in a second crew meanwhile.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/clock.h"
#include "proto/bodies.h"
#include "proto/proto.h"
#include "run/client.h"
#include "run/crew.h"
#include "run/flow.h"
#include "run/ticker.h"

#define fail client_fail

#define SERVER_WORD_MS 300 /* the server's ERROR, after its data stopped */

/* Both ends move their streams to this point before its first phase. */
static int set_point(struct client *c)
{
	const struct rp_spec *sp = &c->res->spec;
	struct rp_stream *bad = NULL;
	int err;

	err = rp_streams_set_point(c->streams, c->n_fwd + c->n_rev,
				   sp->size_bytes, sp->queue_depth, &bad);
	return err ? fail(c->res, err, "transport", "%s: %s", c->ops->name,
			  rp_err_text(&bad->err, err))
		   : 0;
}

/* START's body: the point, how long (the server's own initiators run as
 * long under --bidir), and --rate in the throughput phase only. */
static cJSON *start_body(const struct client *c, enum rp_phase p,
			 const struct rp_engine_opts *o)
{
	const struct rp_spec *sp = &c->res->spec;
	const struct rp_start_body b = {
		.phase = p,
		.size_bytes = sp->size_bytes,
		.queue_depth = sp->queue_depth,
		.iterations = o->iterations,
		.duration_ns = o->duration_ns,
		.rate = p == RP_PHASE_BANDWIDTH ? sp->rate : 0,
	};

	return rp_proto_start_encode(&b);
}

/* STOP's body: abort when the client was interrupted; outside the latency
 * phase "sent", what each stream's initiator completed in the phase, for
 * the server's drain to wait for what is still on its way (an iWARP send
 * completes once it has left; rp_stream.due). */
static cJSON *stop_body(const struct client *c, enum rp_phase p)
{
	struct rp_stop_body b = {
		.phase = p,
		.abort =
			c->cfg->interrupted && atomic_load(c->cfg->interrupted),
		.has_sent = p != RP_PHASE_LATENCY,
	};
	uint64_t *sent = NULL;
	unsigned int i;
	cJSON *body;

	if (b.has_sent) {
		sent = calloc(c->n_fwd ? c->n_fwd : 1, sizeof(*sent));
		if (!sent)
			return NULL;
		for (i = 0; i < c->n_fwd; i++)
			sent[i] = c->fwd[i].out.messages;
		b.n_sent = c->n_fwd;
		b.sent = sent;
	}
	body = rp_proto_stop_encode(&b);
	free(sent);
	return body;
}

/* START {phase, point, how long} / READY, or STOP {phase, ...} / DONE. */
static int phase_call(struct client *c, enum rp_phase p, uint16_t type,
		      const struct rp_engine_opts *o, int timeout_ms,
		      cJSON **reply)
{
	uint16_t want = type == RP_MSG_START ? RP_MSG_READY : RP_MSG_DONE;
	cJSON *body;
	int err;

	if (!client_has_server(c))
		return 0;
	body = type == RP_MSG_START ? start_body(c, p, o) : stop_body(c, p);
	err = body ? client_call(c, type, body, want, timeout_ms, reply)
		   : -ENOMEM;
	cJSON_Delete(body);
	/* each DONE: what the server's link counted over the phase */
	if (!err && want == RP_MSG_DONE && reply && *reply)
		err = rp_counters_json_add(
			&c->res->server_counters,
			cJSON_GetObjectItemCaseSensitive(*reply, "counters"));
	return err == -ENOMEM ? fail(c->res, err, "internal", "out of memory")
			      : err;
}

/* The server's own word, when it ended the phase (shut down, a bound
 * passed, a limit): an ERROR already on the control connection, or
 * arriving within a moment. Return: true with its text in @buf. */
static bool server_said(struct client *c, char *buf, size_t len)
{
	cJSON *body = NULL;
	uint16_t type;
	bool said;

	if (rp_proto_recv(c->fd, SERVER_WORD_MS, &type, &body))
		return false;
	said = type == RP_MSG_ERROR;
	if (said)
		rp_proto_error_text(body, buf, len);
	cJSON_Delete(body);
	return said;
}

/* A failure inside a phase: tell the server, name what failed (the
 * server's reason first, when it gave one: the data connections' end is
 * only its consequence). */
static int phase_failed(struct client *c, enum rp_phase p, int err,
			struct rp_stream *s)
{
	char msg[RP_ERR_LEN + 32], word[200];

	if (client_has_server(c) && server_said(c, word, sizeof(word)))
		return fail(c->res, -ECONNABORTED, "server", "%s phase: %s",
			    rp_phase_name(p), word);
	snprintf(msg, sizeof(msg), "%s phase: %s", rp_phase_name(p),
		 s ? rp_err_text(&s->err, err) : strerror(-err));
	if (client_has_server(c))
		client_tell(c, "client", msg);
	return fail(c->res, err, err == -ETIMEDOUT ? "timeout" : "transport",
		    "%s: %s", c->ops->name, msg);
}

static void server_side(const struct rp_done_body *done, struct rp_side *side)
{
	side->present = true;
	side->messages = done->messages;
	side->bytes = done->bytes;
	side->verify_errors = done->verify_errors;
	side->has_srq = done->has_srq;
	side->srq_limit_events = done->srq_limit_events;
	side->cpu = done->cpu;
	side->has_zc = done->has_zc;
	side->zc = done->zc;
}

/* Ping-pong phase on the first stream: the statistics of rtt/2 for the
 * ops that go there and back (perftest's "latency"), of the whole op for
 * read and atomics. */
static int run_latency(struct client *c)
{
	struct rp_engine_opts o = { .iterations = c->res->spec.lat_iterations,
				    .stall_ns = c->cfg->stall_ns,
				    .intr = c->cfg->interrupted };
	struct rp_engine_stream es = { .s = c->fwd[0].s, .hist = c->scratch };
	struct rp_result *r = c->res;
	cJSON *done = NULL;
	int err;

	rp_hist_reset(c->scratch);
	err = phase_call(c, RP_PHASE_LATENCY, RP_MSG_START, &o,
			 RP_SETUP_TIMEOUT_MS, NULL);
	if (err)
		return err;
	err = rp_engine_latency(&es, &o);
	if (err)
		return phase_failed(c, RP_PHASE_LATENCY, err, es.s);
	err = phase_call(c, RP_PHASE_LATENCY, RP_MSG_STOP, &o,
			 RP_SETUP_TIMEOUT_MS, &done);
	cJSON_Delete(done);
	if (err)
		return err;
	if (r->spec.qp == RP_QP_UD) { /* pings lost are not samples */
		r->has_loss = true;
		r->pings = es.out.messages;
		r->pings_lost = es.out.lost;
	}
	rp_hist_summarize(c->scratch, &r->rtt);
	r->unloaded_halved =
		rp_op_info(r->spec.op)->rtt_halved && !c->ops->local;
	r->unloaded = r->rtt;
	rp_hist_summary_scale(&r->unloaded, r->unloaded_halved ? 0.5 : 1.0);
	rp_hist_spectrum(c->scratch, &r->unloaded_spectrum);
	rp_spectrum_scale(&r->unloaded_spectrum,
			  r->unloaded_halved ? 0.5 : 1.0);
	r->has_unloaded = true;
	return 0;
}

/* How long the client waits for DONE: under --bidir the server's own
 * initiators may still be finishing (they end on their own, bounded by
 * their stall time, which the client takes to be its own), so allow them
 * that and as long again as the client took. */
static int done_timeout_ms(const struct client *c, uint64_t took_ns)
{
	uint64_t ms = RP_SETUP_TIMEOUT_MS;

	if (c->n_rev)
		ms += rp_stall_ns(c->cfg) / 1000000 + 2 * took_ns / 1000000;
	return ms > 24ULL * 3600 * 1000 ? 24 * 3600 * 1000 : (int)ms;
}

struct traffic {
	enum rp_phase phase;
	struct rp_engine_opts o;
	atomic_int abort; /* the server ended the phase (its ERROR, EOF) */
	struct rp_crew_opts co;
	struct rp_crew *responders; /* --bidir */
	struct rp_cpu_sample a, b;
	struct rp_cpu_usage cpu;
	cJSON *done;
};

static int traffic_start(struct client *c, struct traffic *t)
{
	const struct rp_config *cfg = c->cfg;
	bool loop = cfg->mode == RP_MODE_LOOPBACK || cfg->own_threads;
	int err;

	t->o.abort = &t->abort;
	t->o.stall_ns = cfg->stall_ns;
	t->co = (struct rp_crew_opts){ .phase = t->phase,
				       .eng = t->o,
				       .cpus = cfg->test.cpus,
				       .n_cpus = cfg->test.n_cpus };
	rp_cpu_sample(&t->a, loop, cfg->test.cpus,
		      (unsigned int)cfg->test.n_cpus);
	if (c->n_rev) {
		t->co.cpu_base = c->spec.threads;
		err = rp_crew_start(&t->responders, RP_ROLE_RESPONDER, c->rev,
				    NULL, c->n_rev, c->spec.threads, &t->co);
		if (err)
			return fail(c->res, err, "internal",
				    "cannot start the responder threads");
		t->co.cpu_base = 0;
	}
	return phase_call(c, t->phase, RP_MSG_START, &t->o, RP_SETUP_TIMEOUT_MS,
			  NULL);
}

/* The throughput phase's tickers (-i, progress), from @t0 on. */
static bool ticks_arm(struct client *c, const struct traffic *t, uint64_t t0)
{
	double s = c->cfg->test.interval_s > 0 ? c->cfg->test.interval_s : 1.0;
	uint64_t end = t->o.duration_ns ? t0 + t->o.duration_ns : 0;
	unsigned int i;

	if (!c->tick || t->phase != RP_PHASE_BANDWIDTH)
		return false;
	for (i = 0; i < c->n_fwd; i++) {
		rp_ticker_arm(&c->tick[i], t0, (uint64_t)(s * 1e9), end);
		c->fwd[i].tick = &c->tick[i];
	}
	return true;
}

/* The sampler's: this side's link counters over the interval it gathers. */
static cJSON *interval_counters(void *ctx)
{
	struct client *c = ctx;

	return rp_counter_watch_lap(&c->iw, c->ops, c->streams,
				    c->n_fwd + c->n_rev);
}

/* While the crew runs: its intervals (with -i, each with the counters of
 * this side's link) to the result and the observer. */
static void ticks_run(struct client *c, uint64_t t0, atomic_int *abort)
{
	const struct rp_observer *obs = c->cfg->obs;
	bool keep = c->cfg->test.interval_s > 0;
	struct rp_sampler_sink sink = {
		.keep = keep,
		.interval = obs ? obs->interval : NULL,
		.ctx = obs ? obs->ctx : NULL,
		.watch_fd = c->fd,
		.abort = abort,
		.counters = keep ? interval_counters : NULL,
		.counters_ctx = c,
	};
	unsigned int i;

	if (keep)
		rp_counter_watch_start(&c->iw, c->ops, c->streams,
				       c->n_fwd + c->n_rev);
	c->res->interval_s = c->cfg->test.interval_s;
	if (rp_sampler_run(c->tick, c->n_fwd, c->spec.threads,
			   c->res->spec.size_bytes, t0, c->res, &sink))
		rp_notef(c->res->notes, sizeof(c->res->notes),
			 "out of memory: intervals are missing");
	for (i = 0; i < c->n_fwd; i++)
		c->fwd[i].tick = NULL;
	rp_interval_range(c->res);
}

/* The initiators' crew, from START to its join. */
static int traffic_run(struct client *c, struct traffic *t, uint64_t *took)
{
	struct rp_crew *crew;
	struct rp_stream *bad = NULL;
	uint64_t t0 = rp_clock_ns();
	bool ticks = ticks_arm(c, t, t0);
	unsigned int i;
	int err;

	for (i = 0; i < c->n_fwd; i++) {
		if (c->fwd[i].hist)
			rp_hist_reset(c->fwd[i].hist);
		if (c->fwd[i].corr)
			rp_hist_reset(c->fwd[i].corr);
	}
	err = rp_crew_start(&crew, RP_ROLE_INITIATOR, c->fwd, NULL, c->n_fwd,
			    c->spec.threads, &t->co);
	if (err) {
		for (i = 0; ticks && i < c->n_fwd; i++)
			c->fwd[i].tick = NULL;
		return fail(c->res, err, "internal",
			    "cannot start the initiator threads");
	}
	if (ticks)
		ticks_run(c, t0, &t->abort);
	while (!rp_crew_done(crew))
		rp_watch_peer(c->fd, &t->abort, 20);
	err = rp_crew_join(crew, &t->cpu, &bad);
	*took = rp_clock_ns() - t0;
	return err ? phase_failed(c, t->phase, err, bad) : 0;
}

static int traffic_end(struct client *c, struct traffic *t, int err,
		       uint64_t took)
{
	bool loop = c->cfg->mode == RP_MODE_LOOPBACK || c->cfg->own_threads;
	struct rp_stream *bad = NULL;
	int rerr;

	if (!err)
		err = phase_call(c, t->phase, RP_MSG_STOP, &t->o,
				 done_timeout_ms(c, took), &t->done);
	if (t->responders) {
		rp_crew_stop(t->responders);
		rerr = rp_crew_join(t->responders, &t->cpu, &bad);
		t->responders = NULL;
		if (rerr && !err)
			err = phase_failed(c, t->phase, rerr, bad);
	}
	rp_cpu_sample(&t->b, loop, c->cfg->test.cpus,
		      (unsigned int)c->cfg->test.n_cpus);
	return err;
}

/* One traffic phase (warm-up or throughput), both directions under
 * --bidir. The caller owns t->done afterwards. */
static int run_traffic(struct client *c, struct traffic *t)
{
	uint64_t took = 0;
	int err;

	err = traffic_start(c, t);
	if (!err)
		err = traffic_run(c, t, &took);
	return traffic_end(c, t, err, took);
}

static int run_warmup(struct client *c)
{
	struct traffic t = { .phase = RP_PHASE_WARMUP,
			     .o = { .iterations = c->res->spec.warmup,
				    .intr = c->cfg->interrupted } };
	uint64_t n = 0;
	unsigned int i;
	int err = run_traffic(c, &t);

	cJSON_Delete(t.done);
	for (i = 0; i < c->n_fwd; i++)
		n += c->fwd[i].out.messages;
	c->res->warmup_messages = n;
	return err;
}

/* This side's CPU over the phase: the process's, or, sharing the process
 * with the server (--loopback), the sum of the test's own threads. */
static void client_cpu(struct client *c, struct traffic *t, uint64_t bytes)
{
	struct rp_cpu_usage *u = &c->res->client.cpu;

	*u = t->cpu;
	rp_cpu_usage(&t->a, &t->b, bytes, u);
	if (c->cfg->mode == RP_MODE_LOOPBACK)
		rp_cpu_usage_own_threads(u, bytes);
}

/* The test's figures: the sum of its directions, over the longer's time;
 * the latency under load is the client's direction's. */
static void totals(struct rp_result *r)
{
	struct rp_flow *t = &r->flow;
	int d;

	for (d = 0; d < RP_DIR__COUNT; d++) {
		const struct rp_flow *f = &r->dir[d].flow;

		if (!r->dir[d].present)
			continue;
		t->bytes += f->bytes;
		t->messages += f->messages;
		t->seconds = f->seconds > t->seconds ? f->seconds : t->seconds;
		t->bits_per_second += f->bits_per_second;
		t->mib_per_second += f->mib_per_second;
		t->messages_per_second += f->messages_per_second;
	}
	t->latency = r->dir[RP_DIR_C2S].flow.latency;
	t->has_latency = true;
	r->has_bandwidth = true;
}

/* What the server says it received (or, for read, sent) of the client's
 * direction: never more than the client moved, give or take what each
 * stream may have in flight. More is a broken or hostile server. */
static int check_server_counts(struct client *c)
{
	struct rp_result *r = c->res;
	uint64_t max = r->dir[RP_DIR_C2S].flow.messages +
		       (uint64_t)r->spec.queue_depth * c->n_fwd;

	if (r->server.messages <= max &&
	    r->server.bytes <= max * r->spec.size_bytes)
		return 0;
	return fail(r, -EPROTO, "protocol",
		    "the server reported %llu messages (%llu bytes), more than "
		    "the client moved (%llu, with %u in flight per stream)",
		    (unsigned long long)r->server.messages,
		    (unsigned long long)r->server.bytes,
		    (unsigned long long)r->dir[RP_DIR_C2S].flow.messages,
		    r->spec.queue_depth);
}

static int bandwidth_results(struct client *c, struct traffic *t)
{
	struct rp_result *r = c->res;
	struct rp_done_body done;
	/* no DONE: a local transport, no server */
	bool has_done =
		t->done && !rp_proto_done_decode(t->done, &done, NULL, 0);
	int err;

	err = rp_direction_build(&r->dir[RP_DIR_C2S], c->fwd, c->n_fwd,
				 c->spec.threads, r->spec.size_bytes,
				 c->scratch);
	if (!err)
		rp_hist_spectrum(c->scratch, &r->latency_spectrum);
	if (!err && c->n_rev && has_done && done.direction)
		err = rp_direction_from_json(done.direction, c->n_rev,
					     &r->dir[RP_DIR_S2C]);
	if (err)
		return fail(r, err, "internal", "out of memory");
	totals(r);
	r->client.present = true;
	r->client.messages = r->dir[RP_DIR_C2S].flow.messages;
	r->client.bytes = r->dir[RP_DIR_C2S].flow.bytes;
	client_cpu(c, t, r->flow.bytes);
	if (has_done)
		server_side(&done, &r->server);
	if (has_done && r->spec.qp == RP_QP_UD) { /* what did not arrive */
		r->has_loss = r->has_loss_sent = true;
		r->loss_sent = r->client.messages;
		r->loss_arrived = r->server.messages;
	}
	err = check_server_counts(c);
	if (err)
		return err;
	r->server.cpu.us_per_kib = rp_cpu_service_demand(
		r->server.cpu.user_s, r->server.cpu.sys_s, r->flow.bytes);
	r->server.cpu.cycles_per_kib =
		rp_cpu_cycles_per_kib(r->server.cpu.user_s, r->server.cpu.sys_s,
				      r->flow.bytes, r->server.cpu.hz);
	return 0;
}

static int run_bandwidth(struct client *c)
{
	const struct rp_spec *sp = &c->res->spec;
	struct traffic t = { .phase = RP_PHASE_BANDWIDTH,
			     .o = { .iterations = sp->iterations,
				    .duration_ns = sp->duration_ns,
				    .intr = c->cfg->interrupted,
				    .period_ns = rp_engine_period_ns(
					    sp->rate, c->n_fwd) } };
	int err = run_traffic(c, &t);

	if (!err)
		err = bandwidth_results(c, &t);
	cJSON_Delete(t.done);
	return err;
}

/* Interrupted (SIGINT) while phase @p ran or ended: this point keeps
 * what it measured and says in which phase it stopped; the sweep ends. */
static bool stopped(struct client *c, enum rp_phase p)
{
	if (!c->cfg->interrupted || !atomic_load(c->cfg->interrupted))
		return false;
	if (!c->res->interrupted) {
		c->res->interrupted = true;
		c->res->interrupted_phase = p;
	}
	return true;
}

/* The point's phases, after set_point() ended with @err. */
static int run_phases(struct client *c, int err)
{
	const struct rp_spec *sp = &c->res->spec;

	if (!err && sp->warmup) {
		err = run_warmup(c);
		if (!err && stopped(c, RP_PHASE_WARMUP))
			return 0;
	}
	if (!err && sp->latency) {
		err = run_latency(c);
		if (!err && stopped(c, RP_PHASE_LATENCY))
			return 0;
	}
	if (!err && sp->bandwidth)
		err = run_bandwidth(c);
	if (!err)
		client_count_zerocopy(c);
	if (!err)
		err = client_check_verify(c);
	if (!err)
		stopped(c, RP_PHASE_BANDWIDTH);
	return err;
}

int client_run_point(struct client *c)
{
	int err = set_point(c);

	rp_counter_watch_start(&c->cw, c->ops, c->streams, c->n_fwd + c->n_rev);
	err = run_phases(c, err);
	cJSON_Delete(c->res->client_counters);
	c->res->client_counters = rp_counter_watch_end(
		&c->cw, c->ops, c->streams, c->n_fwd + c->n_rev);
	return err;
}
