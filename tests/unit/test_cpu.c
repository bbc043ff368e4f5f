// SPDX-License-Identifier: MIT
/*
 * Unit tests of core/cpu: the arithmetic of rp_cpu_usage (process times,
 * the host's user/sys/irq/softirq split, per CPU, counters that went
 * backwards), rp_cpu_service_demand and rp_cpu_cycles_per_kib on
 * constructed samples (exact to rounding); the JSON form of a usage, round
 * trip and hostile bodies; and rp_cpu_sample for real: CPU burnt in a loop
 * shows up in the process's and the thread's user time, CPU burnt by
 * another thread only in the process's, the host's ticks are read, and
 * the CPU a pinned thread burns on shows up in its own entry. The bounds on
 * measured time are generous: the machine is shared.
 */
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/cpu.h"
#include "platform/cpu.h"

/* @got equals @want to a relative 1e-9 (absolute near 0). */
#define assert_near(got, want) near_at((got), (want), __FILE__, __LINE__)

static void near_at(double got, double want, const char *file, int line)
{
	double tol = 1e-9 * (fabs(want) > 1 ? fabs(want) : 1);

	if (fabs(got - want) > tol) {
		print_error("%.12g, expected %.12g\n", got, want);
		_fail(file, line);
	}
}

/* Arithmetic */

/* Ticks per second, as rp_cpu_usage converts them. */
static uint64_t tps(void)
{
	long hz = sysconf(_SC_CLK_TCK);

	assert_true(hz > 0);
	return (uint64_t)hz;
}

/* A sample that read /proc/stat, its "cpu" line @t. */
static struct rp_cpu_sample host_sample(double user_s, double sys_s,
					struct rp_cpu_ticks t)
{
	struct rp_cpu_sample s = {
		.user_s = user_s, .sys_s = sys_s, .host_ok = true, .host = t
	};

	s.host.cpu = -1;
	return s;
}

/* A /proc/stat line: user nice sys idle iowait irq softirq steal. */
#define TICKS(cpu, us, ni, sy, id, io, irq, sirq, st)                          \
	((struct rp_cpu_ticks){ (cpu), (us), (ni), (sy), (id), (io), (irq),    \
				(sirq), (st) })

static void test_usage_arithmetic(void **state)
{
	uint64_t h = tps();
	struct rp_cpu_sample a =
		host_sample(1.0, 0.5, TICKS(-1, 500, 0, 500, 3000, 0, 0, 0, 0));
	struct rp_cpu_sample b = host_sample(
		3.5, 1.25,
		TICKS(-1, 500 + 2 * h, 0, 500, 3000 + 6 * h, 0, 0, 0, 0));
	struct rp_cpu_usage u;

	(void)state;
	rp_cpu_usage(&a, &b, 1 << 20, &u);
	assert_near(u.user_s, 2.5);
	assert_near(u.sys_s, 0.75);
	assert_true(u.has_host);
	assert_near(u.host_busy_s, 2.0); /* 2 * h ticks */
	assert_near(u.host_util, 0.25);	 /* 2 of 8 */
	assert_near(u.host.busy_s, 2.0);
	assert_near(u.host.util, 0.25);
	assert_int_equal(u.host.cpu, -1);
	/* 3.25 s over 1024 KiB */
	assert_near(u.us_per_kib, 3.25e6 / 1024);
	assert_int_equal(u.n_cpus, 0);
}

/* Every field of the "cpu" line in its place: user + nice is user time,
 * irq and softirq are their own, steal is busy, idle and iowait are not. */
static void test_usage_split(void **state)
{
	uint64_t h = tps();
	struct rp_cpu_sample a =
		host_sample(0, 0, TICKS(-1, 100, 20, 30, 4000, 50, 6, 70, 8));
	struct rp_cpu_sample b =
		host_sample(0, 0,
			    TICKS(-1, 100 + 2 * h, 20 + h, 30 + h, 4000 + 3 * h,
				  50 + h, 6 + h, 70 + h, 8 + h));
	struct rp_cpu_usage u;

	(void)state;
	rp_cpu_usage(&a, &b, 0, &u);
	assert_true(u.has_host);
	assert_near(u.host.user_s, 3.0); /* user 2 + nice 1 */
	assert_near(u.host.sys_s, 1.0);
	assert_near(u.host.irq_s, 1.0);
	assert_near(u.host.softirq_s, 1.0);
	assert_near(u.host.busy_s, 7.0); /* all but idle 3 and iowait 1 */
	assert_near(u.host.util, 7.0 / 11.0);
	assert_near(u.host_busy_s, 7.0);
	assert_near(u.host_util, 7.0 / 11.0);
}

