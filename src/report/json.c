// SPDX-License-Identifier: MIT
/*
 * JSON reporter. The shape is fixed by DESIGN.md ("Outputs"): fields may be
 * added, none renamed. Latencies are in microseconds.
 */
#include <errno.h>
#include <stdlib.h>

#include "report/report.h"

/* The test as the user asked for it (not the wire's spec encoding: the
 * user's view has a list of transports, seconds, the server's address). */
static cJSON *config_json(const struct rp_config *cfg)
{
	const struct rp_spec *sp = &cfg->spec;
	cJSON *c = cJSON_CreateObject(), *t;
	size_t i;

	if (!c)
		return NULL;
	cJSON_AddStringToObject(c, "op", rp_op_name(sp->op));
	cJSON_AddNumberToObject(c, "size", (double)sp->size_bytes);
	cJSON_AddNumberToObject(c, "queue_depth", sp->queue_depth);
	cJSON_AddNumberToObject(c, "iterations", (double)sp->iterations);
	cJSON_AddNumberToObject(c, "duration_ns", (double)sp->duration_ns);
	cJSON_AddNumberToObject(c, "warmup", (double)sp->warmup);
	cJSON_AddNumberToObject(c, "lat_iterations",
				(double)sp->lat_iterations);
	cJSON_AddBoolToObject(c, "latency", sp->latency);
	cJSON_AddBoolToObject(c, "bandwidth", sp->bandwidth);
	cJSON_AddBoolToObject(c, "verify", sp->verify);
	if (cfg->n_transports == 1) {
		cJSON_AddStringToObject(c, "transport", cfg->transports[0]);
	} else {
		t = cJSON_AddArrayToObject(c, "transport");
		for (i = 0; t && i < cfg->n_transports; i++)
			cJSON_AddItemToArray(
				t, cJSON_CreateString(cfg->transports[i]));
	}
	cJSON_AddNumberToObject(c, "duration_s",
				(double)cfg->spec.duration_ns / 1e9);
	cJSON_AddStringToObject(c, "server", cfg->host ? cfg->host : "");
	cJSON_AddNumberToObject(c, "port", cfg->port);
	return c;
}

static cJSON *latency_json(const struct rp_hist_summary *s)
{
	cJSON *l = cJSON_CreateObject();

	if (!l)
		return NULL;
	cJSON_AddStringToObject(l, "unit", "us");
	cJSON_AddNumberToObject(l, "count", (double)s->count);
	cJSON_AddNumberToObject(l, "min", s->min / 1e3);
	cJSON_AddNumberToObject(l, "mean", s->mean / 1e3);
	cJSON_AddNumberToObject(l, "p50", s->p50 / 1e3);
	cJSON_AddNumberToObject(l, "p90", s->p90 / 1e3);
	cJSON_AddNumberToObject(l, "p99", s->p99 / 1e3);
	cJSON_AddNumberToObject(l, "p99_9", s->p99_9 / 1e3);
	cJSON_AddNumberToObject(l, "p99_99", s->p99_99 / 1e3);
	cJSON_AddNumberToObject(l, "max", s->max / 1e3);
	cJSON_AddNumberToObject(l, "stddev", s->stddev / 1e3);
	return l;
}

static cJSON *unloaded_json(const struct rp_result *r)
{
	cJSON *l = latency_json(&r->unloaded);

	if (!l)
		return NULL;
	cJSON_AddNumberToObject(l, "rtt_p50", r->rtt.p50 / 1e3);
	cJSON_AddNumberToObject(l, "rtt_p99", r->rtt.p99 / 1e3);
	cJSON_AddStringToObject(l, "method",
				r->unloaded_halved ? "half round trip"
						   : "whole operation");
	return l;
}

static cJSON *side_json(const struct rp_side *s)
{
	cJSON *c = cJSON_CreateObject();

	if (!c)
		return NULL;
	cJSON_AddNumberToObject(c, "user_s", s->cpu.user_s);
	cJSON_AddNumberToObject(c, "sys_s", s->cpu.sys_s);
	cJSON_AddNumberToObject(c, "us_per_kib", s->cpu.us_per_kib);
	cJSON_AddNumberToObject(c, "host_busy_s", s->cpu.host_busy_s);
	cJSON_AddNumberToObject(c, "host_util", s->cpu.host_util);
	cJSON_AddNumberToObject(c, "messages", (double)s->messages);
	cJSON_AddNumberToObject(c, "bytes", (double)s->bytes);
	cJSON_AddNumberToObject(c, "verify_errors", (double)s->verify_errors);
	return c;
}

