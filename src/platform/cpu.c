// SPDX-License-Identifier: MIT
/* Linux side of platform/cpu.h: getrusage and /proc/stat. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

#include "platform/cpu.h"

static double tv_s(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

int rp_os_cpu_times(bool thread_only, double *user_s, double *sys_s)
{
	struct rusage ru;

	if (getrusage(thread_only ? RUSAGE_THREAD : RUSAGE_SELF, &ru) < 0)
		return -errno;
	*user_s = tv_s(&ru.ru_utime);
	*sys_s = tv_s(&ru.ru_stime);
	return 0;
}

/* First line of /proc/stat: cpu user nice system idle iowait irq softirq
 * steal ...; idle and iowait are the not-busy part. */
int rp_os_host_ticks(uint64_t *busy, uint64_t *total)
{
	uint64_t v[8] = { 0 };
	FILE *f = fopen("/proc/stat", "r");
	int i, n;

	*busy = *total = 0;
	if (!f)
		return -errno;
	n = fscanf(f,
		   "cpu %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
		   " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64,
		   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	if (n < 4)
		return -EIO;
	for (i = 0; i < 8; i++)
		*total += v[i];
	*busy = *total - v[3] - v[4];
	return 0;
}

long rp_os_ticks_per_s(void)
{
	long hz = sysconf(_SC_CLK_TCK);

	return hz > 0 ? hz : 100;
}