static void test_usage_no_bytes(void **state)
{
	struct rp_cpu_sample a =
		host_sample(1.0, 0, TICKS(-1, 0, 0, 0, 100, 0, 0, 0, 0));
	struct rp_cpu_sample b =
		host_sample(2.0, 1.0, TICKS(-1, 10, 0, 0, 190, 0, 0, 0, 0));
	struct rp_cpu_usage u;

	(void)state;
	rp_cpu_usage(&a, &b, 0, &u);
	assert_near(u.user_s, 1.0);
	assert_near(u.sys_s, 1.0);
	assert_near(u.us_per_kib, 0); /* no byte: no demand */
	assert_near(u.cycles_per_kib, 0);
	assert_near(u.host_util, 0.1);
}

/* Unreadable /proc/stat: no host figure, the process's still there. */
static void test_usage_no_host(void **state)
{
	struct rp_cpu_sample a = { .user_s = 1.0 };
	struct rp_cpu_sample b = { .user_s = 1.5 };
	struct rp_cpu_usage u;

	(void)state;
	rp_cpu_usage(&a, &b, 1024, &u);
	assert_near(u.user_s, 0.5);
	assert_false(u.has_host);
	assert_near(u.host_busy_s, 0);
	assert_near(u.host_util, 0);
	assert_near(u.host.busy_s, 0);
	assert_int_equal(u.host.cpu, -1);
	assert_near(u.us_per_kib, 0.5e6);
}

/* Only one of the two samples read /proc/stat (the other failed, e.g. out
 * of descriptors): no host figure, not the wrapped difference. */
static void test_usage_one_host_sample(void **state)
{
	struct rp_cpu_sample a =
		host_sample(1, 0, TICKS(-1, 4000, 0, 1000, 15000, 0, 0, 0, 0));
	struct rp_cpu_sample b = { .user_s = 2 };
	struct rp_cpu_usage u;

	(void)state;
	rp_cpu_usage(&a, &b, 1024, &u);
	assert_false(u.has_host);
	assert_near(u.host_busy_s, 0);
	assert_near(u.host_util, 0);
	rp_cpu_usage(&b, &a, 1024, &u);
	assert_false(u.has_host);
	assert_near(u.host_busy_s, 0);
	assert_near(u.host_util, 0);
	assert_near(u.host.user_s, 0);
}

/* A counter that went backwards (a reset, or samples swapped): no host
 * figure at all, whichever field it was. */
static void test_usage_backwards(void **state)
{
	struct rp_cpu_ticks t0 = TICKS(-1, 10, 10, 10, 10, 10, 10, 10, 10);
	uint64_t *field[] = { &t0.user,	  &t0.nice, &t0.sys,	 &t0.idle,
			      &t0.iowait, &t0.irq,  &t0.softirq, &t0.steal };
	struct rp_cpu_usage u;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(field) / sizeof(field[0]); i++) {
		struct rp_cpu_sample a, b;

		*field[i] = 30; /* later than b's 20 */
		a = host_sample(0, 0, t0);
		*field[i] = 10;
		b = host_sample(0, 0,
				TICKS(-1, 20, 20, 20, 20, 20, 20, 20, 20));
		rp_cpu_usage(&a, &b, 1024, &u);
		assert_false(u.has_host);
		assert_near(u.host_busy_s, 0);
		assert_near(u.host_util, 0);
		assert_near(u.host.user_s + u.host.sys_s + u.host.irq_s +
				    u.host.softirq_s,
			    0);
		/* the same counters forwards do give a figure */
		rp_cpu_usage(&b, &b, 1024, &u);
		assert_true(u.has_host);
	}
}

/* Identical samples: nothing used. */
static void test_usage_zero(void **state)
{
	struct rp_cpu_sample a =
		host_sample(7.0, 3.0, TICKS(-1, 50, 0, 0, 40, 0, 0, 0, 0));
	struct rp_cpu_usage u;

	(void)state;
	rp_cpu_usage(&a, &a, 4096, &u);
	assert_near(u.user_s, 0);
	assert_near(u.sys_s, 0);
	assert_near(u.us_per_kib, 0);
	assert_near(u.cycles_per_kib, 0);
	assert_true(u.has_host);
	assert_near(u.host_busy_s, 0);
	assert_near(u.host_util, 0);
}

/*
 * Per CPU: CPU 2 busy half the time (irq and softirq included), CPU 5
 * offline (its line absent: zero counts in both), CPU 7 whose counter
 * went backwards, and a list whose fourth entry names another CPU in @b.
 */
