// SPDX-License-Identifier: MIT
/* Rails: the NICs of a multi-rail test, resolved (xport/rails.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef _WIN32
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#endif

#include "xport/rails.h"

__attribute__((format(printf, 3, 4))) static int bad(char *err, size_t len,
						     const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* The next name of the list at *@p into @name; false at its end. */
static bool next_name(const char **p, char *name, size_t len, bool *fits)
{
	const char *s = *p, *end;
	size_t n;

	if (!*s)
		return false;
	end = strchr(s, ',');
	n = end ? (size_t)(end - s) : strlen(s);
	*fits = n < len;
	snprintf(name, len, "%.*s", (int)(n < len ? n : len - 1), s);
	*p = end ? end + 1 : s + n;
	return true;
}

int rp_rails_check(const char *arg, char *err, size_t errlen)
{
	char names[RP_RAILS_MAX + 1][RP_SYSFS_NAME];
	const char *p = arg;
	unsigned int n = 0, i;
	bool fits;

	if (!strcmp(arg, "auto"))
		return 0;
	if (!*arg || arg[strlen(arg) - 1] == ',')
		return bad(err, errlen,
			   "--rails: %s: 'auto' or devices, comma-separated",
			   arg);
	while (n <= RP_RAILS_MAX &&
	       next_name(&p, names[n], sizeof(names[n]), &fits)) {
		if (!fits || !names[n][0] || !strcmp(names[n], "auto"))
			return bad(err, errlen,
				   "--rails: %s: a device or interface name of "
				   "1 to %d characters, not %s",
				   arg, RP_SYSFS_NAME - 1,
				   names[n][0] ? "auto in a list"
					       : "an empty one");
		for (i = 0; i < n; i++)
			if (!strcmp(names[i], names[n]))
				return bad(err, errlen,
					   "--rails: %s is named twice",
					   names[n]);
		n++;
	}
	if (n > RP_RAILS_MAX)
		return bad(err, errlen, "--rails: %s: at most %d rails", arg,
			   RP_RAILS_MAX);
	return 0;
}

const char *rp_rail_addr(const struct rp_rail *r, int family)
{
	const char *a = family == AF_INET6 ? r->addr6 : r->addr4;

	return a[0] ? a : NULL;
}

int rp_rails_pick(struct rp_rails *rs, unsigned int n, int family,
		  const char *side, char *err, size_t errlen)
{
	unsigned int i;

	if (rs->n < n) {
		snprintf(err, errlen,
			 "the %s has %u rail%s (--rails), the test asks for %u",
			 side, rs->n, rs->n == 1 ? "" : "s", n);
		return -EOPNOTSUPP;
	}
	rs->n = n;
	for (i = 0; i < n; i++)
		if (!rp_rail_addr(&rs->rail[i], family)) {
			snprintf(err, errlen,
				 "the %s's rail %s (%s) has no IPv%c address, "
				 "and the test's are",
				 side, rs->rail[i].name, rs->rail[i].netdev,
				 family == AF_INET6 ? '6' : '4');
			return -EOPNOTSUPP;
		}
	return 0;
}

cJSON *rp_rails_json(const struct rp_rails *rs, int family)
{
	cJSON *a = cJSON_CreateArray(), *o;
	const struct rp_rail *r;
	unsigned int i;

	for (i = 0; a && i < rs->n; i++) {
		r = &rs->rail[i];
		o = cJSON_CreateObject();
		if (!o || !cJSON_AddItemToArray(a, o)) {
			cJSON_Delete(o);
			cJSON_Delete(a);
			return NULL;
		}
		cJSON_AddNumberToObject(o, "rail", i);
		cJSON_AddStringToObject(o, "name", r->name);
		if (r->device[0])
			cJSON_AddStringToObject(o, "device", r->device);
		else
			cJSON_AddNullToObject(o, "device");
		cJSON_AddStringToObject(o, "netdev", r->netdev);
		cJSON_AddStringToObject(
			o, "address",
			rp_rail_addr(r, family) ? rp_rail_addr(r, family) : "");
		cJSON_AddNumberToObject(o, "numa", r->numa);
	}
	return a;
}

