/* SPDX-License-Identifier: MIT */
/*
 * CPU accounting: the process's (or a thread's) user and system time and
 * the host's from /proc/stat (user, system, irq, softirq: the network
 * stack's work is counted), over all CPUs and, for the CPUs the test's
 * threads are pinned to, per CPU; service demand in microseconds and in
 * cycles per KiB moved.
 */
#ifndef RP_CORE_CPU_H
#define RP_CORE_CPU_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "platform/cpu.h" /* struct rp_cpu_ticks */

#define RP_CPU_MAX_LIST 64 /* CPUs sampled one by one; threads reported */

/** The host's CPU time in one interval: all CPUs, or one. Seconds. */
struct rp_cpu_host {
	int cpu; /* -1: all CPUs */
	double user_s;
	double sys_s;
	double irq_s;
	double softirq_s;
	double busy_s; /* all but idle and iowait */
	double util;   /* busy / elapsed time of those CPUs, 0..1 */
};

/** One thread's CPU time in one interval. */
struct rp_cpu_thread {
	int cpu; /* pinned to; -1: not pinned */
	double user_s;
	double sys_s;
};

struct rp_cpu_sample {
	double user_s;
	double sys_s;
	bool host_ok; /* /proc/stat was read */
	struct rp_cpu_ticks host;
	unsigned int n_cpus;
	struct rp_cpu_ticks per_cpu[RP_CPU_MAX_LIST];
};

struct rp_cpu_usage {
	double user_s;
	double sys_s;
	double us_per_kib;     /* (user + sys) in us per KiB moved */
	double cycles_per_kib; /* (user + sys) * hz per KiB moved; 0: no hz */
	double hz;	       /* CPU clock used for cycles; 0: unknown */
	const char *hz_source; /* "tsc" (measured), "cpuinfo" (nominal MHz
				* of /proc/cpuinfo), "cpufreq" (max), "none" */
	double host_busy_s;    /* = host.busy_s */
	double host_util;      /* = host.util */
	bool has_host;
	struct rp_cpu_host host;
	unsigned int n_cpus; /* the pinned CPUs, each on its own */
	struct rp_cpu_host per_cpu[RP_CPU_MAX_LIST];
	unsigned int n_threads; /* the test's threads (filled by run/) */
	struct rp_cpu_thread threads[RP_CPU_MAX_LIST];
};

/**
 * rp_cpu_sample - read the process's (or, with @thread_only, the calling
 * thread's) CPU time and the host's tick counters now: the whole host and
 * each of the @n_cpus CPUs in @cpus (at most RP_CPU_MAX_LIST; may be NULL).
 * A client and a server that share one process (--loopback) each count
 * their own threads. Return: 0 or -errno (the host part is best effort).
 */
int rp_cpu_sample(struct rp_cpu_sample *out, bool thread_only, const int *cpus,
		  unsigned int n_cpus);

/**
 * rp_cpu_usage - what was used between @a and @b (same CPU list), while
 * @bytes moved: process times, service demand in us and cycles per KiB,
 * the host's split, and per CPU. Leaves out->threads alone. Service
 * demand is 0 when no byte moved.
 */
void rp_cpu_usage(const struct rp_cpu_sample *a, const struct rp_cpu_sample *b,
		  uint64_t bytes, struct rp_cpu_usage *out);

/**
 * rp_cpu_usage_own_threads - for a side that shares its process with the
 * other (--loopback): @u's user and system time become the sum of its
 * threads' (u->threads), service demand recomputed over @bytes.
 */
void rp_cpu_usage_own_threads(struct rp_cpu_usage *u, uint64_t bytes);

/**
 * rp_cpu_service_demand - microseconds of CPU (@user_s + @sys_s) per KiB
 * of @bytes moved; 0 when no byte moved.
 */
double rp_cpu_service_demand(double user_s, double sys_s, uint64_t bytes);

/**
 * rp_cpu_cycles_per_kib - cycles of a @hz clock in @user_s + @sys_s per
 * KiB of @bytes; 0 when no byte moved or @hz is 0.
 */
double rp_cpu_cycles_per_kib(double user_s, double sys_s, uint64_t bytes,
			     double hz);

/**
 * rp_cpu_usage_to_json - @u into @obj as DESIGN.md's "cpu" side: user_s,
 * sys_s, us_per_kib, cycles_per_kib, hz, hz_source, host_busy_s,
 * host_util, "host": {user_s, sys_s, irq_s, softirq_s, busy_s, util},
 * "per_cpu": [{cpu, ...host fields}], "threads": [{cpu, user_s, sys_s}].
 * Return: 0 or -ENOMEM.
 */
int rp_cpu_usage_to_json(const struct rp_cpu_usage *u, cJSON *obj);

/**
 * rp_cpu_usage_from_json - the inverse, for what a peer sent: missing or
 * mistyped fields read as 0 (or "none"), arrays are cut at
 * RP_CPU_MAX_LIST; never fails on hostile input.
 */
void rp_cpu_usage_from_json(const cJSON *obj, struct rp_cpu_usage *u);

#endif
