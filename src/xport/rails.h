/* SPDX-License-Identifier: MIT */
/*
 * Rails (--rails, -d A,B): the NICs one test spreads its streams over.
 * A rail is named by its RDMA device (mlx5_0, rxe1) or, for the socket
 * transports, by its network interface (eth1); either way it comes down
 * to the interface that carries it and that interface's address, which
 * a stream on the rail connects from (the client) or to (the server).
 * Stream k of each direction runs on rail k % n, and rail i of the client
 * meets rail i of the server (--rail-map index) or, with --rail-map numa,
 * each side puts its rails in the order of their NUMA nodes first.
 */
#ifndef RP_XPORT_RAILS_H
#define RP_XPORT_RAILS_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "core/spec.h"
#include "platform/net.h"
#include "xport/sysfs.h"

#define RP_RAILS_MAX RP_SPEC_MAX_RAILS /* rails of one test */
#define RP_RAILS_ARG 512	       /* --rails' argument, with its NUL */

struct rp_rail {
	char name[RP_SYSFS_NAME];    /* as given, or the device auto found */
	char device[RP_SYSFS_NAME];  /* its RDMA device; "" for an interface */
	char netdev[RP_SYSFS_NAME];  /* the interface that carries it */
	char link_layer[16];	     /* InfiniBand, Ethernet; "" unknown */
	char addr4[RP_NET_ADDR_LEN]; /* its addresses, "" none */
	char addr6[RP_NET_ADDR_LEN];
	int numa; /* the NUMA node of its device, -1 unknown */
};

struct rp_rails {
	unsigned int n;
	struct rp_rail rail[RP_RAILS_MAX];
};

/**
 * rp_rails_check - @arg as --rails takes it: "auto", or 1 to RP_RAILS_MAX
 * names, comma-separated, none twice. Only the syntax: what the names
 * are is rp_rails_resolve's. Return: 0, or -EINVAL with a reason.
 */
int rp_rails_check(const char *arg, char *err, size_t errlen);

/**
 * rp_rails_resolve - the rails @arg names (rp_rails_check's form), in
 * its order; "auto": every RDMA device with an active port whose
 * interface has an address, by name. @rdma: each must be an RDMA device
 * (the rdma transport), else an interface will do. Rails of different
 * link layers are refused, and so is a name that is neither an RDMA
 * device nor an interface, or one with no address of either family.
 * @numa: order them by NUMA node (stable). Return: 0, or -ENODEV,
 * -EINVAL with a one-line reason in @err.
 */
int rp_rails_resolve(const char *arg, bool rdma, bool numa,
		     struct rp_rails *out, char *err, size_t errlen);

/** rp_rail_addr - @r's address of @family (AF_INET, AF_INET6), or NULL. */
const char *rp_rail_addr(const struct rp_rail *r, int family);

/**
 * rp_rails_pick - the first @n rails of @rs for a test whose addresses
 * are of @family, each of which must have one. Return: 0, or -EOPNOTSUPP
 * with a one-line reason ("the server has 1 rail, ...") naming @side.
 */
int rp_rails_pick(struct rp_rails *rs, unsigned int n, int family,
		  const char *side, char *err, size_t errlen);

/**
 * rp_rails_json - @rs as the SETUP reply and the result describe one
 * side's rails: an array of {rail, name, device, netdev, address, numa},
 * each address of @family. NULL: out of memory.
 */
cJSON *rp_rails_json(const struct rp_rails *rs, int family);

/**
 * rp_rails_addresses - the numeric addresses of @n rails in @a (an array
 * rp_rails_json made, from the peer) into @out, checked: each of @family.
 * Return: 0, or -EPROTO with a reason.
 */
int rp_rails_addresses(const cJSON *a, unsigned int n, int family,
		       char out[][RP_NET_ADDR_LEN], char *err, size_t errlen);

#endif
