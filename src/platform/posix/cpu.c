// SPDX-License-Identifier: MIT
/*
 * Linux side of platform/cpu.h: getrusage, /proc/stat, the CPU clock
 * (invariant TSC measured, else /proc/cpuinfo, else cpufreq), affinity and
 * the NUMA node of a page. Another system gets its own file beside this one.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include "platform/cpu.h"

/* get_mempolicy(2) flags, as <numaif.h> (libnuma's, often absent) has them */
#ifndef MPOL_F_NODE
#define MPOL_F_NODE (1 << 0)
#endif
#ifndef MPOL_F_ADDR
#define MPOL_F_ADDR (1 << 1)
#endif

#define RP_OS_MAX_CPUS (1 << 16) /* affinity masks grow to this many */
#define HZ_MIN	       1e7	 /* a clock outside 10 MHz..100 GHz is junk */
#define HZ_MAX	       1e11
#define TSC_WINDOW_NS  20000000L

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

/* /proc/stat */

/*
 * One "cpu" or "cpuN" line: user nice system idle iowait irq softirq steal
 * (guest time is already inside user and nice). Fills @t, fields an older
 * kernel lacks read 0. Return: the number of fields, or -EINVAL when the
 * line is not a cpu line.
 */
static int stat_line(const char *line, struct rp_cpu_ticks *t)
{
	uint64_t *f[] = { &t->user,   &t->nice, &t->sys,     &t->idle,
			  &t->iowait, &t->irq,	&t->softirq, &t->steal };
	const char *p = line + 3;
	char *end;
	int i;

	if (strncmp(line, "cpu", 3))
		return -EINVAL;
	*t = (struct rp_cpu_ticks){ .cpu = -1 };
	if (isdigit((unsigned char)*p)) {
		long n = strtol(p, &end, 10);

		if (n > INT_MAX)
			return -EINVAL;
		t->cpu = (int)n;
		p = end;
	}
	if (*p != ' ')
		return -EINVAL;
	for (i = 0; i < (int)(sizeof(f) / sizeof(f[0])); i++) {
		*f[i] = strtoull(p, &end, 10);
		if (end == p)
			break;
		p = end;
	}
	return i;
}

static void stat_clear(struct rp_cpu_ticks *all, const int *cpus,
		       unsigned int n_cpus, struct rp_cpu_ticks *per_cpu)
{
	unsigned int i;

	*all = (struct rp_cpu_ticks){ .cpu = -1 };
	for (i = 0; i < n_cpus; i++)
		per_cpu[i] = (struct rp_cpu_ticks){ .cpu = cpus[i] };
}

static void stat_store(const struct rp_cpu_ticks *t, const int *cpus,
		       unsigned int n_cpus, struct rp_cpu_ticks *per_cpu)
{
	unsigned int i;

	for (i = 0; i < n_cpus; i++)
		if (cpus[i] == t->cpu)
			per_cpu[i] = *t;
}

int rp_os_stat_ticks(struct rp_cpu_ticks *all, const int *cpus,
		     unsigned int n_cpus, struct rp_cpu_ticks *per_cpu)
{
	struct rp_cpu_ticks t;
	char line[512]; /* a cpu line is under 250 characters */
	int err = -EIO, got;
	FILE *f;

	stat_clear(all, cpus, n_cpus, per_cpu);
	f = fopen("/proc/stat", "re");
	if (!f)
		return -errno;
	/* the cpu lines come first: stop at the first other one */
	while (fgets(line, sizeof(line), f)) {
		got = stat_line(line, &t);
		if (got < 0)
			break;
		if (t.cpu >= 0) {
			stat_store(&t, cpus, n_cpus, per_cpu);
		} else if (got >= 4) {
			*all = t;
			err = 0;
		}
	}
	fclose(f);
	if (err)
		stat_clear(all, cpus, n_cpus, per_cpu);
	return err;
}

/* busy excludes idle and iowait */
int rp_os_host_ticks(uint64_t *busy, uint64_t *total)
{
	struct rp_cpu_ticks t;
	int err = rp_os_stat_ticks(&t, NULL, 0, NULL);

	*busy = *total = 0;
	if (err)
		return err;
	*total = t.user + t.nice + t.sys + t.idle + t.iowait + t.irq +
		 t.softirq + t.steal;
	*busy = *total - t.idle - t.iowait;
	return 0;
}

long rp_os_ticks_per_s(void)
{
	long hz = sysconf(_SC_CLK_TCK);

	return hz > 0 ? hz : 100;
}

/* The CPU clock */

/* What rp_os_cpu_hz needs of /proc/cpuinfo (its first CPU's block). */
struct cpuinfo {
	bool flags_seen;
	bool invariant_tsc; /* constant_tsc and nonstop_tsc */
	double mhz;	    /* "cpu MHz"; 0: absent */
};

/* The value of "@key<blanks>: value" in @line, or NULL. */
static const char *cpuinfo_value(const char *line, const char *key)
{
	size_t n = strlen(key);

	if (strncmp(line, key, n))
		return NULL;
	line += n;
	while (*line == ' ' || *line == '\t')
		line++;
	return *line == ':' ? line + 1 : NULL;
}

/* Whether the blank-separated list @list holds @word. */
static bool has_word(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p = list;

	while ((p = strstr(p, word))) {
		bool starts = p == list || isspace((unsigned char)p[-1]);
		bool ends = !p[n] || isspace((unsigned char)p[n]);

		if (starts && ends)
			return true;
		p += n;
	}
	return false;
}