static void test_usage_per_cpu(void **state)
{
	uint64_t h = tps();
	struct rp_cpu_sample a =
		host_sample(0, 0, TICKS(-1, 100, 0, 100, 1000, 0, 0, 0, 0));
	struct rp_cpu_sample b = host_sample(
		0, 0, TICKS(-1, 100 + h, 0, 100 + h, 1000 + 6 * h, 0, 0, 0, 0));
	struct rp_cpu_usage u;

	(void)state;
	a.n_cpus = b.n_cpus = 4;
	a.per_cpu[0] = TICKS(2, 10, 0, 10, 100, 0, 0, 0, 0);
	b.per_cpu[0] = TICKS(2, 10 + h, 0, 10 + h, 100 + 2 * h, 0, h, h, 0);
	a.per_cpu[1] = b.per_cpu[1] = TICKS(5, 0, 0, 0, 0, 0, 0, 0, 0);
	a.per_cpu[2] = TICKS(7, 90, 0, 0, 90, 0, 0, 0, 0);
	b.per_cpu[2] = TICKS(7, 80, 0, 0, 100, 0, 0, 0, 0);
	a.per_cpu[3] = TICKS(8, 0, 0, 0, 0, 0, 0, 0, 0);
	b.per_cpu[3] = TICKS(9, 5, 0, 0, 5, 0, 0, 0, 0);
	rp_cpu_usage(&a, &b, 1024, &u);
	assert_true(u.has_host);
	assert_near(u.host_util, 0.25);
	assert_int_equal(u.n_cpus, 4);
	assert_int_equal(u.per_cpu[0].cpu, 2);
	assert_near(u.per_cpu[0].user_s, 1.0);
	assert_near(u.per_cpu[0].sys_s, 1.0);
	assert_near(u.per_cpu[0].irq_s, 1.0);
	assert_near(u.per_cpu[0].softirq_s, 1.0);
	assert_near(u.per_cpu[0].busy_s, 4.0);
	assert_near(u.per_cpu[0].util, 4.0 / 6.0);
	assert_int_equal(u.per_cpu[1].cpu, 5);
	assert_near(u.per_cpu[1].busy_s, 0);
	assert_near(u.per_cpu[1].util, 0);
	assert_int_equal(u.per_cpu[2].cpu, 7);
	assert_near(u.per_cpu[2].user_s, 0);
	assert_near(u.per_cpu[2].util, 0);
	assert_near(u.per_cpu[3].util, 0);
	/* a list on one side only counts as far as both go */
	b.n_cpus = 1;
	rp_cpu_usage(&a, &b, 1024, &u);
	assert_int_equal(u.n_cpus, 1);
	/* and none when a sample has no host ticks */
	b.n_cpus = 4;
	b.host_ok = false;
	rp_cpu_usage(&a, &b, 1024, &u);
	assert_int_equal(u.n_cpus, 0);
	assert_false(u.has_host);
}

/* rp_cpu_usage fills everything but the threads, which run/ owns. */
static void test_usage_leaves_threads(void **state)
{
	struct rp_cpu_sample a = { .user_s = 1 }, b = { .user_s = 2 };
	struct rp_cpu_usage u;

	(void)state;
	memset(&u, 0xa5, sizeof(u));
	u.n_threads = 3;
	u.threads[0] = (struct rp_cpu_thread){ 4, 1.5, 0.5 };
	u.threads[2].user_s = 9;
	rp_cpu_usage(&a, &b, 2048, &u);
	assert_int_equal(u.n_threads, 3);
	assert_int_equal(u.threads[0].cpu, 4);
	assert_near(u.threads[0].user_s, 1.5);
	assert_near(u.threads[0].sys_s, 0.5);
	assert_near(u.threads[2].user_s, 9);
	assert_near(u.user_s, 1);
	assert_false(u.has_host);
	assert_int_equal(u.n_cpus, 0);
}

/* Cycles come from the platform's clock, named with its source. */
static void test_usage_cycles(void **state)
{
	struct rp_cpu_sample a = { .user_s = 1, .sys_s = 1 };
	struct rp_cpu_sample b = { .user_s = 1.5, .sys_s = 1.25 };
	const char *src = NULL;
	double hz = rp_os_cpu_hz(&src);
	struct rp_cpu_usage u;

	(void)state;
	rp_cpu_usage(&a, &b, 4096, &u);
	assert_near(u.hz, hz);
	assert_ptr_equal(u.hz_source, src);
	assert_near(u.cycles_per_kib, 0.75 * hz / 4);
	assert_near(u.cycles_per_kib,
		    rp_cpu_cycles_per_kib(0.5, 0.25, 4096, hz));
}

