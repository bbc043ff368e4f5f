// SPDX-License-Identifier: MIT
/*
 * Text of one point's details: each direction (--bidir), each stream and
 * Jain's fairness (several streams), and each side's CPU time: process,
 * service demand in us and cycles per KiB, the host's split, per thread
 * and per pinned CPU.
 */
#include <math.h>

#include "core/tos.h"
#include "core/units.h"
#include "report/priv.h"
#include "report/text/text.h"

static const char *const dir_labels[RP_DIR__COUNT] = {
	[RP_DIR_C2S] = "client->server",
	[RP_DIR_S2C] = "server->client",
};

void rp_report_text_flow(FILE *f, const char *label, const struct rp_flow *fl)
{
	char sz[32];

	fprintf(f,
		"  %-14s %.3f Gb/s   %.2f MiB/s   %.0f msg/s"
		"   (%llu messages, %s in %.3f s)\n",
		label, fl->bits_per_second / 1e9, fl->mib_per_second,
		fl->messages_per_second, (unsigned long long)fl->messages,
		rp_units_format_size(fl->bytes, sz, sizeof(sz)), fl->seconds);
}

/* A latency cell in us, "-" when there is none. */
static void lat_cell(FILE *f, bool has, double ns)
{
	if (has && isfinite(ns))
		fprintf(f, " %12.2f", ns / 1e3);
	else
		fprintf(f, " %12s", "-");
}

static void stream_rows(FILE *f, const struct rp_direction *d)
{
	const struct rp_stream_result *s;
	uint32_t i;

	fprintf(f, "    %6s %6s %10s %12s %12s %12s\n", "stream", "thread",
		"Gb/s", "msg/s", "p50 load us", "p99 load us");
	for (i = 0; i < d->n_streams; i++) {
		s = &d->per_stream[i];
		fprintf(f, "    %6u %6u %10.3f %12.0f", s->stream, s->thread,
			s->flow.bits_per_second / 1e9,
			s->flow.messages_per_second);
		lat_cell(f, s->flow.has_latency, s->flow.latency.p50);
		lat_cell(f, s->flow.has_latency, s->flow.latency.p99);
		fputc('\n', f);
	}
	fprintf(f, "  fairness (Jain) %.3f\n", d->fairness);
}

void rp_report_text_open_loop(FILE *f, const struct rp_result *r)
{
	const struct rp_flow *o = &r->dir[RP_DIR_C2S].flow;
	double bits = 8.0 * (double)r->spec.size_bytes;

	if (!r->spec.rate)
		return;
	fprintf(f,
		"  %-14s %llu ops/s (%.3f Gb/s), achieved %.0f ops/s "
		"(%.1f%%)%s\n",
		"offered", (unsigned long long)r->spec.rate,
		(double)r->spec.rate * bits / 1e9, o->messages_per_second,
		100.0 * o->messages_per_second / (double)r->spec.rate,
		rp_result_saturated(r) ? "  SATURATED" : "");
	if (o->backlogged || o->unsent)
		fprintf(f,
			"  %-14s %llu operations waited for a free slot "
			"(at most %llu behind), %llu never sent\n",
			"schedule", (unsigned long long)o->backlogged,
			(unsigned long long)o->max_backlog,
			(unsigned long long)o->unsent);
}

/* --rails: a line a rail, its two ends and its share of the best rail;
 * each that falls short named below. */