static void cpuinfo_line(const char *line, struct cpuinfo *ci)
{
	const char *v;

	if (!ci->flags_seen && (v = cpuinfo_value(line, "flags"))) {
		ci->flags_seen = true;
		ci->invariant_tsc = has_word(v, "constant_tsc") &&
				    has_word(v, "nonstop_tsc");
	} else if (!ci->mhz && (v = cpuinfo_value(line, "cpu MHz"))) {
		double mhz = strtod(v, NULL);

		ci->mhz = isfinite(mhz) && mhz > 0 ? mhz : 0;
	}
}

static void cpuinfo_read(struct cpuinfo *ci)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char *line = NULL; /* a flags line runs to thousands of characters */
	size_t cap = 0;

	*ci = (struct cpuinfo){ 0 };
	if (!f)
		return;
	while (!(ci->flags_seen && ci->mhz) && getline(&line, &cap, f) > 0)
		cpuinfo_line(line, ci);
	free(line);
	fclose(f);
}

/* cpufreq's maximum of CPU 0 in Hz, or 0. */
static double cpufreq_max_hz(void)
{
	FILE *f = fopen("/sys/devices/system/cpu/cpu0/cpufreq/"
			"cpuinfo_max_freq",
			"re");
	unsigned long long khz = 0;

	if (!f)
		return 0;
	if (fscanf(f, "%llu", &khz) != 1)
		khz = 0;
	fclose(f);
	return (double)khz * 1e3;
}

#if defined(__x86_64__) || defined(__i386__)
static uint64_t mono_raw_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A (TSC, ns) pair: the clock read between two TSC reads, the closest
 * bracket of a few tries (an interrupt in between widens one). */
static void tsc_pair(uint64_t *tsc, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;
	int i;

	for (i = 0; i < 5; i++) {
		uint64_t t0 = __rdtsc();
		uint64_t n = mono_raw_ns();
		uint64_t t1 = __rdtsc();

		if (i == 0 || t1 - t0 < best) {
			best = t1 - t0;
			*tsc = t0 + (t1 - t0) / 2;
			*ns = n;
		}
	}
}

/* The TSC's rate against CLOCK_MONOTONIC_RAW over TSC_WINDOW_NS. */
static double tsc_hz(void)
{
	struct timespec left = { 0, TSC_WINDOW_NS };
	uint64_t c0, n0, c1, n1;

	tsc_pair(&c0, &n0);
	while (nanosleep(&left, &left) && errno == EINTR)
		;
	tsc_pair(&c1, &n1);
	if (n1 <= n0 || c1 <= c0)
		return 0;
	return (double)(c1 - c0) * 1e9 / (double)(n1 - n0);
}
#else
static double tsc_hz(void)
{
	return 0;
}
#endif

static bool hz_plausible(double hz)
{
	return hz >= HZ_MIN && hz <= HZ_MAX;
}

static pthread_once_t hz_once = PTHREAD_ONCE_INIT;
static double hz_value;
static const char *hz_source = "none";

static void hz_init(void)
{
	struct cpuinfo ci;
	double hz;

	cpuinfo_read(&ci);
	if (ci.invariant_tsc && hz_plausible(hz = tsc_hz())) {
		hz_source = "tsc";
	} else if (hz_plausible(hz = ci.mhz * 1e6)) {
		hz_source = "cpuinfo";
	} else if (hz_plausible(hz = cpufreq_max_hz())) {
		hz_source = "cpufreq";
	} else {
		hz = 0;
		hz_source = "none";
	}
	hz_value = hz;
}

double rp_os_cpu_hz(const char **source)
{
	pthread_once(&hz_once, hz_init);
	if (source)
		*source = hz_source;
	return hz_value;
}

/* Affinity and memory */

int rp_os_pin_self(int cpu)
{
	cpu_set_t *set;
	size_t size;
	int err;

	if (cpu < 0 || cpu >= RP_OS_MAX_CPUS)
		return -EINVAL;
	set = CPU_ALLOC(cpu + 1);
	if (!set)
		return -ENOMEM;
	size = CPU_ALLOC_SIZE(cpu + 1);
	CPU_ZERO_S(size, set);
	CPU_SET_S(cpu, size, set);
	/* EINVAL from the kernel too when @cpu is absent or not allowed */
	err = pthread_setaffinity_np(pthread_self(), size, set);
	CPU_FREE(set);
	return -err;
}

/* CPUs in the affinity mask of the process's main thread (the mask the
 * process started with, whichever thread asks), or -errno. */
static int affinity_count(int n)
{
	cpu_set_t *set = CPU_ALLOC(n);
	size_t size = CPU_ALLOC_SIZE(n);
	int count;

	if (!set)
		return -ENOMEM;
	if (sched_getaffinity(getpid(), size, set))
		count = -errno;
	else
		count = CPU_COUNT_S(size, set);
	CPU_FREE(set);
	return count;
}

int rp_os_cpu_count(void)
{
	long online;
	int n, count;

	/* EINVAL: the kernel's mask is wider than ours */
	for (n = 1024; n <= RP_OS_MAX_CPUS; n *= 2) {
		count = affinity_count(n);
		if (count > 0)
			return count;
		if (count != -EINVAL)
			break;
	}
	online = sysconf(_SC_NPROCESSORS_ONLN);
	return online > 0 && online < INT_MAX ? (int)online : 1;
}

int rp_os_mem_node(const void *addr)
{
#ifdef SYS_get_mempolicy
	int node = -1;

	if (syscall(SYS_get_mempolicy, &node, NULL, 0UL, addr,
		    (unsigned long)(MPOL_F_NODE | MPOL_F_ADDR)) < 0)
		return -errno;
	return node >= 0 ? node : -ENODATA;
#else
	(void)addr;
	return -ENOSYS;
#endif
}
