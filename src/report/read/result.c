// SPDX-License-Identifier: MIT
/*
 * One element of a document's "results" read back (read/doc.c reads the rest):
 * the inverse of json/doc.c, json/flow.c and json/interval.c, member by member.
 * Latencies are printed in microseconds and kept in nanoseconds; what the
 * writer prints as null (a figure that is not finite) reads as NAN; the
 * per-stream array of a result holds both directions, told apart by their
 * "direction". Without --bidir the writer prints no "directions": the
 * client's direction then is the result's own figures, as the client
 * built it.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/fields.h"
#include "core/json.h"
#include "report/priv.h"
#include "report/read/read.h"

static const char *const dir_names[RP_DIR__COUNT] = {
	[RP_DIR_C2S] = "client_to_server",
	[RP_DIR_S2C] = "server_to_client",
};

static int too_long(const struct rp_reader *l, const char *what, size_t n,
		    size_t max)
{
	return rp_errf(l->why, -EINVAL,
		       "%s: result %zu: %s has %zu entries; at most %zu",
		       l->path, l->index, what, n, max);
}

static int no_memory(const struct rp_reader *l)
{
	return rp_errf(l->why, -ENOMEM, "%s: result %zu: out of memory",
		       l->path, l->index);
}

/* ---- figures ------------------------------------------------------------ */

/* "spectrum": [[percentile, us], ...] of the latency object @o. */
static int spectrum_read(const struct rp_reader *l, const cJSON *o,
			 struct rp_spectrum *sp)
{
	const cJSON *a = rp_read_get(o, "spectrum"), *e;
	size_t n;

	if (!cJSON_IsArray(a))
		return 0;
	n = (size_t)cJSON_GetArraySize(a);
	if (n > RP_SPECTRUM_MAX)
		return too_long(l, "a latency spectrum", n, RP_SPECTRUM_MAX);
	cJSON_ArrayForEach(e, a)
	{
		sp->pct[sp->n] = rp_read_item_num(cJSON_GetArrayItem(e, 0));
		sp->value[sp->n++] =
			rp_read_ns(rp_read_item_num(cJSON_GetArrayItem(e, 1)));
	}
	return 0;
}

/* bytes, messages, seconds, throughput and latency (rp_report_flow_fields) */
static void flow_read(const cJSON *o, struct rp_flow *fl)
{
	rp_fields_read(o, fl, rp_flow_fields, rp_flow_n_fields, RP_FIELD_DOC);
}

static void stream_read(const cJSON *o, struct rp_stream_result *s)
{
	s->stream = (uint32_t)rp_read_u64(o, "stream", UINT32_MAX);
	s->thread = (uint32_t)rp_read_u64(o, "thread", UINT32_MAX);
	flow_read(o, &s->flow);
}

/* ---- streams and directions --------------------------------------------- */

static enum rp_dir dir_of(const cJSON *e)
{
	const cJSON *d = rp_read_get(e, "direction");

	if (cJSON_IsString(d) && !strcmp(d->valuestring, dir_names[RP_DIR_S2C]))
		return RP_DIR_S2C;
	return RP_DIR_C2S;
}

/* The entries of the result's "per_stream" @a of direction @d into a new
 * dr->per_stream (NULL when none). */
static int streams_read(const struct rp_reader *l, const cJSON *a,
			enum rp_dir d, struct rp_direction *dr)
{
	const cJSON *e;
	size_t n = 0;

	cJSON_ArrayForEach(e, a)
	{
		n += dir_of(e) == d;
	}
	if (n > RP_SPEC_MAX_STREAMS)
		return too_long(l, "per_stream", n, RP_SPEC_MAX_STREAMS);
	if (!n)
		return 0;
	if (rp_read_records(l, n))
		return -E2BIG;
	dr->per_stream = calloc(n, sizeof(*dr->per_stream));
	if (!dr->per_stream)
		return no_memory(l);
	cJSON_ArrayForEach(e, a)
	{
		if (dir_of(e) == d)
			stream_read(e, &dr->per_stream[dr->n_streams++]);
	}
	return 0;
}

