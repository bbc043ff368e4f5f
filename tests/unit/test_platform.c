// SPDX-License-Identifier: MIT
/*
 * Unit tests of platform/: the listening socket and the connect with a
 * deadline that the control connection and the stream transports share
 * (a table of calls whose socket() always fails must not look like a
 * connection: the old control connect returned 0 and no socket then),
 * waiting on a descriptor under a deadline, the random source of the
 * data token; and the CPU side: /proc/stat read whole and per CPU, the CPU
 * clock (a plausible rate or an honest "none", the same from every
 * thread), pinning a thread and the count of CPUs, the NUMA node of a page.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "platform/clock.h"
#include "platform/cpu.h"
#include "platform/net.h"
#include "platform/os.h"
#include "platform/wait.h"

static int no_socket(int domain, int type, int protocol)
{
	(void)domain;
	(void)type;
	(void)protocol;
	errno = EMFILE;
	return -1;
}

static void test_dial_without_sockets(void **state)
{
	struct rp_sock_calls c = rp_sock_kernel;
	int fd = -42, err;

	(void)state;
	c.socket = no_socket;
	err = rp_net_dial(&c, "127.0.0.1", 9, 0, rp_deadline_ns(1000), &fd);
	assert_int_equal(err, -EMFILE);
	assert_int_equal(fd, -42);
}

static void test_listen_dial_accept(void **state)
{
	int lfd, cfd = -1, afd, port;

	(void)state;
	assert_int_equal(
		rp_net_listen(&rp_sock_kernel, "127.0.0.1", 0, 4, &lfd), 0);
	port = rp_net_local_port(&rp_sock_kernel, lfd);
	assert_true(port > 0 && port < 65536);
	assert_int_equal(rp_net_dial(&rp_sock_kernel, "127.0.0.1",
				     (uint16_t)port, 0, rp_deadline_ns(2000),
				     &cfd),
			 0);
	assert_int_equal(rp_wait_fd(NULL, lfd, POLLIN, rp_deadline_ns(2000)),
			 0);
	afd = accept(lfd, NULL, NULL);
	assert_true(afd >= 0);
	close(afd);
	close(cfd);
	close(lfd);
}

static void test_dial_refused_and_unresolvable(void **state)
{
	int lfd, fd = -1, port;

	(void)state;
	/* a port that was just free: nothing listens there now */
	assert_int_equal(
		rp_net_listen(&rp_sock_kernel, "127.0.0.1", 0, 1, &lfd), 0);
	port = rp_net_local_port(&rp_sock_kernel, lfd);
	close(lfd);
	assert_int_equal(rp_net_dial(&rp_sock_kernel, "127.0.0.1",
				     (uint16_t)port, 0, rp_deadline_ns(2000),
				     &fd),
			 -ECONNREFUSED);
	assert_int_equal(rp_net_dial(&rp_sock_kernel, "no-such-host.invalid", 1,
				     0, rp_deadline_ns(2000), &fd),
			 -EHOSTUNREACH);
	assert_int_equal(fd, -1);
}

static void test_listen_bad_address(void **state)
{
	int fd = -1;

	(void)state;
	assert_int_equal(rp_net_listen(&rp_sock_kernel, "no-such-host.invalid",
				       0, 1, &fd),
			 -EADDRNOTAVAIL);
	/* an address of no interface of this host */
	assert_true(rp_net_listen(&rp_sock_kernel, "192.0.2.1", 0, 1, &fd) < 0);
}

static void test_wait_timeout_and_ready(void **state)
{
	uint64_t t0 = rp_clock_ns();
	int p[2];

	(void)state;
	assert_int_equal(pipe(p), 0);
	assert_int_equal(rp_wait_fd(NULL, p[0], POLLIN, rp_deadline_ns(50)),
			 -ETIMEDOUT);
	assert_true(rp_clock_ns() - t0 >= 50 * RP_NS_PER_MS);
	assert_int_equal(write(p[1], "x", 1), 1);
	assert_int_equal(rp_wait_fd(NULL, p[0], POLLIN, rp_deadline_ns(50)), 0);
	/* a deadline already past does not wait at all */
	assert_int_equal(rp_wait_fd(NULL, p[0], POLLIN, rp_clock_ns() - 1),
			 -ETIMEDOUT);
	close(p[0]);
	close(p[1]);
	assert_int_equal(rp_wait_fd(NULL, p[0], POLLIN, rp_deadline_ns(50)),
			 -EBADF);
}

static void test_ms_left_rounds_up(void **state)
{
	uint64_t now = rp_clock_ns();

	(void)state;
	assert_int_equal(rp_ms_left(RP_NO_DEADLINE), -1);
	assert_int_equal(rp_ms_left(now), 0);
	assert_int_equal(rp_ms_left(now - RP_NS_PER_MS), 0);
	/* 1 ns ahead is a whole millisecond: poll must not wake early */
	assert_true(rp_ms_left(rp_clock_ns() + 1000 * RP_NS_PER_MS) >= 999);
	assert_int_equal(rp_ms_left(rp_clock_ns() + 2 * RP_NS_PER_MS - 1000),
			 2);
	assert_true(rp_deadline_ns(-1) == RP_NO_DEADLINE);
}

