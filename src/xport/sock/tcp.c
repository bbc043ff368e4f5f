// SPDX-License-Identifier: MIT
/* TCP transport: the stream transport over the kernel's socket calls. */
#include "xport/sock/sock.h"

static int tcp_probe(const struct rp_xport_ops *self, struct rp_err *why)
{
	(void)self;
	(void)why;
	return 0;
}

static const struct rp_sock_xport tcp_xport = {
	.ops = RP_SOCK_OPS("tcp", tcp_probe, NULL, NULL),
	.calls = &rp_sock_kernel,
};

const struct rp_xport_ops *const rp_xport_tcp = &tcp_xport.ops;
