/* SPDX-License-Identifier: MIT */
/*
 * What a test produced: the result of one point on one transport, its
 * directions, streams and intervals. run/ fills it, report/ formats it and
 * reads it back from a saved document; it sees nothing of the transports.
 */
#ifndef RP_RUN_RESULT_H
#define RP_RUN_RESULT_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "core/cpu.h"
#include "core/fields.h"
#include "core/hist.h"
#include "core/phase.h"
#include "core/rate.h"
#include "core/spec.h"
#include "core/zc.h"

/** One side's view of the throughput phase. */
struct rp_side {
	bool present;
	struct rp_cpu_usage cpu;
	uint64_t messages;
	uint64_t bytes;
	uint64_t verify_errors;
	/* --srq, the server: its shared receive queue reached its limit this
	 * many times over the point (has_srq: the server said) */
	bool has_srq;
	uint64_t srq_limit_events;
	/* --zerocopy: this side's zero-copy sends over the point (issued,
	 * notified, copied by the kernel anyway), if it reported them (a
	 * server older than --zerocopy does not) */
	bool has_zc;
	struct rp_zc_count zc;
};

/** What a set of operations did: one stream, a direction, a whole test. */
struct rp_flow {
	uint64_t bytes;
	uint64_t messages;
	double seconds; /* first post to last completion */
	double bits_per_second;
	double mib_per_second;
	double messages_per_second;
	bool has_latency; /* completion latency under load, ns */
	struct rp_hist_summary latency;
	/* Open loop (--rate): latency from each operation's intended start
	 * (coordinated omission corrected), and how the schedule fared
	 * (struct rp_phase_out) */
	bool has_corrected;
	struct rp_hist_summary corrected;
	uint64_t backlogged, max_backlog, unsent;
};

/* The members of struct rp_flow (core/fields.h, run/result.c): what the
 * wire and the user's document say of a flow, each in its form. */
extern const struct rp_field rp_flow_fields[];
extern const size_t rp_flow_n_fields;

/** One stream's share of a direction. */
struct rp_stream_result {
	uint32_t stream; /* 0.. within its direction */
	uint32_t thread; /* the initiator's thread that drove it */
	struct rp_flow flow;
};

/** One interval (-i) of the throughput phase, the client's streams. */
struct rp_interval {
	uint32_t index;	     /* 0.. within the point */
	double start;	     /* seconds since the phase began */
	struct rp_flow flow; /* seconds: this interval's length */
	uint32_t n_streams;  /* per_stream's length: 0 with one stream */
	struct rp_stream_result *per_stream; /* owned */
	/* owned: the deltas of the client's link counters over the interval
	 * (core/counters.h's JSON form), NULL when not read */
	cJSON *counters;
};

enum rp_dir { RP_DIR_C2S, RP_DIR_S2C, RP_DIR__COUNT };

/** One direction of a test: the client's streams, or (--bidir) the
 *  server's. */
struct rp_direction {
	bool present;
	struct rp_flow flow; /* all its streams together */
	uint32_t n_streams;
	struct rp_stream_result *per_stream; /* n_streams, owned */
	double fairness; /* Jain's index over per-stream throughput, 0..1 */
};