/* --bidir: one direction's object of "directions" (null: it did not run). */
static void direction_read(const cJSON *o, struct rp_direction *dr)
{
	dr->present = cJSON_IsObject(o);
	if (!dr->present)
		return;
	flow_read(o, &dr->flow);
	dr->fairness = rp_read_num(o, "fairness");
	if (!dr->per_stream)
		dr->n_streams = (uint32_t)rp_read_u64(o, "streams",
						      RP_SPEC_MAX_STREAMS);
}

static int dirs_read(const struct rp_reader *l, const cJSON *o,
		     struct rp_result *r)
{
	const cJSON *a = rp_read_get(o, "per_stream");
	const cJSON *dirs = rp_read_get(o, "directions");
	int d, err;

	for (d = 0; d < RP_DIR__COUNT; d++) {
		err = streams_read(l, cJSON_IsArray(a) ? a : NULL,
				   (enum rp_dir)d, &r->dir[d]);
		if (err)
			return err;
		r->dir[d].present = r->dir[d].n_streams > 0;
		r->dir[d].fairness = rp_read_num(o, "fairness");
	}
	if (r->spec.bidir && cJSON_IsObject(dirs)) {
		for (d = 0; d < RP_DIR__COUNT; d++)
			direction_read(rp_read_get(dirs, dir_names[d]),
				       &r->dir[d]);
		return 0;
	}
	/* without --bidir the test's own figures are its client's direction */
	r->dir[RP_DIR_C2S].present |= r->has_bandwidth;
	r->dir[RP_DIR_C2S].flow = r->flow;
	return 0;
}

/* ---- intervals ----------------------------------------------------------- */

/* What the document kept of each side's counters (a point's, an
 * interval's) and of the verdict, as it wrote them (json/doc.c): copies,
 * owned by the result. */
static int dup_object(const cJSON *j, cJSON **out)
{
	if (!cJSON_IsObject(j))
		return 0;
	*out = cJSON_Duplicate(j, 1);
	return *out ? 0 : -ENOMEM;
}

static int interval_read(const struct rp_reader *l, const cJSON *o,
			 struct rp_interval *iv)
{
	const cJSON *a = rp_read_get(o, "per_stream"), *e;
	size_t n = cJSON_IsArray(a) ? (size_t)cJSON_GetArraySize(a) : 0;

	iv->index = (uint32_t)rp_read_u64(o, "index", UINT32_MAX);
	iv->start = rp_read_num(o, "start");
	flow_read(o, &iv->flow);
	if (dup_object(rp_read_get(o, "counters"), &iv->counters))
		return no_memory(l);
	if (n > RP_SPEC_MAX_STREAMS * RP_DIR__COUNT)
		return too_long(l, "an interval's per_stream", n,
				RP_SPEC_MAX_STREAMS * RP_DIR__COUNT);
	if (!n)
		return 0;
	if (rp_read_records(l, n))
		return -E2BIG;
	iv->per_stream = calloc(n, sizeof(*iv->per_stream));
	if (!iv->per_stream)
		return no_memory(l);
	cJSON_ArrayForEach(e, a)
	{
		stream_read(e, &iv->per_stream[iv->n_streams++]);
	}
	return 0;
}

/* "intervals" and "interval_range"; without a range, the interval asked
 * for is the config's. */
static int intervals_read(const struct rp_reader *l, const cJSON *o,
			  const struct rp_test *test, struct rp_result *r)
{
	const cJSON *a = rp_read_get(o, "intervals"), *e;
	const cJSON *range = rp_read_get(o, "interval_range");
	size_t n = cJSON_IsArray(a) ? (size_t)cJSON_GetArraySize(a) : 0;
	int err = 0;

	r->has_interval_range = cJSON_IsObject(range);
	r->interval_s = r->has_interval_range ? rp_read_num(range, "interval_s")
					      : test->interval_s;
	r->interval_min_bps = rp_read_num(range, "min_bits_per_second");
	r->interval_max_bps = rp_read_num(range, "max_bits_per_second");
	if (n > RP_READ_MAX_INTERVALS)
		return too_long(l, "intervals", n, RP_READ_MAX_INTERVALS);
	if (!n)
		return 0;
	if (rp_read_records(l, n))
		return -E2BIG;
	r->intervals = calloc(n, sizeof(*r->intervals));
	if (!r->intervals)
		return no_memory(l);
	cJSON_ArrayForEach(e, a)
	{
		err = interval_read(l, e, &r->intervals[r->n_intervals++]);
		if (err)
			break;
	}
	return err;
}

