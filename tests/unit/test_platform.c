// SPDX-License-Identifier: MIT
/*
 * Unit tests of platform/: the listening socket and the connect with a
 * deadline that the control connection and the stream transports share
 * (a table of calls whose socket() always fails must not look like a
 * connection: the old control connect returned 0 and no socket then),
 * waiting on a descriptor under a deadline, and the random source of the
 * data token.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/clock.h"
#include "platform/net.h"
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
	err = rp_net_dial(&c, "127.0.0.1", 9, rp_deadline_ns(1000), &fd);
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
				     (uint16_t)port, rp_deadline_ns(2000),
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
				     (uint16_t)port, rp_deadline_ns(2000), &fd),
			 -ECONNREFUSED);
	assert_int_equal(rp_net_dial(&rp_sock_kernel, "no-such-host.invalid", 1,
				     rp_deadline_ns(2000), &fd),
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
