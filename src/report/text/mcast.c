// SPDX-License-Identifier: MIT
/*
 * --mcast in the text report: a row a receiver (what arrived of what the
 * sender sent, its rate over the sender's time, one-way latency and how
 * sure the clocks' offset is), then a line for each that lost datagrams.
 */
#include <stdio.h>

#include "core/json.h"
#include "report/text/text.h"

static const char *str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : "";
}

static void latency_cell(char *buf, size_t len, const cJSON *l)
{
	if (!cJSON_GetObjectItemCaseSensitive(l, "p50"))
		snprintf(buf, len, "%s", "-");
	else
		snprintf(buf, len, "%.1f / %.1f / %.1f",
			 rp_json_double_or(l, "p50", 0),
			 rp_json_double_or(l, "p99", 0),
			 rp_json_double_or(l, "max", 0));
}

void rp_report_text_mcast(FILE *f, const struct rp_result *r)
{
	const cJSON *e, *clk;
	char who[96], lat[64];
	int n;

	if (!r->spec.mcast[0] || !cJSON_IsArray(r->mcast))
		return;
	n = cJSON_GetArraySize(r->mcast);
	fprintf(f, "  %-14s %s, %d receiver%s, %llu datagrams sent\n",
		"multicast", r->spec.mcast, n, n == 1 ? "" : "s",
		(unsigned long long)r->flow.messages);
	fprintf(f, "    %-28s %10s %9s %7s %9s  %-24s %9s\n", "receiver",
		"received", "lost", "loss", "Gb/s", "one-way us p50/p99/max",
		"clock +-us");
	cJSON_ArrayForEach(e, r->mcast)
	{
		clk = cJSON_GetObjectItemCaseSensitive(e, "clock");
		snprintf(who, sizeof(who), "%s%s%s%s", str(e, "host"),
			 *str(e, "hostname") ? " (" : "", str(e, "hostname"),
			 *str(e, "hostname") ? ")" : "");
		latency_cell(lat, sizeof(lat),
			     cJSON_GetObjectItemCaseSensitive(e, "latency_us"));
		fprintf(f,
			"    %-28s %10.0f %9.0f %6.2f%% %9.3f  %-24s %9.1f\n",
			who, rp_json_double_or(e, "received", 0),
			rp_json_double_or(e, "lost", 0),
			100 * rp_json_double_or(e, "loss", 0),
			rp_json_double_or(e, "bits_per_second", 0) / 1e9, lat,
			rp_json_double_or(clk, "uncertainty_ns", 0) / 1e3);
	}
	cJSON_ArrayForEach(e, r->mcast)
	{
		if (rp_json_double_or(e, "lost", 0) > 0)
			fprintf(f,
				"  receiver %s lost %.0f of %llu datagrams "
				"(%.2f%%): UD is unreliable, nothing was "
				"retried\n",
				str(e, "host"), rp_json_double_or(e, "lost", 0),
				(unsigned long long)r->flow.messages,
				100 * rp_json_double_or(e, "loss", 0));
		if (rp_json_double_or(e, "duplicates", 0) > 0 ||
		    rp_json_double_or(e, "foreign", 0) > 0)
			fprintf(f,
				"  receiver %s also saw %.0f duplicates and "
				"%.0f datagrams not of this test\n",
				str(e, "host"),
				rp_json_double_or(e, "duplicates", 0),
				rp_json_double_or(e, "foreign", 0));
	}
	fprintf(f,
		"  %-14s one-way: the receiver's arrival clock less the "
		"offset measured over its control connection; good to the "
		"clock column\n",
		"");
}
