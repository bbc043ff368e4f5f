// SPDX-License-Identifier: MIT
/* The doctor's checks of the RDMA devices: each port's state, MTU, rate,
 * PCIe link and NUMA node, rdma_cm, and with -a the GID for the address
 * (cli/doctor.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifndef _WIN32
#include <arpa/inet.h>
#endif

#include "cli/doctor.h"
#include "xport/link.h"

#define DOCTOR_MAX_DEVS 16

static const char *jstr(const cJSON *o, const char *key)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(j) ? j->valuestring : NULL;
}

static bool jnum(const cJSON *o, const char *key, double *v)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!cJSON_IsNumber(j))
		return false;
	*v = j->valuedouble;
	return true;
}

/* The NUMA node CPU @cpu is on, from /sys/devices/system/node, or -1. */
static int cpu_node(int cpu)
{
	char names[64][RP_SYSFS_NAME];
	unsigned int i,
		n = rp_sysfs_list(names, 64, "/sys/devices/system/node");

	for (i = 0; i < n; i++)
		if (!strncmp(names[i], "node", 4) &&
		    rp_sysfs_exists("/sys/devices/system/node/%s/cpu%d",
				    names[i], cpu))
			return atoi(names[i] + 4);
	return -1;
}

static void check_numa(struct rp_doctor *d, const char *dev, const cJSON *link)
{
	double node;
	size_t i;
	int off = -1;

	if (!jnum(link, "numa_node", &node) || node < 0) {
		rp_doctor_say(d, "numa", RP_DOC_INFO, NULL,
			      "%s: no NUMA node (one node, or a soft device)",
			      dev);
		return;
	}
	if (!d->n_cpus) {
		rp_doctor_say(
			d, "numa", RP_DOC_INFO,
			"pin the test near it: --cpu with CPUs of that node",
			"%s is on NUMA node %.0f", dev, node);
		return;
	}
	for (i = 0; i < d->n_cpus && off < 0; i++) {
		if (cpu_node(d->cpus[i]) < 0) {
			rp_doctor_say(d, "numa", RP_DOC_INFO, NULL,
				      "%s is on NUMA node %.0f; which node CPU "
				      "%d is on, "
				      "sysfs does not say",
				      dev, node, d->cpus[i]);
			return;
		}
		if (cpu_node(d->cpus[i]) != (int)node)
			off = d->cpus[i];
	}
	if (off >= 0)
		rp_doctor_say(
			d, "numa", RP_DOC_WARN,
			"give --cpu CPUs of the device's node "
			"(/sys/devices/system/node/nodeN/cpulist)",
			"%s is on NUMA node %.0f, but --cpu %d is on node %d",
			dev, node, off, cpu_node(off));
	else
		rp_doctor_say(d, "numa", RP_DOC_OK, NULL,
			      "%s is on NUMA node %.0f, as the --cpu CPUs are",
			      dev, node);
}

static void check_pcie(struct rp_doctor *d, const char *dev, const cJSON *link)
{
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(link, "pcie");
	double s, w, ms, mw, g, mg;

	if (!cJSON_IsObject(p) || !jnum(p, "speed_gts", &s) ||
	    !jnum(p, "width", &w))
		return; /* a soft device: no slot */
	if (!jnum(p, "max_speed_gts", &ms))
		ms = s;
	if (!jnum(p, "max_width", &mw))
		mw = w;
	if (!jnum(p, "gbps", &g))
		g = 0;
	if (!jnum(p, "max_gbps", &mg))
		mg = g;
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "downtrained")))
		rp_doctor_say(
			d, "pcie", RP_DOC_PROBLEM,
			"reseat the card or move it to a full slot; check the "
			"BIOS's PCIe settings",
			"%s: PCIe runs at %.3g GT/s x%.0f, below the %.3g GT/s "
			"x%.0f it can do (%.0f of %.0f Gb/s)",
			dev, s, w, ms, mw, g, mg);
	else
		rp_doctor_say(d, "pcie", RP_DOC_OK, NULL,
			      "%s: PCIe %.3g GT/s x%.0f, its most (%.0f Gb/s)",
			      dev, s, w, g);
}

