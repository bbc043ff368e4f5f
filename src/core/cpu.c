// SPDX-License-Identifier: MIT
/*
 * CPU accounting: two samples (platform/cpu reads the clocks) into the
 * figures of a result, and those figures to and from JSON. A host figure
 * is only given when both samples read /proc/stat and no counter went
 * backwards: zeros then, never a wrapped difference.
 */
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "core/cpu.h"
#include "platform/cpu.h"

int rp_cpu_sample(struct rp_cpu_sample *out, bool thread_only, const int *cpus,
		  unsigned int n_cpus)
{
	int err;

	if (!cpus)
		n_cpus = 0;
	if (n_cpus > RP_CPU_MAX_LIST)
		n_cpus = RP_CPU_MAX_LIST;
	out->n_cpus = n_cpus;
	err = rp_os_cpu_times(thread_only, &out->user_s, &out->sys_s);
	if (err)
		out->user_s = out->sys_s = 0;
	/* the host part is a bonus: without /proc/stat, no host figure */
	out->host_ok =
		!rp_os_stat_ticks(&out->host, cpus, n_cpus, out->per_cpu);
	return err;
}

/* @b - @a field by field into @d; false when a counter went backwards or
 * the two are not the same CPU's. */
static bool ticks_delta(const struct rp_cpu_ticks *a,
			const struct rp_cpu_ticks *b, struct rp_cpu_ticks *d)
{
	if (a->cpu != b->cpu || b->user < a->user || b->nice < a->nice ||
	    b->sys < a->sys || b->idle < a->idle || b->iowait < a->iowait ||
	    b->irq < a->irq || b->softirq < a->softirq || b->steal < a->steal)
		return false;
	d->cpu = b->cpu;
	d->user = b->user - a->user;
	d->nice = b->nice - a->nice;
	d->sys = b->sys - a->sys;
	d->idle = b->idle - a->idle;
	d->iowait = b->iowait - a->iowait;
	d->irq = b->irq - a->irq;
	d->softirq = b->softirq - a->softirq;
	d->steal = b->steal - a->steal;
	return true;
}

/*
 * The host's (or one CPU's) split between @a and @b, @tps ticks a second:
 * busy is everything but idle and iowait (steal included), util is busy
 * over all the ticks those CPUs counted in the interval. Zeros (and false)
 * when the counters do not allow a figure.
 */
static bool host_usage(const struct rp_cpu_ticks *a,
		       const struct rp_cpu_ticks *b, double tps,
		       struct rp_cpu_host *h)
{
	struct rp_cpu_ticks d;
	uint64_t busy, total;

	*h = (struct rp_cpu_host){ .cpu = b->cpu };
	if (!ticks_delta(a, b, &d))
		return false;
	busy = d.user + d.nice + d.sys + d.irq + d.softirq + d.steal;
	total = busy + d.idle + d.iowait;
	h->user_s = (double)(d.user + d.nice) / tps;
	h->sys_s = (double)d.sys / tps;
	h->irq_s = (double)d.irq / tps;
	h->softirq_s = (double)d.softirq / tps;
	h->busy_s = (double)busy / tps;
	h->util = total ? (double)busy / (double)total : 0;
	return true;
}

static void host_split(const struct rp_cpu_sample *a,
		       const struct rp_cpu_sample *b, struct rp_cpu_usage *out)
{
	double tps = (double)rp_os_ticks_per_s();
	bool ok = a->host_ok && b->host_ok;
	unsigned int i, n = a->n_cpus < b->n_cpus ? a->n_cpus : b->n_cpus;

	out->has_host = ok && host_usage(&a->host, &b->host, tps, &out->host);
	if (!out->has_host)
		out->host = (struct rp_cpu_host){ .cpu = -1 };
	out->host_busy_s = out->host.busy_s;
	out->host_util = out->host.util;
	out->n_cpus = ok && n <= RP_CPU_MAX_LIST ? n : 0;
	for (i = 0; i < out->n_cpus; i++)
		host_usage(&a->per_cpu[i], &b->per_cpu[i], tps,
			   &out->per_cpu[i]);
}

static double nonneg(double v)
{
	return v > 0 ? v : 0;
}

void rp_cpu_usage(const struct rp_cpu_sample *a, const struct rp_cpu_sample *b,
		  uint64_t bytes, struct rp_cpu_usage *out)
{
	out->user_s = nonneg(b->user_s - a->user_s);
	out->sys_s = nonneg(b->sys_s - a->sys_s);
	out->us_per_kib = rp_cpu_service_demand(out->user_s, out->sys_s, bytes);
	out->hz = rp_os_cpu_hz(&out->hz_source);
	out->cycles_per_kib =
		rp_cpu_cycles_per_kib(out->user_s, out->sys_s, bytes, out->hz);
	host_split(a, b, out);
}

