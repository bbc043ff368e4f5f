// SPDX-License-Identifier: MIT
/*
 * Unit tests of core/cidr: parsing prefixes (IPv4, IPv6, the bounds of the
 * prefix length, host bits, garbage) and matching peers, IPv4-mapped IPv6
 * peers included.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <cmocka.h>

#include "core/cidr.h"

/* A peer address, IPv4 or IPv6 by its text. */
struct peer {
	struct sockaddr_storage ss;
};

static const struct sockaddr *peer(struct peer *p, const char *text)
{
	struct sockaddr_in *in = (struct sockaddr_in *)&p->ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&p->ss;

	memset(p, 0, sizeof(*p));
	if (inet_pton(AF_INET, text, &in->sin_addr) == 1) {
		in->sin_family = AF_INET;
		in->sin_port = htons(4242);
	} else {
		assert_int_equal(inet_pton(AF_INET6, text, &in6->sin6_addr), 1);
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(4242);
	}
	return (const struct sockaddr *)&p->ss;
}

static bool match(const char *prefix, const char *addr)
{
	struct rp_cidr c;
	struct peer p;

	assert_int_equal(rp_cidr_parse(prefix, &c), 0);
	return rp_cidr_match(&c, peer(&p, addr));
}

static void test_parse_v4(void **state)
{
	struct rp_cidr c;

	(void)state;
	assert_int_equal(rp_cidr_parse("10.0.0.0/8", &c), 0);
	assert_int_equal(c.family, AF_INET);
	assert_int_equal(c.prefix, 8);
	assert_int_equal(c.addr[0], 10);
	assert_int_equal(c.addr[1], 0);
	assert_int_equal(rp_cidr_parse("192.168.1.7", &c), 0);
	assert_int_equal(c.prefix, 32);
	assert_int_equal(c.addr[3], 7);
	assert_int_equal(rp_cidr_parse("192.168.1.7/32", &c), 0);
	assert_int_equal(c.prefix, 32);
	assert_int_equal(rp_cidr_parse("0.0.0.0/0", &c), 0);
	assert_int_equal(c.prefix, 0);
	assert_int_equal(rp_cidr_parse("172.16.0.0/12", &c), 0);
	assert_int_equal(rp_cidr_parse("10.128.0.0/9", &c), 0);
}

static void test_parse_v6(void **state)
{
	struct rp_cidr c;

	(void)state;
	assert_int_equal(rp_cidr_parse("fd00::/8", &c), 0);
	assert_int_equal(c.family, AF_INET6);
	assert_int_equal(c.prefix, 8);
	assert_int_equal(c.addr[0], 0xfd);
	assert_int_equal(rp_cidr_parse("::1", &c), 0);
	assert_int_equal(c.prefix, 128);
	assert_int_equal(c.addr[15], 1);
	assert_int_equal(rp_cidr_parse("::1/128", &c), 0);
	assert_int_equal(rp_cidr_parse("::/0", &c), 0);
	assert_int_equal(c.prefix, 0);
	assert_int_equal(rp_cidr_parse("2001:db8::/32", &c), 0);
	assert_int_equal(rp_cidr_parse("::ffff:10.0.0.0/104", &c), 0);
	assert_int_equal(c.family, AF_INET6);
}

static void test_parse_host_bits(void **state)
{
	struct rp_cidr c = { .family = 77 };

	(void)state;
	assert_int_equal(rp_cidr_parse("10.0.0.1/8", &c), -EINVAL);
	assert_int_equal(rp_cidr_parse("10.128.0.0/8", &c), -EINVAL);
	assert_int_equal(rp_cidr_parse("10.0.0.1/31", &c), -EINVAL);
	assert_int_equal(rp_cidr_parse("0.0.0.1/0", &c), -EINVAL);
	assert_int_equal(rp_cidr_parse("fd00::1/8", &c), -EINVAL);
	assert_int_equal(rp_cidr_parse("::1/127", &c), -EINVAL);
	assert_int_equal(rp_cidr_parse("fd80::/8", &c), -EINVAL);
	assert_int_equal(c.family, 77); /* untouched on failure */
}

