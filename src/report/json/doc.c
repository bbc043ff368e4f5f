// SPDX-License-Identifier: MIT
/*
 * JSON reporter. The shape is fixed by DESIGN.md ("Outputs"): fields may be
 * added, none renamed. Latencies are in microseconds; a number that is not
 * finite prints as null, so the document is always valid JSON. One element
 * of "results" per (transport, point), transport-major.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>

#include "core/counters.h"
#include "core/fields.h"
#include "core/safe.h"
#include "report/priv.h"

static int transports_json(cJSON *c, const struct rp_field *f, const void *base)
{
	const struct rp_test *test = base;
	cJSON *t;
	size_t i;

	(void)f;
	if (test->n_transports == 1) {
		cJSON_AddStringToObject(c, "transport", test->transports[0]);
		return 0;
	}
	t = cJSON_AddArrayToObject(c, "transport");
	for (i = 0; t && i < test->n_transports; i++)
		cJSON_AddItemToArray(t,
				     cJSON_CreateString(test->transports[i]));
	return 0;
}

/* "server" and "port": where the client went (read/doc.c reads them). */
static int server_json(cJSON *c, const struct rp_field *f, const void *base)
{
	const struct rp_test *test = base;

	(void)f;
	cJSON_AddStringToObject(c, "server", test->host ? test->host : "");
	cJSON_AddNumberToObject(c, "port", test->port);
	return 0;
}

/* The sweep's sizes, depths and the pinned CPUs; a test of one point
 * without a sweep list has its spec's size and depth. */
static int lists_json(cJSON *c, const struct rp_field *f, const void *base)
{
	const struct rp_test *test = base;
	double size = (double)test->spec.size_bytes;
	double depth = test->spec.queue_depth;
	cJSON *a;
	size_t i;

	(void)f;
	a = cJSON_AddArrayToObject(c, "sizes");
	for (i = 0; a && i < test->n_sizes; i++)
		cJSON_AddItemToArray(
			a, cJSON_CreateNumber((double)test->sizes[i]));
	if (a && !test->n_sizes)
		cJSON_AddItemToArray(a, cJSON_CreateNumber(size));
	a = cJSON_AddArrayToObject(c, "queue_depths");
	for (i = 0; a && i < test->n_depths; i++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber(test->depths[i]));
	if (a && !test->n_depths)
		cJSON_AddItemToArray(a, cJSON_CreateNumber(depth));
	a = cJSON_AddArrayToObject(c, "cpus");
	for (i = 0; a && i < test->n_cpus; i++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber(test->cpus[i]));
	return 0;
}

static int rates_json(cJSON *c, const struct rp_field *f, const void *base)
{
	(void)f;
	rp_report_rates_json(base, c);
	return 0;
}

/* --slo's target as given, and its tolerance when given (read/doc.c
 * reads them back). */
static int slo_json(cJSON *c, const struct rp_field *f, const void *base)
{
	const struct rp_test *test = base;

	(void)f;
	if (!test->slo.n)
		return 0;
	cJSON_AddStringToObject(c, "slo", test->slo.t[0].text);
	if (test->slo_tolerance > 0)
		rp_report_num(c, "slo_tolerance_pct",
			      100 * test->slo_tolerance);
	return 0;
}

/*
 * The spec in the user's document, in the document's order (not the
 * wire's: core/spec.c): the config as asked, with what the user gave that
 * is no part of the spec, and each result's point. Counts are bounded as
 * the reader takes them back; hooks write what read/ reads on its own.
 */
#define DOC_AS(st, k, m, kind_, fl)                                            \
	.key = (k), .off = offsetof(struct st, m), .kind = (kind_),            \
	.flags = RP_FIELD_IN_DOC | (fl)
#define HOOK(k, fn)                                                            \
	.key = (k), .kind = RP_FIELD_HOOK, .flags = RP_FIELD_IN_DOC, .put = (fn)
#define OP(st, m)                                                              \
	{                                                                      \
		DOC_AS(st, "op", m, RP_FIELD_ENUM, 0), .en = &rp_spec_op_enum  \
	}
#define WAIT(st, m)                                                            \
	{                                                                      \
		DOC_AS(st, "wait", m, RP_FIELD_ENUM, 0),                       \
			.en = &rp_spec_wait_enum                               \
	}
/* a u32 absent when 0 (what was not asked for), at most @mx */
#define SPARSE(st, k, m, mx)                                                   \
	{                                                                      \
		DOC_AS(st, k, m, RP_FIELD_U32, RP_FIELD_SPARSE), .max = (mx)   \
	}
