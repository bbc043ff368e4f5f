// SPDX-License-Identifier: MIT
/*
 * Unit tests of core/fields and the records' tables: a spec, a latency
 * summary and a flow, every field set to a distinct value that is no
 * default, go out in each form (the wire, the user's document) and come
 * back field by field the same; and every key the document's writers emit
 * is one the schema (schema/rdmaperf-1.schema.json) names, at its place.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/fields.h"
#include "fixtures.h"
#include "proto/proto.h"
#include "report/priv.h"
#include "report/read/read.h"

/* ---- records set field by field --------------------------------------- */

static void odd_summary(struct rp_hist_summary *s, double base)
{
	s->count = 7001 + (uint64_t)base;
	s->min = base + 1;
	s->mean = base + 2.5;
	s->p50 = base + 3;
	s->p90 = base + 4;
	s->p99 = base + 5.5;
	s->p99_9 = base + 6;
	s->p99_99 = base + 7;
	s->max = base + 8;
	s->stddev = base + 0.5;
}

static void assert_summary_equal(const struct rp_hist_summary *a,
				 const struct rp_hist_summary *b)
{
	assert_int_equal(a->count, b->count);
	assert_true(a->min == b->min);
	assert_true(a->mean == b->mean);
	assert_true(a->p50 == b->p50);
	assert_true(a->p90 == b->p90);
	assert_true(a->p99 == b->p99);
	assert_true(a->p99_9 == b->p99_9);
	assert_true(a->p99_99 == b->p99_99);
	assert_true(a->max == b->max);
	assert_true(a->stddev == b->stddev);
}

/* What the document holds of a latency: us, to the double that prints
 * the same (rp_fields_unscale), so a figure may come back an ulp off. */
static bool same_us(double a, double b)
{
	return a / 1e3 == b / 1e3;
}

static void assert_summary_same_us(const struct rp_hist_summary *a,
				   const struct rp_hist_summary *b)
{
	assert_int_equal(a->count, b->count);
	assert_true(same_us(a->min, b->min));
	assert_true(same_us(a->mean, b->mean));
	assert_true(same_us(a->p50, b->p50));
	assert_true(same_us(a->p90, b->p90));
	assert_true(same_us(a->p99, b->p99));
	assert_true(same_us(a->p99_9, b->p99_9));
	assert_true(same_us(a->p99_99, b->p99_99));
	assert_true(same_us(a->max, b->max));
	assert_true(same_us(a->stddev, b->stddev));
}

static void odd_flow(struct rp_flow *f)
{
	memset(f, 0, sizeof(*f));
	f->bytes = 123456789;
	f->messages = 30141;
	f->seconds = 2.75;
	rp_flow_rates(f);
	f->has_latency = true;
	odd_summary(&f->latency, 1000);
	f->has_corrected = true;
	odd_summary(&f->corrected, 5000);
	f->backlogged = 11;
	f->max_backlog = 12;
	f->unsent = 13;
}

/* What both forms carry of a flow; @doc: read from the document. */
static void assert_flow_common(const struct rp_flow *a, const struct rp_flow *b,
			       bool doc)
{
	assert_int_equal(a->bytes, b->bytes);
	assert_int_equal(a->messages, b->messages);
	assert_true(a->seconds == b->seconds);
	assert_true(a->bits_per_second == b->bits_per_second);
	assert_true(a->mib_per_second == b->mib_per_second);
	assert_true(a->messages_per_second == b->messages_per_second);
	assert_int_equal(a->has_latency, b->has_latency);
	if (doc)
		assert_summary_same_us(&a->latency, &b->latency);
	else
		assert_summary_equal(&a->latency, &b->latency);
}

/* Every field distinct and not its default (rp_spec_defaults); not a
 * spec rp_spec_validate takes (zerocopy with verify), so the table is
 * walked as the codec walks it, without the validation. */
static void odd_spec(struct rp_spec *s)
{
	memset(s, 0, sizeof(*s));
	strcpy(s->transport, "rsocket");
	s->op = RP_OP_SEND;
	s->size_bytes = 12345;
	s->queue_depth = 77;
	s->iterations = 4242;
	s->duration_ns = 3000000001;
	s->warmup = 99;
	s->lat_iterations = 333;
	s->latency = true;
	s->bandwidth = true;
	s->verify = true;
	s->streams = 5;
	s->threads = 3;
	s->bidir = true;
	s->wait = RP_WAIT_EVENT;
	s->rate = 250000;
	s->signal = 4;
	s->post_list = 6;
	s->zerocopy = true;
}