static void test_service_demand(void **state)
{
	(void)state;
	/* 1 s of CPU for 1 KiB: 1e6 us per KiB */
	assert_near(rp_cpu_service_demand(1.0, 0.0, 1024), 1e6);
	assert_near(rp_cpu_service_demand(0.0, 1.0, 1024), 1e6);
	/* user and system add up */
	assert_near(rp_cpu_service_demand(0.25, 0.25, 1024), 0.5e6);
	/* 0.5 s for 1 GiB = 2^20 KiB */
	assert_near(rp_cpu_service_demand(0.25, 0.25, 1ULL << 30),
		    0.5e6 / 1048576.0);
	/* a part of a KiB */
	assert_near(rp_cpu_service_demand(1e-6, 0, 512), 2.0);
	assert_near(rp_cpu_service_demand(3.0, 2.0, 0), 0);
	assert_near(rp_cpu_service_demand(0, 0, 1024), 0);
}

static void test_cycles_per_kib(void **state)
{
	(void)state;
	/* 1 s at 2 GHz for 1 KiB */
	assert_near(rp_cpu_cycles_per_kib(1.0, 0, 1024, 2e9), 2e9);
	assert_near(rp_cpu_cycles_per_kib(0.5, 0.5, 1024, 2e9), 2e9);
	/* 1 ms at 3 GHz over 1 MiB: 3e6 cycles / 1024 KiB */
	assert_near(rp_cpu_cycles_per_kib(0.0005, 0.0005, 1 << 20, 3e9),
		    3e6 / 1024);
	/* half a KiB */
	assert_near(rp_cpu_cycles_per_kib(1e-9, 0, 512, 1e9), 2.0);
	assert_near(rp_cpu_cycles_per_kib(1.0, 1.0, 0, 2e9), 0);
	assert_near(rp_cpu_cycles_per_kib(1.0, 1.0, 1024, 0), 0);
	assert_near(rp_cpu_cycles_per_kib(1.0, 1.0, 1024, -5), 0);
	assert_near(rp_cpu_cycles_per_kib(1.0, 1.0, 1024, NAN), 0);
}

/* --loopback: a side's time is its own threads', demand follows. */
static void test_usage_own_threads(void **state)
{
	struct rp_cpu_usage u = {
		.user_s = 9, .sys_s = 9, .hz = 1e9, .n_threads = 2
	};

	(void)state;
	u.threads[0] = (struct rp_cpu_thread){ .user_s = 0.25, .sys_s = 0.5 };
	u.threads[1] = (struct rp_cpu_thread){ .user_s = 0.25, .sys_s = 0 };
	rp_cpu_usage_own_threads(&u, 1 << 20);
	assert_near(u.user_s, 0.5);
	assert_near(u.sys_s, 0.5);
	assert_near(u.us_per_kib, 1e6 / 1024);
	assert_near(u.cycles_per_kib, 1e9 / 1024);
	assert_int_equal(u.n_threads, 2);
}

/* JSON */

/* @u through text and back, as a peer would see it. */
static void round_trip(const struct rp_cpu_usage *u, struct rp_cpu_usage *v)
{
	cJSON *o = cJSON_CreateObject(), *p;
	char *text;

	assert_non_null(o);
	assert_int_equal(rp_cpu_usage_to_json(u, o), 0);
	text = cJSON_PrintUnformatted(o);
	assert_non_null(text);
	p = cJSON_Parse(text);
	assert_non_null(p);
	rp_cpu_usage_from_json(p, v);
	cJSON_Delete(p);
	cJSON_free(text);
	cJSON_Delete(o);
}

static void assert_host_equal(const struct rp_cpu_host *a,
			      const struct rp_cpu_host *b)
{
	assert_int_equal(a->cpu, b->cpu);
	assert_near(a->user_s, b->user_s);
	assert_near(a->sys_s, b->sys_s);
	assert_near(a->irq_s, b->irq_s);
	assert_near(a->softirq_s, b->softirq_s);
	assert_near(a->busy_s, b->busy_s);
	assert_near(a->util, b->util);
}

static void fill_usage(struct rp_cpu_usage *u)
{
	unsigned int i;

	memset(u, 0, sizeof(*u));
	*u = (struct rp_cpu_usage){ .user_s = 1.25,
				    .sys_s = 0.5,
				    .us_per_kib = 0.125,
				    .cycles_per_kib = 375.5,
				    .hz = 3.0e9,
				    .hz_source = "cpufreq",
				    .host_busy_s = 4.5,
				    .host_util = 0.375,
				    .has_host = true,
				    .host = { -1, 2, 1, 0.25, 0.75, 4.5,
					      0.375 },
				    .n_cpus = 3,
				    .n_threads = 2 };
	for (i = 0; i < u->n_cpus; i++)
		u->per_cpu[i] =
			(struct rp_cpu_host){ (int)i * 2, 0.5 * i, 0.25, 0.125,
					      0.0625,	  1 + i,   0.5 };
	u->threads[0] = (struct rp_cpu_thread){ 3, 0.75, 0.125 };
	u->threads[1] = (struct rp_cpu_thread){ -1, 1.5, 0 };
}