#define COUNT(st, k, m, kind_, mx, fl)                                         \
	{                                                                      \
		DOC_AS(st, k, m, kind_, fl), .max = (mx), .dflt = 1            \
	}

const struct rp_field rp_report_config_fields[] = {
	OP(rp_test, spec.op),
	COUNT(rp_test, "size", spec.size_bytes, RP_FIELD_U64, RP_SPEC_MAX_SIZE,
	      0),
	COUNT(rp_test, "queue_depth", spec.queue_depth, RP_FIELD_U32,
	      RP_SPEC_MAX_DEPTH, 0),
	{ DOC_AS(rp_test, "iterations", spec.iterations, RP_FIELD_U64, 0) },
	{ DOC_AS(rp_test, "iterations_defaulted", iterations_defaulted,
		 RP_FIELD_BOOL, 0) },
	{ DOC_AS(rp_test, "duration_ns", spec.duration_ns, RP_FIELD_U64, 0) },
	{ DOC_AS(rp_test, "warmup", spec.warmup, RP_FIELD_U64, 0) },
	{ DOC_AS(rp_test, "lat_iterations", spec.lat_iterations, RP_FIELD_U64,
		 0) },
	{ DOC_AS(rp_test, "latency", spec.latency, RP_FIELD_BOOL, 0) },
	{ DOC_AS(rp_test, "bandwidth", spec.bandwidth, RP_FIELD_BOOL, 0) },
	{ DOC_AS(rp_test, "verify", spec.verify, RP_FIELD_BOOL, 0) },
	{ DOC_AS(rp_test, "zerocopy", spec.zerocopy, RP_FIELD_BOOL,
		 RP_FIELD_SPARSE) },
	SPARSE(rp_test, "tos", spec.tos, RP_SPEC_MAX_TOS),
	SPARSE(rp_test, "sl", spec.sl, RP_SPEC_MAX_SL),
	SPARSE(rp_test, "flow_label", spec.flow_label, RP_SPEC_MAX_FLOW),
	SPARSE(rp_test, "path_mtu", spec.path_mtu, RP_SPEC_MAX_MTU),
	{ DOC_AS(rp_test, "mem", spec.mem, RP_FIELD_ENUM, RP_FIELD_SPARSE),
	  .en = &rp_spec_mem_enum },
	{ DOC_AS(rp_test, "qp", spec.qp, RP_FIELD_ENUM, RP_FIELD_SPARSE),
	  .en = &rp_spec_qp_enum },
	{ DOC_AS(rp_test, "tagged", spec.tagged, RP_FIELD_BOOL,
		 RP_FIELD_SPARSE) },
	{ DOC_AS(rp_test, "ep_type", spec.ep_type, RP_FIELD_ENUM,
		 RP_FIELD_SPARSE),
	  .en = &rp_spec_ep_type_enum },
	{ DOC_AS(rp_test, "srq", spec.srq, RP_FIELD_BOOL, RP_FIELD_SPARSE) },
	SPARSE(rp_test, "srq_size", spec.srq_size, RP_SPEC_MAX_SRQ),
	SPARSE(rp_test, "rails", spec.rails, RP_SPEC_MAX_RAILS),
	{ DOC_AS(rp_test, "rail_numa", spec.rail_numa, RP_FIELD_BOOL,
		 RP_FIELD_SPARSE) },
	{ DOC_AS(rp_test, "mcast", spec.mcast, RP_FIELD_STRING,
		 RP_FIELD_SPARSE),
	  .size = RP_SPEC_GROUP_LEN },
	{ HOOK("transport", transports_json) },
	{ DOC_AS(rp_test, "duration_s", spec.duration_ns, RP_FIELD_U64,
		 RP_FIELD_WRITE_ONLY),
	  .scale = 1e9 },
	{ HOOK("server", server_json) },
	{ HOOK("sizes", lists_json) },
	COUNT(rp_test, "streams", spec.streams, RP_FIELD_U32,
	      RP_SPEC_MAX_STREAMS, RP_FIELD_ZERO_DFLT),
	COUNT(rp_test, "threads", spec.threads, RP_FIELD_U32,
	      RP_SPEC_MAX_THREADS, RP_FIELD_ZERO_DFLT),
	{ DOC_AS(rp_test, "bidir", spec.bidir, RP_FIELD_BOOL, 0) },
	WAIT(rp_test, spec.wait),
	SPARSE(rp_test, "signal", spec.signal, RP_SPEC_MAX_DEPTH),
	SPARSE(rp_test, "post_list", spec.post_list, RP_SPEC_MAX_DEPTH),
	{ HOOK("rates", rates_json) },
	{ HOOK("slo", slo_json) },
	{ DOC_AS(rp_test, "interval_s", interval_s, RP_FIELD_DOUBLE, 0) },
};