/* Every field but the rate, which the user's document keeps apart (its
 * config's rates list). */
static void assert_spec_equal_but_rate(const struct rp_spec *a,
				       const struct rp_spec *b)
{
	assert_string_equal(a->transport, b->transport);
	assert_int_equal(a->op, b->op);
	assert_int_equal(a->size_bytes, b->size_bytes);
	assert_int_equal(a->queue_depth, b->queue_depth);
	assert_int_equal(a->iterations, b->iterations);
	assert_int_equal(a->duration_ns, b->duration_ns);
	assert_int_equal(a->warmup, b->warmup);
	assert_int_equal(a->lat_iterations, b->lat_iterations);
	assert_int_equal(a->latency, b->latency);
	assert_int_equal(a->bandwidth, b->bandwidth);
	assert_int_equal(a->verify, b->verify);
	assert_int_equal(a->streams, b->streams);
	assert_int_equal(a->threads, b->threads);
	assert_int_equal(a->bidir, b->bidir);
	assert_int_equal(a->wait, b->wait);
	assert_int_equal(a->signal, b->signal);
	assert_int_equal(a->post_list, b->post_list);
	assert_int_equal(a->zerocopy, b->zerocopy);
}

static void assert_spec_equal(const struct rp_spec *a, const struct rp_spec *b)
{
	assert_spec_equal_but_rate(a, b);
	assert_int_equal(a->rate, b->rate);
}

/* ---- the wire ----------------------------------------------------------- */

static void test_summary_wire(void **state)
{
	struct rp_hist_summary in, out;
	cJSON *o = cJSON_CreateObject();

	(void)state;
	odd_summary(&in, 1234.25);
	memset(&out, 0xa5, sizeof(out));
	assert_int_equal(rp_fields_write(o, &in, rp_hist_summary_fields,
					 RP_HIST_SUMMARY_N_FIELDS,
					 RP_FIELD_WIRE),
			 0);
	assert_null(cJSON_GetObjectItem(o, "unit")); /* the document's only */
	rp_fields_read(o, &out, rp_hist_summary_fields,
		       RP_HIST_SUMMARY_N_FIELDS, RP_FIELD_WIRE);
	assert_summary_equal(&in, &out);
	cJSON_Delete(o);
}

static void test_flow_wire(void **state)
{
	struct rp_direction in = { 0 }, out;
	cJSON *o;

	(void)state;
	odd_flow(&in.flow);
	o = rp_direction_to_json(&in);
	assert_non_null(o);
	assert_null(cJSON_GetObjectItem(o, "throughput")); /* derived */
	assert_int_equal(rp_direction_from_json(o, 4, &out), 0);
	assert_flow_common(&in.flow, &out.flow, false);
	assert_int_equal(out.flow.has_corrected, 1);
	assert_summary_equal(&in.flow.corrected, &out.flow.corrected);
	assert_int_equal(out.flow.backlogged, 11);
	assert_int_equal(out.flow.max_backlog, 12);
	assert_int_equal(out.flow.unsent, 13);
	rp_direction_fini(&out);
	cJSON_Delete(o);
}

static void test_spec_wire(void **state)
{
	struct rp_spec in, out;
	cJSON *o = cJSON_CreateObject();
	char err[160] = "";

	(void)state;
	odd_spec(&in);
	memset(&out, 0x5a, sizeof(out));
	assert_int_equal(rp_fields_write(o, &in, rp_spec_fields,
					 rp_spec_n_fields, RP_FIELD_WIRE),
			 0);
	assert_int_equal(rp_fields_decode(o, &out, rp_spec_fields,
					  rp_spec_n_fields, "spec", err,
					  sizeof(err)),
			 0);
	assert_spec_equal(&in, &out);
	cJSON_Delete(o);
	/* and through the codec, a spec that validates */
	in.verify = false;
	in.transport[0] = 't', in.transport[1] = 'c', in.transport[2] = 'p';
	in.transport[3] = '\0';
	in.duration_ns = 0;
	o = rp_proto_spec_encode(&in);
	assert_non_null(o);
	assert_int_equal(rp_proto_spec_decode(o, &out, err, sizeof(err)), 0);
	assert_spec_equal(&in, &out);
	cJSON_Delete(o);
}