static void test_json_round_trip(void **state)
{
	struct rp_cpu_usage u, v;
	unsigned int i;

	(void)state;
	fill_usage(&u);
	round_trip(&u, &v);
	assert_near(v.user_s, u.user_s);
	assert_near(v.sys_s, u.sys_s);
	assert_near(v.us_per_kib, u.us_per_kib);
	assert_near(v.cycles_per_kib, u.cycles_per_kib);
	assert_near(v.hz, u.hz);
	assert_string_equal(v.hz_source, "cpufreq");
	assert_near(v.host_busy_s, u.host_busy_s);
	assert_near(v.host_util, u.host_util);
	assert_true(v.has_host);
	assert_host_equal(&v.host, &u.host);
	assert_int_equal(v.n_cpus, 3);
	for (i = 0; i < 3; i++)
		assert_host_equal(&v.per_cpu[i], &u.per_cpu[i]);
	assert_int_equal(v.n_threads, 2);
	for (i = 0; i < 2; i++) {
		assert_int_equal(v.threads[i].cpu, u.threads[i].cpu);
		assert_near(v.threads[i].user_s, u.threads[i].user_s);
		assert_near(v.threads[i].sys_s, u.threads[i].sys_s);
	}
}

/* The field names DESIGN.md and the header promise. */
static void test_json_names(void **state)
{
	static const char *const top[] = {
		"user_s", "sys_s",     "us_per_kib",  "cycles_per_kib",
		"hz",	  "hz_source", "host_busy_s", "host_util",
		"host",	  "per_cpu",   "threads"
	};
	static const char *const host[] = { "user_s",	 "sys_s",  "irq_s",
					    "softirq_s", "busy_s", "util" };
	struct rp_cpu_usage u;
	cJSON *o = cJSON_CreateObject(), *h, *e;
	size_t i;

	(void)state;
	fill_usage(&u);
	assert_int_equal(rp_cpu_usage_to_json(&u, o), 0);
	for (i = 0; i < sizeof(top) / sizeof(top[0]); i++)
		assert_non_null(cJSON_GetObjectItemCaseSensitive(o, top[i]));
	h = cJSON_GetObjectItemCaseSensitive(o, "host");
	e = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(o, "per_cpu"),
			       1);
	for (i = 0; i < sizeof(host) / sizeof(host[0]); i++) {
		assert_true(cJSON_IsNumber(
			cJSON_GetObjectItemCaseSensitive(h, host[i])));
		assert_true(cJSON_IsNumber(
			cJSON_GetObjectItemCaseSensitive(e, host[i])));
	}
	assert_int_equal(cJSON_GetObjectItemCaseSensitive(e, "cpu")->valueint,
			 2);
	e = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(o, "threads"),
			       0);
	assert_int_equal(cJSON_GetObjectItemCaseSensitive(e, "cpu")->valueint,
			 3);
	assert_string_equal(
		cJSON_GetObjectItemCaseSensitive(o, "hz_source")->valuestring,
		"cpufreq");
	cJSON_Delete(o);
}

/* No host figure travels as "host": null and comes back as none. */
static void test_json_no_host(void **state)
{
	struct rp_cpu_usage u = { .user_s = 1, .hz_source = NULL }, v;
	cJSON *o = cJSON_CreateObject();

	(void)state;
	u.host.cpu = -1;
	assert_int_equal(rp_cpu_usage_to_json(&u, o), 0);
	assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(o, "host")));
	assert_string_equal(
		cJSON_GetObjectItemCaseSensitive(o, "hz_source")->valuestring,
		"none");
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(
				 o, "per_cpu")),
			 0);
	cJSON_Delete(o);
	round_trip(&u, &v);
	assert_false(v.has_host);
	assert_int_equal(v.host.cpu, -1);
	assert_string_equal(v.hz_source, "none");
	assert_near(v.user_s, 1);
}

/* @text parsed and read; it must parse. */
static void from_text(const char *text, struct rp_cpu_usage *u)
{
	cJSON *o = cJSON_Parse(text);

	assert_non_null(o);
	memset(u, 0x5a, sizeof(*u));
	rp_cpu_usage_from_json(o, u);
	cJSON_Delete(o);
}

static void assert_empty(const struct rp_cpu_usage *u)
{
	assert_near(u->user_s + u->sys_s + u->us_per_kib + u->cycles_per_kib +
			    u->hz + u->host_busy_s + u->host_util,
		    0);
	assert_string_equal(u->hz_source, "none");
	assert_false(u->has_host);
	assert_int_equal(u->host.cpu, -1);
	assert_int_equal(u->n_cpus, 0);
	assert_int_equal(u->n_threads, 0);
}

