// SPDX-License-Identifier: MIT
/* What the user sees while a client runs (live.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/live.h"
#include "core/counters.h"
#include "core/units.h"
#include "platform/clock.h"
#include "report/report.h"

#define PROGRESS_AFTER_NS (2ULL * 1000000000ULL) /* a short run shows none */

int rp_live_json_line(cJSON *o)
{
	char *text = o ? cJSON_PrintUnformatted(o) : NULL;
	int err = -ENOMEM;

	if (text) {
		fputs(text, stdout);
		fputc('\n', stdout);
		err = rp_report_out_check(stdout);
	}
	free(text);
	cJSON_Delete(o);
	return err;
}

/* A live line's fate: the first one lost ends the run (its figures could
 * only be lost too) and every line after it. */
static void sent(struct rp_live *l, int err)
{
	if (!err || l->lost)
		return;
	l->lost = err;
	if (l->stop)
		atomic_store(l->stop, 1);
}

/* Every member of @src, in order, to the end of @dst; @src freed. */
static void move_members(cJSON *dst, cJSON *src)
{
	cJSON *child;

	while (src && (child = src->child)) {
		cJSON_DetachItemViaPointer(src, child);
		cJSON_AddItemToObject(dst, child->string, child);
	}
	cJSON_Delete(src);
}

cJSON *rp_live_typed(const char *type, cJSON *o)
{
	cJSON *t = cJSON_CreateObject();

	if (!t || !o || !cJSON_AddStringToObject(t, "type", type)) {
		cJSON_Delete(t);
		cJSON_Delete(o);
		return NULL;
	}
	move_members(t, o);
	return t;
}

void rp_live_clear(struct rp_live *l)
{
	if (!l->shown)
		return;
	fputs("\r\033[K", stderr);
	fflush(stderr);
	l->shown = false;
}

/* "[point 3/11] tcp write 4 KiB q16  12.5 s  9.87 Gb/s" on stderr. */
static void progress(struct rp_live *l, const struct rp_interval *iv)
{
	uint64_t now = rp_clock_ns();
	size_t n_t = l->cfg->test.n_transports;

	if (!l->cfg->progress || now - l->t0_ns < PROGRESS_AFTER_NS)
		return;
	fprintf(stderr, "\r\033[K[point %zu/%zu",
		l->transport * l->of + l->point + 1, n_t * l->of);
	fprintf(stderr, "] %s  %.1f s", l->label,
		(double)(now - l->t0_ns) / 1e9);
	if (iv)
		fprintf(stderr, "  %.3f Gb/s", iv->flow.bits_per_second / 1e9);
	fflush(stderr);
	l->shown = true;
}

static void on_point(void *ctx, const struct rp_result *r, size_t k, size_t of)
{
	struct rp_live *l = ctx;
	const struct rp_spec *sp = &r->spec;
	char size[32];
	cJSON *o;

	l->point = k;
	l->of = of;
	snprintf(l->label, sizeof(l->label), "%s %s %s q%u", r->transport,
		 rp_op_name(sp->op),
		 rp_units_format_size(sp->size_bytes, size, sizeof(size)),
		 sp->queue_depth);
	progress(l, NULL);
	if (!l->cfg->json_stream || l->lost)
		return;
	o = cJSON_CreateObject();
	if (!o)
		return;
	cJSON_AddStringToObject(o, "type", "point");
	cJSON_AddStringToObject(o, "transport", r->transport);
	cJSON_AddNumberToObject(o, "point", (double)k);
	cJSON_AddNumberToObject(o, "of", (double)of);
	cJSON_AddNumberToObject(o, "size", (double)sp->size_bytes);
	cJSON_AddNumberToObject(o, "queue_depth", sp->queue_depth);
	sent(l, rp_live_json_line(o));
}