static void check_port(struct rp_doctor *d, const char *dev, unsigned int port)
{
	struct rp_link_known k = { .gid_index = -1 };
	const char *st, *ph, *ll;
	double mtu, nmtu;
	cJSON *link;

#ifdef RP_HAVE_RDMA
	if (!getenv("RP_SYSFS_ROOT")) /* verbs sees the real device only */
		rp_link_active_mtu(dev, port, &k.active_mtu);
#endif
	link = rp_link_rdma(dev, port, &k);
	if (!link) {
		rp_doctor_say(d, "port", RP_DOC_PROBLEM, NULL, "out of memory");
		return;
	}
	st = jstr(link, "state");
	ph = jstr(link, "phys_state");
	ll = jstr(link, "link_layer");
	if (!st || strcmp(st, "ACTIVE"))
		rp_doctor_say(
			d, "port", RP_DOC_PROBLEM,
			ll && !strcmp(ll, "InfiniBand")
				? "is a subnet manager running (opensm, or the "
				  "switch's)? is the cable in?"
				: "bring the netdev up (ip link set IF up) and "
				  "check the cable",
			"%s port %u is %s (%s), not ACTIVE: no test can run on "
			"it",
			dev, port, st ? st : "in an unknown state",
			ph ? ph : "physical state unknown");
	else
		rp_doctor_say(d, "port", RP_DOC_OK, NULL,
			      "%s port %u: ACTIVE, %s, %s", dev, port,
			      ph ? ph : "physical state unknown",
			      ll ? ll : "link layer unknown");
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
		    link, "mtu_below_netdev")) &&
	    jnum(link, "active_mtu", &mtu) && jnum(link, "netdev_mtu", &nmtu))
		rp_doctor_say(
			d, "mtu", RP_DOC_WARN,
			"raise the port's MTU to match the netdev (mlxconfig, "
			"or "
			"the switch's), or lower the netdev's",
			"%s port %u: RoCE's active MTU is %.0f, but netdev "
			"%s's "
			"MTU %.0f allows more: large messages pay more headers",
			dev, port, mtu,
			jstr(link, "netdev") ? jstr(link, "netdev") : "?",
			nmtu);
	if (cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(link, "rate_gbps")))
		rp_doctor_say(
			d, "rate", RP_DOC_INFO,
			"a virtual NIC can say one: qemu's virtio-net speed=",
			"%s port %u: %s, so there is no rated rate to judge a "
			"test by (--expect bw>=N%%)",
			dev, port,
			jstr(link, "rate_note") ? jstr(link, "rate_note")
						: "no rate");
	else if (jnum(link, "rate_gbps", &mtu))
		rp_doctor_say(d, "rate", RP_DOC_OK, NULL,
			      "%s port %u: rated %.4g Gb/s", dev, port, mtu);
	check_pcie(d, dev, link);
	check_numa(d, dev, link);
	cJSON_Delete(link);
}

/* GID @gid (sysfs's full form) is address @want (IPv6 text). */
static bool gid_is(const char *gid, const char *want)
{
#ifndef _WIN32
	unsigned char a[16], b[16];

	return inet_pton(AF_INET6, gid, a) == 1 &&
	       inet_pton(AF_INET6, want, b) == 1 && !memcmp(a, b, 16);
#else
	(void)gid;
	(void)want;
	return false;
#endif
}

/* The kind of GID @want (IPv6 text) port @port of @dev has: 2 RoCE v2
 * (or a GID without a type), 1 only RoCE v1, 0 none; its index in @idx,
 * its type in @type (32 bytes; "" when it has none). */
static int port_gid_kind(const char *dev, const char *port, const char *want,
			 char *idx, size_t len, char *type)
{
	char gids[256][RP_SYSFS_NAME], gid[64];
	unsigned int g, ng;
	int kind = 0;

	ng = rp_sysfs_list(gids, 256, "/sys/class/infiniband/%s/ports/%s/gids",
			   dev, port);
	for (g = 0; g < ng && kind < 2; g++) {
		if (!rp_sysfs_read(gid, sizeof(gid),
				   "/sys/class/infiniband/%s/ports/%s/gids/%s",
				   dev, port, gids[g]) ||
		    !gid_is(gid, want))
			continue;
		type[0] = '\0';
		kind = !rp_sysfs_read(type, 32,
				      "/sys/class/infiniband/%s/ports/%s/"
				      "gid_attrs/types/%s",
				      dev, port, gids[g]) ||
				       strstr(type, "v2")
			       ? 2
			       : 1;
		snprintf(idx, len, "%.*s", RP_SYSFS_NAME - 1, gids[g]);
	}
	return kind;
}

