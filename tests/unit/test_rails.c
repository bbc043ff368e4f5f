// SPDX-License-Identifier: MIT
/*
 * xport/rails.c: --rails' syntax, rails resolved from a sysfs tree of
 * fake devices (RP_SYSFS_ROOT) whose interface is this host's "lo" (the
 * addresses are the real getifaddrs'), what a side picks for a test, and
 * the SETUP reply's rail addresses checked as a client reads them.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <cmocka.h>

#include "xport/rails.h"

static char err[256];

static void put(const char *dir, const char *rel, const char *text)
{
	char p[1024], cmd[1200];
	FILE *f;

	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s/%s')\"", dir, rel);
	assert_int_equal(system(cmd), 0);
	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* Device @dev, port 1 in @state, on @layer, over interface lo. */
static void device(const char *dir, const char *dev, const char *state,
		   const char *layer, const char *numa)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "sys/class/infiniband/%s/ports/1/state",
		 dev);
	put(dir, rel, state);
	snprintf(rel, sizeof(rel), "sys/class/infiniband/%s/ports/1/link_layer",
		 dev);
	put(dir, rel, layer);
	snprintf(rel, sizeof(rel),
		 "sys/class/infiniband/%s/ports/1/gid_attrs/ndevs/0", dev);
	put(dir, rel, "lo\n");
	if (numa) {
		snprintf(rel, sizeof(rel),
			 "sys/class/infiniband/%s/device/numa_node", dev);
		put(dir, rel, numa);
	}
}

