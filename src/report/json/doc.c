// SPDX-License-Identifier: MIT
/*
 * JSON reporter. The shape is fixed by DESIGN.md ("Outputs"): fields may be
 * added, none renamed. Latencies are in microseconds; a number that is not
 * finite prints as null, so the document is always valid JSON. One element
 * of "results" per (transport, point), transport-major.
 */
#include <errno.h>
#include <stdlib.h>

#include "core/safe.h"
#include "report/priv.h"

static void transports_json(const struct rp_config *cfg, cJSON *c)
{
	cJSON *t;
	size_t i;

	if (cfg->n_transports == 1) {
		cJSON_AddStringToObject(c, "transport", cfg->transports[0]);
		return;
	}
	t = cJSON_AddArrayToObject(c, "transport");
	for (i = 0; t && i < cfg->n_transports; i++)
		cJSON_AddItemToArray(t, cJSON_CreateString(cfg->transports[i]));
}

/* The sweep's sizes, depths and the pinned CPUs; a test of one point
 * without a sweep list has its spec's size and depth. */
static void lists_json(const struct rp_config *cfg, cJSON *c)
{
	double size = (double)cfg->spec.size_bytes;
	double depth = cfg->spec.queue_depth;
	cJSON *a;
	size_t i;

	a = cJSON_AddArrayToObject(c, "sizes");
	for (i = 0; a && i < cfg->n_sizes; i++)
		cJSON_AddItemToArray(a,
				     cJSON_CreateNumber((double)cfg->sizes[i]));
	if (a && !cfg->n_sizes)
		cJSON_AddItemToArray(a, cJSON_CreateNumber(size));
	a = cJSON_AddArrayToObject(c, "queue_depths");
	for (i = 0; a && i < cfg->n_depths; i++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber(cfg->depths[i]));
	if (a && !cfg->n_depths)
		cJSON_AddItemToArray(a, cJSON_CreateNumber(depth));
	a = cJSON_AddArrayToObject(c, "cpus");
	for (i = 0; a && i < cfg->n_cpus; i++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber(cfg->cpus[i]));
}

/* The test as the user asked for it (not the wire's spec encoding: the
 * user's view has a list of transports, seconds, the server's address). */
cJSON *rp_report_config_json(const struct rp_config *cfg)
{
	const struct rp_spec *sp = &cfg->spec;
	cJSON *c = cJSON_CreateObject();

	if (!c)
		return NULL;
	cJSON_AddStringToObject(c, "op", rp_op_name(sp->op));
	cJSON_AddNumberToObject(c, "size", (double)sp->size_bytes);
	cJSON_AddNumberToObject(c, "queue_depth", sp->queue_depth);
	cJSON_AddNumberToObject(c, "iterations", (double)sp->iterations);
	cJSON_AddBoolToObject(c, "iterations_defaulted",
			      cfg->iterations_defaulted);
	cJSON_AddNumberToObject(c, "duration_ns", (double)sp->duration_ns);
	cJSON_AddNumberToObject(c, "warmup", (double)sp->warmup);
	cJSON_AddNumberToObject(c, "lat_iterations",
				(double)sp->lat_iterations);
	cJSON_AddBoolToObject(c, "latency", sp->latency);
	cJSON_AddBoolToObject(c, "bandwidth", sp->bandwidth);
	cJSON_AddBoolToObject(c, "verify", sp->verify);
	if (sp->zerocopy)
		cJSON_AddTrueToObject(c, "zerocopy");
	transports_json(cfg, c);
	cJSON_AddNumberToObject(c, "duration_s", (double)sp->duration_ns / 1e9);
	cJSON_AddStringToObject(c, "server", cfg->host ? cfg->host : "");
	cJSON_AddNumberToObject(c, "port", cfg->port);
	lists_json(cfg, c);
	cJSON_AddNumberToObject(c, "streams", sp->streams ? sp->streams : 1);
	cJSON_AddNumberToObject(c, "threads", sp->threads ? sp->threads : 1);
	cJSON_AddBoolToObject(c, "bidir", sp->bidir);
	cJSON_AddStringToObject(c, "wait", rp_wait_name(sp->wait));
	rp_report_batching(c, sp);
	rp_report_rates_json(cfg, c);
	rp_report_num(c, "interval_s", cfg->interval_s);
	return c;
}

static cJSON *loaded_json(const struct rp_result *r)
{
	cJSON *l = rp_report_latency_json(&r->latency);

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
	const struct rp_spec *sp = &r->spec;

	cJSON_AddStringToObject(o, "transport", r->transport);
	cJSON_AddNumberToObject(o, "point", r->point);
	cJSON_AddStringToObject(o, "op", rp_op_name(sp->op));
	cJSON_AddNumberToObject(o, "size", (double)sp->size_bytes);
	cJSON_AddNumberToObject(o, "queue_depth", sp->queue_depth);
	cJSON_AddNumberToObject(o, "iterations", (double)sp->iterations);
	cJSON_AddNumberToObject(o, "duration_s", (double)sp->duration_ns / 1e9);
	cJSON_AddNumberToObject(o, "streams", sp->streams ? sp->streams : 1);
	cJSON_AddNumberToObject(o, "threads", sp->threads ? sp->threads : 1);
	cJSON_AddStringToObject(o, "wait", rp_wait_name(sp->wait));
	cJSON_AddBoolToObject(o, "bidir", sp->bidir);
	rp_report_batching(o, sp);
	cJSON_AddBoolToObject(o, "ok", !r->failed);
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

cJSON *rp_report_result_json(const struct rp_result *r)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	point_json(r, o);
	rp_report_num(o, "bytes", (double)r->bytes);
	rp_report_num(o, "messages", (double)r->messages);
	rp_report_num(o, "seconds", r->seconds);
	rp_report_num(o, "warmup_messages", (double)r->warmup_messages);
	rp_report_add_or_null(
		o, "throughput", r->has_bandwidth,
		rp_report_throughput_json(r->bits_per_second, r->mib_per_second,
					  r->messages_per_second));
	rp_report_add_or_null(o, "latency", r->has_latency, loaded_json(r));
	rp_report_add_or_null(o, "latency_unloaded", r->has_unloaded,
			      unloaded_json(r));
	rp_report_rate_add(r, o);
	rp_report_streams_json(r, o);
	rp_report_intervals_json(r, o);
	cJSON_AddItemToObject(o, "directions", rp_report_directions_json(r));
	rp_report_add_or_null(o, "cpu", r->has_bandwidth, cpu_json(r));
	if (r->spec.zerocopy)
		cJSON_AddItemToObject(o, "zerocopy", zerocopy_json(r));
	info_json(r, o);
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

cJSON *rp_report_json_doc(const struct rp_config *cfg,
			  const struct rp_result *res, size_t n)
{
	const struct rp_result *failed = NULL;
	cJSON *doc, *arr;
	size_t i;

	doc = rp_report_json_skeleton(rp_report_config_json(cfg),
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

int rp_report_json(FILE *f, const struct rp_config *cfg,
		   const struct rp_result *res, size_t n)
{
	return rp_report_json_print(f, rp_report_json_doc(cfg, res, n));
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
