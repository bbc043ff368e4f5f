/* SPDX-License-Identifier: MIT */
/*
 * CPU accounting: the process's user and system time (getrusage) and the
 * host's busy time from /proc/stat (all CPUs, including interrupt and
 * softirq work done on behalf of the network stack).
 */
#ifndef RP_CORE_CPU_H
#define RP_CORE_CPU_H

#include <stdbool.h>
#include <stdint.h>

struct rp_cpu_sample {
	double user_s;
	double sys_s;
	uint64_t host_busy_ticks; /* 0 when /proc/stat is unreadable */
	uint64_t host_total_ticks;
};

struct rp_cpu_usage {
	double user_s;
	double sys_s;
	double us_per_kib;  /* (user + sys) in us per KiB moved */
	double host_busy_s; /* busy CPU time of the whole host */
	double host_util;   /* host busy time / all CPUs' time, 0..1 */
};

/**
 * rp_cpu_sample - read the process's (or, with @thread_only, the calling
 * thread's) and the host's CPU time now. A client and a server that share
 * one process (--loopback) each count their own threads.
 */
int rp_cpu_sample(struct rp_cpu_sample *out, bool thread_only);

/**
 * rp_cpu_usage - what was used between @a and @b, while @bytes moved.
 * Service demand is 0 when no byte moved.
 */
void rp_cpu_usage(const struct rp_cpu_sample *a, const struct rp_cpu_sample *b,
		  uint64_t bytes, struct rp_cpu_usage *out);

/**
 * rp_cpu_service_demand - microseconds of CPU (@user_s + @sys_s) per KiB
 * of @bytes moved; 0 when no byte moved.
 */
double rp_cpu_service_demand(double user_s, double sys_s, uint64_t bytes);

#endif
