// SPDX-License-Identifier: MIT
/*
 * --mcast in the text report: a row a receiver (what arrived of what the
 * sender sent, its rate over the sender's time, one-way latency and how
 * sure the clocks' offset is), then a line for each that lost datagrams.
 */
#include <stdio.h>

#include "report/text/text.h"

static double num(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

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
		snprintf(buf, len, "%.1f / %.1f / %.1f", num(l, "p50"),
			 num(l, "p99"), num(l, "max"));
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
			who, num(e, "received"), num(e, "lost"),
			100 * num(e, "loss"), num(e, "bits_per_second") / 1e9,
			lat, num(clk, "uncertainty_ns") / 1e3);
	}
	cJSON_ArrayForEach(e, r->mcast)
	{
		if (num(e, "lost") > 0)
			fprintf(f,
				"  receiver %s lost %.0f of %llu datagrams "
				"(%.2f%%): UD is unreliable, nothing was "
				"retried\n",
				str(e, "host"), num(e, "lost"),
				(unsigned long long)r->flow.messages,
				100 * num(e, "loss"));
		if (num(e, "duplicates") > 0 || num(e, "foreign") > 0)
			fprintf(f,
				"  receiver %s also saw %.0f duplicates and "
				"%.0f datagrams not of this test\n",
				str(e, "host"), num(e, "duplicates"),
				num(e, "foreign"));
	}
	fprintf(f,
		"  %-14s one-way: the receiver's arrival clock less the "
		"offset measured over its control connection; good to the "
		"clock column\n",
		"");
}