/* ---- CPU, transport information, the point --------------------------------
 */

static void side_read(const cJSON *o, struct rp_side *s)
{
	s->present = cJSON_IsObject(o);
	if (!s->present)
		return;
	rp_cpu_usage_from_json(o, &s->cpu);
	s->messages = rp_read_u64(o, "messages", RP_JSON_MAX_EXACT);
	s->bytes = rp_read_u64(o, "bytes", RP_JSON_MAX_EXACT);
	s->verify_errors = rp_read_u64(o, "verify_errors", RP_JSON_MAX_EXACT);
}

/* --zerocopy: each side's counts (json/doc.c zerocopy_json). */
static void zerocopy_read(const cJSON *z, struct rp_result *r)
{
	if (!cJSON_IsObject(z))
		return;
	r->spec.zerocopy = true;
	r->client.has_zc = cJSON_IsObject(rp_read_get(z, "client"));
	r->server.has_zc = cJSON_IsObject(rp_read_get(z, "server"));
	rp_zc_from_json(rp_read_get(z, "client"), &r->client.zc);
	rp_zc_from_json(rp_read_get(z, "server"), &r->server.zc);
}

/* --qp ud: what was sent and arrived, the pings lost (json/doc.c). */
static void loss_read(const cJSON *l, struct rp_result *r)
{
	r->has_loss = cJSON_IsObject(l);
	if (!r->has_loss)
		return;
	r->has_loss_sent = cJSON_IsNumber(rp_read_get(l, "sent"));
	r->loss_sent = rp_read_u64(l, "sent", RP_JSON_MAX_EXACT);
	r->loss_arrived = rp_read_u64(l, "arrived", RP_JSON_MAX_EXACT);
	r->pings = rp_read_u64(l, "pings", RP_JSON_MAX_EXACT);
	r->pings_lost = rp_read_u64(l, "pings_lost", RP_JSON_MAX_EXACT);
}

/* A side's transport information: every stream's ("X_streams"), else the
 * one object ("X_transport") as it was: what the writer prints again. */
static int info_read(const cJSON *o, const char *one, const char *all,
		     cJSON **out)
{
	const cJSON *a = rp_read_get(o, all), *first = rp_read_get(o, one);
	const cJSON *src = cJSON_IsArray(a) ? a : first;

	if (!src)
		return 0;
	*out = cJSON_Duplicate(src, 1);
	return *out ? 0 : -ENOMEM;
}

/* What the point was (its spec starts from the config's: warm-up, phases
 * and verify are not repeated per result), how it ended, the notes. */
static void point_read(const cJSON *o, const struct rp_test *test,
		       struct rp_result *r)
{
	const cJSON *err = rp_read_get(o, "error");
	const cJSON *phase = rp_read_get(o, "phase");

	r->spec = test->spec;
	rp_fields_read(o, r, rp_report_point_fields, rp_report_point_n_fields,
		       RP_FIELD_DOC);
	memcpy(r->spec.transport, r->transport, sizeof(r->transport));
	r->failed = cJSON_IsObject(err) || cJSON_IsFalse(rp_read_get(o, "ok"));
	rp_read_str(err, "code", r->error_code, sizeof(r->error_code));
	rp_read_str(err, "message", r->error, sizeof(r->error));
	rp_read_str(o, "notes", r->notes, sizeof(r->notes));
	r->interrupted = rp_read_bool(o, "interrupted");
	if (r->interrupted && cJSON_IsString(phase))
		rp_phase_parse(phase->valuestring, &r->interrupted_phase);
}

/* The test's figures: totals, throughput and latency under load as a
 * flow's (json/doc.c writes them in the same form, warmup_messages among
 * them), the unloaded latency, both spectra. */