static void rail_rows(FILE *f, const struct rp_result *r)
{
	struct rp_rail_figures fig[RP_SPEC_MAX_RAILS];
	unsigned int n = rp_report_rails(r, fig), k;
	char ends[2][96];
	int s;

	fprintf(f, "  %-14s %u, %s\n", "rails", r->spec.rails,
		r->spec.rail_numa ? "paired in NUMA node order"
				  : "client rail i to server rail i");
	if (!n)
		return;
	fprintf(f, "    %4s  %-28s %-28s %7s %10s %6s\n", "rail", "client",
		"server", "streams", "Gb/s", "share");
	for (k = 0; k < n; k++) {
		for (s = 0; s < 2; s++)
			snprintf(ends[s], sizeof(ends[s]), "%s %s",
				 rp_report_rail_str(
					 r, k, s ? "server" : "client", "name"),
				 rp_report_rail_str(r, k,
						    s ? "server" : "client",
						    "address"));
		fprintf(f, "    %4u  %-28s %-28s %7u %10.3f %5.0f%%%s\n", k,
			ends[0], ends[1], fig[k].streams, fig[k].bps / 1e9,
			100 * fig[k].share, fig[k].is_short ? "  SHORT" : "");
	}
	for (k = 0; k < n; k++)
		if (fig[k].is_short)
			fprintf(f,
				"  rail %u (%s to %s) falls short: %.0f%% of "
				"the "
				"best rail's throughput (under %.0f%%)\n",
				k, rp_report_rail_str(r, k, "client", "name"),
				rp_report_rail_str(r, k, "server", "name"),
				100 * fig[k].share, 100 * RP_RAIL_SHORT_SHARE);
}

void rp_report_text_streams(FILE *f, const struct rp_result *r)
{
	const struct rp_direction *d;
	int i;

	for (i = 0; i < RP_DIR__COUNT; i++) {
		d = &r->dir[i];
		if (!d->present)
			continue;
		if (r->spec.bidir)
			rp_report_text_flow(f, dir_labels[i], &d->flow);
		if (d->n_streams > 1 && d->per_stream)
			stream_rows(f, d);
	}
	if (r->spec.rails)
		rail_rows(f, r);
}

static void host_line(FILE *f, const char *label, const struct rp_cpu_host *h)
{
	fprintf(f,
		"    %-10s user %.3f s  sys %.3f s  irq %.3f s"
		"  softirq %.3f s  (busy %.0f%%)\n",
		label, h->user_s, h->sys_s, h->irq_s, h->softirq_s,
		h->util * 100);
}

static void cycles(FILE *f, const struct rp_cpu_usage *u)
{
	if (u->hz > 0 && isfinite(u->cycles_per_kib))
		fprintf(f, "  %.0f cycles/KiB (%.2f GHz %s)\n",
			u->cycles_per_kib, u->hz / 1e9,
			u->hz_source ? u->hz_source : "none");
	else
		fprintf(f, "  cycles/KiB unknown (no CPU clock)\n");
}

static void threads(FILE *f, const struct rp_cpu_usage *u)
{
	char label[32];
	unsigned int i, n = u->n_threads;

	for (i = 0; n > 1 && i < n && i < RP_CPU_MAX_LIST; i++) {
		snprintf(label, sizeof(label), "thread %u", i);
		fprintf(f, "    %-10s user %.3f s  sys %.3f s", label,
			u->threads[i].user_s, u->threads[i].sys_s);
		if (u->threads[i].cpu >= 0)
			fprintf(f, "  (on cpu %d)", u->threads[i].cpu);
		fputc('\n', f);
	}
}

void rp_report_text_cpu(FILE *f, const char *name, const struct rp_side *s)
{
	const struct rp_cpu_usage *u = &s->cpu;
	char label[32];
	unsigned int i;

	if (!s->present) {
		fprintf(f, "  cpu %-7s  (not reported)\n", name);
		return;
	}
	fprintf(f, "  cpu %-7s  user %.3f s  sys %.3f s  %.3f us/KiB", name,
		u->user_s, u->sys_s, u->us_per_kib);
	cycles(f, u);
	if (u->has_host)
		host_line(f, "host", &u->host);
	threads(f, u);
	for (i = 0; i < u->n_cpus && i < RP_CPU_MAX_LIST; i++) {
		snprintf(label, sizeof(label), "cpu %d", u->per_cpu[i].cpu);
		host_line(f, label, &u->per_cpu[i]);
	}
}