static void test_random_bytes(void **state)
{
	uint8_t a[32] = { 0 }, b[32] = { 0 }, zero[32] = { 0 };

	(void)state;
	assert_int_equal(rp_random_bytes(a, sizeof(a)), 0);
	assert_int_equal(rp_random_bytes(b, sizeof(b)), 0);
	assert_memory_not_equal(a, zero, sizeof(a));
	assert_memory_not_equal(a, b, sizeof(a));
	assert_int_equal(rp_random_bytes(a, 0), 0);
}

/* CPU */

static uint64_t ticks_sum(const struct rp_cpu_ticks *t)
{
	return t->user + t->nice + t->sys + t->idle + t->iowait + t->irq +
	       t->softirq + t->steal;
}

static void test_stat_ticks(void **state)
{
	int cpus[4] = { 0, -3, 1 << 20, 0 };
	struct rp_cpu_ticks all, all2, per[4];
	uint64_t busy, total;

	(void)state;
	if (access("/proc/stat", R_OK)) {
		print_message("skipped: /proc/stat is not readable here\n");
		skip();
	}
	cpus[0] = cpus[3] = sched_getcpu();
	assert_int_equal(rp_os_stat_ticks(&all, cpus, 4, per), 0);
	assert_int_equal(all.cpu, -1);
	assert_true(ticks_sum(&all) > 0);
	/* our CPU is online: its line was read, twice as asked */
	assert_int_equal(per[0].cpu, cpus[0]);
	assert_true(ticks_sum(&per[0]) > 0);
	assert_true(ticks_sum(&per[0]) <= ticks_sum(&all));
	assert_memory_equal(&per[0], &per[3], sizeof(per[0]));
	/* absent CPUs: their number, no counts */
	assert_int_equal(per[1].cpu, -3);
	assert_int_equal(ticks_sum(&per[1]), 0);
	assert_int_equal(per[2].cpu, 1 << 20);
	assert_int_equal(ticks_sum(&per[2]), 0);
	/* counters only go forwards; rp_os_host_ticks reads the same line */
	assert_int_equal(rp_os_host_ticks(&busy, &total), 0);
	assert_int_equal(rp_os_stat_ticks(&all2, NULL, 0, NULL), 0);
	assert_true(ticks_sum(&all) <= total && total <= ticks_sum(&all2));
	assert_true(busy > 0 && busy <= total);
	assert_true(all.user <= all2.user && all.sys <= all2.sys);
	assert_true(all.idle <= all2.idle && all.irq <= all2.irq);
	assert_true(rp_os_ticks_per_s() > 0);
}

static bool known_source(const char *s)
{
	return !strcmp(s, "tsc") || !strcmp(s, "cpuinfo") ||
	       !strcmp(s, "cpufreq");
}

static void *hz_thread(void *arg)
{
	const char *src = NULL;

	*(double *)arg = rp_os_cpu_hz(&src);
	return (void *)src;
}

/* A rate above 100 MHz with where it came from, or 0 and "none"; the
 * first call from several threads at once still measures once. */
static void test_cpu_hz(void **state)
{
	double hz[4], again;
	const char *src[4], *src2 = NULL;
	pthread_t t[4];
	int i;

	(void)state;
	for (i = 0; i < 4; i++)
		assert_int_equal(pthread_create(&t[i], NULL, hz_thread, &hz[i]),
				 0);
	for (i = 0; i < 4; i++) {
		void *ret;

		assert_int_equal(pthread_join(t[i], &ret), 0);
		src[i] = ret;
	}
	again = rp_os_cpu_hz(&src2);
	print_message("cpu clock: %.6g Hz (%s)\n", again, src2);
	if (again == 0) {
		assert_string_equal(src2, "none");
	} else {
		assert_true(again > 1e8 && again < 1e11);
		assert_true(known_source(src2));
	}
	for (i = 0; i < 4; i++) {
		assert_true(hz[i] == again);
		assert_ptr_equal(src[i], src2);
	}
	assert_true(rp_os_cpu_hz(NULL) == again);
}

/* The highest CPU of @set, or -1. */
static int last_cpu(const cpu_set_t *set)
{
	int cpu;

	for (cpu = CPU_SETSIZE - 1; cpu >= 0; cpu--)
		if (CPU_ISSET(cpu, set))
			return cpu;
	return -1;
}

/* Pinned to one CPU of our set, the thread runs there and nowhere else;
 * the old set restored, it may run everywhere again. */
