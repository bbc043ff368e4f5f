// SPDX-License-Identifier: MIT
/*
 * Unit tests of xport/link: the facts and counters of recorded sysfs trees
 * (tests/fixtures/sysfs: rxe and siw recorded in the guest, mlx5 on
 * InfiniBand and on RoCE synthesized in the kernel's formats), read
 * through RP_SYSFS_ROOT, and trees of garbage that must give "missing",
 * never a crash or a made-up figure.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "xport/link.h"

#define FIX RP_SOURCE_DIR "/tests/fixtures/sysfs/"

static void root(const char *name)
{
	char p[512];

	snprintf(p, sizeof(p), "%s%s", FIX, name);
	assert_int_equal(setenv("RP_SYSFS_ROOT", p, 1), 0);
}

static const cJSON *get(const cJSON *o, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

static const char *str(const cJSON *o, const char *key)
{
	const cJSON *j = get(o, key);

	return cJSON_IsString(j) ? j->valuestring : "(none)";
}

static double num(const cJSON *o, const char *key)
{
	const cJSON *j = get(o, key);

	assert_true(cJSON_IsNumber(j));
	return j->valuedouble;
}

static bool is_missing(const cJSON *o, const char *what)
{
	const cJSON *e;

	cJSON_ArrayForEach(e, get(o, "missing"))
	{
		if (cJSON_IsString(e) && !strcmp(e->valuestring, what))
			return true;
	}
	return false;
}

static uint64_t counter(const struct rp_counters *c, const char *group,
			const char *name)
{
	unsigned int i;

	for (i = 0; i < c->n; i++)
		if (!strcmp(c->c[i].group, group) &&
		    !strcmp(c->c[i].name, name))
			return c->c[i].value;
	fail_msg("no counter %s/%s", group, name);
	return 0;
}

static bool has_counter(const struct rp_counters *c, const char *name)
{
	unsigned int i;

	for (i = 0; i < c->n; i++)
		if (!strcmp(c->c[i].name, name))
			return true;
	return false;
}

static void test_root(void **state)
{
	(void)state;
	unsetenv("RP_SYSFS_ROOT");
	assert_string_equal(rp_sysfs_root(), "");
	setenv("RP_SYSFS_ROOT", "/tmp/x///", 1);
	assert_string_equal(rp_sysfs_root(), "/tmp/x");
	setenv("RP_SYSFS_ROOT", "/", 1);
	assert_string_equal(rp_sysfs_root(), "");
}

static void test_mlx5_ib(void **state)
{
	struct rp_link_known k = { .active_mtu = 4096, .gid_index = 0 };
	const cJSON *pcie, *gid;
	cJSON *l;

	(void)state;
	root("mlx5_ib");
	l = rp_link_rdma("mlx5_0", 1, &k);
	assert_non_null(l);
	assert_string_equal(str(l, "kind"), "rdma");
	assert_string_equal(str(l, "state"), "ACTIVE");
	assert_string_equal(str(l, "phys_state"), "LinkUp");
	assert_string_equal(str(l, "link_layer"), "InfiniBand");
	assert_string_equal(str(l, "rate"), "200 Gb/sec (4X HDR)");
	assert_true(num(l, "rate_gbps") == 200);
	assert_string_equal(str(l, "width"), "4X");
	assert_string_equal(str(l, "provider"), "mlx5");
	assert_string_equal(str(l, "fw_ver"), "20.31.1014");
	assert_true(num(l, "active_mtu") == 4096);
	assert_null(get(l, "mtu_below_netdev"));
	pcie = get(l, "pcie");
	assert_true(num(pcie, "speed_gts") == 16 && num(pcie, "width") == 16);
	assert_true(num(pcie, "gbps") > 252 && num(pcie, "gbps") < 253);
	assert_true(cJSON_IsFalse(get(pcie, "downtrained")));
	assert_true(num(l, "numa_node") == 0);
	gid = get(l, "gid");
	assert_false(cJSON_IsTrue(get(gid, "ipv4_mapped")));
	assert_null(get(gid, "type")); /* an IB port's GIDs have no type */
	cJSON_Delete(l);
}