/** The result of one test point on one transport. */
struct rp_result {
	char transport[RP_SPEC_NAME_LEN];
	struct rp_spec spec; /* this point's size, depth, iterations */
	uint32_t point;	     /* index in the sweep */
	uint64_t warmup_messages;
	bool has_bandwidth;
	/* The test: with --bidir the sum of both directions (seconds the
	 * longer); its latency the client's direction's. No corrected
	 * latency or schedule: those are the client direction's flow. */
	struct rp_flow flow;
	struct rp_direction dir[RP_DIR__COUNT];
	struct rp_spectrum latency_spectrum; /* n = 0: none */
	/* -i: the throughput phase interval by interval (owned), and the
	 * lowest and highest interval throughput among the intervals at least
	 * half interval_s long (a short last one would mislead) */
	double interval_s;
	struct rp_interval *intervals;
	uint32_t n_intervals;
	bool has_interval_range;
	double interval_min_bps, interval_max_bps;
	bool has_unloaded; /* ping-pong: rtt/2 (or whole op), ns */
	struct rp_hist_summary unloaded;
	struct rp_hist_summary rtt;
	struct rp_spectrum unloaded_spectrum; /* as unloaded: halved or not */
	bool unloaded_halved;		      /* unloaded = rtt / 2 */
	struct rp_side client;
	struct rp_side server;
	/* --qp ud: nothing is acknowledged. Of the client's direction, what
	 * the client sent and what reached the server (throughput phase,
	 * has_loss_sent); the pings and those with no answer (latency) */
	bool has_loss;
	bool has_loss_sent;
	uint64_t loss_sent, loss_arrived;
	uint64_t pings, pings_lost;
	cJSON *client_info; /* the transports' local_info, owned: an array,
			     * one object per stream */
	cJSON *server_info;
	cJSON *server_host;
	cJSON *client_host; /* rp_host_info() of this side, owned */
	/* What each side's link counted over the point (core/counters.h's
	 * JSON form, owned; NULL: none read) */
	cJSON *client_counters;
	cJSON *server_counters;
	/* --expect: the point's verdict (core/expect.h's form, owned; NULL:
	 * nothing expected), and how many times --retry re-ran it first */
	cJSON *verdict;
	uint32_t retries;
	/* --repeat: the point's figures over its repetitions (run/repeat.h's
	 * JSON, owned; NULL: it ran once); the rest of the result is the
	 * repetition at the median */
	cJSON *repeat;
	/* --slo: the search this result ends (run/slo.h's JSON, owned; NULL:
	 * none); the rest of the result is the run that stands for the rate
	 * found */
	cJSON *slo;
	/* --rails: each rail's two ends, [{rail, client, server}] with each
	 * side as xport/rails.h's rp_rails_json describes it (owned; NULL:
	 * no rails); its figures come from per_stream (report/: per_rail) */
	cJSON *rails;
	/* --mcast: each receiver's figures, [{host, joined, received, lost,
	 * loss, ..., latency_us, clock}] (run/client_mcast.c; owned, NULL:
	 * no --mcast); the flow is the sender's, the loss the worst one's */
	cJSON *mcast;
	char notes[RP_NOTE_LEN]; /* the transport's notes for the user */
	bool interrupted;	 /* SIGINT: the sweep stopped at this point */
	enum rp_phase interrupted_phase; /* the phase it stopped in */
	bool failed;
	char error_code[32];
	char error[256];
};

/** rp_intervals_free - free @n intervals and their per-stream arrays. */
void rp_intervals_free(struct rp_interval *iv, uint32_t n);

/** rp_result_fini - free what a result owns; the struct itself stays. */
void rp_result_fini(struct rp_result *r);

/** rp_result_rated_bps - the rated rate of the test's link, bit/s: the
 *  lower of the two sides' links where both are known, the one known, or
 *  0 (neither: a netdev without a speed, a soft device). */
double rp_result_rated_bps(const struct rp_result *r);

/** rp_result_same_host - both sides ran on one host (one hostname):
 *  then the server's counters are the client's, counted once. */
bool rp_result_same_host(const struct rp_result *r);

/** rp_result_saturated - an open loop (--rate) whose client direction
 *  achieved under RP_RATE_SATURATED of the rate it offered. Its figures
 *  (achieved, corrected latency, backlog) are that direction's flow. */
static inline bool rp_result_saturated(const struct rp_result *r)
{
	return r->spec.rate && r->dir[RP_DIR_C2S].flow.messages_per_second <
				       RP_RATE_SATURATED * (double)r->spec.rate;
}

#endif
