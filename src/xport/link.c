// SPDX-License-Identifier: MIT
/*
 * A link's facts from sysfs (xport/link.h), under $RP_SYSFS_ROOT
 * (xport/sysfs.c reads it). Every read is of one small attribute file; one
 * that is absent, unreadable or odd leaves its fact out and names it in
 * "missing". Its counters: link_counters.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef _WIN32
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <sys/socket.h>
#endif

#include "xport/link.h"
#include "xport/sysfs.h"

static void missing(cJSON *o, const char *what)
{
	cJSON *m = cJSON_GetObjectItemCaseSensitive(o, "missing");

	if (m)
		cJSON_AddItemToArray(m, cJSON_CreateString(what));
}

/* @key from the attribute, as text, or named missing. */
static bool add_text(cJSON *o, const char *key, const char *val)
{
	if (!val) {
		missing(o, key);
		return false;
	}
	return cJSON_AddStringToObject(o, key, val) != NULL;
}

/* "8.0 GT/s PCIe" → 8.0; "Unknown" → false. */
static bool gts_of(const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || !(v > 0 && v < 1000))
		return false;
	*out = v;
	return true;
}

/* What @lanes lanes at @gts move after the line code: 8b/10b below
 * 8 GT/s, 128b/130b to 32, 242/256 (FLIT) at 64. */
static double pcie_gbps(double gts, double lanes)
{
	double code = gts < 8 ? 8.0 / 10 : gts < 64 ? 128.0 / 130 : 242.0 / 256;

	return gts * lanes * code;
}

/* The PCIe link of the device whose sysfs directory is DIR/device, or,
 * for a device on the auxiliary bus (irdma on ice, an mlx5 subfunction),
 * of the PCI function it hangs off: DIR/device/.. */
static void add_pcie(cJSON *o, const char *dir)
{
	static const char *const up[] = { "device", "device/.." };
	char s[RP_SYSFS_LINE], w[RP_SYSFS_LINE], ms[RP_SYSFS_LINE],
		mw[RP_SYSFS_LINE];
	const char *pci = NULL;
	double gs, gms;
	int64_t lw, lmw;
	unsigned int i;
	cJSON *p;

	for (i = 0; !pci && i < sizeof(up) / sizeof(up[0]); i++)
		if (rp_sysfs_read(s, sizeof(s), "%s/%s/current_link_speed", dir,
				  up[i]))
			pci = up[i];
	if (!pci ||
	    !rp_sysfs_read(w, sizeof(w), "%s/%s/current_link_width", dir,
			   pci) ||
	    !gts_of(s, &gs) || !rp_sysfs_i64(w, &lw) || lw <= 0 || lw > 64) {
		missing(o, "pcie");
		return;
	}
	p = cJSON_AddObjectToObject(o, "pcie");
	if (!p)
		return;
	cJSON_AddNumberToObject(p, "speed_gts", gs);
	cJSON_AddNumberToObject(p, "width", (double)lw);
	cJSON_AddNumberToObject(p, "gbps", pcie_gbps(gs, (double)lw));
	if (rp_sysfs_read(ms, sizeof(ms), "%s/%s/max_link_speed", dir, pci) &&
	    rp_sysfs_read(mw, sizeof(mw), "%s/%s/max_link_width", dir, pci) &&
	    gts_of(ms, &gms) && rp_sysfs_i64(mw, &lmw) && lmw > 0 &&
	    lmw <= 64) {
		cJSON_AddNumberToObject(p, "max_speed_gts", gms);
		cJSON_AddNumberToObject(p, "max_width", (double)lmw);
		cJSON_AddNumberToObject(p, "max_gbps",
					pcie_gbps(gms, (double)lmw));
		cJSON_AddBoolToObject(p, "downtrained", gs < gms || lw < lmw);
	}
}

