// SPDX-License-Identifier: MIT
/*
 * The monitor's figures as text: OpenMetrics 1.0.0 (what Prometheus asks
 * for) or the Prometheus text format 0.0.4 (anything else, and node_
 * exporter's textfile). The two differ in three places: a counter's
 * family is named without "_total" in OpenMetrics and with it in 0.0.4,
 * OpenMetrics says each family's unit (# UNIT) and ends with "# EOF".
 * Label values escape '\', '"' and newlines in both; help texts escape
 * '\' and newlines (and '"' in OpenMetrics).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/monitor.h"

static void grow(struct rp_mon_buf *b, size_t need)
{
	size_t cap = b->cap ? b->cap : 4096;
	char *s;

	while (cap < b->len + need + 1)
		cap *= 2;
	if (cap == b->cap)
		return;
	s = realloc(b->s, cap);
	if (!s) {
		b->oom = true;
		return;
	}
	b->s = s;
	b->cap = cap;
}

__attribute__((format(printf, 2, 3))) static void put(struct rp_mon_buf *b,
						      const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->oom)
		return;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	grow(b, (size_t)n);
	if (b->oom || n < 0)
		return;
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

/* @s escaped: '\' and newline always, '"' where @quote. */
static void esc(struct rp_mon_buf *b, const char *s, bool quote)
{
	for (; *s; s++) {
		if (*s == '\\')
			put(b, "\\\\");
		else if (*s == '\n')
			put(b, "\\n");
		else if (*s == '"' && quote)
			put(b, "\\\"");
		else
			put(b, "%c", *s);
	}
}

static void number(struct rp_mon_buf *b, double v)
{
	if (isnan(v))
		put(b, "NaN\n");
	else if (isinf(v))
		put(b, "%sInf\n", v > 0 ? "+" : "-");
	else
		put(b, "%.15g\n", v);
}

struct ctx {
	struct rp_mon_buf *b;
	enum rp_mon_format f;
	const struct rp_mon_snapshot *s;
};

static void family(struct ctx *x, const char *name, const char *type,
		   const char *unit, const char *help)
{
	bool om = x->f == RP_MON_OPENMETRICS;
	const char *tot = !om && !strcmp(type, "counter") ? "_total" : "";

	put(x->b, "# HELP %s%s ", name, tot);
	esc(x->b, help, om);
	put(x->b, "\n# TYPE %s%s %s\n", name, tot, type);
	if (om && unit)
		put(x->b, "# UNIT %s %s\n", name, unit);
}

static void label(struct ctx *x, const char *k, const char *v, bool first)
{
	put(x->b, "%s%s=\"", first ? "" : ",", k);
	esc(x->b, v, true);
	put(x->b, "\"");
}

/* "NAME{source=...,peer=...,device=...,transport=...,op=...[,K=V]} " */
static void sample(struct ctx *x, const char *name, const char *suffix,
		   const struct rp_mon_peer *p, const char *const *extra,
		   size_t n_extra)
{
	size_t i;

	put(x->b, "%s%s{", name, suffix);
	label(x, "source", x->s->source, true);
	if (p) {
		label(x, "peer", p->peer, false);
		label(x, "device", p->device, false);
		label(x, "transport", p->transport, false);
		label(x, "op", p->op, false);
	}
	for (i = 0; i + 1 < n_extra; i += 2)
		label(x, extra[i], extra[i + 1], false);
	put(x->b, "} ");
}

/* A family with one sample per peer: its value, or false (no sample). */
struct gauge {
	const char *name, *type, *unit, *help;
	bool (*get)(const struct rp_mon_peer *p, double *v);
};

static bool g_success(const struct rp_mon_peer *p, double *v)
{
	*v = p->up;
	return p->probed;
}

static bool g_duration(const struct rp_mon_peer *p, double *v)
{
	*v = p->duration_s;
	return p->probed;
}

static bool g_last(const struct rp_mon_peer *p, double *v)
{
	*v = p->end_unix_s;
	return p->probed;
}

static bool g_sending(const struct rp_mon_peer *p, double *v)
{
	*v = p->sending_s;
	return p->probed;
}

static bool g_probes(const struct rp_mon_peer *p, double *v)
{
	*v = (double)p->probes;
	return true;
}

static bool g_failures(const struct rp_mon_peer *p, double *v)
{
	*v = (double)p->failures;
	return true;
}

static bool g_consecutive(const struct rp_mon_peer *p, double *v)
{
	*v = p->consecutive_failures;
	return true;
}

static bool g_backoff(const struct rp_mon_peer *p, double *v)
{
	*v = p->backoff_s;
	return p->probed;
}