/* The NUMA nodes a side's first stream reported: -1 or absent: unknown. */
static void numa_side(FILE *f, const char *name, const cJSON *info)
{
	const cJSON *first =
		cJSON_IsArray(info) ? cJSON_GetArrayItem(info, 0) : info;
	const cJSON *dev = cJSON_GetObjectItemCaseSensitive(first, "numa_node");
	const cJSON *buf =
		cJSON_GetObjectItemCaseSensitive(first, "buffer_numa_node");

	fprintf(f, "%s ", name);
	if (cJSON_IsNumber(dev) && dev->valueint >= 0)
		fprintf(f, "device on node %d, ", dev->valueint);
	else if (cJSON_IsNumber(dev))
		fprintf(f, "device node unknown, ");
	if (cJSON_IsNumber(buf) && buf->valueint >= 0)
		fprintf(f, "buffers on node %d", buf->valueint);
	else
		fprintf(f, "buffers node unknown");
}

void rp_report_text_numa(FILE *f, const struct rp_result *r)
{
	if (!r->client_info && !r->server_info)
		return;
	fprintf(f, "  numa         ");
	numa_side(f, "client", r->client_info);
	fputs("; ", f);
	numa_side(f, "server", r->server_info);
	fputc('\n', f);
}

/* What one side's first queue pair took (its "qp_path", as ibv_query_qp
 * read it back), into @buf; "?" where the side did not say. */
static void path_took(const cJSON *info, char *buf, size_t len)
{
	const cJSON *first =
		cJSON_IsArray(info) ? cJSON_GetArrayItem(info, 0) : info;
	const cJSON *path = cJSON_GetObjectItemCaseSensitive(first, "qp_path");
	const cJSON *sl = cJSON_GetObjectItemCaseSensitive(path, "sl");
	const cJSON *fl = cJSON_GetObjectItemCaseSensitive(path, "flow_label");
	const cJSON *mtu = cJSON_GetObjectItemCaseSensitive(first, "mtu");

	if (cJSON_IsNumber(sl) && cJSON_IsNumber(fl) && cJSON_IsNumber(mtu))
		snprintf(buf, len, "SL %d, flow label 0x%05x, MTU %d",
			 sl->valueint, (unsigned int)fl->valuedouble,
			 mtu->valueint);
	else
		snprintf(buf, len, "?");
}

/* --sl, --flow-label, --mtu: asked, and what each end's queue pair
 * holds. */
static void text_path(FILE *f, const struct rp_result *r)
{
	char client[64], server[64], mtu[24] = "";

	path_took(r->client_info, client, sizeof(client));
	path_took(r->server_info, server, sizeof(server));
	if (r->spec.path_mtu)
		snprintf(mtu, sizeof(mtu), ", MTU %u", r->spec.path_mtu);
	fprintf(f,
		"  path         SL %u, flow label 0x%05x%s asked; the client's "
		"queue pair holds %s, the server's %s\n",
		r->spec.sl, r->spec.flow_label, mtu, client, server);
}

void rp_report_text_asked(FILE *f, const struct rp_result *res, size_t n)
{
	static const char *const mem[RP_MEM__COUNT] = {
		[RP_MEM_HUGE] = "huge pages (MAP_HUGETLB)",
		[RP_MEM_FILE] = "a file's pages (MAP_SHARED)",
		[RP_MEM_ODP] = "host pages, registered on demand (ODP)",
	};
	const struct rp_spec *s = NULL;
	const struct rp_result *r = NULL;
	char tos[48];
	size_t i;

	for (i = 0; i < n && !r; i++)
		if (res[i].spec.tos || res[i].spec.mem != RP_MEM_HOST ||
		    res[i].spec.qp != RP_QP_RC || res[i].spec.sl ||
		    res[i].spec.flow_label || res[i].spec.path_mtu)
			r = &res[i];
	s = r ? &r->spec : NULL;
	if (s && s->tos) {
		rp_tos_describe(s->tos, tos, sizeof(tos));
		fprintf(f, "  marking      TOS %s on both ends' data traffic\n",
			tos);
	}
	if (s && (s->sl || s->flow_label || s->path_mtu))
		text_path(f, r);
	if (s && (unsigned int)s->mem < RP_MEM__COUNT && mem[s->mem])
		fprintf(f, "  memory       %s on both ends\n", mem[s->mem]);
	if (s && s->qp == RP_QP_UC)
		fprintf(f, "  queue pairs  UC (unreliable connected): no "
			   "acknowledgements; a send or write completes once "
			   "sent\n");
	if (s && s->qp == RP_QP_UD)
		fprintf(f,
			"  queue pairs  UD (unreliable datagram): one packet "
			"a message, none acknowledged; a send completes once "
			"sent\n");
	rp_report_text_loss(f, res, n);
	rp_report_text_srq(f, res, n);
}