static void test_pin_self(void **state)
{
	cpu_set_t saved, now;
	int cpu, count = rp_os_cpu_count();

	(void)state;
	assert_int_equal(
		pthread_getaffinity_np(pthread_self(), sizeof(saved), &saved),
		0);
	assert_int_equal(count, CPU_COUNT(&saved));
	cpu = last_cpu(&saved);
	assert_true(cpu >= 0);
	assert_int_equal(rp_os_pin_self(cpu), 0);
	assert_int_equal(
		pthread_getaffinity_np(pthread_self(), sizeof(now), &now), 0);
	assert_int_equal(CPU_COUNT(&now), 1);
	assert_true(CPU_ISSET(cpu, &now));
	assert_int_equal(sched_getcpu(), cpu);
	assert_int_equal(
		pthread_setaffinity_np(pthread_self(), sizeof(saved), &saved),
		0);
	assert_int_equal(
		pthread_getaffinity_np(pthread_self(), sizeof(now), &now), 0);
	assert_true(CPU_EQUAL(&now, &saved));
	/* out of range: nothing changes */
	assert_int_equal(rp_os_pin_self(-1), -EINVAL);
	assert_int_equal(rp_os_pin_self(1 << 20), -EINVAL);
	assert_int_equal(rp_os_pin_self(60000), -EINVAL);
	assert_int_equal(
		pthread_getaffinity_np(pthread_self(), sizeof(now), &now), 0);
	assert_true(CPU_EQUAL(&now, &saved));
}

/* Pins itself to the CPU *@arg names, then counts into it. */
static void *count_thread(void *arg)
{
	int *cpu_count = arg;

	if (rp_os_pin_self(*cpu_count))
		*cpu_count = -1;
	else
		*cpu_count = rp_os_cpu_count();
	return NULL;
}

/* The count is the process's, not the asking thread's: a pinned thread
 * still sees every CPU the process may use. */
static void test_cpu_count(void **state)
{
	cpu_set_t set;
	pthread_t t;
	int n = rp_os_cpu_count(), arg;

	(void)state;
	assert_true(n >= 1);
	assert_true(n <= sysconf(_SC_NPROCESSORS_CONF));
	assert_int_equal(sched_getaffinity(0, sizeof(set), &set), 0);
	assert_int_equal(n, CPU_COUNT(&set));
	arg = last_cpu(&set);
	assert_int_equal(pthread_create(&t, NULL, count_thread, &arg), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(arg, n);
}

static void test_mem_node(void **state)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p = malloc((size_t)page * 4);
	int node;

	(void)state;
	assert_non_null(p);
	memset(p, 1, (size_t)page * 4);
	node = rp_os_mem_node(p + page);
	print_message("page at %p on node %d\n", (void *)(p + page), node);
	if (node == -EPERM) {
		/* a container's seccomp filter may forbid get_mempolicy */
		print_message("get_mempolicy not permitted here\n");
	} else {
		assert_true(node >= 0 || node == -ENOSYS);
		assert_true(node < 1 << 16);
	}
	free(p);
	/* no page there: an error, never a node */
	assert_true(rp_os_mem_node(NULL) < 0);
}

struct flag_waiter {
	atomic_int flag;
	atomic_int done;
};

static void *flag_waiter_main(void *arg)
{
	struct flag_waiter *w = arg;

	while (!atomic_load(&w->flag))
		rp_os_flag_wait(&w->flag, 10000);
	atomic_store(&w->done, 1);
	return NULL;
}

/* A set flag returns at once; a waiter wakes when the flag is set and
 * woken (on Linux long before its 10 s: the futex), and a wait on a
 * clear flag with no waker ends by its timeout. */
static void test_flag_wait(void **state)
{
	struct flag_waiter w = { 0 };
	uint64_t t0 = rp_clock_ns();
	pthread_t th;

	(void)state;
	rp_os_flag_wait(&w.flag, 50);
	assert_true(rp_clock_ns() - t0 < 5 * RP_NS_PER_SEC);
	atomic_store(&w.flag, 1);
	t0 = rp_clock_ns();
	rp_os_flag_wait(&w.flag, 10000);
	assert_true(rp_clock_ns() - t0 < RP_NS_PER_SEC);
	atomic_store(&w.flag, 0);
	assert_int_equal(pthread_create(&th, NULL, flag_waiter_main, &w), 0);
	usleep(20000);
	t0 = rp_clock_ns();
	atomic_store(&w.flag, 1);
	rp_os_flag_wake(&w.flag);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(atomic_load(&w.done), 1);
	assert_true(rp_clock_ns() - t0 < 5 * RP_NS_PER_SEC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dial_without_sockets),
		cmocka_unit_test(test_listen_dial_accept),
		cmocka_unit_test(test_dial_refused_and_unresolvable),
		cmocka_unit_test(test_listen_bad_address),
		cmocka_unit_test(test_wait_timeout_and_ready),
		cmocka_unit_test(test_ms_left_rounds_up),
		cmocka_unit_test(test_random_bytes),
		cmocka_unit_test(test_stat_ticks),
		cmocka_unit_test(test_cpu_hz),
		cmocka_unit_test(test_pin_self),
		cmocka_unit_test(test_cpu_count),
		cmocka_unit_test(test_mem_node),
		cmocka_unit_test(test_flag_wait),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