/* ---- the user's document --------------------------------------------------
 */

static void test_summary_doc(void **state)
{
	struct rp_hist_summary in, out;
	cJSON *o;

	(void)state;
	odd_summary(&in, 1234.25);
	memset(&out, 0xa5, sizeof(out));
	o = rp_report_latency_json(&in);
	assert_non_null(o);
	assert_string_equal(cJSON_GetObjectItem(o, "unit")->valuestring, "us");
	assert_true(cJSON_GetObjectItem(o, "p50")->valuedouble ==
		    1237.25 / 1e3);
	rp_read_summary(o, &out);
	assert_summary_same_us(&in, &out);
	cJSON_Delete(o);
}

static void test_flow_doc(void **state)
{
	struct rp_flow in, out;
	cJSON *o = cJSON_CreateObject();

	(void)state;
	odd_flow(&in);
	memset(&out, 0, sizeof(out));
	rp_report_flow_fields(&in, o);
	assert_non_null(cJSON_GetObjectItem(o, "throughput"));
	assert_null(cJSON_GetObjectItem(o, "latency_corrected"));
	rp_fields_read(o, &out, rp_flow_fields, rp_flow_n_fields, RP_FIELD_DOC);
	assert_flow_common(&in, &out, true);
	assert_int_equal(out.has_corrected, 0); /* the "rate" object's */
	cJSON_Delete(o);
	/* no latency: null, and read as none */
	in.has_latency = false;
	o = cJSON_CreateObject();
	rp_report_flow_fields(&in, o);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "latency")));
	out.has_latency = true;
	rp_fields_read(o, &out, rp_flow_fields, rp_flow_n_fields, RP_FIELD_DOC);
	assert_false(out.has_latency);
	cJSON_Delete(o);
}

/* ---- a whole document -----------------------------------------------------
 */

static struct rp_config cfg;
static struct rp_result res;

static void fill_stream(struct rp_stream_result *s, uint32_t i, double base)
{
	s->stream = i;
	s->thread = i % 3;
	odd_flow(&s->flow);
	s->flow.has_corrected = false;
	s->flow.bytes += i;
	odd_summary(&s->flow.latency, base + i);
}

static void fill_direction(struct rp_direction *d, double base)
{
	uint32_t i;

	d->present = true;
	odd_flow(&d->flow);
	d->n_streams = 2;
	d->per_stream = calloc(2, sizeof(*d->per_stream));
	assert_non_null(d->per_stream);
	for (i = 0; i < 2; i++)
		fill_stream(&d->per_stream[i], i, base);
	d->fairness = 0.75;
}

static void fill_side(struct rp_side *s, double user_s)
{
	s->present = true;
	s->cpu.user_s = user_s;
	s->cpu.sys_s = user_s / 2;
	s->cpu.hz_source = "tsc";
	s->cpu.has_host = true;
	s->cpu.host.cpu = -1;
	s->cpu.n_cpus = 1;
	s->cpu.n_threads = 1;
	s->messages = 10;
	s->bytes = 40960;
	s->has_zc = true;
}

/* A result with every part the writer has: --bidir, streams, -i, --rate,
 * --zerocopy, the unloaded latency, CPU, transport information, an
 * interruption and an error. */