static void test_json_hostile_types(void **state)
{
	struct rp_cpu_usage u;

	(void)state;
	from_text("{\"user_s\":\"1.5\",\"sys_s\":true,\"us_per_kib\":[1],"
		  "\"cycles_per_kib\":{},\"hz\":null,\"hz_source\":7,"
		  "\"host_busy_s\":\"x\",\"host_util\":false,\"host\":[1,2],"
		  "\"per_cpu\":{\"cpu\":1},\"threads\":\"many\"}",
		  &u);
	assert_empty(&u);
	from_text("[1,2,3]", &u);
	assert_empty(&u);
	from_text("\"cpu\"", &u);
	assert_empty(&u);
	from_text("{}", &u);
	assert_empty(&u);
	memset(&u, 0x5a, sizeof(u));
	rp_cpu_usage_from_json(NULL, &u);
	assert_empty(&u);
	/* a clock source not among ours, or not a string */
	from_text("{\"hz_source\":\"tscx\"}", &u);
	assert_string_equal(u.hz_source, "none");
	from_text("{\"hz_source\":\"tsc\"}", &u);
	assert_string_equal(u.hz_source, "tsc");
	from_text("{\"hz_source\":\"cpuinfo\"}", &u);
	assert_string_equal(u.hz_source, "cpuinfo");
}

static void test_json_hostile_values(void **state)
{
	struct rp_cpu_usage u;

	(void)state;
	from_text("{\"user_s\":-1,\"sys_s\":-0.5,\"us_per_kib\":1e999,"
		  "\"cycles_per_kib\":-1e999,\"hz\":3e9,\"host_util\":1.5,"
		  "\"host_busy_s\":2,"
		  "\"host\":{\"user_s\":-3,\"util\":7,\"busy_s\":\"2\","
		  "\"irq_s\":0.5},"
		  "\"per_cpu\":[{\"cpu\":1.5,\"util\":-1},{\"cpu\":1e20},"
		  "{\"cpu\":-7},{\"cpu\":3,\"util\":0.5},5,\"x\",null],"
		  "\"threads\":[{\"cpu\":-1,\"user_s\":-2,\"sys_s\":1}]}",
		  &u);
	assert_near(u.user_s, 0);
	assert_near(u.sys_s, 0);
	assert_near(u.us_per_kib, 0); /* inf */
	assert_near(u.cycles_per_kib, 0);
	assert_near(u.hz, 3e9);
	assert_near(u.host_util, 0); /* above 1 */
	assert_near(u.host_busy_s, 2);
	assert_true(u.has_host);
	assert_near(u.host.user_s, 0);
	assert_near(u.host.util, 0);
	assert_near(u.host.busy_s, 0);
	assert_near(u.host.irq_s, 0.5);
	assert_int_equal(u.host.cpu, -1);
	/* the non-objects are skipped, bad CPU numbers read -1 */
	assert_int_equal(u.n_cpus, 4);
	assert_int_equal(u.per_cpu[0].cpu, -1);
	assert_near(u.per_cpu[0].util, 0);
	assert_int_equal(u.per_cpu[1].cpu, -1);
	assert_int_equal(u.per_cpu[2].cpu, -1);
	assert_int_equal(u.per_cpu[3].cpu, 3);
	assert_near(u.per_cpu[3].util, 0.5);
	assert_int_equal(u.n_threads, 1);
	assert_int_equal(u.threads[0].cpu, -1);
	assert_near(u.threads[0].user_s, 0);
	assert_near(u.threads[0].sys_s, 1);
}