/* "tcp write 64 KiB q16   1.00-2.00 s  9.87 Gb/s ..." on stdout. */
static void text_flow(const char *who, double start, const struct rp_flow *f)
{
	printf("%-28s %6.2f-%6.2f s %9.3f Gb/s %10.2f MiB/s %11.0f msg/s", who,
	       start, start + f->seconds, f->bits_per_second / 1e9,
	       f->mib_per_second, f->messages_per_second);
	if (f->has_latency)
		printf("  p50 %.2f us  p99 %.2f us", f->latency.p50 / 1e3,
		       f->latency.p99 / 1e3);
	putchar('\n');
}

static void text_interval(struct rp_live *l, const struct rp_interval *iv)
{
	char who[48], line[256];
	uint32_t i;

	text_flow(l->label, iv->start, &iv->flow);
	rp_counters_line(iv->counters, line, sizeof(line));
	if (iv->counters && strcmp(line, "clean"))
		printf("%-28s %s\n", "  counters", line); /* lossy, congested */
	for (i = 0; i < iv->n_streams && iv->per_stream; i++) {
		snprintf(who, sizeof(who), "  stream %u",
			 iv->per_stream[i].stream);
		text_flow(who, iv->start, &iv->per_stream[i].flow);
	}
	sent(l, rp_report_out_check(stdout));
}

static void on_interval(void *ctx, const struct rp_result *r,
			const struct rp_interval *iv)
{
	struct rp_live *l = ctx;
	const struct rp_config *cfg = l->cfg;
	cJSON *o;

	if (l->lost) {
		/* stdout is gone: nothing more to show there */
	} else if (cfg->test.interval_s && !cfg->json && !cfg->csv &&
		   !cfg->json_stream) {
		rp_live_clear(l);
		text_interval(l, iv);
	} else if (cfg->test.interval_s && cfg->json_stream) {
		o = cJSON_CreateObject();
		if (o) {
			cJSON_AddStringToObject(o, "transport", r->transport);
			cJSON_AddNumberToObject(o, "point", r->point);
			move_members(o, rp_report_interval_json(iv));
		}
		sent(l, rp_live_json_line(rp_live_typed("interval", o)));
	}
	progress(l, iv);
}

static void on_result(void *ctx, const struct rp_result *r)
{
	struct rp_live *l = ctx;
	cJSON *o;

	if (!l->cfg->json_stream || l->lost)
		return;
	o = cJSON_CreateObject();
	if (o) {
		cJSON_AddStringToObject(o, "type", "result");
		if (l->rounds > 1) /* one line per repetition */
			cJSON_AddNumberToObject(o, "repetition", l->round);
		cJSON_AddItemToObject(o, "result", rp_report_result_json(r));
	}
	sent(l, rp_live_json_line(o));
}

void rp_live_init(struct rp_live *l, struct rp_config *cfg, atomic_int *stop)
{
	memset(l, 0, sizeof(*l));
	l->cfg = cfg;
	l->stop = stop;
	l->t0_ns = rp_clock_ns();
	l->obs = (struct rp_observer){ .point = on_point,
				       .interval = on_interval,
				       .result = on_result,
				       .ctx = l };
	if (cfg->progress || cfg->test.interval_s || cfg->json_stream)
		cfg->obs = &l->obs;
}

void rp_live_begin(struct rp_live *l)
{
	cJSON *o;

	l->t0_ns = rp_clock_ns();
	if (!l->cfg->json_stream)
		return;
	o = cJSON_CreateObject();
	if (o) {
		cJSON_AddStringToObject(o, "type", "start");
		cJSON_AddStringToObject(o, "schema", RP_JSON_SCHEMA);
		cJSON_AddStringToObject(o, "version", RP_VERSION);
		cJSON_AddItemToObject(o, "config",
				      rp_report_config_json(&l->cfg->test));
	}
	sent(l, rp_live_json_line(o));
}

void rp_live_transport(struct rp_live *l, size_t i)
{
	l->transport = i;
}
