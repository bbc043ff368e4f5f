// SPDX-License-Identifier: MIT
/*
 * A link's facts and counters from sysfs and /proc (xport/link.h), under
 * $RP_SYSFS_ROOT. Every read is of one small attribute file; one that is
 * absent, unreadable or odd leaves its fact out and names it in "missing".
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef _WIN32
#include <arpa/inet.h>
#include <dirent.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#endif

#include "xport/link.h"

#define LINE_LEN 256
#define PATH_LEN 768

const char *rp_sysfs_root(void)
{
	static char root[PATH_LEN];
	const char *r = getenv("RP_SYSFS_ROOT");
	size_t n;

	if (!r || !*r)
		return "";
	n = strlen(r);
	while (n > 1 && r[n - 1] == '/')
		n--;
	if (n == 1 && r[0] == '/')
		return "";
	if (n >= sizeof(root) - 256)
		return r; /* too long to be a tree: reads fail, facts missing */
	memcpy(root, r, n);
	root[n] = '\0';
	return root;
}

__attribute__((format(printf, 3, 4))) static bool path_of(char *buf, size_t len,
							  const char *fmt, ...)
{
	va_list ap;
	int n, r;

	r = snprintf(buf, len, "%s", rp_sysfs_root());
	if (r < 0 || (size_t)r >= len)
		return false;
	va_start(ap, fmt);
	n = vsnprintf(buf + r, len - (size_t)r, fmt, ap);
	va_end(ap);
	return n >= 0 && (size_t)n < len - (size_t)r;
}

/* The first line of @path (a full path), trimmed; false when it cannot be
 * read or is empty. */
static bool read_full(const char *path, char *buf, size_t len)
{
	size_t n;
	FILE *f = fopen(path, "r");
	bool ok;

	if (!f)
		return false;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (!ok)
		return false;
	n = strcspn(buf, "\r\n");
	buf[n] = '\0';
	while (n && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	return n > 0;
}

__attribute__((format(printf, 3, 4))) static bool
read_attr(char *buf, size_t len, const char *fmt, ...)
{
	char path[PATH_LEN];
	va_list ap;
	int r, n;

	r = snprintf(path, sizeof(path), "%s", rp_sysfs_root());
	if (r < 0 || (size_t)r >= sizeof(path))
		return false;
	va_start(ap, fmt);
	n = vsnprintf(path + r, sizeof(path) - (size_t)r, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(path) - (size_t)r)
		return false;
	return read_full(path, buf, len);
}

/* A whole number of the text @s (nothing after it but blanks). */
static bool parse_i64(const char *s, int64_t *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (end == s || errno)
		return false;
	while (isspace((unsigned char)*end))
		end++;
	if (*end)
		return false;
	*out = v;
	return true;
}

static bool parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	while (isspace((unsigned char)*s))
		s++;
	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (end == s || errno)
		return false;
	while (isspace((unsigned char)*end))
		end++;
	if (*end)
		return false;
	*out = v;
	return true;
}

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