/* --qp ud: what the client sent and did not arrive, over the points. */
void rp_report_text_loss(FILE *f, const struct rp_result *res, size_t n)
{
	uint64_t sent = 0, got = 0, pings = 0, plost = 0;
	bool on = false, bw = false;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!res[i].has_loss)
			continue;
		on = true;
		bw |= res[i].has_loss_sent;
		sent += res[i].loss_sent;
		got += res[i].loss_arrived < res[i].loss_sent
			       ? res[i].loss_arrived
			       : res[i].loss_sent;
		pings += res[i].pings;
		plost += res[i].pings_lost;
	}
	if (!on)
		return;
	fprintf(f, "  loss         ");
	if (bw)
		fprintf(f,
			"%llu of %llu messages sent did not arrive (%.3g %%)",
			(unsigned long long)(sent - got),
			(unsigned long long)sent,
			sent ? 100.0 * (double)(sent - got) / (double)sent
			     : 0.0);
	if (pings)
		fprintf(f, "%s%llu of %llu pings had no answer within %d ms",
			bw ? "; " : "", (unsigned long long)plost,
			(unsigned long long)pings, RP_UD_PING_MS);
	fputc('\n', f);
}

/* --srq: the server's shared receive queue, and its limit reached over
 * the points' throughput phases. */
void rp_report_text_srq(FILE *f, const struct rp_result *res, size_t n)
{
	uint64_t events = 0;
	bool on = false, told = false;
	size_t i;

	for (i = 0; i < n; i++) {
		on |= res[i].spec.srq;
		told |= res[i].server.has_srq;
		events += res[i].server.srq_limit_events;
	}
	if (!on)
		return;
	if (!told) {
		fprintf(f, "  receives     one shared receive queue on the "
			   "server (--srq)\n");
		return;
	}
	fprintf(f,
		"  receives     one shared receive queue on the server "
		"(--srq): "
		"its limit reached %llu time%s%s\n",
		(unsigned long long)events, events == 1 ? "" : "s",
		events ? " (the responders reposted too slowly)" : "");
}

void rp_report_text_zerocopy(FILE *f, const struct rp_result *res, size_t n)
{
	struct rp_zc_count z = { 0 };
	bool on = false, small = false, failed = false;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!res[i].spec.zerocopy)
			continue;
		on = true;
		failed |= res[i].failed;
		small |= res[i].spec.size_bytes < RP_ZC_MIN_BYTES;
		rp_zc_add(&z, &res[i].client.zc);
		if (res[i].server.has_zc)
			rp_zc_add(&z, &res[i].server.zc);
	}
	if (!on || (failed && !z.issued))
		return; /* it never got as far as sending */
	fprintf(f,
		"  zerocopy     %llu sends notified, %llu of them copied by "
		"the kernel anyway%s%s\n",
		(unsigned long long)z.sends, (unsigned long long)z.copied,
		z.sends && z.copied == z.sends ? " (no zero copy: loopback?)"
					       : "",
		small ? "; messages under 16 KiB go copied" : "");
}