static bool g_bps(const struct rp_mon_peer *p, double *v)
{
	*v = p->bits_per_second / 8;
	return p->has_bw;
}

static bool g_msgs(const struct rp_mon_peer *p, double *v)
{
	*v = p->messages_per_second;
	return p->has_bw;
}

static bool g_errors(const struct rp_mon_peer *p, double *v)
{
	*v = (double)p->errors;
	return p->has_sums;
}

static bool g_retrans(const struct rp_mon_peer *p, double *v)
{
	*v = (double)p->retrans;
	return p->has_sums;
}

static bool g_congestion(const struct rp_mon_peer *p, double *v)
{
	*v = (double)p->congestion;
	return p->has_sums;
}

static bool g_pass(const struct rp_mon_peer *p, double *v)
{
	*v = p->pass;
	return p->has_verdict;
}

static const struct gauge gauges[] = {
	{ "rdmaperf_probe_success", "gauge", NULL,
	  "1 when the last probe of the peer succeeded, 0 when it failed",
	  g_success },
	{ "rdmaperf_probe_duration_seconds", "gauge", "seconds",
	  "How long the last probe took, connection and setup included",
	  g_duration },
	{ "rdmaperf_last_probe_timestamp_seconds", "gauge", "seconds",
	  "When the last probe ended, seconds since the Unix epoch", g_last },
	{ "rdmaperf_probe_sending_seconds", "gauge", "seconds",
	  "Time the last probe spent sending: its ping-pong and its burst",
	  g_sending },
	{ "rdmaperf_probes", "counter", NULL,
	  "Probes of the peer since the monitor started", g_probes },
	{ "rdmaperf_probe_failures", "counter", NULL,
	  "Probes of the peer that failed since the monitor started",
	  g_failures },
	{ "rdmaperf_probe_consecutive_failures", "gauge", NULL,
	  "Probes failed in a row (0: the peer is up)", g_consecutive },
	{ "rdmaperf_probe_backoff_seconds", "gauge", "seconds",
	  "The wait before the next probe of the peer (the interval, or a "
	  "down peer's backoff)",
	  g_backoff },
	{ "rdmaperf_throughput_bytes_per_second", "gauge", NULL,
	  "Throughput of the last probe's burst, bytes per second", g_bps },
	{ "rdmaperf_messages_per_second", "gauge", NULL,
	  "Messages per second of the last probe's burst", g_msgs },
	{ "rdmaperf_link_errors", "gauge", NULL,
	  "Error counters' deltas over the last probe, both sides summed",
	  g_errors },
	{ "rdmaperf_link_retransmissions", "gauge", NULL,
	  "Retransmissions over the last probe, both sides summed", g_retrans },
	{ "rdmaperf_link_congestion", "gauge", NULL,
	  "Congestion counters' deltas over the last probe, both sides "
	  "summed",
	  g_congestion },
	{ "rdmaperf_expect_pass", "gauge", NULL,
	  "1 when the last probe met the peer's expect, 0 when not", g_pass },
};

static void gauge_family(struct ctx *x, const struct gauge *g)
{
	const char *suffix = !strcmp(g->type, "counter") ? "_total" : "";
	double v;
	size_t i;

	family(x, g->name, g->type, g->unit, g->help);
	for (i = 0; i < x->s->n; i++) {
		if (!g->get(&x->s->p[i], &v))
			continue;
		sample(x, g->name, suffix, &x->s->p[i], NULL, 0);
		number(x->b, v);
	}
}

static void summary(struct ctx *x, const char *name, const char *help,
		    size_t off)
{
	static const char *const qs[RP_MON_QUANTILES] = { "0.5", "0.99",
							  "0.999" };
	const struct rp_mon_latency *l;
	const char *lab[2] = { "quantile", NULL };
	size_t i, k;

	family(x, name, "summary", "seconds", help);
	for (i = 0; i < x->s->n; i++) {
		l = (const void *)((const char *)&x->s->p[i] + off);
		for (k = 0; l->has && k < RP_MON_QUANTILES; k++) {
			lab[1] = qs[k];
			sample(x, name, "", &x->s->p[i], lab, 2);
			number(x->b, l->q[k]);
		}
		if (!l->count)
			continue;
		sample(x, name, "_sum", &x->s->p[i], NULL, 0);
		number(x->b, l->sum);
		sample(x, name, "_count", &x->s->p[i], NULL, 0);
		put(x->b, "%llu\n", (unsigned long long)l->count);
	}
}