static void full_doc(void)
{
	struct rp_spec *sp = &cfg.test.spec;

	fx_config(&cfg);
	odd_spec(sp);
	sp->verify = false;
	strcpy(sp->transport, "tcp");
	snprintf(cfg.test.transports[0], RP_SPEC_NAME_LEN, "tcp");
	cfg.test.n_sizes = 1;
	cfg.test.sizes[0] = sp->size_bytes;
	cfg.test.n_cpus = 1;
	cfg.test.interval_s = 0.5;
	assert_int_equal(rp_rate_parse_list("250k", cfg.test.rates, 1,
					    &cfg.test.n_rates, NULL, 0),
			 0);
	memset(&res, 0, sizeof(res));
	snprintf(res.transport, sizeof(res.transport), "tcp");
	res.spec = *sp;
	res.point = 2;
	res.warmup_messages = 99;
	res.has_bandwidth = true;
	fill_direction(&res.dir[RP_DIR_C2S], 1000);
	fill_direction(&res.dir[RP_DIR_S2C], 2000);
	res.flow.bytes = 2 * res.dir[RP_DIR_C2S].flow.bytes;
	res.flow.messages = 2 * res.dir[RP_DIR_C2S].flow.messages;
	res.flow.seconds = 2.75;
	res.flow.bits_per_second = 1e9;
	res.flow.mib_per_second = 119.2;
	res.flow.messages_per_second = 3e4;
	res.flow.has_latency = true;
	odd_summary(&res.flow.latency, 1500);
	res.latency_spectrum.n = 2;
	res.latency_spectrum.pct[1] = 50;
	res.latency_spectrum.value[1] = 1700;
	res.interval_s = 0.5;
	res.n_intervals = 1;
	res.intervals = calloc(1, sizeof(*res.intervals));
	assert_non_null(res.intervals);
	odd_flow(&res.intervals[0].flow);
	res.intervals[0].n_streams = 1;
	res.intervals[0].per_stream =
		calloc(1, sizeof(*res.intervals[0].per_stream));
	assert_non_null(res.intervals[0].per_stream);
	fill_stream(&res.intervals[0].per_stream[0], 0, 900);
	res.has_interval_range = true;
	res.interval_min_bps = 9e8;
	res.interval_max_bps = 1.1e9;
	res.has_unloaded = true;
	odd_summary(&res.unloaded, 800);
	odd_summary(&res.rtt, 1600);
	res.unloaded_spectrum = res.latency_spectrum;
	res.unloaded_halved = true;
	fill_side(&res.client, 0.25);
	fill_side(&res.server, 0.5);
	res.client_info = cJSON_Parse("[{\"numa\": 0}, {\"numa\": 1}]");
	res.server_info = cJSON_Parse("[{\"numa\": 1}]");
	snprintf(res.notes, sizeof(res.notes), "a note");
	res.interrupted = true;
	res.interrupted_phase = RP_PHASE_BANDWIDTH;
	res.failed = true;
	snprintf(res.error_code, sizeof(res.error_code), "timeout");
	snprintf(res.error, sizeof(res.error), "it took too long");
}

static int teardown(void **state)
{
	(void)state;
	rp_result_fini(&res);
	return 0;
}

/* The spec as the document has it: the config's, each result's point. */
static void test_spec_doc(void **state)
{
	struct rp_report_doc doc;
	struct rp_err why = { 0 };
	char path[] = "/tmp/rp_test_fields_XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	const struct rp_spec *a = &cfg.test.spec;

	(void)state;
	full_doc();
	assert_non_null(f);
	assert_int_equal(rp_report_json(f, &cfg.test, &res, 1), 0);
	fclose(f);
	assert_int_equal(rp_report_load(path, &doc, &why), 0);
	unlink(path);
	assert_spec_equal_but_rate(a, &doc.test.spec);
	assert_int_equal(doc.n, 1);
	/* a result's point: its own fields, the rest the config's; the rate
	 * from its "rate" */
	assert_spec_equal(&res.spec, &doc.res[0].spec);
	assert_flow_common(&res.dir[RP_DIR_S2C].flow,
			   &doc.res[0].dir[RP_DIR_S2C].flow, true);
	assert_flow_common(&res.dir[RP_DIR_C2S].per_stream[1].flow,
			   &doc.res[0].dir[RP_DIR_C2S].per_stream[1].flow,
			   true);
	assert_summary_same_us(&res.dir[RP_DIR_C2S].flow.corrected,
			       &doc.res[0].dir[RP_DIR_C2S].flow.corrected);
	rp_report_doc_free(&doc);
}

/* ---- the schema ------------------------------------------------------------
 */

static cJSON *schema;

static const cJSON *deref(const cJSON *s)
{
	const cJSON *ref = cJSON_GetObjectItem(s, "$ref");
	const char *p = cJSON_GetStringValue(ref);

	if (!p || strncmp(p, "#/$defs/", 8))
		return NULL;
	return cJSON_GetObjectItem(cJSON_GetObjectItem(schema, "$defs"), p + 8);
}

/* The subschema of @key in @s: its properties, those of what it refers
 * to, of its anyOf/oneOf/allOf branches. */