const size_t rp_report_config_n_fields = RP_FIELDS_N(rp_report_config_fields);

static int ok_json(cJSON *o, const struct rp_field *f, const void *base)
{
	const struct rp_result *r = base;

	(void)f;
	return cJSON_AddBoolToObject(o, "ok", !r->failed) ? 0 : -ENOMEM;
}

const struct rp_field rp_report_point_fields[] = {
	{ DOC_AS(rp_result, "transport", transport, RP_FIELD_STRING, 0),
	  .size = RP_SPEC_NAME_LEN },
	{ DOC_AS(rp_result, "point", point, RP_FIELD_U32, 0) },
	OP(rp_result, spec.op),
	COUNT(rp_result, "size", spec.size_bytes, RP_FIELD_U64,
	      RP_SPEC_MAX_SIZE, 0),
	COUNT(rp_result, "queue_depth", spec.queue_depth, RP_FIELD_U32,
	      RP_SPEC_MAX_DEPTH, 0),
	{ DOC_AS(rp_result, "iterations", spec.iterations, RP_FIELD_U64, 0) },
	{ DOC_AS(rp_result, "duration_s", spec.duration_ns, RP_FIELD_U64, 0),
	  .scale = 1e9 },
	COUNT(rp_result, "streams", spec.streams, RP_FIELD_U32,
	      RP_SPEC_MAX_STREAMS, RP_FIELD_ZERO_DFLT),
	COUNT(rp_result, "threads", spec.threads, RP_FIELD_U32,
	      RP_SPEC_MAX_THREADS, RP_FIELD_ZERO_DFLT),
	WAIT(rp_result, spec.wait),
	{ DOC_AS(rp_result, "bidir", spec.bidir, RP_FIELD_BOOL, 0) },
	SPARSE(rp_result, "signal", spec.signal, RP_SPEC_MAX_DEPTH),
	SPARSE(rp_result, "post_list", spec.post_list, RP_SPEC_MAX_DEPTH),
	SPARSE(rp_result, "tos", spec.tos, RP_SPEC_MAX_TOS),
	SPARSE(rp_result, "sl", spec.sl, RP_SPEC_MAX_SL),
	SPARSE(rp_result, "flow_label", spec.flow_label, RP_SPEC_MAX_FLOW),
	SPARSE(rp_result, "path_mtu", spec.path_mtu, RP_SPEC_MAX_MTU),
	{ DOC_AS(rp_result, "mem", spec.mem, RP_FIELD_ENUM, RP_FIELD_SPARSE),
	  .en = &rp_spec_mem_enum },
	{ DOC_AS(rp_result, "qp", spec.qp, RP_FIELD_ENUM, RP_FIELD_SPARSE),
	  .en = &rp_spec_qp_enum },
	{ DOC_AS(rp_result, "tagged", spec.tagged, RP_FIELD_BOOL,
		 RP_FIELD_SPARSE) },
	{ DOC_AS(rp_result, "ep_type", spec.ep_type, RP_FIELD_ENUM,
		 RP_FIELD_SPARSE),
	  .en = &rp_spec_ep_type_enum },
	{ DOC_AS(rp_result, "srq", spec.srq, RP_FIELD_BOOL, RP_FIELD_SPARSE) },
	SPARSE(rp_result, "srq_size", spec.srq_size, RP_SPEC_MAX_SRQ),
	SPARSE(rp_result, "rails", spec.rails, RP_SPEC_MAX_RAILS),
	{ DOC_AS(rp_result, "rail_numa", spec.rail_numa, RP_FIELD_BOOL,
		 RP_FIELD_SPARSE) },
	{ DOC_AS(rp_result, "mcast", spec.mcast, RP_FIELD_STRING,
		 RP_FIELD_SPARSE),
	  .size = RP_SPEC_GROUP_LEN },
	{ HOOK("ok", ok_json) },
};

const size_t rp_report_point_n_fields = RP_FIELDS_N(rp_report_point_fields);

/* The test as the user asked for it (not the wire's spec encoding: the
 * user's view has a list of transports, seconds, the server's address). */