static void counters(struct ctx *x)
{
	const char *name = "rdmaperf_link_delta";
	const struct rp_mon_counter *c;
	const char *lab[6] = { "side", NULL, "group", NULL, "counter", NULL };
	size_t i, k;

	family(x, name, "gauge", NULL,
	       "What a counter of the link (NIC port, netdev, TCP) counted "
	       "over the last probe, by side");
	for (i = 0; i < x->s->n; i++)
		for (k = 0; k < x->s->p[i].n_counters; k++) {
			c = &x->s->p[i].c[k];
			lab[1] = c->side;
			lab[3] = c->group;
			lab[5] = c->name;
			sample(x, name, "", &x->s->p[i], lab, 6);
			put(x->b, "%llu\n", (unsigned long long)c->delta);
		}
}

static void checks(struct ctx *x)
{
	const char *name = "rdmaperf_expect_check_pass";
	const char *lab[2] = { "expect", NULL };
	size_t i, k;

	family(x, name, "gauge", NULL,
	       "1 when the last probe met this term of the peer's expect");
	for (i = 0; i < x->s->n; i++)
		for (k = 0; x->s->p[i].has_verdict && k < x->s->p[i].n_checks;
		     k++) {
			lab[1] = x->s->p[i].k[k].text;
			sample(x, name, "", &x->s->p[i], lab, 2);
			put(x->b, "%d\n", x->s->p[i].k[k].pass);
		}
}

static void monitor_wide(struct ctx *x)
{
	family(x, "rdmaperf_duty_cycle_ratio", "gauge", "ratio",
	       "Share of an interval the last probes of every peer spent "
	       "sending");
	sample(x, "rdmaperf_duty_cycle_ratio", "", NULL, NULL, 0);
	number(x->b, x->s->duty);
	family(x, "rdmaperf_duty_cycle_max_ratio", "gauge", "ratio",
	       "The bound on the duty cycle the config sets "
	       "(max_duty_cycle)");
	sample(x, "rdmaperf_duty_cycle_max_ratio", "", NULL, NULL, 0);
	number(x->b, x->s->max_duty);
	family(x, "rdmaperf_interval_seconds", "gauge", "seconds",
	       "How often each peer is probed (the config's interval)");
	sample(x, "rdmaperf_interval_seconds", "", NULL, NULL, 0);
	number(x->b, x->s->interval_s);
}

int rp_mon_render(const struct rp_mon_snapshot *s, enum rp_mon_format f,
		  struct rp_mon_buf *b)
{
	struct ctx x = { b, f, s };
	size_t i;

	for (i = 0; i < sizeof(gauges) / sizeof(gauges[0]); i++)
		gauge_family(&x, &gauges[i]);
	summary(&x, "rdmaperf_latency_seconds",
		"Unloaded latency (half the ping-pong's round trip): the last "
		"probe's quantiles, every probe's count and sum",
		offsetof(struct rp_mon_peer, unloaded));
	summary(&x, "rdmaperf_loaded_latency_seconds",
		"Completion latency under the burst's load: the last probe's "
		"quantiles, every probe's count and sum",
		offsetof(struct rp_mon_peer, loaded));
	counters(&x);
	checks(&x);
	monitor_wide(&x);
	if (f == RP_MON_OPENMETRICS)
		put(b, "# EOF\n");
	return b->oom ? -ENOMEM : 0;
}

enum rp_mon_format rp_mon_format_of(const char *accept)
{
	return accept && strstr(accept, "application/openmetrics-text")
		       ? RP_MON_OPENMETRICS
		       : RP_MON_PROMETHEUS;
}

static int write_all(int fd, const char *s, size_t n)
{
	ssize_t w;

	while (n) {
		w = write(fd, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

int rp_mon_textfile_write(const struct rp_mon_snapshot *s, const char *path,
			  char *err, size_t len)
{
	struct rp_mon_buf b = { 0 };
	char tmp[RP_MON_PATH_LEN + 8];
	int fd, rc;

	if (rp_mon_render(s, RP_MON_PROMETHEUS, &b)) {
		free(b.s);
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	rc = fd < 0 ? -errno : write_all(fd, b.s, b.len);
	if (!rc && fsync(fd))
		rc = -errno;
	if (fd >= 0 && close(fd) && !rc)
		rc = -errno;
	if (!rc && rename(tmp, path))
		rc = -errno;
	if (rc) {
		snprintf(err, len, "cannot write %s: %s", fd < 0 ? tmp : path,
			 strerror(-rc));
		if (fd >= 0)
			unlink(tmp);
	}
	free(b.s);
	return rc;
}