static void add_numa(cJSON *o, const char *dir)
{
	char v[RP_SYSFS_LINE];
	int64_t n;

	if (((rp_sysfs_read(v, sizeof(v), "%s/device/numa_node", dir) &&
	      rp_sysfs_i64(v, &n) && n >= 0) ||
	     (rp_sysfs_read(v, sizeof(v), "%s/device/../numa_node", dir) &&
	      rp_sysfs_i64(v, &n) && n >= 0)) &&
	    n < 4096)
		cJSON_AddNumberToObject(o, "numa_node", (double)n);
	else
		missing(o, "numa_node");
}

/* A network device's speed (Mb/s), or -1: none (a dummy, a bridge, lo:
 * the read fails with EINVAL, or gives -1). */
static int64_t netdev_speed(const char *ifname)
{
	char v[RP_SYSFS_LINE];
	int64_t s;

	if (!rp_sysfs_read(v, sizeof(v), "/sys/class/net/%s/speed", ifname) ||
	    !rp_sysfs_i64(v, &s) || s <= 0 || s > 100000000)
		return -1;
	return s;
}

static int64_t netdev_mtu(const char *ifname)
{
	char v[RP_SYSFS_LINE];
	int64_t m;

	if (!rp_sysfs_read(v, sizeof(v), "/sys/class/net/%s/mtu", ifname) ||
	    !rp_sysfs_i64(v, &m) || m <= 0 || m > 1048576)
		return -1;
	return m;
}

cJSON *rp_link_netdev(const char *ifname)
{
	cJSON *o = cJSON_CreateObject();
	char v[RP_SYSFS_LINE], dir[RP_SYSFS_PATH];
	int64_t speed, mtu;

	if (!o || !cJSON_AddStringToObject(o, "kind", "netdev") ||
	    !cJSON_AddArrayToObject(o, "missing")) {
		cJSON_Delete(o);
		return NULL;
	}
	cJSON_AddStringToObject(o, "netdev", ifname);
	speed = netdev_speed(ifname);
	if (speed > 0) {
		cJSON_AddNumberToObject(o, "speed_mbps", (double)speed);
		cJSON_AddNumberToObject(o, "rate_gbps", (double)speed / 1000);
	} else {
		cJSON_AddNullToObject(o, "speed_mbps");
		cJSON_AddNullToObject(o, "rate_gbps");
		missing(o, "speed_mbps");
	}
	add_text(o, "duplex",
		 rp_sysfs_read(v, sizeof(v), "/sys/class/net/%s/duplex",
			       ifname) &&
				 strcmp(v, "unknown")
			 ? v
			 : NULL);
	mtu = netdev_mtu(ifname);
	if (mtu > 0)
		cJSON_AddNumberToObject(o, "mtu", (double)mtu);
	else
		missing(o, "mtu");
	add_text(o, "operstate",
		 rp_sysfs_read(v, sizeof(v), "/sys/class/net/%s/operstate",
			       ifname)
			 ? v
			 : NULL);
	snprintf(dir, sizeof(dir), "/sys/class/net/%s", ifname);
	add_text(o, "driver",
		 rp_sysfs_link_name(v, sizeof(v), "%s/device/driver", dir)
			 ? v
			 : NULL);
	add_pcie(o, dir);
	add_numa(o, dir);
	return o;
}

/* "4: ACTIVE" → "ACTIVE" (sysfs gives the number and the name). */
static const char *state_name(char *v)
{
	char *c = strchr(v, ':');

	if (!c)
		return v;
	c++;
	while (*c == ' ')
		c++;
	return *c ? c : NULL;
}

/* "100 Gb/sec (4X EDR)" → 100 and "4X". */
static bool parse_rate(const char *s, double *gbps, char *width, size_t len)
{
	const char *p = strchr(s, '(');
	char *end;
	double v = strtod(s, &end);
	size_t n;

	if (end == s || !(v > 0 && v < 1e6) || strncmp(end, " Gb/sec", 7))
		return false;
	*gbps = v;
	width[0] = '\0';
	if (p) {
		p++;
		n = strcspn(p, " )");
		if (n && n < len) {
			memcpy(width, p, n);
			width[n] = '\0';
		}
	}
	return true;
}

