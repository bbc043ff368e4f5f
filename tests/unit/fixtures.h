/* SPDX-License-Identifier: MIT */
/*
 * Fixtures of the reporters' tests (test_golden.c, test_report.c,
 * test_read.c): the client's config of one tcp write test of 1000
 * messages of 4096 B, the parts of a result built by hand with known
 * numbers, and a report rendered into memory. The numbers each test
 * asserts on (or its golden files hold) stay in that test; what the three
 * build alike is here. Include after <cmocka.h>.
 */
#ifndef RP_TESTS_UNIT_FIXTURES_H
#define RP_TESTS_UNIT_FIXTURES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/stats.h"
#include "report/report.h"
#include "run/flow.h"

#define FX_MSGS 1000
#define FX_SIZE 4096

/* @cfg: a client of tcp to server.example:18520, the spec's defaults but
 * FX_MSGS messages of FX_SIZE bytes after 100 of warm-up. */
static inline void fx_config(struct rp_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->mode = RP_MODE_CLIENT;
	cfg->test.host = "server.example";
	cfg->test.port = 18520;
	cfg->test.n_transports = 1;
	snprintf(cfg->test.transports[0], RP_SPEC_NAME_LEN, "tcp");
	rp_spec_defaults(&cfg->test.spec);
	cfg->test.spec.size_bytes = FX_SIZE;
	cfg->test.spec.iterations = FX_MSGS;
	cfg->test.spec.warmup = 100;
}

/* @s: @count values in ns, min @base, mean 2.5, p50 2, p90 4, p99 8,
 * p99.9 9, p99.99 9.5, max 10 and stddev 1.5 times @base. */
static inline void fx_summary(struct rp_hist_summary *s, uint64_t count,
			      double base)
{
	s->count = count;
	s->min = base;
	s->mean = 2.5 * base;
	s->p50 = 2 * base;
	s->p90 = 4 * base;
	s->p99 = 8 * base;
	s->p99_9 = 9 * base;
	s->p99_99 = 9.5 * base;
	s->max = 10 * base;
	s->stddev = 1.5 * base;
}

/* @fl: @msgs messages of @size bytes in @secs and their rates, with a
 * latency whose summary the caller fills. Return: &@fl->latency. */
static inline struct rp_hist_summary *fx_flow(struct rp_flow *fl, uint64_t msgs,
					      uint64_t size, double secs)
{
	memset(fl, 0, sizeof(*fl));
	fl->messages = msgs;
	fl->bytes = msgs * size;
	fl->seconds = secs;
	rp_flow_rates(fl);
	fl->has_latency = true;
	return &fl->latency;
}

/* Stream @i of @n's share of @msgs: i + 1 parts of n (n + 1) / 2, the
 * last stream what is left in *@left; *@left less the share. */
static inline uint64_t fx_share(uint64_t msgs, uint32_t i, uint32_t n,
				uint64_t *left)
{
	uint64_t share = i + 1 < n ? msgs * (i + 1) * 2 / (n * (n + 1)) : *left;

	*left -= share;
	return share;
}

/* Jain's index over the throughput of @dir's streams. */
static inline double fx_fairness(const struct rp_direction *dir)
{
	double bps[RP_SPEC_MAX_STREAMS];
	uint32_t i;

	for (i = 0; i < dir->n_streams && i < RP_SPEC_MAX_STREAMS; i++)
		bps[i] = dir->per_stream[i].flow.bits_per_second;
	return rp_stats_jain(bps, i);
}

/* @s: a side that used @user_s + @sys_s of CPU at @hz (from the TSC)
 * moving @msgs messages, @bytes; the per-KiB figures are the caller's. */
static inline void fx_side(struct rp_side *s, double user_s, double sys_s,
			   double hz, uint64_t msgs, uint64_t bytes)
{
	memset(s, 0, sizeof(*s));
	s->present = true;
	s->cpu.user_s = user_s;
	s->cpu.sys_s = sys_s;
	s->cpu.hz = hz;
	s->cpu.hz_source = "tsc";
	s->messages = msgs;
	s->bytes = bytes;
}

/* A host's information: its name, a kernel, 16 CPUs. */
static inline cJSON *fx_host(const char *name)
{
	cJSON *h = cJSON_CreateObject();

	assert_non_null(h);
	cJSON_AddStringToObject(h, "hostname", name);
	cJSON_AddStringToObject(h, "kernel", "6.8.0");
	cJSON_AddNumberToObject(h, "cpus", 16);
	return h;
}

/* @r (holding nothing): a point of @cfg's test on @transport, nothing
 * measured yet. */
static inline void fx_result(struct rp_result *r, const struct rp_config *cfg,
			     const char *transport)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->transport, sizeof(r->transport), "%s", transport);
	r->spec = cfg->test.spec;
}

/* @r: the totals of @msgs messages of @size bytes in @secs, measured. */
static inline void fx_totals(struct rp_result *r, uint64_t msgs, uint64_t size,
			     double secs)
{
	r->has_bandwidth = true;
	r->flow.messages = msgs;
	r->flow.bytes = msgs * size;
	r->flow.seconds = secs;
	r->flow.bits_per_second = (double)r->flow.bytes * 8 / secs;
	r->flow.mib_per_second = (double)r->flow.bytes / 1048576.0 / secs;
	r->flow.messages_per_second = (double)msgs / secs;
}

/* @r (holding nothing): @cfg's test on @transport, failed before it
 * measured anything, with error @code and message @msg. */
static inline void fx_failed(struct rp_result *r, const struct rp_config *cfg,
			     const char *transport, const char *code,
			     const char *msg)
{
	fx_result(r, cfg, transport);
	r->failed = true;
	snprintf(r->error_code, sizeof(r->error_code), "%s", code);
	snprintf(r->error, sizeof(r->error), "%s", msg);
}

/* Give back what @r owns but its per-stream results, which belong to the
 * test (static arrays), and zero it. */
static inline void fx_drop(struct rp_result *r)
{
	int d;

	for (d = 0; d < RP_DIR__COUNT; d++)
		r->dir[d].per_stream = NULL;
	rp_result_fini(r);
	memset(r, 0, sizeof(*r));
}

/* The text report (@csv: the CSV) of @res, @n results of @cfg, freshly
 * allocated. open_memstream's buffer and size live in statics: gcc -O3
 * takes a local's address handed to the stream for a dangling pointer. */
static inline char *fx_render(const struct rp_test *test,
			      const struct rp_result *res, size_t n, bool csv)
{
	static char *buf;
	static size_t len;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	if (csv)
		assert_int_equal(rp_report_csv(f, test, res, n), 0);
	else
		rp_report_text(f, test, res, n);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* The whole file @path, NUL-terminated, freshly allocated; NULL (errno
 * set) when it cannot be opened. */
static inline char *fx_read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long len;

	if (!f)
		return NULL;
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	len = ftell(f);
	assert_true(len >= 0);
	rewind(f);
	buf = malloc((size_t)len + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
	buf[len] = '\0';
	fclose(f);
	return buf;
}

#endif