void rp_cpu_usage_own_threads(struct rp_cpu_usage *u, uint64_t bytes)
{
	unsigned int i;

	u->user_s = u->sys_s = 0;
	for (i = 0; i < u->n_threads; i++) {
		u->user_s += u->threads[i].user_s;
		u->sys_s += u->threads[i].sys_s;
	}
	u->us_per_kib = rp_cpu_service_demand(u->user_s, u->sys_s, bytes);
	u->cycles_per_kib =
		rp_cpu_cycles_per_kib(u->user_s, u->sys_s, bytes, u->hz);
}

double rp_cpu_service_demand(double user_s, double sys_s, uint64_t bytes)
{
	if (!bytes)
		return 0;
	return (user_s + sys_s) * 1e6 / ((double)bytes / 1024.0);
}

double rp_cpu_cycles_per_kib(double user_s, double sys_s, uint64_t bytes,
			     double hz)
{
	if (!bytes || !(hz > 0))
		return 0;
	return (user_s + sys_s) * hz / ((double)bytes / 1024.0);
}

/* JSON: the double members of each struct, by name, with their ceiling
 * (what a peer sends above it, like anything negative, reads as 0). */

struct dbl_field {
	const char *name;
	size_t off;
	double max;
};

#define FIELD(type, m, max)                                                    \
	{                                                                      \
#m, offsetof(struct type, m), max                              \
	}

/* What a peer may claim (from_json): CPU seconds of one test, at most a
 * year of every CPU a host can have; a clock rate, at most 1 THz. Beyond,
 * a figure reads as 0: sums and ratios of them stay finite. */
#define MAX_SECONDS (365.0 * 86400 * 4096)
#define MAX_HZ	    1e12

static const struct dbl_field usage_fields[] = {
	FIELD(rp_cpu_usage, user_s, MAX_SECONDS),
	FIELD(rp_cpu_usage, sys_s, MAX_SECONDS),
	FIELD(rp_cpu_usage, us_per_kib, DBL_MAX),
	FIELD(rp_cpu_usage, cycles_per_kib, DBL_MAX),
	FIELD(rp_cpu_usage, hz, MAX_HZ),
	FIELD(rp_cpu_usage, host_busy_s, MAX_SECONDS),
	FIELD(rp_cpu_usage, host_util, 1.0),
};

static const struct dbl_field host_fields[] = {
	FIELD(rp_cpu_host, user_s, MAX_SECONDS),
	FIELD(rp_cpu_host, sys_s, MAX_SECONDS),
	FIELD(rp_cpu_host, irq_s, MAX_SECONDS),
	FIELD(rp_cpu_host, softirq_s, MAX_SECONDS),
	FIELD(rp_cpu_host, busy_s, MAX_SECONDS),
	FIELD(rp_cpu_host, util, 1.0),
};

static const struct dbl_field thread_fields[] = {
	FIELD(rp_cpu_thread, user_s, MAX_SECONDS),
	FIELD(rp_cpu_thread, sys_s, MAX_SECONDS),
};

#define N_FIELDS(t) (sizeof(t) / sizeof((t)[0]))

/* The clock sources a usage may name: from_json hands back these. */
static const char *const hz_sources[] = { "tsc", "cpuinfo", "cpufreq", "none" };

static int put_fields(cJSON *o, const void *base, const struct dbl_field *f,
		      size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const double *v =
			(const double *)((const char *)base + f[i].off);

		if (!cJSON_AddNumberToObject(o, f[i].name, *v))
			return -ENOMEM;
	}
	return 0;
}

/* A new object {cpu, @f...} of @base appended to @arr. */
static int put_entry(cJSON *arr, int cpu, const void *base,
		     const struct dbl_field *f, size_t n)
{
	cJSON *e = cJSON_CreateObject();

	if (!e)
		return -ENOMEM;
	if (!cJSON_AddItemToArray(arr, e))
		goto out_free;
	if (!cJSON_AddNumberToObject(e, "cpu", cpu))
		return -ENOMEM;
	return put_fields(e, base, f, n);
out_free:
	cJSON_Delete(e);
	return -ENOMEM;
}

static int put_host(cJSON *obj, const struct rp_cpu_usage *u)
{
	cJSON *h;

	if (!u->has_host)
		return cJSON_AddNullToObject(obj, "host") ? 0 : -ENOMEM;
	h = cJSON_AddObjectToObject(obj, "host");
	if (!h)
		return -ENOMEM;
	return put_fields(h, &u->host, host_fields, N_FIELDS(host_fields));
}