cJSON *rp_report_config_json(const struct rp_test *test)
{
	cJSON *c = cJSON_CreateObject();

	if (c && rp_fields_write(c, test, rp_report_config_fields,
				 rp_report_config_n_fields, RP_FIELD_DOC)) {
		cJSON_Delete(c);
		return NULL;
	}
	return c;
}

static cJSON *loaded_json(const struct rp_result *r)
{
	cJSON *l = rp_report_latency_json(&r->flow.latency);

	rp_report_spectrum_json(&r->latency_spectrum, l);
	return l;
}

static cJSON *unloaded_json(const struct rp_result *r)
{
	cJSON *l = rp_report_latency_json(&r->unloaded);

	if (!l)
		return NULL;
	rp_report_spectrum_json(&r->unloaded_spectrum, l);
	rp_report_num(l, "rtt_p50", r->rtt.p50 / 1e3);
	rp_report_num(l, "rtt_p99", r->rtt.p99 / 1e3);
	cJSON_AddStringToObject(l, "method",
				r->unloaded_halved ? "half round trip"
						   : "whole operation");
	return l;
}

/* One side's "cpu": core/cpu's fields, then what the side moved. */
static cJSON *side_json(const struct rp_side *s)
{
	cJSON *c = cJSON_CreateObject();

	if (!c)
		return NULL;
	if (rp_cpu_usage_to_json(&s->cpu, c)) {
		cJSON_Delete(c);
		return NULL;
	}
	rp_report_num(c, "messages", (double)s->messages);
	rp_report_num(c, "bytes", (double)s->bytes);
	rp_report_num(c, "verify_errors", (double)s->verify_errors);
	if (s->has_srq)
		rp_report_num(c, "srq_limit_events",
			      (double)s->srq_limit_events);
	return c;
}

static cJSON *cpu_json(const struct rp_result *r)
{
	cJSON *cpu = cJSON_CreateObject();

	if (!cpu)
		return NULL;
	rp_report_add_or_null(cpu, "client", r->client.present,
			      side_json(&r->client));
	rp_report_add_or_null(cpu, "server", r->server.present,
			      side_json(&r->server));
	return cpu;
}

/* --zerocopy: both sides' zero-copy sends over the point and their sum;
 * "copied" of them the kernel copied anyway (always so on loopback). */
static cJSON *zerocopy_json(const struct rp_result *r)
{
	cJSON *z = cJSON_CreateObject();
	struct rp_zc_count sum = r->client.zc;

	if (!z)
		return NULL;
	if (r->server.has_zc)
		rp_zc_add(&sum, &r->server.zc);
	cJSON_AddNumberToObject(z, "min_size", RP_ZC_MIN_BYTES);
	rp_report_num(z, "sends", (double)sum.sends);
	rp_report_num(z, "copied", (double)sum.copied);
	cJSON_AddItemToObject(z, "client", rp_zc_to_json(&r->client.zc));
	rp_report_add_or_null(z, "server", r->server.has_zc,
			      rp_zc_to_json(&r->server.zc));
	return z;
}

/* --qp ud: what the client sent and what arrived, the pings unanswered. */
static cJSON *loss_json(const struct rp_result *r)
{
	cJSON *l = cJSON_CreateObject();
	uint64_t lost = r->loss_sent > r->loss_arrived
				? r->loss_sent - r->loss_arrived
				: 0;

	if (!l)
		return NULL;
	if (r->has_loss_sent) {
		rp_report_num(l, "sent", (double)r->loss_sent);
		rp_report_num(l, "arrived", (double)r->loss_arrived);
		rp_report_num(l, "lost", (double)lost);
		rp_report_num(l, "ratio",
			      r->loss_sent ? (double)lost / (double)r->loss_sent
					   : 0.0);
	}
	if (r->has_unloaded) {
		rp_report_num(l, "pings", (double)r->pings);
		rp_report_num(l, "pings_lost", (double)r->pings_lost);
		cJSON_AddNumberToObject(l, "ping_timeout_ms", RP_UD_PING_MS);
	}
	return l;
}

static cJSON *error_json(const struct rp_result *r)
{
	cJSON *e = cJSON_CreateObject();

	if (!e)
		return NULL;
	cJSON_AddStringToObject(e, "code", r->error_code);
	cJSON_AddStringToObject(e, "message", r->error);
	return e;
}

