// SPDX-License-Identifier: MIT
/* Process CPU time from getrusage, host CPU time from /proc/stat. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

#include "core/cpu.h"

static double tv_s(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

/* First line of /proc/stat: cpu user nice system idle iowait irq softirq
 * steal ...; idle and iowait are the not-busy part. */
static void host_ticks(uint64_t *busy, uint64_t *total)
{
	uint64_t v[8] = { 0 };
	FILE *f = fopen("/proc/stat", "r");
	int i, n;

	*busy = *total = 0;
	if (!f)
		return;
	n = fscanf(f,
		   "cpu %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
		   " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64,
		   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	if (n < 4)
		return;
	for (i = 0; i < 8; i++)
		*total += v[i];
	*busy = *total - v[3] - v[4];
}

int rp_cpu_sample(struct rp_cpu_sample *out, bool thread_only)
{
	struct rusage ru;

	if (getrusage(thread_only ? RUSAGE_THREAD : RUSAGE_SELF, &ru) < 0)
		return -errno;
	out->user_s = tv_s(&ru.ru_utime);
	out->sys_s = tv_s(&ru.ru_stime);
	host_ticks(&out->host_busy_ticks, &out->host_total_ticks);
	return 0;
}

void rp_cpu_usage(const struct rp_cpu_sample *a, const struct rp_cpu_sample *b,
		  uint64_t bytes, struct rp_cpu_usage *out)
{
	long hz = sysconf(_SC_CLK_TCK);
	/* a sample that could not read /proc/stat has no ticks: no figure
	 * then, rather than the wrapped difference of one */
	bool ticks = a->host_total_ticks && b->host_total_ticks &&
		     b->host_total_ticks >= a->host_total_ticks &&
		     b->host_busy_ticks >= a->host_busy_ticks;
	uint64_t busy = ticks ? b->host_busy_ticks - a->host_busy_ticks : 0;
	uint64_t total = ticks ? b->host_total_ticks - a->host_total_ticks : 0;

	out->user_s = b->user_s - a->user_s;
	out->sys_s = b->sys_s - a->sys_s;
	out->us_per_kib = rp_cpu_service_demand(out->user_s, out->sys_s, bytes);
	out->host_busy_s = hz > 0 ? (double)busy / (double)hz : 0;
	out->host_util = total ? (double)busy / (double)total : 0;
}

double rp_cpu_service_demand(double user_s, double sys_s, uint64_t bytes)
{
	if (!bytes)
		return 0;
	return (user_s + sys_s) * 1e6 / ((double)bytes / 1024.0);
}
