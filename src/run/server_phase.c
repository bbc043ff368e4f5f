// SPDX-License-Identifier: MIT
/*
 * A server session's phases, START/STOP pairs until BYE. START names the
 * phase and the point (size, depth: every stream moves there first) and,
 * for the server's own initiators under --bidir, how long to run. During
 * a phase a crew of responder threads serves the client's streams (and,
 * under --bidir outside the latency phase, a crew of initiators drives the
 * server's) while the session thread watches the control connection for
 * STOP, ERROR or the client's disappearance.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/clock.h"
#include "proto/bodies.h"
#include "proto/proto.h"
#include "run/crew.h"
#include "run/counters.h"
#include "run/flow.h"
#include "run/server.h"

#define SESSION_POLL_MS 200
#define PHASE_SLACK_NS	(10ULL * 1000000000ULL) /* past a bound's own */

struct phase {
	enum rp_phase phase;
	uint64_t size;
	uint32_t depth;
	struct rp_engine_opts o;
	atomic_int abort; /* the server's initiators: stop posting */
	struct rp_crew *responders;
	struct rp_crew *initiators;
	struct rp_side_stats *st; /* the responders', per stream */
	uint64_t *sent;		  /* STOP's "sent", per stream */
	struct rp_cpu_sample a, b;
	struct rp_cpu_usage cpu;
	struct rp_stream *bad;
	uint64_t t0;	   /* READY sent */
	uint64_t seen;	   /* the responders' activity at the last look */
	uint64_t alive_ns; /* when it last moved */
	struct rp_counter_watch cw; /* the link's counters over the phase */
};

/* START's body: the phase, a point within the test's limits, a length. */
static int parse_start(struct session *s, const cJSON *b, struct phase *p)
{
	const struct rp_start_bounds lim = {
		.size_bytes = s->spec.size_bytes,
		.queue_depth = s->spec.queue_depth,
		.max_duration_ns = s->srv->cfg->limits.max_time_ns,
		.atomic = rp_op_is_atomic(s->spec.op),
	};
	struct rp_start_body start;
	char text[200];
	int err;

	err = rp_proto_start_decode(b, &lim, &start, text, sizeof(text));
	if (err)
		return session_refuse(
			s, err, err == -EBADMSG ? "protocol" : "spec", text);
	p->phase = start.phase;
	p->size = start.size_bytes;
	p->depth = start.queue_depth;
	p->o.iterations = start.iterations;
	p->o.duration_ns = start.duration_ns;
	p->o.period_ns = rp_engine_period_ns(start.rate, s->n_rev);
	return 0;
}

static int set_point(struct session *s, const struct phase *p)
{
	struct rp_stream *bad = NULL;
	int err;

	err = rp_streams_set_point(s->streams, s->n_fwd + s->n_rev, p->size,
				   p->depth, &bad);
	return err ? session_refuse(s, err, "transport",
				    rp_err_text(&bad->err, err))
		   : 0;
}

static int start_crews(struct session *s, struct phase *p)
{
	const struct rp_config *cfg = s->srv->cfg;
	struct rp_crew_opts co = { .phase = p->phase,
				   .eng = p->o,
				   .cpus = cfg->test.cpus,
				   .n_cpus = cfg->test.n_cpus };
	struct rp_engine_stream *fwd;
	unsigned int i;
	int err;

	for (i = 0; i < s->n_fwd; i++) /* each phase's own, from STOP */
		atomic_store(&s->streams[i]->due, 0);
	p->st = calloc(s->n_fwd, sizeof(*p->st));
	p->sent = calloc(s->n_fwd, sizeof(*p->sent));
	fwd = calloc(s->n_fwd, sizeof(*fwd));
	if (!p->st || !p->sent || !fwd) {
		free(fwd);
		return -ENOMEM;
	}
	for (i = 0; i < s->n_fwd; i++)
		fwd[i].s = s->streams[i];
	co.eng.intr = &p->abort;
	co.eng.stall_ns = cfg->stall_ns;
	err = rp_crew_start(&p->responders, RP_ROLE_RESPONDER, fwd, p->st,
			    s->n_fwd, s->spec.threads, &co);
	free(fwd); /* the crew copied the stream pointers */
	/* no length (a 1.0 client): its initiators would never end */
	if (err || !s->n_rev || p->phase == RP_PHASE_LATENCY ||
	    (!p->o.iterations && !p->o.duration_ns))
		return err;
	for (i = 0; i < s->n_rev; i++) {
		rp_hist_reset(s->rev[i].hist);
		if (p->o.period_ns && !s->rev[i].corr &&
		    rp_hist_create(&s->rev[i].corr))
			return -ENOMEM;
		if (s->rev[i].corr)
			rp_hist_reset(s->rev[i].corr);
	}
	co.cpu_base = s->spec.threads;
	return rp_crew_start(&p->initiators, RP_ROLE_INITIATOR, s->rev, NULL,
			     s->n_rev, s->spec.threads, &co);
}

