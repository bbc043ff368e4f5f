// SPDX-License-Identifier: MIT
/*
 * What the text says of the link a point ran on: the transport's summary
 * where it gives one, each side's link facts
 * (the "link" of its first stream's information, xport/link.h's form),
 * the share of the rated rate the test moved, what the NICs counted, and
 * --expect's verdict.
 */
#include <string.h>

#include "core/counters.h"
#include "core/expect.h"
#include "core/units.h"
#include "report/text/text.h"

static const cJSON *side_link(const cJSON *info)
{
	const cJSON *first =
		cJSON_IsArray(info) ? cJSON_GetArrayItem(info, 0) : info;

	return cJSON_GetObjectItemCaseSensitive(first, "link");
}

static const char *str(const cJSON *o, const char *key)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(j) && j->valuestring[0] ? j->valuestring : NULL;
}

static bool num(const cJSON *o, const char *key, double *v)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!cJSON_IsNumber(j))
		return false;
	*v = j->valuedouble;
	return true;
}

/* "rxe0:1 ACTIVE Ethernet, rate unknown, MTU 1024 (netdev rp0 1500)" or
 * "eth0 10 Gb/s full, MTU 1500, driver virtio_net". */
static void side(FILE *f, const char *name, const cJSON *l)
{
	const cJSON *pcie = cJSON_GetObjectItemCaseSensitive(l, "pcie");
	const char *dev = str(l, "device"), *nd = str(l, "netdev");
	double v, w, mw;

	fprintf(f, "%s ", name);
	if (dev && num(l, "port", &v))
		fprintf(f, "%s:%.0f %s %s", dev, v,
			str(l, "state") ? str(l, "state") : "state unknown",
			str(l, "link_layer") ? str(l, "link_layer") : "");
	else
		fprintf(f, "%s", nd ? nd : "unknown");
	if (num(l, "rate_gbps", &v))
		fprintf(f, ", %s%.4g Gb/s", dev ? "rated " : "", v);
	else
		fprintf(f, ", rate unknown");
	if (str(l, "duplex") && !dev)
		fprintf(f, " %s", str(l, "duplex"));
	if (dev && num(l, "active_mtu", &v))
		fprintf(f, ", MTU %.0f", v);
	else if (!dev && num(l, "mtu", &v))
		fprintf(f, ", MTU %.0f", v);
	if (dev && nd && num(l, "netdev_mtu", &w))
		fprintf(f, " (%s %.0f)", nd, w);
	if (cJSON_IsTrue(
		    cJSON_GetObjectItemCaseSensitive(l, "mtu_below_netdev")))
		fprintf(f, " below what the netdev allows");
	if (num(pcie, "speed_gts", &v) && num(pcie, "width", &w)) {
		fprintf(f, ", PCIe %.3g GT/s x%.0f", v, w);
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
			    pcie, "downtrained")) &&
		    num(pcie, "max_width", &mw) &&
		    num(pcie, "max_speed_gts", &v))
			fprintf(f, " DOWNTRAINED (can x%.0f at %.3g GT/s)", mw,
				v);
	}
}

static const char *side_summary(const cJSON *info)
{
	return str(cJSON_IsArray(info) ? cJSON_GetArrayItem(info, 0) : info,
		   "summary");
}

/* A transport's one-line account of what it runs on, where it gives one
 * (its information's "summary": ofi's provider, endpoint, fabric...). */
static void summary(FILE *f, const struct rp_result *r)
{
	const char *c = side_summary(r->client_info);
	const char *s = side_summary(r->server_info);

	if (c && (!s || !strcmp(c, s)))
		fprintf(f, "  %-12s %s\n", "transport", c);
	else if (c || s)
		fprintf(f, "  %-12s client %s; server %s\n", "transport",
			c ? c : "unknown", s ? s : "unknown");
}

void rp_report_text_link(FILE *f, const struct rp_result *r)
{
	const cJSON *c = side_link(r->client_info);
	const cJSON *s = side_link(r->server_info);
	double rated = rp_result_rated_bps(r);

	summary(f, r);

	if (!c && !s)
		return;
	fprintf(f, "  %-12s ", "link");
	side(f, "client", c);
	if (!rp_result_same_host(r) || !cJSON_Compare(c, s, 1)) {
		fputs("; ", f);
		side(f, "server", s);
	}
	fputc('\n', f);
	if (rated > 0 && r->has_bandwidth)
		fprintf(f, "  %-12s %.1f%% of the rated %.4g Gb/s\n", "",
			100.0 * r->flow.bits_per_second / rated, rated / 1e9);
}

void rp_report_text_counters(FILE *f, const struct rp_result *r)
{
	char c[320], s[320];
	bool same = rp_result_same_host(r);
	struct rp_counters_sum own;

	if (!r->client_counters && !r->server_counters)
		return;
	rp_counters_line(r->client_counters, c, sizeof(c));
	rp_counters_line(r->server_counters, s, sizeof(s));
	rp_counters_sum_socket(r->server_counters, &own);
	if (same && own.present && own.errors)
		fprintf(f,
			"  %-12s %s (one host: both sides); the server's "
			"connections resent %llu segments\n",
			"counters", c, (unsigned long long)own.retrans);
	else if (same || !r->server_counters)
		fprintf(f, "  %-12s %s%s\n", "counters", c,
			same ? " (one host: both sides)" : "");
	else if (!r->client_counters)
		fprintf(f, "  %-12s server %s\n", "counters", s);
	else
		fprintf(f, "  %-12s client %s; server %s\n", "counters", c, s);
}

void rp_report_text_verdict(FILE *f, const struct rp_result *r)
{
	char line[512];

	if (r->retries)
		fprintf(f,
			"  %-12s ran %u more time%s (--retry): the last run "
			"stands\n",
			"retried", r->retries, r->retries == 1 ? "" : "s");
	if (!r->verdict)
		return;
	rp_expect_line(r->verdict, line, sizeof(line));
	fprintf(f, "  %-12s %s\n", "verdict", line);
}

void rp_report_text_verdicts(FILE *f, const struct rp_result *res, size_t n)
{
	size_t i, judged = 0, failed = 0;
	char line[512], size[32];

	for (i = 0; i < n; i++) {
		judged += res[i].verdict != NULL;
		failed += res[i].verdict &&
			  !rp_expect_verdict_pass(res[i].verdict);
	}
	if (!judged)
		return;
	if (!failed) {
		fprintf(f, "  %-12s PASS: all %zu points judged\n", "verdict",
			judged);
		return;
	}
	fprintf(f, "  %-12s FAIL: %zu of %zu points\n", "verdict", failed,
		judged);
	for (i = 0; i < n; i++) {
		if (!res[i].verdict || rp_expect_verdict_pass(res[i].verdict))
			continue;
		rp_expect_line(res[i].verdict, line, sizeof(line));
		rp_units_format_size(res[i].spec.size_bytes, size,
				     sizeof(size));
		fprintf(f, "  %-12s %s %s -q %u%s: %s\n", "", res[i].transport,
			size, res[i].spec.queue_depth,
			res[i].retries ? " (retried)" : "", line);
	}
}