/* 10000-element arrays are cut at RP_CPU_MAX_LIST. */
static void test_json_huge_arrays(void **state)
{
	cJSON *o = cJSON_CreateObject();
	cJSON *pc = cJSON_AddArrayToObject(o, "per_cpu");
	cJSON *th = cJSON_AddArrayToObject(o, "threads");
	struct rp_cpu_usage u;
	int i;

	(void)state;
	assert_non_null(pc);
	assert_non_null(th);
	for (i = 0; i < 10000; i++) {
		cJSON *e = cJSON_CreateObject();

		assert_non_null(e);
		cJSON_AddNumberToObject(e, "cpu", i);
		cJSON_AddNumberToObject(e, "util", 0.5);
		cJSON_AddItemToArray(pc, e);
		e = cJSON_CreateObject();
		assert_non_null(e);
		cJSON_AddNumberToObject(e, "cpu", i);
		cJSON_AddNumberToObject(e, "user_s", 1);
		cJSON_AddItemToArray(th, e);
	}
	rp_cpu_usage_from_json(o, &u);
	assert_int_equal(u.n_cpus, RP_CPU_MAX_LIST);
	assert_int_equal(u.n_threads, RP_CPU_MAX_LIST);
	assert_int_equal(u.per_cpu[RP_CPU_MAX_LIST - 1].cpu,
			 RP_CPU_MAX_LIST - 1);
	assert_near(u.per_cpu[RP_CPU_MAX_LIST - 1].util, 0.5);
	assert_near(u.threads[RP_CPU_MAX_LIST - 1].user_s, 1);
	cJSON_Delete(o);
	/* and a list too long on our side is cut the same way on output */
	memset(&u, 0, sizeof(u));
	u.n_cpus = u.n_threads = 10000;
	o = cJSON_CreateObject();
	assert_int_equal(rp_cpu_usage_to_json(&u, o), 0);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(
				 o, "per_cpu")),
			 RP_CPU_MAX_LIST);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(
				 o, "threads")),
			 RP_CPU_MAX_LIST);
	cJSON_Delete(o);
}

/* Sampling for real */

static double thread_cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Spend @s seconds of the calling thread's CPU time in user space. */
static void burn(double s)
{
	double end = thread_cpu_s() + s;
	volatile uint64_t x = 1;

	while (thread_cpu_s() < end) {
		int i;

		for (i = 0; i < 100000; i++)
			x = x * 6364136223846793005ULL + 1;
	}
}

static void assert_grew(bool thread_only)
{
	struct rp_cpu_sample a, b;
	struct rp_cpu_usage u;

	assert_int_equal(rp_cpu_sample(&a, thread_only, NULL, 0), 0);
	burn(0.05);
	assert_int_equal(rp_cpu_sample(&b, thread_only, NULL, 0), 0);
	rp_cpu_usage(&a, &b, 1 << 20, &u);
	assert_true(u.user_s + u.sys_s >= 0.03);
	assert_true(u.user_s >= 0.01);
	assert_true(u.sys_s >= 0);
	assert_true(u.user_s + u.sys_s < 10);
	assert_true(u.us_per_kib > 0);
}

static void test_sample_process(void **state)
{
	(void)state;
	assert_grew(false);
}

static void test_sample_thread(void **state)
{
	(void)state;
	assert_grew(true);
}

static void *burner(void *arg)
{
	burn(*(const double *)arg);
	return NULL;
}

/* Another thread's CPU time counts for the process, not for this thread. */
static void test_sample_thread_only(void **state)
{
	struct rp_cpu_sample pa, pb, ta, tb;
	struct rp_cpu_usage pu, tu;
	double s = 0.1;
	pthread_t t;

	(void)state;
	assert_int_equal(rp_cpu_sample(&pa, false, NULL, 0), 0);
	assert_int_equal(rp_cpu_sample(&ta, true, NULL, 0), 0);
	assert_int_equal(pthread_create(&t, NULL, burner, &s), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(rp_cpu_sample(&pb, false, NULL, 0), 0);
	assert_int_equal(rp_cpu_sample(&tb, true, NULL, 0), 0);
	rp_cpu_usage(&pa, &pb, 0, &pu);
	rp_cpu_usage(&ta, &tb, 0, &tu);
	assert_true(pu.user_s + pu.sys_s >= 0.06);
	assert_true(tu.user_s + tu.sys_s < 0.05);
}

/* The first line of /proc/stat, read independently. */
static void proc_stat_ticks(struct rp_cpu_ticks *t)
{
	unsigned long long v[8] = { 0 };
	FILE *f = fopen("/proc/stat", "r");

	assert_non_null(f);
	assert_int_equal(
		fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
		       &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]),
		8);
	fclose(f);
	*t = TICKS(-1, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]);
}

/* @x's counters lie between @lo's and @hi's. */
static void assert_between(const struct rp_cpu_ticks *lo,
			   const struct rp_cpu_ticks *x,
			   const struct rp_cpu_ticks *hi)
{
	assert_true(lo->user <= x->user && x->user <= hi->user);
	assert_true(lo->nice <= x->nice && x->nice <= hi->nice);
	assert_true(lo->sys <= x->sys && x->sys <= hi->sys);
	assert_true(lo->idle <= x->idle && x->idle <= hi->idle);
	assert_true(lo->iowait <= x->iowait && x->iowait <= hi->iowait);
	assert_true(lo->irq <= x->irq && x->irq <= hi->irq);
	assert_true(lo->softirq <= x->softirq && x->softirq <= hi->softirq);
	assert_true(lo->steal <= x->steal && x->steal <= hi->steal);
}

