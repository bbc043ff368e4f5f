/* SPDX-License-Identifier: MIT */
/* What the RDMA transports (rdma, rsocket) share about this host: whether
 * it has a device, and the address a loopback test reaches it by. */
#ifndef RP_XPORT_RDMA_ADDR_H
#define RP_XPORT_RDMA_ADDR_H

#include <stddef.h>

#include "xport/xport.h"

/**
 * rp_rdma_loopback_addr - an IPv4 address of a network device that carries
 * an RDMA port (of @p->device, or of any device when @p or its device is
 * NULL): the loopback_addr op of the rdma and rsocket transports.
 * Return: 0, or -ENODEV when there is none.
 */
int rp_rdma_loopback_addr(const struct rp_xport_params *p, char *buf,
			  size_t len);

/** rp_rdma_device_count - how many RDMA devices libibverbs sees (0: none). */
int rp_rdma_device_count(void);

#endif