static void test_mlx5_roce(void **state)
{
	struct rp_link_known k = { .active_mtu = 1024, .gid_index = 3 };
	const cJSON *pcie, *gid;
	cJSON *l;

	(void)state;
	root("mlx5_roce");
	l = rp_link_rdma("mlx5_1", 1, &k);
	assert_string_equal(str(l, "link_layer"), "Ethernet");
	assert_string_equal(str(l, "netdev"), "ens1f0");
	/* RoCE runs at its netdev's speed */
	assert_true(num(l, "rate_gbps") == 100);
	assert_true(num(l, "netdev_mtu") == 9000);
	/* 1024 where 9000 carries 4096 */
	assert_true(cJSON_IsTrue(get(l, "mtu_below_netdev")));
	pcie = get(l, "pcie");
	assert_true(num(pcie, "width") == 8 && num(pcie, "max_width") == 16);
	assert_true(cJSON_IsTrue(get(pcie, "downtrained")));
	assert_true(num(pcie, "gbps") * 2 == num(pcie, "max_gbps"));
	gid = get(l, "gid");
	assert_true(num(gid, "index") == 3);
	assert_string_equal(str(gid, "type"), "RoCE v2");
	assert_true(cJSON_IsTrue(get(gid, "ipv4_mapped")));
	assert_string_equal(str(gid, "netdev"), "ens1f0");
	assert_non_null(strstr(str(gid, "why"), "RoCE v2"));
	cJSON_Delete(l);
	k.active_mtu = 4096;
	l = rp_link_rdma("mlx5_1", 1, &k);
	assert_null(get(l, "mtu_below_netdev"));
	cJSON_Delete(l);
}

/* rxe on a dummy netdev: the port says 2.5 Gb/sec, the wire has no speed;
 * the rate is missing, not 2.5. */
static void test_rxe(void **state)
{
	struct rp_link_known k = { .active_mtu = 1024, .gid_index = 1 };
	cJSON *l;

	(void)state;
	root("rxe");
	l = rp_link_rdma("rxe0", 1, &k);
	assert_string_equal(str(l, "provider"), "rxe");
	assert_string_equal(str(l, "netdev"), "rdma0");
	assert_true(cJSON_IsNull(get(l, "rate_gbps")));
	assert_null(get(l, "rate"));
	assert_true(is_missing(l, "rate"));
	assert_non_null(strstr(str(l, "rate_note"), "no speed"));
	assert_true(is_missing(l, "pcie"));
	assert_true(is_missing(l, "numa_node"));
	assert_true(num(l, "netdev_mtu") == 1500);
	assert_null(get(l, "mtu_below_netdev")); /* 1024 is what 1500 holds */
	assert_true(cJSON_IsTrue(get(get(l, "gid"), "ipv4_mapped")));
	cJSON_Delete(l);
}

static void test_siw(void **state)
{
	struct rp_counters c;
	cJSON *l;

	(void)state;
	root("siw");
	l = rp_link_rdma("siw0", 1, NULL);
	assert_string_equal(str(l, "provider"), "siw");
	assert_string_equal(str(l, "link_layer"), "Ethernet");
	assert_true(cJSON_IsNull(get(l, "rate_gbps"))); /* a dummy netdev */
	assert_true(is_missing(l, "active_mtu"));
	cJSON_Delete(l);
	/* siw has no counters of its own: the kernel's TCP's stand in */
	assert_int_equal(rp_counters_read_rdma("siw0", 1, &c), 0);
	assert_string_equal(c.provider, "siw");
	assert_true(has_counter(&c, "RetransSegs"));
}