int rp_rails_addresses(const cJSON *a, unsigned int n, int family,
		       char out[][RP_NET_ADDR_LEN], char *err, size_t errlen)
{
	unsigned char bin[16];
	const cJSON *addr;
	unsigned int i;

	if (!cJSON_IsArray(a) || (unsigned int)cJSON_GetArraySize(a) != n) {
		snprintf(err, errlen,
			 "SETUP: the server did not describe %u "
			 "rails",
			 n);
		return -EPROTO;
	}
	for (i = 0; i < n; i++) {
		addr = cJSON_GetObjectItemCaseSensitive(
			cJSON_GetArrayItem(a, (int)i), "address");
		if (!cJSON_IsString(addr) ||
		    strlen(addr->valuestring) >= RP_NET_ADDR_LEN ||
		    inet_pton(family, addr->valuestring, bin) != 1) {
			snprintf(err, errlen,
				 "SETUP: the server's rail %u has no IPv%c "
				 "address",
				 i, family == AF_INET6 ? '6' : '4');
			return -EPROTO;
		}
		snprintf(out[i], RP_NET_ADDR_LEN, "%s", addr->valuestring);
	}
	return 0;
}

#ifdef _WIN32
int rp_rails_resolve(const char *arg, bool rdma, bool numa,
		     struct rp_rails *out, char *err, size_t errlen)
{
	(void)arg;
	(void)rdma;
	(void)numa;
	out->n = 0;
	return bad(err, errlen,
		   "--rails: not on Windows (no sysfs to find "
		   "a device's interface)");
}
#else

/* The interface's first IPv4 address and first IPv6 one that is not
 * link-local (a stream cannot reach a peer through one without its
 * scope). */
static void addrs_of(struct rp_rail *r, const struct ifaddrs *all)
{
	const struct ifaddrs *i;
	const struct sockaddr_in6 *a6;
	const struct sockaddr_in *a4;

	for (i = all; i; i = i->ifa_next) {
		if (!i->ifa_addr || !i->ifa_name ||
		    strcmp(i->ifa_name, r->netdev))
			continue;
		if (i->ifa_addr->sa_family == AF_INET && !r->addr4[0]) {
			a4 = (const struct sockaddr_in *)(const void *)
				     i->ifa_addr;
			inet_ntop(AF_INET, &a4->sin_addr, r->addr4,
				  sizeof(r->addr4));
		} else if (i->ifa_addr->sa_family == AF_INET6 && !r->addr6[0]) {
			a6 = (const struct sockaddr_in6 *)(const void *)
				     i->ifa_addr;
			if (!IN6_IS_ADDR_LINKLOCAL(&a6->sin6_addr))
				inet_ntop(AF_INET6, &a6->sin6_addr, r->addr6,
					  sizeof(r->addr6));
		}
	}
}

/* A numa_node attribute's text: the node, or -1. */
static int node_of(bool read, const char *line)
{
	int64_t v;

	if (!read || !rp_sysfs_i64(line, &v) || v < 0 || v > 4096)
		return -1;
	return (int)v;
}

/* The first port of @dev whose state is ACTIVE, 0 if none. */
static unsigned int active_port(const char *dev)
{
	char ports[8][RP_SYSFS_NAME], state[RP_SYSFS_LINE];
	unsigned int n, i;
	int64_t p;

	n = rp_sysfs_list(ports, 8, "/sys/class/infiniband/%s/ports", dev);
	for (i = 0; i < n; i++)
		if (rp_sysfs_i64(ports[i], &p) && p > 0 && p < 256 &&
		    rp_sysfs_read(state, sizeof(state),
				  "/sys/class/infiniband/%s/ports/%s/state",
				  dev, ports[i]) &&
		    strstr(state, "ACTIVE"))
			return (unsigned int)p;
	return 0;
}

/* What /sys/class/net/IF/type says of an interface's link layer. */
static void netdev_layer(struct rp_rail *r)
{
	char line[RP_SYSFS_LINE];
	int64_t t;

	if (!rp_sysfs_read(line, sizeof(line), "/sys/class/net/%s/type",
			   r->netdev) ||
	    !rp_sysfs_i64(line, &t))
		return;
	snprintf(r->link_layer, sizeof(r->link_layer), "%s",
		 t == 1	    ? "Ethernet"
		 : t == 32  ? "InfiniBand"
		 : t == 772 ? "loopback"
			    : "other");
}

