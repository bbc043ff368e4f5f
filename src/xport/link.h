/* SPDX-License-Identifier: MIT */
/*
 * What this host's side of a link is, and what its NIC counted: read from
 * sysfs and /proc under a root the tests can set ($RP_SYSFS_ROOT, default
 * "/"), so recorded trees (tests/fixtures/sysfs/) stand in for a device.
 * Facts that are not there are named as missing, never made up: rxe on a
 * dummy netdev reports a rate its netdev does not have, and that rate is
 * given as unknown.
 */
#ifndef RP_XPORT_LINK_H
#define RP_XPORT_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "core/counters.h"
#include "xport/sysfs.h" /* rp_sysfs_root */

/** What a transport already knows of its port (from verbs), passed in so
 *  the facts say it; 0 / -1 / NULL: not known. */
struct rp_link_known {
	uint32_t active_mtu; /* bytes, ibv_query_port's active_mtu */
	int gid_index;	     /* the GID the connection uses, -1: none */
};

/**
 * rp_link_rdma - the facts of RDMA device @dev's port @port as a JSON
 * object (schema/: "link"): kind "rdma", device, port, state, phys_state,
 * rate (sysfs text), rate_gbps (null when not known: an Ethernet port whose
 * netdev has no speed), width, link_layer, active_mtu, netdev, netdev_mtu,
 * fw_ver, board_id, node_guid, gid {index, gid, type, ipv4_mapped, why},
 * pcie {speed_gts, width, max_speed_gts, max_width, gbps, max_gbps,
 * downtrained}, numa_node, provider (rxe, siw, mlx5, ...: the device
 * name's driver), and "missing": the names of the facts it could not read.
 * Return: the object (the caller owns it), NULL only when out of memory.
 */
cJSON *rp_link_rdma(const char *dev, unsigned port,
		    const struct rp_link_known *known);

/**
 * rp_link_netdev - the facts of network device @ifname (kind "netdev"):
 * netdev, speed_mbps (null when unknown), rate_gbps, duplex, mtu, driver,
 * operstate, pcie and numa_node as above where it has a PCI parent,
 * "missing". NULL only when out of memory.
 */
cJSON *rp_link_netdev(const char *ifname);

/**
 * rp_link_ifname_of - the name of the network device that holds local IP
 * address @addr (text, v4 or v6) into @buf; "lo" for a loopback address.
 * Return: 0, or -ENODEV when no device holds it.
 */
int rp_link_ifname_of(const char *addr, char *buf, size_t len);

/**
 * rp_counters_read_rdma - a snapshot of port @port of @dev: every file of
 * ports/N/counters (group "port", the data counters in bytes: sysfs counts
 * them in 4-byte words) and of ports/N/hw_counters and the device's
 * hw_counters (group "hw"), each by its own name; provider set.
 * Return: 0, or -ENOENT when the port has no counters at all.
 */
int rp_counters_read_rdma(const char *dev, unsigned port,
			  struct rp_counters *out);

/**
 * rp_counters_read_tcp - a snapshot for TCP over @ifname: the kernel's
 * retransmission counters (/proc/net/snmp Tcp: RetransSegs, /proc/net/netstat
 * TcpExt: the *Retrans*, TCPTimeouts, TCPLossProbes and the like; group
 * "tcp") and the netdev's statistics (rx/tx dropped, errors, fifo, ...;
 * group "netdev"); provider "tcp".
 * Return: 0, or -ENOENT when neither could be read.
 */
int rp_counters_read_tcp(const char *ifname, struct rp_counters *out);

#ifdef RP_HAVE_RDMA
/** rp_link_active_mtu - the active MTU of @dev's port @port in bytes, from
 *  verbs (sysfs does not say it): 0, or -ENODEV (xport/verbs/link.c; only
 *  in a build with RDMA). */
int rp_link_active_mtu(const char *dev, unsigned port, uint32_t *mtu);
#endif

#endif