static void add_or_null(cJSON *obj, const char *key, bool present, cJSON *item)
{
	if (present && item)
		cJSON_AddItemToObject(obj, key, item);
	else {
		cJSON_Delete(item);
		cJSON_AddNullToObject(obj, key);
	}
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

static cJSON *result_json(const struct rp_result *r)
{
	cJSON *o = cJSON_CreateObject(), *t, *cpu;

	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "transport", r->transport);
	cJSON_AddStringToObject(o, "op", rp_op_name(r->spec.op));
	cJSON_AddNumberToObject(o, "size", (double)r->spec.size_bytes);
	cJSON_AddNumberToObject(o, "queue_depth", r->spec.queue_depth);
	cJSON_AddNumberToObject(o, "streams", 1);
	cJSON_AddBoolToObject(o, "ok", !r->failed);
	cJSON_AddNumberToObject(o, "bytes", (double)r->bytes);
	cJSON_AddNumberToObject(o, "messages", (double)r->messages);
	cJSON_AddNumberToObject(o, "seconds", r->seconds);
	cJSON_AddNumberToObject(o, "warmup_messages",
				(double)r->warmup_messages);
	t = cJSON_CreateObject();
	if (t) {
		cJSON_AddNumberToObject(t, "bits_per_second",
					r->bits_per_second);
		cJSON_AddNumberToObject(t, "mib_per_second", r->mib_per_second);
		cJSON_AddNumberToObject(t, "messages_per_second",
					r->messages_per_second);
	}
	add_or_null(o, "throughput", r->has_bandwidth, t);
	add_or_null(o, "latency", r->has_latency, latency_json(&r->latency));
	add_or_null(o, "latency_unloaded", r->has_unloaded, unloaded_json(r));
	cpu = cJSON_CreateObject();
	if (cpu) {
		add_or_null(cpu, "client", r->client.present,
			    side_json(&r->client));
		add_or_null(cpu, "server", r->server.present,
			    side_json(&r->server));
	}
	add_or_null(o, "cpu", r->has_bandwidth, cpu);
	if (r->client_info)
		cJSON_AddItemToObject(o, "client_transport",
				      cJSON_Duplicate(r->client_info, 1));
	if (r->server_info)
		cJSON_AddItemToObject(o, "server_transport",
				      cJSON_Duplicate(r->server_info, 1));
	add_or_null(o, "error", r->failed, error_json(r));
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
	add_or_null(h, "client", client != NULL, client);
	add_or_null(h, "server", server != NULL, server);
	return h;
}

cJSON *rp_report_json_doc(const struct rp_config *cfg,
			  const struct rp_result *res, size_t n)
{
	cJSON *doc = cJSON_CreateObject(), *arr;
	const struct rp_result *failed = NULL;
	size_t i;

	if (!doc)
		return NULL;
	cJSON_AddStringToObject(doc, "schema", RP_JSON_SCHEMA);
	cJSON_AddStringToObject(doc, "version", RP_VERSION);
	cJSON_AddItemToObject(doc, "config", config_json(cfg));
	cJSON_AddItemToObject(doc, "hosts", hosts_json(res, n));
	arr = cJSON_AddArrayToObject(doc, "results");
	for (i = 0; i < n; i++) {
		if (res[i].failed && !failed)
			failed = &res[i];
		if (arr)
			cJSON_AddItemToArray(arr, result_json(&res[i]));
	}
	add_or_null(doc, "error", failed != NULL,
		    failed ? error_json(failed) : NULL);
	return doc;
}

int rp_report_json(FILE *f, const struct rp_config *cfg,
		   const struct rp_result *res, size_t n)
{
	cJSON *doc = rp_report_json_doc(cfg, res, n);
	char *text = doc ? cJSON_Print(doc) : NULL;
	int err = 0;

	if (!text)
		err = -ENOMEM;
	else if (fprintf(f, "%s\n", text) < 0 || fflush(f))
		err = -EIO;
	free(text);
	cJSON_Delete(doc);
	return err;
}