static const cJSON *property(const cJSON *s, const char *key)
{
	static const char *const branches[] = { "anyOf", "oneOf", "allOf" };
	const cJSON *p, *b;
	size_t i;

	if (!s)
		return NULL;
	p = cJSON_GetObjectItem(cJSON_GetObjectItem(s, "properties"), key);
	if (p)
		return p;
	p = property(deref(s), key);
	for (i = 0; !p && i < 3; i++)
		cJSON_ArrayForEach(b, cJSON_GetObjectItem(s, branches[i]))
		{
			p = property(b, key);
			if (p)
				break;
		}
	return p;
}

/* Whether @s describes an object whose members are free (a host's own
 * information, a transport's): no "properties" anywhere down its refs. */
static bool free_object(const cJSON *s)
{
	const cJSON *b;

	if (!s)
		return true;
	if (cJSON_GetObjectItem(s, "properties"))
		return false;
	if (cJSON_GetObjectItem(s, "$ref"))
		return free_object(deref(s));
	cJSON_ArrayForEach(b, cJSON_GetObjectItem(s, "anyOf"))
	{
		if (!free_object(b))
			return false;
	}
	cJSON_ArrayForEach(b, cJSON_GetObjectItem(s, "oneOf"))
	{
		if (!free_object(b))
			return false;
	}
	return true;
}

static const cJSON *items(const cJSON *s)
{
	const cJSON *i, *b;

	if (!s)
		return NULL;
	i = cJSON_GetObjectItem(s, "items");
	if (i)
		return i;
	i = items(deref(s));
	cJSON_ArrayForEach(b, cJSON_GetObjectItem(s, "anyOf"))
	{
		if (!i)
			i = items(b);
	}
	cJSON_ArrayForEach(b, cJSON_GetObjectItem(s, "oneOf"))
	{
		if (!i)
			i = items(b);
	}
	return i;
}

static int unknown;

/* An object that lists some of its members and says the rest are free
 * ("additionalProperties": true: a transport's information, whose
 * "link" the schema describes). */
static bool open_object(const cJSON *s)
{
	if (!s)
		return false;
	if (cJSON_IsTrue(cJSON_GetObjectItem(s, "additionalProperties")))
		return true;
	return cJSON_GetObjectItem(s, "$ref") && open_object(deref(s));
}

static void check_keys(const cJSON *v, const cJSON *s, const char *path)
{
	char sub[512];
	const cJSON *e;

	if (cJSON_IsArray(v)) {
		cJSON_ArrayForEach(e, v)
		{
			snprintf(sub, sizeof(sub), "%s[]", path);
			check_keys(e, items(s), sub);
		}
		return;
	}
	if (!cJSON_IsObject(v) || free_object(s))
		return;
	cJSON_ArrayForEach(e, v)
	{
		const cJSON *p = property(s, e->string);

		snprintf(sub, sizeof(sub), "%s.%s", path, e->string);
		if (!p && open_object(s))
			continue;
		if (!p) {
			print_error("%s: not in the schema\n", sub);
			unknown++;
			continue;
		}
		check_keys(e, p, sub);
	}
}

static void test_schema_keys(void **state)
{
	char path[] = RP_SOURCE_DIR "/schema/rdmaperf-1.schema.json";
	FILE *f = fopen(path, "rb");
	static char text[1 << 20];
	size_t n;
	cJSON *doc;

	(void)state;
	assert_non_null(f);
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	schema = cJSON_Parse(text);
	assert_non_null(schema);
	full_doc();
	doc = rp_report_json_doc(&cfg.test, &res, 1);
	assert_non_null(doc);
	unknown = 0;
	check_keys(doc, schema, "$");
	assert_int_equal(unknown, 0);
	/* and the check sees a key that is not there */
	cJSON_AddNumberToObject(
		cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "results"), 0),
		"no_such_key", 1);
	check_keys(doc, schema, "$");
	assert_int_equal(unknown, 1);
	cJSON_Delete(doc);
	cJSON_Delete(schema);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summary_wire),
		cmocka_unit_test(test_flow_wire),
		cmocka_unit_test(test_spec_wire),
		cmocka_unit_test(test_summary_doc),
		cmocka_unit_test(test_flow_doc),
		cmocka_unit_test_teardown(test_spec_doc, teardown),
		cmocka_unit_test_teardown(test_schema_keys, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
