// SPDX-License-Identifier: MIT
/*
 * Unit tests of the rsocket transport's waits (rsocket_poll in
 * xport/sock/rsocket.c, the ops' wait_poll). rpoll() hands descriptors
 * that are not rsockets on to poll(2), and the librdmacm fault rsocket.c
 * works around needs no rsocket either: a wait that runs out, then one
 * that an event ends, then a wait that must run out again. With librdmacm
 * v44's rpoll() the third one never returns (the second left the library
 * "suspended" for every later caller). Each sequence runs in a child
 * under alarm(): a hang is a failure, not a stuck test. Needs no RDMA
 * device; skipped where the rsocket transport is not built.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "platform/clock.h"
#include "xport/xport.h"

#define HANG_S	 10 /* a child still waiting after this hung */
#define ROUNDS	 3
#define SHORT_MS 20
#define LONG_MS	 5000
#define WRITE_MS 30

static rp_poll_fn wait_fn;

struct writer {
	int fd;
	int after_ms;
};

static void *writer_main(void *arg)
{
	const struct writer *w = arg;
	struct timespec ts = { 0, (long)w->after_ms * 1000000L };
	char c = 'x';

	nanosleep(&ts, NULL);
	if (write(w->fd, &c, 1) != 1)
		return (void *)1;
	return NULL;
}

/* Nothing comes: 0, after @ms. A wait may end early when the thread's
 * timer was armed sooner, never here: every wait of the sequence re-arms
 * it (the long wait before left it later), so one that ends at once, a
 * spin for its caller, fails too. */
static int wait_empty(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	uint64_t t0 = rp_clock_ns(), took;
	int r = wait_fn(&p, 1, ms);

	took = rp_clock_ns() - t0;
	if (r != 0) {
		fprintf(stderr, "an empty wait of %d ms returned %d\n", ms, r);
		return -1;
	}
	if (took < (uint64_t)(ms - 1) * RP_NS_PER_MS || /* clocks' grain */
	    took > (uint64_t)(ms + 2000) * RP_NS_PER_MS) {
		fprintf(stderr, "an empty wait of %d ms took %.1f ms\n", ms,
			(double)took / RP_NS_PER_MS);
		return -1;
	}
	return 0;
}

/* A byte written @WRITE_MS into a long wait ends it with POLLIN. */
static int wait_byte(int rfd, int wfd)
{
	struct pollfd p = { .fd = rfd, .events = POLLIN };
	struct writer w = { wfd, WRITE_MS };
	void *wrote = NULL;
	pthread_t th;
	char c;
	int r;

	if (pthread_create(&th, NULL, writer_main, &w))
		return -1;
	r = wait_fn(&p, 1, LONG_MS);
	pthread_join(th, &wrote);
	if (r != 1 || !(p.revents & POLLIN) || wrote) {
		fprintf(stderr, "a wait a byte ends returned %d, revents %#x\n",
			r, (unsigned int)p.revents);
		return -1;
	}
	return read(rfd, &c, 1) == 1 ? 0 : -1;
}

static int child_main(void)
{
	int p[2], i;

	if (pipe(p))
		return 1;
	alarm(HANG_S);
	for (i = 0; i < ROUNDS; i++) {
		if (wait_empty(p[0], SHORT_MS) || wait_byte(p[0], p[1]))
			return 1;
	}
	return wait_empty(p[0], SHORT_MS) ? 1 : 0;
}

static int setup(void **state)
{
	const struct rp_xport_ops *x = rp_xport_find("rsocket");

	(void)state;
	wait_fn = x ? x->wait_poll : NULL;
	return 0;
}

/* Timeouts and events in turn, in a fresh process (librdmacm's polling
 * state is the process's): every wait returns, with what it should. */
static void test_timeouts_and_events(void **state)
{
	pid_t pid;
	int st;

	(void)state;
	if (!wait_fn)
		skip(); /* built without the rsocket transport */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(child_main());
	assert_int_equal(waitpid(pid, &st, 0), pid);
	if (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM)
		fail_msg("a wait hung for %d s (the rpoll() timeout fault)",
			 HANG_S);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* A timeout of 0 polls once; a wait over no descriptor at all still
 * keeps its timeout. */
static void test_zero_and_empty(void **state)
{
	struct pollfd p;
	int fds[2];
	uint64_t t0;

	(void)state;
	if (!wait_fn)
		skip();
	assert_int_equal(pipe(fds), 0);
	p = (struct pollfd){ .fd = fds[0], .events = POLLIN };
	assert_int_equal(wait_fn(&p, 1, 0), 0);
	assert_int_equal(write(fds[1], "y", 1), 1);
	assert_int_equal(wait_fn(&p, 1, 0), 1);
	assert_true(p.revents & POLLIN);
	t0 = rp_clock_ns();
	assert_int_equal(wait_fn(NULL, 0, SHORT_MS), 0);
	assert_true(rp_clock_ns() - t0 >= (SHORT_MS - 1) * RP_NS_PER_MS);
	assert_true(rp_clock_ns() - t0 < 2 * RP_NS_PER_SEC);
	close(fds[0]);
	close(fds[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timeouts_and_events),
		cmocka_unit_test(test_zero_and_empty),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