/* What the point was: transport, op, size, depth, streams, threads... */
static void point_json(const struct rp_result *r, cJSON *o)
{
	rp_fields_write(o, r, rp_report_point_fields, rp_report_point_n_fields,
			RP_FIELD_DOC);
}

/* One side's transport information: "X_transport" is the first stream's
 * (the object it always was), "X_streams" every stream's, in order. */
static void side_info(cJSON *o, const char *one, const char *all,
		      const cJSON *info)
{
	const cJSON *first =
		cJSON_IsArray(info) ? cJSON_GetArrayItem(info, 0) : info;

	if (first)
		cJSON_AddItemToObject(o, one, cJSON_Duplicate(first, 1));
	if (cJSON_IsArray(info))
		cJSON_AddItemToObject(o, all, cJSON_Duplicate(info, 1));
}

static void info_json(const struct rp_result *r, cJSON *o)
{
	const cJSON *file = rp_report_file_of(r);

	side_info(o, "client_transport", "client_streams", r->client_info);
	side_info(o, "server_transport", "server_streams", r->server_info);
	if (file) /* -x file:PATH: what was done to which file */
		cJSON_AddItemToObject(o, "file", cJSON_Duplicate(file, 1));
	cJSON_AddStringToObject(o, "notes", r->notes);
}

/*
 * The test's figures, its flow's. Written here, not through rp_flow_fields
 * (read/ reads them back through it): warmup_messages sits among them,
 * "throughput" is null without a throughput phase, "latency" carries the
 * spectrum.
 */
static void figures_json(const struct rp_result *r, cJSON *o)
{
	const struct rp_flow *t = &r->flow;

	rp_report_num(o, "bytes", (double)t->bytes);
	rp_report_num(o, "messages", (double)t->messages);
	rp_report_num(o, "seconds", t->seconds);
	rp_report_num(o, "warmup_messages", (double)r->warmup_messages);
	rp_report_add_or_null(
		o, "throughput", r->has_bandwidth,
		rp_report_throughput_json(t->bits_per_second, t->mib_per_second,
					  t->messages_per_second));
	rp_report_add_or_null(o, "latency", t->has_latency, loaded_json(r));
}

/* The link's rated rate and the share of it the test moved, where one
 * side's link says its rate. */
static void rated_json(const struct rp_result *r, cJSON *o)
{
	double bps = rp_result_rated_bps(r);
	cJSON *j;

	if (!(bps > 0) || !(j = cJSON_AddObjectToObject(o, "rated")))
		return;
	rp_report_num(j, "gbps", bps / 1e9);
	if (r->has_bandwidth)
		rp_report_num(j, "share", r->flow.bits_per_second / bps);
}

/* What each side's link counted over the point, and in a word: clean,
 * lossy (errors) or congested. */
static void counters_json(const struct rp_result *r, cJSON *o)
{
	bool same = rp_result_same_host(r);
	struct rp_counters_sum c, s;
	cJSON *j;

	if (!r->client_counters && !r->server_counters)
		return;
	j = cJSON_AddObjectToObject(o, "counters");
	if (!j)
		return;
	rp_counters_sum(r->client_counters, &c);
	rp_counters_sum(same ? NULL : r->server_counters, &s);
	cJSON_AddStringToObject(j, "status",
				c.errors + s.errors	      ? "lossy"
				: c.congestion + s.congestion ? "congested"
							      : "clean");
	if (same) /* one host: the server's are the client's */
		cJSON_AddTrueToObject(j, "same_host");
	cJSON_AddItemToObject(j, "client",
			      r->client_counters
				      ? cJSON_Duplicate(r->client_counters, 1)
				      : cJSON_CreateNull());
	cJSON_AddItemToObject(j, "server",
			      r->server_counters
				      ? cJSON_Duplicate(r->server_counters, 1)
				      : cJSON_CreateNull());
}

/* --expect: the verdict, and how often --retry ran the point first. */
static void verdict_json(const struct rp_result *r, cJSON *o)
{
	if (r->verdict)
		cJSON_AddItemToObject(o, "verdict",
				      cJSON_Duplicate(r->verdict, 1));
	if (r->retries)
		rp_report_num(o, "retries", r->retries);
	if (r->repeat) /* --repeat: the figures over the repetitions */
		cJSON_AddItemToObject(o, "repeat",
				      cJSON_Duplicate(r->repeat, 1));
	if (r->slo) /* --slo: the search this run stands for */
		cJSON_AddItemToObject(o, "slo", cJSON_Duplicate(r->slo, 1));
}