/* Join what runs; the first failure's stream in p->bad. */
static int join_crews(struct phase *p)
{
	struct rp_stream *bad = NULL;
	int err = 0, e;

	if (p->responders) {
		rp_crew_stop(p->responders);
		err = rp_crew_join(p->responders, &p->cpu, &p->bad);
		p->responders = NULL;
	}
	if (p->initiators) {
		e = rp_crew_join(p->initiators, &p->cpu, &bad);
		p->initiators = NULL;
		if (e && !err) {
			err = e;
			p->bad = bad;
		}
	}
	return err;
}

static bool crews_failed(const struct phase *p)
{
	return (p->responders && rp_crew_failed(p->responders)) ||
	       (p->initiators && rp_crew_failed(p->initiators));
}

/* Every responder's signs of life together; *@blind when one cannot see
 * its (one-sided) traffic. */
static uint64_t activity(const struct session *s, bool *blind)
{
	uint64_t sum = 0;
	unsigned int i;

	*blind = false;
	for (i = 0; i < s->n_fwd; i++) {
		sum += atomic_load_explicit(&s->streams[i]->activity,
					    memory_order_relaxed);
		*blind |= atomic_load(&s->streams[i]->blind) != 0;
	}
	return sum;
}

/* The bounds a phase lives within, checked at each look while the crews
 * run: the server stopping, the whole test's --max-time, a timed phase's
 * length plus the stall time and a slack, and, mirroring the client's
 * stall timeout, no sign of life from any responder for that long (where
 * the responders can see the traffic). Return: 0, or the refusal's -errno
 * (the client told why). */
static int phase_watch(struct session *s, struct phase *p)
{
	const struct rp_limits *l = &s->srv->cfg->limits;
	uint64_t now = rp_clock_ns(), act, stall = rp_stall_ns(s->srv->cfg);
	char text[160];
	bool blind;

	if (session_stopping(s))
		return session_refuse(s, -ESHUTDOWN, "shutdown", "");
	if (now - s->started_ns > l->max_time_ns + PHASE_SLACK_NS) {
		snprintf(text, sizeof(text),
			 "the test ran past this server's --max-time (%.0f s)",
			 (double)l->max_time_ns / 1e9);
		return session_refuse(s, -ETIMEDOUT, "limit", text);
	}
	if (p->o.duration_ns &&
	    now - p->t0 > p->o.duration_ns + stall + PHASE_SLACK_NS) {
		snprintf(text, sizeof(text),
			 "the %s phase ran %.0f s past its %.3g s: the client "
			 "is gone or stuck",
			 rp_phase_name(p->phase),
			 (double)(now - p->t0 - p->o.duration_ns) / 1e9,
			 (double)p->o.duration_ns / 1e9);
		return session_refuse(s, -ETIMEDOUT, "timeout", text);
	}
	act = activity(s, &blind);
	if (act != p->seen || blind) {
		p->seen = act;
		p->alive_ns = now;
	} else if (now - p->alive_ns > stall) {
		snprintf(text, sizeof(text),
			 "nothing arrived for %.3g s in the %s phase "
			 "(--stall-timeout)",
			 (double)stall / 1e9, rp_phase_name(p->phase));
		return session_refuse(s, -ETIMEDOUT, "timeout", text);
	}
	return 0;
}

/* STOP's "sent", each stream's count of operations the client completed,
 * as the responders' due (rp_stream.due), before they see stop. Anything
 * else there (an older client's nothing, a wrong length, a count that is
 * not a whole number up to 2^53) leaves the due at 0: the drain ends at
 * its first empty pass, as without it. Return: STOP's abort (the client
 * was interrupted). */
static bool take_stop(struct session *s, struct phase *p, const cJSON *body)
{
	struct rp_stop_body stop;
	unsigned int i;

	if (rp_proto_stop_decode(body, s->n_fwd, p->sent, &stop, NULL, 0))
		return false;
	for (i = 0; i < stop.n_sent; i++)
		atomic_store(&s->streams[i]->due, stop.sent[i]);
	return stop.abort;
}

/* Wait for the client's STOP while the crews run; a crew that fails ends
 * the phase at once, with its reason, and so does a bound (phase_watch). */
static int await_stop(struct session *s, struct phase *p, cJSON **body)
{
	struct pollfd pfd = { .fd = s->fd, .events = POLLIN };
	char text[RP_ERR_LEN + 32];
	int n, err;

	p->t0 = p->alive_ns = rp_clock_ns();
	p->seen = activity(s, &(bool){ false });
	for (;;) {
		err = phase_watch(s, p);
		if (err)
			return err;
		if (crews_failed(p)) {
			atomic_store(&p->abort, 1);
			err = join_crews(p);
			snprintf(text, sizeof(text), "%s phase: %s",
				 rp_phase_name(p->phase),
				 p->bad ? rp_err_text(&p->bad->err, err)
					: strerror(-err));
			return session_refuse(s, err, "transport", text);
		}
		n = rp_poll(&pfd, 1, SESSION_POLL_MS);
		if (n < 0 && errno != EINTR)
			return -errno;
		if (n > 0)
			return session_expect(s, RP_MSG_STOP,
					      RP_CTRL_TIMEOUT_MS, body);
	}
}

