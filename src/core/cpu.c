// SPDX-License-Identifier: MIT
/* CPU accounting: two samples (platform/cpu reads the clocks) into the
 * figures of a result. */
#include <stdbool.h>

#include "core/cpu.h"
#include "platform/cpu.h"

int rp_cpu_sample(struct rp_cpu_sample *out, bool thread_only)
{
	int err = rp_os_cpu_times(thread_only, &out->user_s, &out->sys_s);

	if (err)
		return err;
	/* a host figure is a bonus: no /proc/stat leaves it at 0 */
	rp_os_host_ticks(&out->host_busy_ticks, &out->host_total_ticks);
	return 0;
}

void rp_cpu_usage(const struct rp_cpu_sample *a, const struct rp_cpu_sample *b,
		  uint64_t bytes, struct rp_cpu_usage *out)
{
	long hz = rp_os_ticks_per_s();
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