cJSON *rp_report_result_json(const struct rp_result *r)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	point_json(r, o);
	figures_json(r, o);
	rp_report_add_or_null(o, "latency_unloaded", r->has_unloaded,
			      unloaded_json(r));
	rp_report_rate_add(r, o);
	rp_report_streams_json(r, o);
	if (r->spec.rails) /* --rails: absent without */
		cJSON_AddItemToObject(o, "per_rail", rp_report_rails_json(r));
	if (r->mcast) /* --mcast: absent without */
		cJSON_AddItemToObject(o, "per_receiver",
				      cJSON_Duplicate(r->mcast, 1));
	rp_report_intervals_json(r, o);
	cJSON_AddItemToObject(o, "directions", rp_report_directions_json(r));
	rp_report_add_or_null(o, "cpu", r->has_bandwidth, cpu_json(r));
	if (r->spec.zerocopy)
		cJSON_AddItemToObject(o, "zerocopy", zerocopy_json(r));
	if (r->has_loss)
		cJSON_AddItemToObject(o, "loss", loss_json(r));
	info_json(r, o);
	rated_json(r, o);
	counters_json(r, o);
	verdict_json(r, o);
	if (r->interrupted) {
		cJSON_AddTrueToObject(o, "interrupted");
		cJSON_AddStringToObject(o, "phase",
					rp_phase_name(r->interrupted_phase));
	}
	rp_report_add_or_null(o, "error", r->failed, error_json(r));
	return o;
}

static cJSON *hosts_json(const struct rp_result *res, size_t n)
{
	cJSON *h = cJSON_CreateObject(), *client = NULL, *server = NULL;
	size_t i;

	if (!h)
		return NULL;
	for (i = 0; i < n && !client; i++)
		if (res[i].client_host)
			client = cJSON_Duplicate(res[i].client_host, 1);
	for (i = 0; i < n && !server; i++)
		if (res[i].server_host)
			server = cJSON_Duplicate(res[i].server_host, 1);
	rp_report_add_or_null(h, "client", client != NULL, client);
	rp_report_add_or_null(h, "server", server != NULL, server);
	return h;
}

cJSON *rp_report_json_skeleton(cJSON *config, cJSON *hosts, cJSON **results)
{
	cJSON *doc = cJSON_CreateObject(), *arr = NULL;

	if (doc) {
		cJSON_AddStringToObject(doc, "schema", RP_JSON_SCHEMA);
		cJSON_AddStringToObject(doc, "version", RP_VERSION);
		rp_report_add_or_null(doc, "config", config != NULL, config);
		rp_report_add_or_null(doc, "hosts", hosts != NULL, hosts);
		arr = cJSON_AddArrayToObject(doc, "results");
	} else {
		cJSON_Delete(config);
		cJSON_Delete(hosts);
	}
	if (results)
		*results = arr;
	return doc;
}

cJSON *rp_report_json_doc(const struct rp_test *test,
			  const struct rp_result *res, size_t n)
{
	const struct rp_result *failed = NULL;
	cJSON *doc, *arr;
	size_t i;

	doc = rp_report_json_skeleton(rp_report_config_json(test),
				      hosts_json(res, n), &arr);
	if (!doc)
		return NULL;
	for (i = 0; i < n; i++) {
		if (res[i].failed && !failed)
			failed = &res[i];
		if (arr)
			cJSON_AddItemToArray(arr,
					     rp_report_result_json(&res[i]));
	}
	rp_report_add_or_null(doc, "error", failed != NULL,
			      failed ? error_json(failed) : NULL);
	return doc;
}

int rp_report_json(FILE *f, const struct rp_test *test,
		   const struct rp_result *res, size_t n)
{
	return rp_report_json_print(f, rp_report_json_doc(test, res, n));
}

int rp_report_json_print(FILE *f, cJSON *doc)
{
	char *text = doc ? cJSON_Print(doc) : NULL;
	int err = 0;

	if (!text)
		err = -ENOMEM;
	else if (fputs(text, f) == EOF || fputc('\n', f) == EOF)
		err = errno ? -errno : -EIO; /* a write's reason: say it now */
	else if (ferror(f))
		err = -EIO;
	free(text);
	cJSON_Delete(doc);
	return err;
}

cJSON *rp_report_safe_dup(const cJSON *doc)
{
	cJSON *copy = cJSON_Duplicate(doc, 1);

	if (copy && rp_safe_json(copy)) {
		cJSON_Delete(copy);
		return NULL;
	}
	return copy;
}