/* The process is not this test's alone: it shares it with the client
 * (--loopback), or with other tests (--max-tests). */
static bool shared_process(const struct session *s)
{
	return s->srv->cfg->mode == RP_MODE_LOOPBACK ||
	       s->srv->cfg->own_threads || s->srv->max_tests > 1;
}

/* The side's CPU over the phase: the process's, or, in a process it
 * shares, the sum of this test's threads. */
static void phase_cpu(const struct session *s, struct phase *p, uint64_t bytes)
{
	struct rp_cpu_usage *u = &p->cpu;

	rp_cpu_usage(&p->a, &p->b, bytes, u);
	if (shared_process(s))
		rp_cpu_usage_own_threads(u, bytes);
}

/* DONE: what the responders saw, the CPU, under --bidir the server's
 * own direction, under --zerocopy every stream's zero-copy sends so far. */
static cJSON *done_body(struct session *s, struct phase *p)
{
	struct rp_done_body done = { 0 };
	struct rp_direction d = { 0 };
	cJSON *dir = NULL, *counters, *b;
	uint64_t verr = 0;
	unsigned int i;

	for (i = 0; i < s->n_fwd; i++) {
		done.messages += p->st[i].messages;
		done.bytes += p->st[i].bytes;
		done.verify_errors += p->st[i].verify_errors;
	}
	for (i = 0; i < s->n_rev; i++)
		verr += s->ops->verify_errors(s->rev[i].s);
	done.verify_errors += verr - s->verify_seen;
	s->verify_seen = verr;
	if (s->spec.srq && s->n_fwd && s->ops->srq_limit_events) {
		uint64_t n = s->ops->srq_limit_events(s->streams[0]);

		done.has_srq = true;
		done.srq_limit_events = n - s->srq_seen;
		s->srq_seen = n;
	}
	if (s->n_rev && p->phase != RP_PHASE_LATENCY &&
	    !rp_direction_build(&d, s->rev, s->n_rev, s->spec.threads, p->size,
				s->scratch))
		dir = rp_direction_to_json(&d);
	phase_cpu(s, p, done.bytes + d.flow.bytes);
	rp_direction_fini(&d);
	done.direction = dir;
	done.has_zc = s->spec.zerocopy && s->ops->zerocopy;
	if (done.has_zc)
		rp_streams_zerocopy(s->streams, s->n_fwd + s->n_rev, &done.zc);
	done.cpu = p->cpu;
	counters = rp_counter_watch_end(&p->cw, s->ops, s->streams,
					s->n_fwd + s->n_rev);
	done.counters = counters;
	b = rp_proto_done_encode(&done);
	cJSON_Delete(counters);
	cJSON_Delete(dir);
	return b;
}

static int run_phase(struct session *s, struct phase *p)
{
	const struct rp_config *cfg = s->srv->cfg;
	bool loop = shared_process(s);
	cJSON *body = NULL;
	bool interrupted = false;
	int err;

	err = set_point(s, p);
	if (err)
		return err;
	rp_counter_watch_start(&p->cw, s->ops, s->streams, s->n_fwd + s->n_rev);
	rp_cpu_sample(&p->a, loop, cfg->test.cpus,
		      (unsigned int)cfg->test.n_cpus);
	err = start_crews(s, p);
	if (err)
		session_refuse(s, err, "server", "cannot start the threads");
	else
		err = rp_proto_send(s->fd, RP_MSG_READY, NULL,
				    RP_CTRL_TIMEOUT_MS);
	if (!err)
		err = await_stop(s, p, &body);
	if (!err)
		interrupted = take_stop(s, p, body);
	/* an interrupted client stops the server's own initiators too */
	if (err || interrupted)
		atomic_store(&p->abort, 1);
	cJSON_Delete(body);
	if (join_crews(p) && !err)
		err = session_refuse(s, -EIO, "transport",
				     p->bad ? p->bad->err.msg
					    : "a thread failed");
	if (err)
		return err;
	rp_cpu_sample(&p->b, loop, cfg->test.cpus,
		      (unsigned int)cfg->test.n_cpus);
	body = done_body(s, p);
	err = body ? rp_proto_send(s->fd, RP_MSG_DONE, body, RP_CTRL_TIMEOUT_MS)
		   : -ENOMEM;
	cJSON_Delete(body);
	return err;
}

int session_phases(struct session *s)
{
	struct phase p;
	cJSON *body = NULL;
	uint16_t type;
	int err;

	for (;;) {
		err = rp_proto_recv(s->fd, RP_SETUP_TIMEOUT_MS, &type, &body);
		if (err)
			return session_refuse(s, err, "protocol",
					      rp_proto_strerror(err));
		if (type == RP_MSG_BYE) {
			cJSON_Delete(body);
			return 0;
		}
		memset(&p, 0, sizeof(p));
		err = type == RP_MSG_START
			      ? parse_start(s, body, &p)
			      : session_refuse(s, -EPROTO, "protocol",
					       "expected START or BYE");
		cJSON_Delete(body);
		if (!err)
			err = run_phase(s, &p);
		free(p.st);
		free(p.sent);
		if (err)
			return err;
	}
}