static void test_counters(void **state)
{
	struct rp_counters c;
	unsigned int i;

	(void)state;
	root("mlx5_ib");
	assert_int_equal(rp_counters_read_rdma("mlx5_0", 1, &c), 0);
	assert_string_equal(c.provider, "mlx5");
	/* sysfs counts the data in 4-byte words */
	assert_true(counter(&c, "port", "port_rcv_data") == 4 * 2500000ull);
	assert_true(counter(&c, "port", "port_xmit_wait") == 1234);
	assert_true(counter(&c, "hw", "rx_write_requests") == 20);
	assert_false(has_counter(&c, "lifespan"));
	for (i = 1; i < c.n; i++) /* each directory in name order */
		if (!strcmp(c.c[i].group, c.c[i - 1].group))
			assert_true(strcmp(c.c[i - 1].name, c.c[i].name) < 0);
	root("rxe");
	assert_int_equal(rp_counters_read_rdma("rxe0", 1, &c), 0);
	assert_true(counter(&c, "hw", "sent_pkts") > 0);
	assert_int_equal(rp_counters_read_rdma("nosuch0", 1, &c), -ENOENT);
}

static void test_tcp_counters(void **state)
{
	struct rp_counters c;
	cJSON *l;

	(void)state;
	root("mlx5_roce");
	assert_int_equal(rp_counters_read_tcp("ens1f0", &c), 0);
	assert_string_equal(c.provider, "tcp");
	assert_true(counter(&c, "tcp", "RetransSegs") == 7);
	assert_true(counter(&c, "tcp", "TCPTimeouts") == 2);
	assert_true(counter(&c, "netdev", "rx_dropped") == 0);
	assert_false(has_counter(&c, "RtoMin")); /* not a counter */
	assert_int_equal(rp_counters_read_tcp(NULL, &c), 0);
	assert_false(has_counter(&c, "rx_dropped"));
	l = rp_link_netdev("ens1f0");
	assert_true(num(l, "speed_mbps") == 100000);
	assert_true(num(l, "rate_gbps") == 100);
	assert_string_equal(str(l, "duplex"), "full");
	assert_string_equal(str(l, "driver"), "mlx5_core");
	assert_true(num(l, "mtu") == 9000);
	cJSON_Delete(l);
	root("nosuch");
	assert_int_equal(rp_counters_read_tcp("eth0", &c), -ENOENT);
	l = rp_link_netdev("eth0");
	assert_true(cJSON_IsNull(get(l, "rate_gbps")));
	assert_true(is_missing(l, "speed_mbps") && is_missing(l, "mtu"));
	cJSON_Delete(l);
}

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

/* Files that hold nothing, garbage, huge numbers, no newline: facts go
 * missing, counters that do not parse are left out. */