/* Rail @name (an RDMA device, else an interface) into @r. */
static int rail_of(const char *name, bool rdma, const struct ifaddrs *all,
		   struct rp_rail *r, char *err, size_t errlen)
{
	char line[RP_SYSFS_LINE];
	unsigned int port;

	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->numa = -1;
	if (rp_sysfs_exists("/sys/class/infiniband/%s", name)) {
		snprintf(r->device, sizeof(r->device), "%s", name);
		port = active_port(name);
		if (!port)
			return bad(err, errlen,
				   "--rails: %s has no active port", name);
		rp_sysfs_read(r->link_layer, sizeof(r->link_layer),
			      "/sys/class/infiniband/%s/ports/%u/link_layer",
			      name, port);
		if (!rp_sysfs_port_netdev(name, port, -1, r->netdev,
					  sizeof(r->netdev)))
			return bad(err, errlen,
				   "--rails: %s has no network interface, "
				   "and a rail connects by its address",
				   name);
		r->numa = node_of(
			rp_sysfs_read(
				line, sizeof(line),
				"/sys/class/infiniband/%s/device/numa_node",
				name),
			line);
	} else if (rdma) {
		return bad(err, errlen,
			   "--rails: %s is not an RDMA device (rdma's rails "
			   "are devices: ibv_devices lists them)",
			   name);
	} else if (if_nametoindex(name)) {
		snprintf(r->netdev, sizeof(r->netdev), "%s", name);
		netdev_layer(r);
	} else {
		return bad(err, errlen,
			   "--rails: no RDMA device or network interface %s",
			   name);
	}
	if (r->numa < 0)
		r->numa = node_of(rp_sysfs_read(line, sizeof(line),
						"/sys/class/net/%s/device/"
						"numa_node",
						r->netdev),
				  line);
	addrs_of(r, all);
	if (!r->addr4[0] && !r->addr6[0])
		return bad(err, errlen,
			   "--rails: %s's interface %s has no address, and a "
			   "rail connects by its address",
			   name, r->netdev);
	return 0;
}

/* "auto": the devices with an active port and an address, by name. */
static int rails_auto(const struct ifaddrs *all, struct rp_rails *out,
		      char *err, size_t errlen)
{
	char devs[64][RP_SYSFS_NAME], why[160];
	unsigned int n, i;

	n = rp_sysfs_list(devs, 64, "/sys/class/infiniband");
	for (i = 0; i < n && out->n < RP_RAILS_MAX; i++)
		if (!rail_of(devs[i], true, all, &out->rail[out->n], why,
			     sizeof(why)))
			out->n++;
	if (!out->n)
		return bad(err, errlen,
			   "--rails auto: no RDMA device here has an active "
			   "port and an address%s",
			   n ? "" : " (there is no RDMA device)");
	return 0;
}

static int rails_list(const char *arg, bool rdma, const struct ifaddrs *all,
		      struct rp_rails *out, char *err, size_t errlen)
{
	char name[RP_SYSFS_NAME];
	const char *p = arg;
	bool fits;
	int ret;

	while (out->n < RP_RAILS_MAX &&
	       next_name(&p, name, sizeof(name), &fits)) {
		ret = rail_of(name, rdma, all, &out->rail[out->n], err, errlen);
		if (ret)
			return ret;
		out->n++;
	}
	return 0;
}

/* The same interface twice, or rails of different link layers. */
static int rails_consistent(const struct rp_rails *rs, char *err, size_t errlen)
{
	const struct rp_rail *a, *b;
	unsigned int i, j;

	for (i = 0; i < rs->n; i++)
		for (j = 0; j < i; j++) {
			a = &rs->rail[j];
			b = &rs->rail[i];
			if (a->link_layer[0] && b->link_layer[0] &&
			    strcmp(a->link_layer, b->link_layer))
				return bad(err, errlen,
					   "--rails: %s is %s but %s is %s: "
					   "rails of one link layer",
					   a->name, a->link_layer, b->name,
					   b->link_layer);
			if (!strcmp(a->netdev, b->netdev))
				return bad(err, errlen,
					   "--rails: %s and %s are one rail "
					   "(both on %s)",
					   a->name, b->name, a->netdev);
		}
	return 0;
}

/* Stable, by NUMA node, an unknown node (-1) last. */
static void order_numa(struct rp_rails *rs)
{
	struct rp_rail t;
	unsigned int i, j;

	for (i = 1; i < rs->n; i++)
		for (j = i; j > 0 && (unsigned int)rs->rail[j - 1].numa >
					     (unsigned int)rs->rail[j].numa;
		     j--) {
			t = rs->rail[j];
			rs->rail[j] = rs->rail[j - 1];
			rs->rail[j - 1] = t;
		}
}

int rp_rails_resolve(const char *arg, bool rdma, bool numa,
		     struct rp_rails *out, char *err, size_t errlen)
{
	struct ifaddrs *all = NULL;
	int ret = rp_rails_check(arg, err, errlen);

	out->n = 0;
	if (ret)
		return ret;
	if (getifaddrs(&all))
		return bad(err, errlen, "--rails: getifaddrs: %s",
			   strerror(errno));
	ret = !strcmp(arg, "auto")
		      ? rails_auto(all, out, err, errlen)
		      : rails_list(arg, rdma, all, out, err, errlen);
	freeifaddrs(all);
	if (!ret)
		ret = rails_consistent(out, err, errlen);
	if (!ret && numa)
		order_numa(out);
	if (ret)
		out->n = 0;
	return ret;
}
#endif