/* The basename of the target of symbolic link @path, into @buf. */
static bool link_name(const char *path, char *buf, size_t len)
{
#ifndef _WIN32
	char t[PATH_LEN];
	ssize_t n = readlink(path, t, sizeof(t) - 1);
	const char *b;

	if (n <= 0)
		return false;
	t[n] = '\0';
	b = strrchr(t, '/');
	b = b ? b + 1 : t;
	if (!*b || strlen(b) >= len)
		return false;
	memcpy(buf, b, strlen(b) + 1);
	return true;
#else
	(void)path;
	(void)buf;
	(void)len;
	return false;
#endif
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

/* The PCIe link of the device whose sysfs directory is DIR/device. */
static void add_pcie(cJSON *o, const char *dir)
{
	char s[LINE_LEN], w[LINE_LEN], ms[LINE_LEN], mw[LINE_LEN];
	double gs, gms;
	int64_t lw, lmw;
	cJSON *p;

	if (!read_attr(s, sizeof(s), "%s/device/current_link_speed", dir) ||
	    !read_attr(w, sizeof(w), "%s/device/current_link_width", dir) ||
	    !gts_of(s, &gs) || !parse_i64(w, &lw) || lw <= 0 || lw > 64) {
		missing(o, "pcie");
		return;
	}
	p = cJSON_AddObjectToObject(o, "pcie");
	if (!p)
		return;
	cJSON_AddNumberToObject(p, "speed_gts", gs);
	cJSON_AddNumberToObject(p, "width", (double)lw);
	cJSON_AddNumberToObject(p, "gbps", pcie_gbps(gs, (double)lw));
	if (read_attr(ms, sizeof(ms), "%s/device/max_link_speed", dir) &&
	    read_attr(mw, sizeof(mw), "%s/device/max_link_width", dir) &&
	    gts_of(ms, &gms) && parse_i64(mw, &lmw) && lmw > 0 && lmw <= 64) {
		cJSON_AddNumberToObject(p, "max_speed_gts", gms);
		cJSON_AddNumberToObject(p, "max_width", (double)lmw);
		cJSON_AddNumberToObject(p, "max_gbps",
					pcie_gbps(gms, (double)lmw));
		cJSON_AddBoolToObject(p, "downtrained", gs < gms || lw < lmw);
	}
}

static void add_numa(cJSON *o, const char *dir)
{
	char v[LINE_LEN];
	int64_t n;

	if (read_attr(v, sizeof(v), "%s/device/numa_node", dir) &&
	    parse_i64(v, &n) && n >= 0 && n < 4096)
		cJSON_AddNumberToObject(o, "numa_node", (double)n);
	else
		missing(o, "numa_node");
}

/* A network device's speed (Mb/s), or -1: none (a dummy, a bridge, lo:
 * the read fails with EINVAL, or gives -1). */
static int64_t netdev_speed(const char *ifname)
{
	char v[LINE_LEN];
	int64_t s;

	if (!read_attr(v, sizeof(v), "/sys/class/net/%s/speed", ifname) ||
	    !parse_i64(v, &s) || s <= 0 || s > 100000000)
		return -1;
	return s;
}

static int64_t netdev_mtu(const char *ifname)
{
	char v[LINE_LEN];
	int64_t m;

	if (!read_attr(v, sizeof(v), "/sys/class/net/%s/mtu", ifname) ||
	    !parse_i64(v, &m) || m <= 0 || m > 1048576)
		return -1;
	return m;
}

cJSON *rp_link_netdev(const char *ifname)
{
	cJSON *o = cJSON_CreateObject();
	char v[LINE_LEN], dir[PATH_LEN], path[PATH_LEN];
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
		 read_attr(v, sizeof(v), "/sys/class/net/%s/duplex", ifname) &&
				 strcmp(v, "unknown")
			 ? v
			 : NULL);
	mtu = netdev_mtu(ifname);
	if (mtu > 0)
		cJSON_AddNumberToObject(o, "mtu", (double)mtu);
	else
		missing(o, "mtu");
	add_text(o, "operstate",
		 read_attr(v, sizeof(v), "/sys/class/net/%s/operstate", ifname)
			 ? v
			 : NULL);
	snprintf(dir, sizeof(dir), "/sys/class/net/%s", ifname);
	add_text(o, "driver",
		 path_of(path, sizeof(path), "%s/device/driver", dir) &&
				 link_name(path, v, sizeof(v))
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

/* The provider of device @dev: its PCI driver's name for the hardware
 * ones (mlx5_core → mlx5), else what the device name says (rxe0, siw0
 * are named by the user: rdma link add NAME type rxe). */
static void provider_of(const char *dev, char *buf, size_t len)
{
	static const char *const known[] = { "mlx5",	"mlx4", "irdma",
					     "bnxt_re", "efa",	"rxe",
					     "siw",	"hfi1", "qedr",
					     "erdma",	"hns",	"cxgb4" };
	char path[PATH_LEN], drv[LINE_LEN];
	size_t i, n;

	buf[0] = '\0';
	if (path_of(path, sizeof(path),
		    "/sys/class/infiniband/%s/device/driver", dev) &&
	    link_name(path, drv, sizeof(drv))) {
		for (i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
			n = strlen(known[i]);
			if (!strncmp(drv, known[i], n)) {
				snprintf(buf, len, "%s", known[i]);
				return;
			}
		}
		if (strlen(drv) < len) /* an unknown driver: its name */
			memcpy(buf, drv, strlen(drv) + 1);
		return;
	}
	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		n = strlen(known[i]);
		if (!strncmp(dev, known[i], n)) {
			snprintf(buf, len, "%s", known[i]);
			return;
		}
	}
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

/* The largest IB MTU (256..4096) a netdev of MTU @m carries with RoCE
 * v2's headers (Ethernet is outside the netdev's MTU: IPv4 20, UDP 8,
 * BTH 12, a RETH 16, ICRC 4). */
static uint32_t roce_mtu_for(int64_t m)
{
	uint32_t mtu = 4096;

	while (mtu > 256 && (int64_t)mtu + 60 > m)
		mtu /= 2;
	return mtu;
}

static void add_gid(cJSON *o, const char *dev, unsigned port, int idx)
{
	char gid[LINE_LEN], type[LINE_LEN], nd[LINE_LEN];
	bool mapped, v2;
	cJSON *g;

	if (idx < 0) {
		missing(o, "gid");
		return;
	}
	if (!read_attr(gid, sizeof(gid),
		       "/sys/class/infiniband/%s/ports/%u/gids/%d", dev, port,
		       idx)) {
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
	if (read_attr(type, sizeof(type),
		      "/sys/class/infiniband/%s/ports/%u/gid_attrs/types/%d",
		      dev, port, idx)) {
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
	if (read_attr(nd, sizeof(nd),
		      "/sys/class/infiniband/%s/ports/%u/gid_attrs/ndevs/%d",
		      dev, port, idx))
		cJSON_AddStringToObject(g, "netdev", nd);
}

/* iWARP (siw): GID 0 is the netdev's MAC, padded with zeros; the netdev
 * whose address that is, into @buf. */
static bool netdev_of_mac_gid(const char *dev, unsigned port, char *buf,
			      size_t len)
{
	char gid[LINE_LEN], mac[32], addr[LINE_LEN], dir[PATH_LEN];
	unsigned int b[6];
	bool found = false;
#ifndef _WIN32
	struct dirent *e;
	DIR *d;

	if (!read_attr(gid, sizeof(gid),
		       "/sys/class/infiniband/%s/ports/%u/gids/0", dev, port) ||
	    sscanf(gid, "%2x%2x:%2x%2x:%2x%2x:", &b[0], &b[1], &b[2], &b[3],
		   &b[4], &b[5]) != 6 ||
	    !path_of(dir, sizeof(dir), "/sys/class/net"))
		return false;
	snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x", b[0], b[1],
		 b[2], b[3], b[4], b[5]);
	d = opendir(dir);
	if (!d)
		return false;
	while (!found && (e = readdir(d))) {
		if (e->d_name[0] == '.' || strlen(e->d_name) >= len)
			continue;
		if (read_attr(addr, sizeof(addr), "/sys/class/net/%s/address",
			      e->d_name) &&
		    !strcmp(addr, mac) && strcmp(mac, "00:00:00:00:00:00")) {
			memcpy(buf, e->d_name, strlen(e->d_name) + 1);
			found = true;
		}
	}
	closedir(d);
#else
	(void)dev;
	(void)port;
	(void)buf;
	(void)len;
	(void)gid;
	(void)mac;
	(void)addr;
	(void)dir;
	(void)b;
#endif
	return found;
}

/* The netdev an Ethernet port runs on: its GID's, or any GID's of the
 * port (rxe and siw have one netdev), into @buf. */
static bool port_netdev(const char *dev, unsigned port, int idx, char *buf,
			size_t len)
{
	int i;

	if (idx >= 0 &&
	    read_attr(buf, len,
		      "/sys/class/infiniband/%s/ports/%u/gid_attrs/ndevs/%d",
		      dev, port, idx))
		return true;
	for (i = 0; i < 16; i++)
		if (read_attr(buf, len,
			      "/sys/class/infiniband/%s/ports/%u/gid_attrs/"
			      "ndevs/%d",
			      dev, port, i))
			return true;
	/* rxe: its parent; siw has neither, but its GID is its MAC */
	return read_attr(buf, len, "/sys/class/infiniband/%s/parent", dev) ||
	       netdev_of_mac_gid(dev, port, buf, len);
}

cJSON *rp_link_rdma(const char *dev, unsigned port,
		    const struct rp_link_known *known)
{
	char v[LINE_LEN], width[32], prov[32], nd[LINE_LEN], dir[PATH_LEN];
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
	st = read_attr(v, sizeof(v), "%s/ports/%u/state", dir, port)
		     ? state_name(v)
		     : NULL;
	add_text(o, "state", st);
	st = read_attr(v, sizeof(v), "%s/ports/%u/phys_state", dir, port)
		     ? state_name(v)
		     : NULL;
	add_text(o, "phys_state", st);
	if (read_attr(nd, sizeof(nd), "%s/ports/%u/link_layer", dir, port))
		ll = nd;
	add_text(o, "link_layer", ll);
	eth = ll && !strcmp(ll, "Ethernet");
	has_rate = read_attr(v, sizeof(v), "%s/ports/%u/rate", dir, port) &&
		   parse_rate(v, &rate, width, sizeof(width));
	if (eth && port_netdev(dev, port, gid, nd, sizeof(nd))) {
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
		 read_attr(v, sizeof(v), "%s/fw_ver", dir) ? v : NULL);
	add_text(o, "board_id",
		 read_attr(v, sizeof(v), "%s/board_id", dir) ? v : NULL);
	add_text(o, "node_guid",
		 read_attr(v, sizeof(v), "%s/node_guid", dir) ? v : NULL);
	add_gid(o, dev, port, gid);
	provider_of(dev, prov, sizeof(prov));
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

/* Add counter @name of @group = @v to @out (the first of a name holds). */
static void add_counter(struct rp_counters *out, const char *group,
			const char *name, uint64_t v)
{
	struct rp_counter *c;

	if (out->n == RP_COUNTERS_MAX || strlen(name) >= RP_COUNTER_NAME_LEN)
		return;
	c = &out->c[out->n++];
	snprintf(c->group, sizeof(c->group), "%s", group);
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->value = v;
}

#ifndef _WIN32
static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct rp_counter *)a)->name,
		      ((const struct rp_counter *)b)->name);
}
#endif