static void cleanup(const char *dir)
{
	char cmd[300];

	unsetenv("RP_SYSFS_ROOT");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

static void refused(const char *arg, const char *words)
{
	err[0] = 0;
	assert_int_equal(rp_rails_check(arg, err, sizeof(err)), -EINVAL);
	if (!strstr(err, words))
		fail_msg("--rails %s: %s (want %s)", arg, err, words);
}

static void test_check(void **state)
{
	(void)state;
	assert_int_equal(rp_rails_check("auto", err, sizeof(err)), 0);
	assert_int_equal(rp_rails_check("mlx5_0", err, sizeof(err)), 0);
	assert_int_equal(rp_rails_check("a,b,c,d,e,f,g,h", err, sizeof(err)),
			 0);
	refused("", "'auto' or devices");
	refused("a,", "'auto' or devices");
	refused("a,,b", "not an empty one");
	refused(",a", "not an empty one");
	refused("a,auto", "not auto in a list");
	refused("a,b,a", "a is named twice");
	refused("a,b,c,d,e,f,g,h,i", "at most 8 rails");
	refused("a,0123456789012345678901234567890123456789012345678901234567"
		"8901234",
		"1 to 63 characters");
}

static void resolve_fails(const char *arg, bool rdma, const char *words)
{
	struct rp_rails rs;

	err[0] = 0;
	assert_int_not_equal(
		rp_rails_resolve(arg, rdma, false, &rs, err, sizeof(err)), 0);
	assert_int_equal(rs.n, 0);
	if (!strstr(err, words))
		fail_msg("--rails %s: %s (want %s)", arg, err, words);
}

static void test_resolve(void **state)
{
	char dir[] = "/tmp/rp-rails-XXXXXX";
	struct rp_rails rs;

	(void)state;
	assert_non_null(mkdtemp(dir));
	device(dir, "fake0", "4: ACTIVE\n", "Ethernet\n", "1\n");
	device(dir, "fake1", "1: DOWN\n", "Ethernet\n", NULL);
	device(dir, "fake2", "4: ACTIVE\n", "InfiniBand\n", NULL);
	device(dir, "fake3", "4: ACTIVE\n", "Ethernet\n", "garbage");
	setenv("RP_SYSFS_ROOT", dir, 1);

	assert_int_equal(
		rp_rails_resolve("fake0", true, false, &rs, err, sizeof(err)),
		0);
	assert_int_equal(rs.n, 1);
	assert_string_equal(rs.rail[0].name, "fake0");
	assert_string_equal(rs.rail[0].device, "fake0");
	assert_string_equal(rs.rail[0].netdev, "lo");
	assert_string_equal(rs.rail[0].link_layer, "Ethernet");
	assert_string_equal(rs.rail[0].addr4, "127.0.0.1");
	assert_string_equal(rp_rail_addr(&rs.rail[0], AF_INET), "127.0.0.1");
	assert_int_equal(rs.rail[0].numa, 1);

	/* a plain interface, for the socket transports alone */
	assert_int_equal(
		rp_rails_resolve("lo", false, false, &rs, err, sizeof(err)), 0);
	assert_int_equal(rs.n, 1);
	assert_string_equal(rs.rail[0].device, "");
	assert_string_equal(rs.rail[0].netdev, "lo");
	assert_int_equal(rs.rail[0].numa, -1);
	resolve_fails("lo", true, "lo is not an RDMA device");

	resolve_fails("fake1", true, "fake1 has no active port");
	resolve_fails("fake9", false,
		      "no RDMA device or network interface "
		      "fake9");
	resolve_fails("fake0,fake2", true,
		      "fake0 is Ethernet but fake2 is InfiniBand");
	resolve_fails("fake0,fake3", true,
		      "fake0 and fake3 are one rail "
		      "(both on lo)");
	resolve_fails("fake0,lo", false, "one rail");
	/* auto: every device with an active port (fake1 is down), by name,
	 * here refused as a whole for mixing link layers */
	resolve_fails("auto", true, "rails of one link layer");
	cleanup(dir);
}

static void test_auto(void **state)
{
	char dir[] = "/tmp/rp-rails-XXXXXX";
	struct rp_rails rs;

	(void)state;
	assert_non_null(mkdtemp(dir));
	device(dir, "fake1", "1: DOWN\n", "Ethernet\n", NULL);
	device(dir, "fake0", "4: ACTIVE\n", "Ethernet\n", "0\n");
	setenv("RP_SYSFS_ROOT", dir, 1);
	assert_int_equal(
		rp_rails_resolve("auto", true, true, &rs, err, sizeof(err)), 0);
	assert_int_equal(rs.n, 1);
	assert_string_equal(rs.rail[0].name, "fake0");
	cleanup(dir);

	memcpy(dir, "/tmp/rp-rails-XXXXXX", sizeof(dir)); /* mkdtemp's again */
	assert_non_null(mkdtemp(dir));
	device(dir, "fake1", "1: DOWN\n", "Ethernet\n", NULL);
	setenv("RP_SYSFS_ROOT", dir, 1);
	resolve_fails("auto", true, "no RDMA device here has an active port");
	cleanup(dir);
	memcpy(dir, "/tmp/rp-rails-XXXXXX", sizeof(dir));
	assert_non_null(mkdtemp(dir));
	setenv("RP_SYSFS_ROOT", dir, 1);
	resolve_fails("auto", false, "(there is no RDMA device)");
	cleanup(dir);
}

static void test_pick(void **state)
{
	struct rp_rails rs = { .n = 2 };

	(void)state;
	snprintf(rs.rail[0].name, sizeof(rs.rail[0].name), "r0");
	snprintf(rs.rail[0].addr4, sizeof(rs.rail[0].addr4), "10.0.0.1");
	snprintf(rs.rail[1].name, sizeof(rs.rail[1].name), "r1");
	snprintf(rs.rail[1].netdev, sizeof(rs.rail[1].netdev), "eth1");
	snprintf(rs.rail[1].addr6, sizeof(rs.rail[1].addr6), "fd00::1");
	assert_int_equal(
		rp_rails_pick(&rs, 3, AF_INET, "server", err, sizeof(err)),
		-EOPNOTSUPP);
	assert_string_equal(err, "the server has 2 rails (--rails), the test "
				 "asks for 3");
	assert_int_equal(
		rp_rails_pick(&rs, 2, AF_INET, "client", err, sizeof(err)),
		-EOPNOTSUPP);
	assert_non_null(strstr(err, "rail r1 (eth1) has no IPv4 address"));
	assert_int_equal(
		rp_rails_pick(&rs, 1, AF_INET, "client", err, sizeof(err)), 0);
	assert_int_equal(rs.n, 1);
}

/* What the client takes from a SETUP reply's rails: numeric addresses of
 * the test's family, one a rail, nothing else. */
static void test_addresses(void **state)
{
	char out[RP_SPEC_MAX_RAILS][RP_NET_ADDR_LEN];
	struct rp_rails rs = { .n = 2 };
	cJSON *a;

	(void)state;
	snprintf(rs.rail[0].name, sizeof(rs.rail[0].name), "rxe0");
	snprintf(rs.rail[0].device, sizeof(rs.rail[0].device), "rxe0");
	snprintf(rs.rail[0].addr4, sizeof(rs.rail[0].addr4), "10.78.0.2");
	snprintf(rs.rail[1].name, sizeof(rs.rail[1].name), "eth1");
	snprintf(rs.rail[1].addr4, sizeof(rs.rail[1].addr4), "10.79.0.2");
	rs.rail[1].numa = -1;
	a = rp_rails_json(&rs, AF_INET);
	assert_non_null(a);
	assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(
		cJSON_GetArrayItem(a, 1), "device")));
	assert_int_equal(
		rp_rails_addresses(a, 2, AF_INET, out, err, sizeof(err)), 0);
	assert_string_equal(out[0], "10.78.0.2");
	assert_string_equal(out[1], "10.79.0.2");
	assert_int_equal(
		rp_rails_addresses(a, 3, AF_INET, out, err, sizeof(err)),
		-EPROTO);
	assert_int_equal(
		rp_rails_addresses(a, 2, AF_INET6, out, err, sizeof(err)),
		-EPROTO);
	cJSON_ReplaceItemInObjectCaseSensitive(cJSON_GetArrayItem(a, 1),
					       "address",
					       cJSON_CreateString("evil.host"));
	assert_int_equal(
		rp_rails_addresses(a, 2, AF_INET, out, err, sizeof(err)),
		-EPROTO);
	assert_string_equal(err, "SETUP: the server's rail 1 has no IPv4 "
				 "address");
	assert_int_equal(
		rp_rails_addresses(NULL, 1, AF_INET, out, err, sizeof(err)),
		-EPROTO);
	cJSON_Delete(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_resolve),
		cmocka_unit_test(test_auto),
		cmocka_unit_test(test_pick),
		cmocka_unit_test(test_addresses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