/* The largest IB MTU (256..4096) a netdev of MTU @m surely carries with
 * RoCE's headers, allowing what the kernel's iboe_get_mtu() does (GRH 40,
 * UDP 8, BTH 12, XRC 4, AtomicETH 28, ICRC 4: 96 bytes; rxe allows 80,
 * Ethernet is outside the netdev's MTU): only an active MTU below this is
 * the port's own doing, never the headers'. */
static uint32_t roce_mtu_for(int64_t m)
{
	uint32_t mtu = 4096;

	while (mtu > 256 && (int64_t)mtu + 96 > m)
		mtu /= 2;
	return mtu;
}

static void add_gid(cJSON *o, const char *dev, unsigned port, int idx)
{
	char gid[RP_SYSFS_LINE], type[RP_SYSFS_LINE], nd[RP_SYSFS_LINE];
	bool mapped, v2;
	cJSON *g;

	if (idx < 0) {
		missing(o, "gid");
		return;
	}
	if (!rp_sysfs_read(gid, sizeof(gid),
			   "/sys/class/infiniband/%s/ports/%u/gids/%d", dev,
			   port, idx)) {
		missing(o, "gid");
		return;
	}
	g = cJSON_AddObjectToObject(o, "gid");
	if (!g)
		return;
	cJSON_AddNumberToObject(g, "index", idx);
	cJSON_AddStringToObject(g, "gid", gid);
	mapped = !strncmp(gid, "0000:0000:0000:0000:0000:ffff:", 30);
	cJSON_AddBoolToObject(g, "ipv4_mapped", mapped);
	if (rp_sysfs_read(
		    type, sizeof(type),
		    "/sys/class/infiniband/%s/ports/%u/gid_attrs/types/%d", dev,
		    port, idx)) {
		cJSON_AddStringToObject(g, "type", type);
		v2 = strstr(type, "v2") != NULL;
		cJSON_AddStringToObject(
			g, "why",
			v2 ? (mapped ? "RoCE v2, IPv4-mapped: the GID of the "
				       "address the connection was made on "
				       "(rdma_cm picks it from the address)"
				     : "RoCE v2: the GID of the address the "
				       "connection was made on (rdma_cm picks "
				       "it from the address)")
			   : "RoCE v1 or IB: rdma_cm picked this GID for the "
			     "address; RoCE v1 does not route");
	} else {
		cJSON_AddStringToObject(
			g, "why",
			"the GID rdma_cm picked for the address "
			"(no type: an InfiniBand port)");
	}
	if (rp_sysfs_read(
		    nd, sizeof(nd),
		    "/sys/class/infiniband/%s/ports/%u/gid_attrs/ndevs/%d", dev,
		    port, idx))
		cJSON_AddStringToObject(g, "netdev", nd);
}