/* Every counter file of directory @rel (under the root) into @out, in
 * name order (readdir's is the file system's). */
static unsigned int read_dir(const char *rel, const char *group, bool words,
			     struct rp_counters *out)
{
	unsigned int n = 0;
#ifndef _WIN32
	char dir[PATH_LEN], path[PATH_LEN * 2], v[LINE_LEN];
	struct dirent *e;
	uint64_t x;
	unsigned int first = out->n;
	DIR *d;

	if (!path_of(dir, sizeof(dir), "%s", rel))
		return 0;
	d = opendir(dir);
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || !strcmp(e->d_name, "lifespan"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (!read_full(path, v, sizeof(v)) || !parse_u64(v, &x))
			continue;
		/* the data counters count 4-byte words */
		if (words && (!strcmp(e->d_name, "port_rcv_data") ||
			      !strcmp(e->d_name, "port_xmit_data")))
			x = x > UINT64_MAX / 4 ? UINT64_MAX : x * 4;
		add_counter(out, group, e->d_name, x);
		n++;
	}
	closedir(d);
	qsort(out->c + first, out->n - first, sizeof(out->c[0]), by_name);
#else
	(void)rel;
	(void)group;
	(void)words;
	(void)out;
#endif
	return n;
}

/* A "Name: a b c" / "Name: 1 2 3" pair of lines of /proc/net/snmp or
 * netstat: the fields of section @sect that @want() keeps. */
