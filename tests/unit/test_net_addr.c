// SPDX-License-Identifier: MIT
/*
 * Unit tests of platform/net.c's addresses: the brackets of an IPv6
 * literal (client -a, server -a, --loopback -a all go through
 * rp_net_resolve), the reason a name that does not resolve gives ("cannot
 * resolve HOST: ...", never "No route to host"), a listener on every
 * address taking IPv4 and IPv6 clients on one socket, and the numeric
 * address of a socket's ends, an IPv4 client of a dual-stack socket shown
 * as plain IPv4 (what the data listener binds and the client dials).
 */
#include <errno.h>
#include <netdb.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "platform/clock.h"
#include "platform/net.h"
#include "platform/wait.h"

static void parse_ok(const char *in, const char *want)
{
	char out[RP_NET_ADDR_LEN];

	assert_int_equal(rp_net_host_parse(in, out, sizeof(out)), 0);
	assert_string_equal(out, want);
}

static void test_brackets_dropped(void **state)
{
	(void)state;
	parse_ok("[::1]", "::1");
	parse_ok("[fe80::1%eth0]", "fe80::1%eth0");
	parse_ok("[127.0.0.1]", "127.0.0.1");
	parse_ok("[localhost]", "localhost");
	/* without brackets: as is */
	parse_ok("::1", "::1");
	parse_ok("10.0.0.2", "10.0.0.2");
	parse_ok("host.example", "host.example");
	parse_ok("a]", "a]");
}

static void test_brackets_malformed(void **state)
{
	char out[RP_NET_ADDR_LEN];

	(void)state;
	assert_int_equal(rp_net_host_parse("", out, sizeof(out)), -EINVAL);
	assert_int_equal(rp_net_host_parse("[]", out, sizeof(out)), -EINVAL);
	assert_int_equal(rp_net_host_parse("[::1", out, sizeof(out)), -EINVAL);
	assert_int_equal(rp_net_host_parse("[", out, sizeof(out)), -EINVAL);
	/* a port after the brackets belongs to -p */
	assert_int_equal(rp_net_host_parse("[::1]:18520", out, sizeof(out)),
			 -EINVAL);
	assert_int_equal(rp_net_host_parse("[::1]]", out, sizeof(out)),
			 -EINVAL);
}

static void test_parse_too_long(void **state)
{
	char out[4];

	(void)state;
	assert_int_equal(rp_net_host_parse("[::1]", out, sizeof(out)), 0);
	assert_string_equal(out, "::1");
	assert_int_equal(rp_net_host_parse("[::12]", out, sizeof(out)),
			 -ENAMETOOLONG);
	assert_int_equal(rp_net_host_parse("abcd", out, sizeof(out)),
			 -ENAMETOOLONG);
}

static void test_resolve_bracketed_v6(void **state)
{
	struct rp_err why = { "" };
	struct addrinfo *res = NULL;

	(void)state;
	assert_int_equal(rp_net_resolve("[::1]", 80, false, &res, &why), 0);
	assert_non_null(res);
	assert_int_equal(res->ai_family, AF_INET6);
	freeaddrinfo(res);
	assert_false(rp_err_set(&why));
}

static void test_resolve_failure_says_so(void **state)
{
	struct rp_err why = { "" };
	struct addrinfo *res = NULL;
	int err;

	(void)state;
	err = rp_net_resolve("no-such-host.invalid", 1, false, &res, &why);
	assert_true(err < 0);
	assert_int_not_equal(err, -EHOSTUNREACH);
	assert_null(res);
	assert_non_null(
		strstr(why.msg, "cannot resolve no-such-host.invalid: "));
	assert_null(strstr(why.msg, "No route"));

	rp_err_clear(&why);
	err = rp_net_resolve("[::1]:80", 1, true, &res, &why);
	assert_int_equal(err, -EINVAL);
	assert_non_null(strstr(why.msg, "cannot resolve [::1]:80: "));
}

/* Connect to @host:@port, take the connection from @lfd; the accepted
 * socket's own address and its peer's into @local and @peer. */
static void dial_and_see(int lfd, const char *host, int port, char *local,
			 char *peer)
{
	int cfd = -1, afd;

	assert_int_equal(rp_net_dial(&rp_sock_kernel, host, (uint16_t)port, 0,
				     rp_deadline_ns(2000), &cfd),
			 0);
	assert_int_equal(rp_wait_fd(NULL, lfd, POLLIN, rp_deadline_ns(2000)),
			 0);
	afd = accept(lfd, NULL, NULL);
	assert_true(afd >= 0);
	assert_int_equal(rp_net_sock_addr(afd, false, local, RP_NET_ADDR_LEN),
			 0);
	assert_int_equal(rp_net_sock_addr(afd, true, peer, RP_NET_ADDR_LEN), 0);
	close(afd);
	close(cfd);
}

/* Whether this host has ::1 at all (a container may have no IPv6). */
static bool have_v6_loopback(void)
{
	int fd;

	if (rp_net_listen(&rp_sock_kernel, "::1", 0, 1, &fd))
		return false;
	close(fd);
	return true;
}

static void test_any_takes_both_families(void **state)
{
	char local[RP_NET_ADDR_LEN], peer[RP_NET_ADDR_LEN];
	int lfd, port;

	(void)state;
	assert_int_equal(rp_net_listen(&rp_sock_kernel, NULL, 0, 4, &lfd), 0);
	port = rp_net_local_port(&rp_sock_kernel, lfd);
	assert_true(port > 0);
	/* IPv4 through a dual-stack socket: plain IPv4, not ::ffff:... */
	dial_and_see(lfd, "127.0.0.1", port, local, peer);
	assert_string_equal(local, "127.0.0.1");
	assert_string_equal(peer, "127.0.0.1");
	if (!have_v6_loopback()) {
		close(lfd);
		print_message("skipped the IPv6 half: no ::1 on this host\n");
		return;
	}
	dial_and_see(lfd, "[::1]", port, local, peer);
	assert_string_equal(local, "::1");
	assert_string_equal(peer, "::1");
	close(lfd);
}

static void test_listen_bracketed(void **state)
{
	char local[RP_NET_ADDR_LEN], peer[RP_NET_ADDR_LEN];
	int lfd, port;

	(void)state;
	if (!have_v6_loopback()) {
		print_message("skipped: no ::1 on this host\n");
		skip();
	}
	assert_int_equal(rp_net_listen(&rp_sock_kernel, "[::1]", 0, 4, &lfd),
			 0);
	port = rp_net_local_port(&rp_sock_kernel, lfd);
	dial_and_see(lfd, "::1", port, local, peer);
	assert_string_equal(local, "::1");
	close(lfd);
}

static void test_sock_addr_bad_fd(void **state)
{
	char buf[RP_NET_ADDR_LEN];

	(void)state;
	assert_int_equal(rp_net_sock_addr(-1, false, buf, sizeof(buf)), -EBADF);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_brackets_dropped),
		cmocka_unit_test(test_brackets_malformed),
		cmocka_unit_test(test_parse_too_long),
		cmocka_unit_test(test_resolve_bracketed_v6),
		cmocka_unit_test(test_resolve_failure_says_so),
		cmocka_unit_test(test_any_takes_both_families),
		cmocka_unit_test(test_listen_bracketed),
		cmocka_unit_test(test_sock_addr_bad_fd),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
