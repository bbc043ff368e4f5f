// SPDX-License-Identifier: MIT
/*
 * The link a stream socket runs on: the network device that holds the
 * socket's local address (xport/link.c reads its facts), and for TCP the
 * kernel's retransmission counters and that device's statistics. An
 * rsocket runs on RDMA: its netdev's facts say what link it is, but the
 * kernel's TCP counters say nothing of it, so it has none.
 */
#include <errno.h>
#include <string.h>

#include "platform/net.h"
#include "xport/link.h"
#include "xport/sock/sock.h"

/* The name of the device that holds @s's local address. */
static int sock_ifname(struct sock_stream *s, char *buf, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char addr[64];

	if (s->c->getsockname(s->fd, (struct sockaddr *)&ss, &sl) < 0 ||
	    rp_net_addr_text((struct sockaddr *)&ss, sl, addr, sizeof(addr)))
		return -ENODEV;
	return rp_link_ifname_of(addr, buf, len);
}

cJSON *rp_sock_link_facts(struct rp_stream *base)
{
	char ifname[64];

	if (sock_ifname(sock_stream(base), ifname, sizeof(ifname)))
		return NULL;
	return rp_link_netdev(ifname);
}

int rp_sock_counters(struct rp_stream *base, struct rp_counters *out)
{
	char ifname[64];

	if (strcmp(base->ops->name, "tcp"))
		return -EOPNOTSUPP;
	if (sock_ifname(sock_stream(base), ifname, sizeof(ifname)))
		return rp_counters_read_tcp(NULL, out);
	return rp_counters_read_tcp(ifname, out);
}
