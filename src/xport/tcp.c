// SPDX-License-Identifier: MIT
/* TCP transport: the stream transport over the kernel's socket calls. */
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include "xport/sock.h"

static const struct rp_sock_calls tcp_calls = {
	.socket = socket,
	.bind = bind,
	.listen = listen,
	.accept = accept,
	.connect = connect,
	.send = send,
	.recv = recv,
	.poll = poll,
	.close = close,
	.setsockopt = setsockopt,
	.getsockopt = getsockopt,
	.getsockname = getsockname,
	.fcntl = fcntl,
};

static int tcp_probe(char *why, size_t len)
{
	(void)why;
	(void)len;
	return 0;
}

static int tcp_listen(const struct rp_spec *spec,
		      const struct rp_xport_params *p, cJSON *endpoint,
		      struct rp_listener **out)
{
	return rp_sock_listen(&tcp_calls, spec, p, endpoint, out);
}

static int tcp_connect(const struct rp_spec *spec,
		       const struct rp_xport_params *p, const char *host,
		       const cJSON *endpoint, const char *token, int timeout_ms,
		       struct rp_stream **out)
{
	return rp_sock_connect(&tcp_calls, spec, p, host, endpoint, token,
			       timeout_ms, out);
}

const struct rp_xport_ops rp_xport_tcp =
	RP_SOCK_XPORT("tcp", tcp_calls, tcp_probe, tcp_listen, tcp_connect);