cJSON *rp_link_rdma(const char *dev, unsigned port,
		    const struct rp_link_known *known)
{
	char v[RP_SYSFS_LINE], width[32], prov[32], nd[RP_SYSFS_LINE],
		dir[RP_SYSFS_PATH];
	cJSON *o = cJSON_CreateObject();
	const char *st, *ll = NULL;
	double rate = 0;
	bool eth, has_rate;
	int64_t speed = -1, nmtu = -1;
	int gid = known ? known->gid_index : -1;

	if (!o || !cJSON_AddStringToObject(o, "kind", "rdma") ||
	    !cJSON_AddArrayToObject(o, "missing")) {
		cJSON_Delete(o);
		return NULL;
	}
	cJSON_AddStringToObject(o, "device", dev);
	cJSON_AddNumberToObject(o, "port", port);
	snprintf(dir, sizeof(dir), "/sys/class/infiniband/%s", dev);
	st = rp_sysfs_read(v, sizeof(v), "%s/ports/%u/state", dir, port)
		     ? state_name(v)
		     : NULL;
	add_text(o, "state", st);
	st = rp_sysfs_read(v, sizeof(v), "%s/ports/%u/phys_state", dir, port)
		     ? state_name(v)
		     : NULL;
	add_text(o, "phys_state", st);
	if (rp_sysfs_read(nd, sizeof(nd), "%s/ports/%u/link_layer", dir, port))
		ll = nd;
	add_text(o, "link_layer", ll);
	eth = ll && !strcmp(ll, "Ethernet");
	has_rate = rp_sysfs_read(v, sizeof(v), "%s/ports/%u/rate", dir, port) &&
		   parse_rate(v, &rate, width, sizeof(width));
	if (eth && rp_sysfs_port_netdev(dev, port, gid, nd, sizeof(nd))) {
		cJSON_AddStringToObject(o, "netdev", nd);
		speed = netdev_speed(nd);
		nmtu = netdev_mtu(nd);
		if (nmtu > 0)
			cJSON_AddNumberToObject(o, "netdev_mtu", (double)nmtu);
		else
			missing(o, "netdev_mtu");
	} else if (eth) {
		missing(o, "netdev");
	}
	if (eth) {
		/* RoCE and iWARP run at their netdev's speed; the port's rate
		 * of a soft device is made up when the netdev has none */
		if (speed > 0) {
			cJSON_AddNumberToObject(o, "rate_gbps",
						(double)speed / 1000);
			if (has_rate)
				cJSON_AddStringToObject(o, "rate", v);
		} else {
			cJSON_AddNullToObject(o, "rate_gbps");
			missing(o, "rate");
			cJSON_AddStringToObject(
				o, "rate_note",
				has_rate ? "the netdev reports no speed: the "
					   "port's own rate is not its wire's"
					 : "the netdev reports no speed");
		}
	} else if (has_rate) {
		cJSON_AddStringToObject(o, "rate", v);
		cJSON_AddNumberToObject(o, "rate_gbps", rate);
		if (width[0])
			cJSON_AddStringToObject(o, "width", width);
	} else {
		cJSON_AddNullToObject(o, "rate_gbps");
		missing(o, "rate");
	}
	if (known && known->active_mtu) {
		cJSON_AddNumberToObject(o, "active_mtu", known->active_mtu);
		if (eth && nmtu > 0 && known->active_mtu < roce_mtu_for(nmtu))
			cJSON_AddTrueToObject(o, "mtu_below_netdev");
	} else {
		missing(o, "active_mtu");
	}
	add_text(o, "fw_ver",
		 rp_sysfs_read(v, sizeof(v), "%s/fw_ver", dir) ? v : NULL);
	add_text(o, "board_id",
		 rp_sysfs_read(v, sizeof(v), "%s/board_id", dir) ? v : NULL);
	add_text(o, "node_guid",
		 rp_sysfs_read(v, sizeof(v), "%s/node_guid", dir) ? v : NULL);
	add_gid(o, dev, port, gid);
	rp_sysfs_provider(dev, prov, sizeof(prov));
	add_text(o, "provider", prov[0] ? prov : NULL);
	add_pcie(o, dir);
	add_numa(o, dir);
	return o;
}

int rp_link_ifname_of(const char *addr, char *buf, size_t len)
{
#ifndef _WIN32
	unsigned char want[16], have[16];
	struct ifaddrs *ifa, *i;
	int family = strchr(addr, ':') ? AF_INET6 : AF_INET;
	size_t alen = family == AF_INET6 ? 16 : 4;
	int err = -ENODEV;

	if (inet_pton(family, addr, want) != 1)
		return -ENODEV;
	if (getifaddrs(&ifa))
		return -ENODEV;
	for (i = ifa; i && err; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != family ||
		    !i->ifa_name)
			continue;
		if (family == AF_INET)
			memcpy(have,
			       &((struct sockaddr_in *)(void *)i->ifa_addr)
					->sin_addr,
			       4);
		else
			memcpy(have,
			       &((struct sockaddr_in6 *)(void *)i->ifa_addr)
					->sin6_addr,
			       16);
		if (!memcmp(want, have, alen) && strlen(i->ifa_name) < len) {
			snprintf(buf, len, "%s", i->ifa_name);
			err = 0;
		}
	}
	freeifaddrs(ifa);
	return err;
#else
	(void)addr;
	(void)buf;
	(void)len;
	return -ENODEV;
#endif
}