static void test_parse_garbage(void **state)
{
	static const char *const bad[] = {
		"",
		"/8",
		"10.0.0.0/",
		"10.0.0.0/33",
		"10.0.0.0/-1",
		"10.0.0.0/+8",
		"10.0.0.0/ 8",
		"10.0.0.0/8 ",
		" 10.0.0.0/8",
		"10.0.0.0/8/8",
		"10.0.0.0/0x8",
		"10.0.0.0/1000",
		"10.0.0/8",
		"10.0.0.256",
		"256.0.0.0/8",
		"localhost",
		"::/129",
		"fe80::1%eth0",
		"fd00:::/8",
		"10.0.0.0,11.0.0.0",
		"1111:2222:3333:4444:5555:6666:7777:8888:9999/128",
		("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/"
		 "8"), /* one element: the parentheses tell clang so */
	};
	struct rp_cidr c;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (rp_cidr_parse(bad[i], &c) != -EINVAL)
			fail_msg("'%s' parsed", bad[i]);
	}
}

static void test_match_v4(void **state)
{
	(void)state;
	assert_true(match("10.0.0.0/8", "10.1.2.3"));
	assert_true(match("10.0.0.0/8", "10.255.255.255"));
	assert_false(match("10.0.0.0/8", "11.0.0.0"));
	assert_false(match("10.0.0.0/8", "9.255.255.255"));
	assert_true(match("10.128.0.0/9", "10.200.0.1"));
	assert_false(match("10.128.0.0/9", "10.127.0.1"));
	assert_true(match("192.168.1.7/32", "192.168.1.7"));
	assert_false(match("192.168.1.7/32", "192.168.1.6"));
	assert_true(match("192.168.1.7", "192.168.1.7"));
	assert_true(match("0.0.0.0/0", "1.2.3.4"));
	assert_true(match("127.0.0.0/8", "127.0.0.1"));
	/* an IPv4 prefix admits no real IPv6 peer */
	assert_false(match("0.0.0.0/0", "::1"));
	assert_false(match("0.0.0.0/0", "2001:db8::1"));
}

static void test_match_v6(void **state)
{
	(void)state;
	assert_true(match("fd00::/8", "fd12:3456::1"));
	assert_false(match("fd00::/8", "fc00::1"));
	assert_true(match("::1", "::1"));
	assert_true(match("::1/128", "::1"));
	assert_false(match("::1/128", "::2"));
	assert_true(match("2001:db8::/32", "2001:db8:ffff::1"));
	assert_false(match("2001:db8::/32", "2001:db9::1"));
	assert_true(match("2001:db8::/33", "2001:db8:7fff::1"));
	assert_false(match("2001:db8::/33", "2001:db8:8000::1"));
	assert_true(match("::/0", "2001:db8::1"));
}

/* What a dual-stack listener sees of an IPv4 client. */
static void test_match_mapped(void **state)
{
	(void)state;
	assert_true(match("10.0.0.0/8", "::ffff:10.1.2.3"));
	assert_false(match("10.0.0.0/8", "::ffff:11.1.2.3"));
	assert_true(match("127.0.0.1", "::ffff:127.0.0.1"));
	assert_true(match("0.0.0.0/0", "::ffff:1.2.3.4"));
	/* not mapped: ::10.1.2.3 (compatible) and 64:ff9b::/96 (NAT64) */
	assert_false(match("10.0.0.0/8", "::10.1.2.3"));
	assert_false(match("10.0.0.0/8", "64:ff9b::10.1.2.3"));
	/* an IPv6 prefix sees an IPv4 peer as its mapped address */
	assert_true(match("::ffff:10.0.0.0/104", "10.9.9.9"));
	assert_true(match("::ffff:10.0.0.0/104", "::ffff:10.9.9.9"));
	assert_false(match("::ffff:10.0.0.0/104", "11.9.9.9"));
	assert_true(match("::/0", "10.9.9.9"));
	assert_false(match("fd00::/8", "10.9.9.9"));
	assert_false(match("::1", "127.0.0.1"));
}

static void test_match_other_family(void **state)
{
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	struct rp_cidr c;

	(void)state;
	assert_int_equal(rp_cidr_parse("0.0.0.0/0", &c), 0);
	assert_false(rp_cidr_match(&c, (const struct sockaddr *)&un));
	assert_false(rp_cidr_match(&c, NULL));
	assert_int_equal(rp_cidr_parse("::/0", &c), 0);
	assert_false(rp_cidr_match(&c, (const struct sockaddr *)&un));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_v4),
		cmocka_unit_test(test_parse_v6),
		cmocka_unit_test(test_parse_host_bits),
		cmocka_unit_test(test_parse_garbage),
		cmocka_unit_test(test_match_v4),
		cmocka_unit_test(test_match_v6),
		cmocka_unit_test(test_match_mapped),
		cmocka_unit_test(test_match_other_family),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