static unsigned int read_proc_pairs(const char *rel, const char *sect,
				    bool (*want)(const char *),
				    struct rp_counters *out)
{
	char path[PATH_LEN], head[4096], vals[4096];
	char *hs, *vs, *h, *x;
	size_t sl = strlen(sect);
	unsigned int n = 0;
	uint64_t v;
	FILE *f;

	if (!path_of(path, sizeof(path), "%s", rel))
		return 0;
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(head, sizeof(head), f)) {
		if (strncmp(head, sect, sl) || head[sl] != ':')
			continue;
		if (!fgets(vals, sizeof(vals), f) || strncmp(vals, sect, sl))
			break;
		h = strtok_r(head + sl + 1, " \t\r\n", &hs);
		x = strtok_r(vals + sl + 1, " \t\r\n", &vs);
		while (h && x) {
			if (want(h) && parse_u64(x, &v)) {
				add_counter(out, "tcp", h, v);
				n++;
			}
			h = strtok_r(NULL, " \t\r\n", &hs);
			x = strtok_r(NULL, " \t\r\n", &vs);
		}
		break;
	}
	fclose(f);
	return n;
}

static bool want_snmp(const char *name)
{
	return !strcmp(name, "RetransSegs") || !strcmp(name, "InErrs") ||
	       !strcmp(name, "InCsumErrors") || !strcmp(name, "OutRsts") ||
	       !strcmp(name, "InSegs") || !strcmp(name, "OutSegs");
}