static int figures_read(const struct rp_reader *l, const cJSON *o,
			struct rp_result *r)
{
	const cJSON *t = rp_read_get(o, "throughput");
	const cJSON *lat = rp_read_get(o, "latency");
	const cJSON *unl = rp_read_get(o, "latency_unloaded");
	const cJSON *m = rp_read_get(unl, "method");

	flow_read(o, &r->flow);
	r->warmup_messages =
		rp_read_u64(o, "warmup_messages", RP_JSON_MAX_EXACT);
	r->has_bandwidth = cJSON_IsObject(t);
	r->has_unloaded = cJSON_IsObject(unl);
	rp_read_summary(unl, &r->unloaded);
	r->rtt.p50 = rp_read_ns(rp_read_num(unl, "rtt_p50"));
	r->rtt.p99 = rp_read_ns(rp_read_num(unl, "rtt_p99"));
	r->unloaded_halved =
		cJSON_IsString(m) && !strcmp(m->valuestring, "half round trip");
	if (spectrum_read(l, lat, &r->latency_spectrum))
		return -EINVAL;
	return spectrum_read(l, unl, &r->unloaded_spectrum);
}

/* "per_rail": the rails' descriptions, without the figures per_stream
 * gives again; one a rail, or none. */
static int rails_read(const cJSON *a, struct rp_result *r)
{
	static const char *const derived[] = { "streams", "throughput",
					       "share_of_best", "short" };
	cJSON *e;
	size_t i;

	if (!cJSON_IsArray(a) || !r->spec.rails ||
	    (unsigned int)cJSON_GetArraySize(a) != r->spec.rails)
		return 0;
	r->rails = cJSON_Duplicate(a, 1);
	if (!r->rails)
		return -ENOMEM;
	cJSON_ArrayForEach(
		e, r->rails) for (i = 0;
				  i < sizeof(derived) / sizeof(derived[0]); i++)
		cJSON_DeleteItemFromObjectCaseSensitive(e, derived[i]);
	return 0;
}

static int extras_read(const cJSON *o, struct rp_result *r)
{
	const cJSON *cn = rp_read_get(o, "counters");

	r->retries = (uint32_t)rp_read_u64(o, "retries", UINT32_MAX);
	if (dup_object(rp_read_get(cn, "client"), &r->client_counters) ||
	    dup_object(rp_read_get(cn, "server"), &r->server_counters) ||
	    dup_object(rp_read_get(o, "verdict"), &r->verdict) ||
	    dup_object(rp_read_get(o, "repeat"), &r->repeat) ||
	    dup_object(rp_read_get(o, "slo"), &r->slo))
		return -ENOMEM;
	if (r->spec.mcast[0] && cJSON_IsArray(rp_read_get(o, "per_receiver")) &&
	    !(r->mcast = cJSON_Duplicate(rp_read_get(o, "per_receiver"), 1)))
		return -ENOMEM;
	return rails_read(rp_read_get(o, "per_rail"), r);
}

int rp_read_result(const struct rp_reader *l, const cJSON *o,
		   const struct rp_test *test, struct rp_result *r)
{
	const cJSON *cpu = rp_read_get(o, "cpu");
	int err;

	if (!cJSON_IsObject(o))
		return rp_errf(l->why, -EINVAL,
			       "%s: result %zu is not an object", l->path,
			       l->index);
	point_read(o, test, r);
	err = figures_read(l, o, r);
	if (!err)
		err = dirs_read(l, o, r);
	if (!err)
		rp_read_rate(o, r);
	if (!err)
		err = intervals_read(l, o, test, r);
	if (err)
		return err;
	side_read(rp_read_get(cpu, "client"), &r->client);
	side_read(rp_read_get(cpu, "server"), &r->server);
	zerocopy_read(rp_read_get(o, "zerocopy"), r);
	loss_read(rp_read_get(o, "loss"), r);
	if (extras_read(o, r))
		return no_memory(l);
	if (info_read(o, "client_transport", "client_streams",
		      &r->client_info) ||
	    info_read(o, "server_transport", "server_streams", &r->server_info))
		return no_memory(l);
	return 0;
}
