// SPDX-License-Identifier: MIT
/* TCP transport: the stream transport over the kernel's socket calls. */
#include "xport/sock/sock.h"

static int tcp_probe(const struct rp_xport_ops *self, struct rp_err *why)
{
	(void)self;
	(void)why;
	return 0;
}

/* --tos: IP_TOS and IPV6_TCLASS; Windows ignores both (it marks through
 * its QoS API alone), so a Windows build refuses --tos. */
#ifdef _WIN32
#define TCP_TOS false
#else
#define TCP_TOS true
#endif

static const struct rp_sock_xport tcp_xport = {
	.ops = RP_SOCK_OPS("tcp", tcp_probe, NULL, NULL, TCP_TOS),
	.calls = &rp_sock_kernel,
};

const struct rp_xport_ops *const rp_xport_tcp = &tcp_xport.ops;