static bool want_netstat(const char *name)
{
	static const char *const names[] = {
		"TCPTimeouts",		"TCPLossProbes",
		"TCPLossProbeRecovery", "TCPLostRetransmit",
		"TCPSackFailures",	"TCPSpuriousRTOs",
		"TCPFastRetrans",	"TCPSlowStartRetrans",
		"TCPRetransFail",	"TCPSynRetrans",
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

/* The kernel's TCP counters (the host's, this network namespace's). */
static unsigned int read_tcp(struct rp_counters *out)
{
	return read_proc_pairs("/proc/net/snmp", "Tcp", want_snmp, out) +
	       read_proc_pairs("/proc/net/netstat", "TcpExt", want_netstat,
			       out);
}

int rp_counters_read_rdma(const char *dev, unsigned port,
			  struct rp_counters *out)
{
	char rel[PATH_LEN], nd[LINE_LEN];
	unsigned int n;

	memset(out, 0, sizeof(*out));
	provider_of(dev, out->provider, sizeof(out->provider));
	snprintf(rel, sizeof(rel), "/sys/class/infiniband/%s/ports/%u/counters",
		 dev, port);
	n = read_dir(rel, "port", true, out);
	snprintf(rel, sizeof(rel),
		 "/sys/class/infiniband/%s/ports/%u/hw_counters", dev, port);
	n += read_dir(rel, "hw", false, out);
	snprintf(rel, sizeof(rel), "/sys/class/infiniband/%s/hw_counters", dev);
	n += read_dir(rel, "hw", false, out);
	/* siw has none of its own: it runs on the kernel's TCP */
	if (!strcmp(out->provider, "siw")) {
		n += read_tcp(out);
		if (port_netdev(dev, port, -1, nd, sizeof(nd))) {
			snprintf(rel, sizeof(rel),
				 "/sys/class/net/%s/statistics", nd);
			n += read_dir(rel, "netdev", false, out);
		}
	}
	return n ? 0 : -ENOENT;
}

int rp_counters_read_tcp(const char *ifname, struct rp_counters *out)
{
	char rel[PATH_LEN];
	unsigned int n;

	memset(out, 0, sizeof(*out));
	snprintf(out->provider, sizeof(out->provider), "tcp");
	n = read_tcp(out);
	if (ifname) {
		snprintf(rel, sizeof(rel), "/sys/class/net/%s/statistics",
			 ifname);
		n += read_dir(rel, "netdev", false, out);
	}
	return n ? 0 : -ENOENT;
}
