// SPDX-License-Identifier: MIT
/*
 * The IP address of a network device that carries an RDMA port (RoCE,
 * iWARP, IPoIB), found through sysfs: /sys/class/infiniband/DEV/ports/N/
 * gid_attrs/ndevs/I names the netdev of each GID. --loopback uses it, since
 * rdma_cm cannot reach a device through 127.0.0.1.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "xport/rdma_addr.h"
#include "xport/verbs/params.h"

#define IB_SYSFS "/sys/class/infiniband"

/* First IPv4 address of @ifname into @buf; 0 or -ENOENT. */
static int ipv4_of(const char *ifname, char *buf, size_t len)
{
	struct ifaddrs *ifa, *i;
	int err = -ENOENT;

	if (getifaddrs(&ifa))
		return -errno;
	for (i = ifa; i && err; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET ||
		    strcmp(i->ifa_name, ifname) || !(i->ifa_flags & IFF_UP))
			continue;
		inet_ntop(AF_INET,
			  &((struct sockaddr_in *)i->ifa_addr)->sin_addr, buf,
			  (socklen_t)len);
		err = 0;
	}
	freeifaddrs(ifa);
	return err;
}

/* The netdev behind GID 0 of port 1 of @dev, into @ifname. */
static int netdev_of(const char *dev, char *ifname, size_t len)
{
	char path[512];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), IB_SYSFS "/%s/ports/1/gid_attrs/ndevs/0",
		 dev);
	f = fopen(path, "r");
	if (!f)
		return -ENOENT;
	ok = fgets(ifname, (int)len, f) != NULL;
	fclose(f);
	if (!ok)
		return -ENOENT;
	ifname[strcspn(ifname, "\n")] = '\0';
	return ifname[0] ? 0 : -ENOENT;
}

int rp_rdma_loopback_addr(const struct rp_xport_params *p, char *buf,
			  size_t len)
{
	const struct rv_opts *o = rp_xport_own_c(p, &rp_xport_rdma_options);
	const char *device = o && o->device[0] ? o->device : NULL;
	char ifname[IF_NAMESIZE + 1];
	struct dirent *e;
	DIR *d = opendir(IB_SYSFS);
	int err = -ENODEV;

	if (!d)
		return -ENODEV;
	while (err && (e = readdir(d))) {
		if (e->d_name[0] == '.' ||
		    (device && strcmp(device, e->d_name)))
			continue;
		if (netdev_of(e->d_name, ifname, sizeof(ifname)) == 0)
			err = ipv4_of(ifname, buf, len);
	}
	closedir(d);
	return err;
}

int rp_rdma_device_count(void)
{
	struct ibv_device **list;
	int n = 0;

	list = ibv_get_device_list(&n);
	if (!list)
		return 0;
	ibv_free_device_list(list);
	return n > 0 ? n : 0;
}