static void test_garbage(void **state)
{
	char dir[] = "/tmp/rp-link-XXXXXX", cmd[64];
	struct rp_counters c;
	cJSON *l;

	(void)state;
	assert_non_null(mkdtemp(dir));
	put(dir, "sys/class/infiniband/bad0/ports/1/state", "");
	put(dir, "sys/class/infiniband/bad0/ports/1/phys_state", "\n\n");
	put(dir, "sys/class/infiniband/bad0/ports/1/rate", "fast");
	put(dir, "sys/class/infiniband/bad0/ports/1/link_layer", "Ethernet");
	put(dir, "sys/class/infiniband/bad0/ports/1/gids/0", "");
	put(dir, "sys/class/infiniband/bad0/ports/1/gid_attrs/ndevs/0", "e0");
	put(dir, "sys/class/net/e0/speed", "99999999999999999999999");
	put(dir, "sys/class/net/e0/mtu", "-5");
	put(dir, "sys/class/infiniband/bad0/ports/1/counters/symbol_error",
	    "18446744073709551616");
	put(dir, "sys/class/infiniband/bad0/ports/1/counters/port_rcv_data",
	    "18446744073709551615");
	put(dir, "sys/class/infiniband/bad0/ports/1/counters/link_downed", "3");
	put(dir, "sys/class/infiniband/bad0/ports/1/hw_counters/x", "-1");
	put(dir, "proc/net/snmp", "Tcp: RetransSegs InErrs\nTcp: 5\n");
	put(dir, "proc/net/netstat", "TcpExt: TCPTimeouts\n");
	setenv("RP_SYSFS_ROOT", dir, 1);
	l = rp_link_rdma("bad0", 1, NULL);
	assert_non_null(l);
	assert_true(is_missing(l, "state") && is_missing(l, "phys_state"));
	assert_true(is_missing(l, "rate") && is_missing(l, "netdev_mtu"));
	assert_true(cJSON_IsNull(get(l, "rate_gbps")));
	assert_true(is_missing(l, "gid"));
	cJSON_Delete(l);
	assert_int_equal(rp_counters_read_rdma("bad0", 1, &c), 0);
	assert_true(counter(&c, "port", "link_downed") == 3);
	assert_false(has_counter(&c, "symbol_error")); /* past 2^64 */
	assert_false(has_counter(&c, "x"));
	assert_true(counter(&c, "port", "port_rcv_data") == UINT64_MAX);
	assert_int_equal(rp_counters_read_tcp(NULL, &c), 0);
	assert_true(counter(&c, "tcp", "RetransSegs") == 5);
	assert_false(has_counter(&c, "InErrs"));
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* A device on the auxiliary bus (irdma on ice): its device link points at
 * the auxiliary device, whose parent is the PCI function with the link. */
static void test_aux_pcie(void **state)
{
	char dir[] = "/tmp/rp-link-XXXXXX", cmd[1200], p[1024];
	const cJSON *pcie;
	cJSON *l;

	(void)state;
	assert_non_null(mkdtemp(dir));
	put(dir, "sys/devices/pci0/0000:17:00.0/current_link_speed",
	    "16.0 GT/s PCIe\n");
	put(dir, "sys/devices/pci0/0000:17:00.0/current_link_width", "8\n");
	put(dir, "sys/devices/pci0/0000:17:00.0/max_link_speed",
	    "16.0 GT/s PCIe\n");
	put(dir, "sys/devices/pci0/0000:17:00.0/max_link_width", "16\n");
	put(dir, "sys/devices/pci0/0000:17:00.0/numa_node", "1\n");
	put(dir, "sys/devices/pci0/0000:17:00.0/ice.roce.0/uevent", "\n");
	put(dir, "sys/class/infiniband/irdma0/ports/1/state", "4: ACTIVE\n");
	snprintf(p, sizeof(p), "%s/sys/class/infiniband/irdma0/device", dir);
	assert_int_equal(
		symlink("../../../devices/pci0/0000:17:00.0/ice.roce.0", p), 0);
	setenv("RP_SYSFS_ROOT", dir, 1);
	l = rp_link_rdma("irdma0", 1, NULL);
	assert_non_null(l);
	pcie = get(l, "pcie");
	assert_non_null(pcie);
	assert_true(get(pcie, "width")->valuedouble == 8);
	assert_true(get(pcie, "max_width")->valuedouble == 16);
	assert_true(cJSON_IsTrue(get(pcie, "downtrained")));
	assert_true(get(l, "numa_node")->valuedouble == 1);
	cJSON_Delete(l);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

static void test_ifname(void **state)
{
	char name[64];

	(void)state;
	assert_int_equal(rp_link_ifname_of("127.0.0.1", name, sizeof(name)), 0);
	assert_string_equal(name, "lo");
	assert_int_equal(rp_link_ifname_of("192.0.2.99", name, sizeof(name)),
			 -ENODEV);
	assert_int_equal(
		rp_link_ifname_of("not an address", name, sizeof(name)),
		-ENODEV);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_root),
		cmocka_unit_test(test_mlx5_ib),
		cmocka_unit_test(test_mlx5_roce),
		cmocka_unit_test(test_rxe),
		cmocka_unit_test(test_siw),
		cmocka_unit_test(test_counters),
		cmocka_unit_test(test_tcp_counters),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_aux_pcie),
		cmocka_unit_test(test_ifname),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
