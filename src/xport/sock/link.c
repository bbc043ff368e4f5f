// SPDX-License-Identifier: MIT
/*
 * The link a stream socket runs on: the network device that holds the
 * socket's local address (xport/link.c reads its facts), and for TCP the
 * kernel's retransmission counters (the host's, and each connection's own
 * from TCP_INFO, which alone say what this test resent) and that device's
 * statistics. An
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

int rp_sock_stream_counters(struct rp_stream *base, struct rp_counters *acc)
{
#if defined(__linux__) && defined(TCP_INFO)
	struct sock_stream *s = sock_stream(base);
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	if (strcmp(base->ops->name, "tcp"))
		return -EOPNOTSUPP;
	memset(&ti, 0, sizeof(ti));
	if (s->c->getsockopt(s->fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0)
		return -errno;
	/* every segment this connection sent again, whatever the cause */
	rp_counters_add(acc, RP_COUNTERS_SOCKET, "total_retrans",
			ti.tcpi_total_retrans);
	return 0;
#else
	(void)base;
	(void)acc;
	return -EOPNOTSUPP; /* Windows: SIO_TCP_INFO is not read yet */
#endif
}
