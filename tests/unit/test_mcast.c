// SPDX-License-Identifier: MIT
/*
 * --mcast off the wire: the group's address (xport/mcast_addr.c), -a's
 * list of receivers (run/client_mcast.c), and the spec's rules for it
 * (core/spec.c), as a server applies them to a TEST.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "core/spec.h"
#include "run/run.h"
#include "xport/mcast.h"

static void test_group(void **state)
{
	(void)state;
	assert_true(rp_mcast_group_ok("239.1.2.3"));
	assert_true(rp_mcast_group_ok("224.0.0.1"));
	assert_true(rp_mcast_group_ok("ff0e::1"));
	assert_false(rp_mcast_group_ok("223.255.255.255"));
	assert_false(rp_mcast_group_ok("240.0.0.1"));
	assert_false(rp_mcast_group_ok("10.0.0.1"));
	assert_false(rp_mcast_group_ok("fe80::1"));
	assert_false(rp_mcast_group_ok("239.1.2"));
	assert_false(rp_mcast_group_ok("group"));
	assert_false(rp_mcast_group_ok(""));
}

static void test_receivers(void **state)
{
	char err[256], many[256] = "";
	int i;

	(void)state;
	assert_int_equal(rp_mcast_check_receivers("h1", err, sizeof(err)), 0);
	assert_int_equal(rp_mcast_check_receivers("10.0.0.2,10.0.0.3:18516,"
						  "[fd78::2]:9,fd78::3,[::1]",
						  err, sizeof(err)),
			 0);
	assert_int_equal(rp_mcast_check_receivers("a,,b", err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "1 to 16 receivers"));
	assert_int_equal(rp_mcast_check_receivers("a,", err, sizeof(err)),
			 0); /* a trailing comma ends the list */
	assert_int_equal(rp_mcast_check_receivers("h:0", err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(rp_mcast_check_receivers("h:65536", err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(rp_mcast_check_receivers("h:x", err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(rp_mcast_check_receivers("[::1", err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(rp_mcast_check_receivers("[::1]x", err, sizeof(err)),
			 -EINVAL);
	for (i = 0; i < 17; i++)
		strcat(many, i ? ",h" : "h");
	assert_int_equal(rp_mcast_check_receivers(many, err, sizeof(err)),
			 -EINVAL);
	many[strlen(many) - 2] = 0; /* 16 */
	assert_int_equal(rp_mcast_check_receivers(many, err, sizeof(err)), 0);
}

static void test_spec(void **state)
{
	struct rp_spec s;
	char err[160];

	(void)state;
	rp_spec_defaults(&s);
	snprintf(s.transport, sizeof(s.transport), "rdma");
	snprintf(s.mcast, sizeof(s.mcast), "239.1.2.3");
	s.qp = RP_QP_UD;
	s.op = RP_OP_SEND;
	s.size_bytes = 1024;
	assert_int_equal(rp_spec_validate(&s, err, sizeof(err)), 0);
	s.streams = 2;
	assert_int_not_equal(rp_spec_validate(&s, err, sizeof(err)), 0);
	s.streams = 1;
	s.qp = RP_QP_RC;
	assert_int_not_equal(rp_spec_validate(&s, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "mcast"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_group),
		cmocka_unit_test(test_receivers),
		cmocka_unit_test(test_spec),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
