// SPDX-License-Identifier: MIT
/*
 * A link's counters (xport/link.h): every counter file of an RDMA port
 * (ports/N/counters, hw_counters), TCP's counters of /proc/net, a netdev's
 * statistics, read under $RP_SYSFS_ROOT (xport/sysfs.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xport/link.h"
#include "xport/sysfs.h"

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

/* Every counter file of directory @rel (as on the host) into @out, in
 * name order. */
static unsigned int read_dir(const char *rel, const char *group, bool words,
			     struct rp_counters *out)
{
	char(*names)[RP_SYSFS_NAME] = malloc(RP_COUNTERS_MAX * sizeof(*names));
	char v[RP_SYSFS_LINE];
	unsigned int n = 0, i, k;
	uint64_t x;

	k = names ? rp_sysfs_list(names, RP_COUNTERS_MAX, "%s", rel) : 0;
	for (i = 0; i < k; i++) {
		if (!strcmp(names[i], "lifespan") ||
		    !rp_sysfs_read(v, sizeof(v), "%s/%s", rel, names[i]) ||
		    !rp_sysfs_u64(v, &x))
			continue;
		/* the data counters count 4-byte words */
		if (words && (!strcmp(names[i], "port_rcv_data") ||
			      !strcmp(names[i], "port_xmit_data")))
			x = x > UINT64_MAX / 4 ? UINT64_MAX : x * 4;
		add_counter(out, group, names[i], x);
		n++;
	}
	free(names);
	return n;
}

/* A "Name: a b c" / "Name: 1 2 3" pair of lines of /proc/net/snmp or
 * netstat: the fields of section @sect that @want() keeps. */
static unsigned int read_proc_pairs(const char *rel, const char *sect,
				    bool (*want)(const char *),
				    struct rp_counters *out)
{
	char path[RP_SYSFS_PATH], head[4096], vals[4096];
	char *hs, *vs, *h, *x;
	size_t sl = strlen(sect);
	unsigned int n = 0;
	uint64_t v;
	FILE *f;

	if (!rp_sysfs_path(path, sizeof(path), "%s", rel))
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
			if (want(h) && rp_sysfs_u64(x, &v)) {
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
	char rel[RP_SYSFS_PATH], nd[RP_SYSFS_LINE];
	unsigned int n;

	memset(out, 0, sizeof(*out));
	rp_sysfs_provider(dev, out->provider, sizeof(out->provider));
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
		if (rp_sysfs_port_netdev(dev, port, -1, nd, sizeof(nd))) {
			snprintf(rel, sizeof(rel),
				 "/sys/class/net/%s/statistics", nd);
			n += read_dir(rel, "netdev", false, out);
		}
	}
	return n ? 0 : -ENOENT;
}

int rp_counters_read_tcp(const char *ifname, struct rp_counters *out)
{
	char rel[RP_SYSFS_PATH];
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