/* -a: does a port carry a GID for @addr, and which kind? */
static void check_gid(struct rp_doctor *d, char devs[][RP_SYSFS_NAME],
		      unsigned int n)
{
	char ports[8][RP_SYSFS_NAME], want[64], ifname[64], idx[RP_SYSFS_NAME];
	char type[32];
	unsigned int i, p, np;
	bool v1 = false;
	int kind;

	if (!d->addr)
		return;
	if (rp_link_ifname_of(d->addr, ifname, sizeof(ifname)))
		rp_doctor_say(d, "address", RP_DOC_PROBLEM,
			      "give -a an address of this host (ip -br addr)",
			      "%s is no address of this host", d->addr);
	else
		rp_doctor_say(d, "address", RP_DOC_OK, NULL, "%s is on %s",
			      d->addr, ifname);
	snprintf(want, sizeof(want), "%s%s",
		 strchr(d->addr, ':') ? "" : "::ffff:", d->addr);
	for (i = 0; i < n; i++) {
		np = rp_sysfs_list(ports, 8, "/sys/class/infiniband/%s/ports",
				   devs[i]);
		for (p = 0; p < np; p++) {
			kind = port_gid_kind(devs[i], ports[p], want, idx,
					     sizeof(idx), type);
			if (kind == 2) {
				rp_doctor_say(d, "gid", RP_DOC_OK, NULL,
					      "%s port %s GID %s is %s: %s",
					      devs[i], ports[p], idx, d->addr,
					      type[0] ? type : "type unknown");
				return;
			}
			v1 = v1 || kind == 1;
		}
	}
	if (v1)
		rp_doctor_say(d, "gid", RP_DOC_WARN,
			      "enable RoCE v2 (rdma_cm picks v1 otherwise: "
			      "cma_roce_mode in configfs)",
			      "%s has only a RoCE v1 GID: it does not route",
			      d->addr);
	else
		rp_doctor_say(d, "gid", RP_DOC_PROBLEM,
			      "rdma_cm cannot bind there: add a device on its "
			      "netdev (rdma link add rxe0 type rxe netdev IF) "
			      "or check the address",
			      "no RDMA port has a GID for %s", d->addr);
}

void rp_doctor_devices(struct rp_doctor *d)
{
	char devs[DOCTOR_MAX_DEVS][RP_SYSFS_NAME], ports[8][RP_SYSFS_NAME];
	unsigned int i, p, n, np;

	n = rp_sysfs_list(devs, DOCTOR_MAX_DEVS, "/sys/class/infiniband");
	if (d->dev) {
		for (i = 0; i < n && strcmp(devs[i], d->dev); i++)
			;
		if (i == n) {
			rp_doctor_say(
				d, "device", RP_DOC_PROBLEM,
				"list them: rdma link show (or ibv_devices)",
				"no RDMA device %s", d->dev);
			n = 0;
		} else {
			snprintf(devs[0], RP_SYSFS_NAME, "%s", d->dev);
			n = 1;
		}
	} else if (!n) {
		rp_doctor_say(
			d, "device", RP_DOC_PROBLEM,
			"load the NIC's driver, or for Soft-RoCE: modprobe "
			"rdma_rxe && rdma link add rxe0 type rxe netdev IF",
			"no RDMA device: only -x tcp can run");
	}
	if (n && !rp_sysfs_exists("/dev/infiniband/rdma_cm"))
		rp_doctor_say(
			d, "rdma_cm", RP_DOC_PROBLEM, "modprobe rdma_ucm",
			"no /dev/infiniband/rdma_cm: rdma_cm cannot connect");
	for (i = 0; i < n; i++) {
		np = rp_sysfs_list(ports, 8, "/sys/class/infiniband/%s/ports",
				   devs[i]);
		for (p = 0; p < np; p++)
			check_port(d, devs[i], (unsigned int)atoi(ports[p]));
	}
	check_gid(d, devs, n);
}