static int put_lists(cJSON *obj, const struct rp_cpu_usage *u)
{
	cJSON *pc = cJSON_AddArrayToObject(obj, "per_cpu");
	cJSON *th = cJSON_AddArrayToObject(obj, "threads");
	unsigned int i;
	int err = pc && th ? 0 : -ENOMEM;

	for (i = 0; !err && i < u->n_cpus && i < RP_CPU_MAX_LIST; i++)
		err = put_entry(pc, u->per_cpu[i].cpu, &u->per_cpu[i],
				host_fields, N_FIELDS(host_fields));
	for (i = 0; !err && i < u->n_threads && i < RP_CPU_MAX_LIST; i++)
		err = put_entry(th, u->threads[i].cpu, &u->threads[i],
				thread_fields, N_FIELDS(thread_fields));
	return err;
}

int rp_cpu_usage_to_json(const struct rp_cpu_usage *u, cJSON *obj)
{
	const char *src = u->hz_source ? u->hz_source : "none";
	int err;

	err = put_fields(obj, u, usage_fields, N_FIELDS(usage_fields));
	if (err)
		return err;
	if (!cJSON_AddStringToObject(obj, "hz_source", src))
		return -ENOMEM;
	err = put_host(obj, u);
	return err ? err : put_lists(obj, u);
}

/* The member @key of @o if a finite number in [0, @max], else 0. */
static double get_num(const cJSON *o, const char *key, double max)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	double d;

	if (!cJSON_IsNumber(v))
		return 0;
	d = v->valuedouble;
	return isfinite(d) && d >= 0 && d <= max ? d : 0;
}

/* "cpu" of @o if a whole number in [-1, INT_MAX], else -1. */
static int get_cpu(const cJSON *o)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "cpu");
	double d;

	if (!cJSON_IsNumber(v))
		return -1;
	d = v->valuedouble;
	if (!isfinite(d) || d != floor(d) || d < -1 || d > INT_MAX)
		return -1;
	return (int)d;
}

static void get_fields(const cJSON *o, void *base, const struct dbl_field *f,
		       size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		*(double *)((char *)base + f[i].off) =
			get_num(o, f[i].name, f[i].max);
}

static const char *get_source(const cJSON *o)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "hz_source");
	size_t i;

	if (!cJSON_IsString(v) || !v->valuestring)
		return "none";
	for (i = 0; i < N_FIELDS(hz_sources); i++)
		if (!strcmp(v->valuestring, hz_sources[i]))
			return hz_sources[i];
	return "none";
}

/* get_list stores an element's "cpu" through an int * to its start */
_Static_assert(offsetof(struct rp_cpu_host, cpu) == 0 &&
		       offsetof(struct rp_cpu_thread, cpu) == 0,
	       "cpu leads struct rp_cpu_host and struct rp_cpu_thread");

/* The first RP_CPU_MAX_LIST objects of the array @key of @o (other
 * elements skipped) into @base, @size bytes apart. Return: how many. */
static unsigned int get_list(const cJSON *o, const char *key, void *base,
			     size_t size, const struct dbl_field *f, size_t n)
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(o, key);
	const cJSON *e;
	unsigned int got = 0;

	if (!cJSON_IsArray(arr))
		return 0;
	cJSON_ArrayForEach(e, arr)
	{
		char *entry = (char *)base + got * size;

		if (got == RP_CPU_MAX_LIST)
			break;
		if (!cJSON_IsObject(e))
			continue;
		*(int *)entry = get_cpu(e);
		get_fields(e, entry, f, n);
		got++;
	}
	return got;
}

void rp_cpu_usage_from_json(const cJSON *obj, struct rp_cpu_usage *u)
{
	const cJSON *host;

	memset(u, 0, sizeof(*u));
	u->hz_source = "none";
	u->host.cpu = -1;
	if (!cJSON_IsObject(obj))
		return;
	get_fields(obj, u, usage_fields, N_FIELDS(usage_fields));
	u->hz_source = get_source(obj);
	host = cJSON_GetObjectItemCaseSensitive(obj, "host");
	u->has_host = cJSON_IsObject(host);
	if (u->has_host)
		get_fields(host, &u->host, host_fields, N_FIELDS(host_fields));
	u->n_cpus = get_list(obj, "per_cpu", u->per_cpu, sizeof(u->per_cpu[0]),
			     host_fields, N_FIELDS(host_fields));
	u->n_threads =
		get_list(obj, "threads", u->threads, sizeof(u->threads[0]),
			 thread_fields, N_FIELDS(thread_fields));
}