static void test_sample_host(void **state)
{
	struct rp_cpu_ticks t0, t1;
	struct rp_cpu_sample a, b;
	struct rp_cpu_usage u;

	(void)state;
	if (access("/proc/stat", R_OK)) {
		print_message("skipped: /proc/stat is not readable here\n");
		skip();
	}
	/* the sample lies between two readings of our own */
	proc_stat_ticks(&t0);
	assert_int_equal(rp_cpu_sample(&a, false, NULL, 0), 0);
	proc_stat_ticks(&t1);
	assert_true(a.host_ok);
	assert_int_equal(a.host.cpu, -1);
	assert_int_equal(a.n_cpus, 0);
	assert_between(&t0, &a.host, &t1);
	assert_true(a.host.user + a.host.sys > 0);
	burn(0.05);
	assert_int_equal(rp_cpu_sample(&b, false, NULL, 0), 0);
	rp_cpu_usage(&a, &b, 0, &u);
	assert_true(u.has_host);
	assert_true(u.host_util >= 0 && u.host_util <= 1);
	assert_true(u.host_busy_s >= 0 && u.host_busy_s < 3600);
	/* busy holds user and sys (and more), to rounding */
	assert_true(u.host.busy_s + 1e-9 >= u.host.user_s + u.host.sys_s);
}

/* The CPU this thread burns on shows up in its own entry; a CPU that does
 * not exist has its number and no figure. */
static void test_sample_per_cpu(void **state)
{
	static int many[1000];
	int cpus[3] = { -1, 1 << 20, -5 };
	struct rp_cpu_sample a, b;
	struct rp_cpu_usage u;
	cpu_set_t saved;

	(void)state;
	if (access("/proc/stat", R_OK)) {
		print_message("skipped: /proc/stat is not readable here\n");
		skip();
	}
	assert_int_equal(sched_getaffinity(0, sizeof(saved), &saved), 0);
	cpus[0] = sched_getcpu();
	assert_true(cpus[0] >= 0);
	assert_int_equal(rp_os_pin_self(cpus[0]), 0);
	assert_int_equal(rp_cpu_sample(&a, true, cpus, 3), 0);
	burn(0.1);
	assert_int_equal(rp_cpu_sample(&b, true, cpus, 3), 0);
	rp_cpu_usage(&a, &b, 1 << 20, &u);
	assert_int_equal(u.n_cpus, 3);
	assert_int_equal(u.per_cpu[0].cpu, cpus[0]);
	assert_int_equal(u.per_cpu[1].cpu, 1 << 20);
	assert_int_equal(u.per_cpu[2].cpu, -5);
	/* ticks are coarse (10 ms): most of 0.1 s busy on that CPU */
	assert_true(u.per_cpu[0].busy_s >= 0.03);
	assert_true(u.per_cpu[0].util > 0.2 && u.per_cpu[0].util <= 1);
	assert_near(u.per_cpu[1].busy_s + u.per_cpu[1].util, 0);
	assert_near(u.per_cpu[2].busy_s + u.per_cpu[2].util, 0);
	assert_true(u.host_util > 0 && u.host_util <= 1);
	assert_int_equal(sched_setaffinity(0, sizeof(saved), &saved), 0);
	/* more than the list holds is cut to it */
	assert_int_equal(rp_cpu_sample(&a, false, many, 1000), 0);
	assert_int_equal(a.n_cpus, RP_CPU_MAX_LIST);
	assert_int_equal(rp_cpu_sample(&a, false, NULL, 5), 0);
	assert_int_equal(a.n_cpus, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_usage_arithmetic),
		cmocka_unit_test(test_usage_own_threads),
		cmocka_unit_test(test_usage_no_bytes),
		cmocka_unit_test(test_usage_no_host),
		cmocka_unit_test(test_usage_one_host_sample),
		cmocka_unit_test(test_usage_zero),
		cmocka_unit_test(test_usage_split),
		cmocka_unit_test(test_usage_backwards),
		cmocka_unit_test(test_usage_per_cpu),
		cmocka_unit_test(test_usage_leaves_threads),
		cmocka_unit_test(test_usage_cycles),
		cmocka_unit_test(test_service_demand),
		cmocka_unit_test(test_cycles_per_kib),
		cmocka_unit_test(test_json_round_trip),
		cmocka_unit_test(test_json_names),
		cmocka_unit_test(test_json_no_host),
		cmocka_unit_test(test_json_hostile_types),
		cmocka_unit_test(test_json_hostile_values),
		cmocka_unit_test(test_json_huge_arrays),
		cmocka_unit_test(test_sample_process),
		cmocka_unit_test(test_sample_thread),
		cmocka_unit_test(test_sample_thread_only),
		cmocka_unit_test(test_sample_host),
		cmocka_unit_test(test_sample_per_cpu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
