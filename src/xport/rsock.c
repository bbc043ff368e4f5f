// SPDX-License-Identifier: MIT
/*
 * rsocket transport: the stream transport of sock.c driven through
 * librdmacm's rsocket calls, which carry a byte stream over RDMA (the
 * successor of SDP). Same semantics as TCP: cumulative acknowledgements,
 * queue depth, ping-pong.
 */
#include <errno.h>
#include <stdio.h>

#include <infiniband/verbs.h>
#include <rdma/rsocket.h>

#include "xport/sock.h"

static const struct rp_sock_calls rsocket_calls = {
	.socket = rsocket,
	.bind = rbind,
	.listen = rlisten,
	.accept = raccept,
	.connect = rconnect,
	.send = rsend,
	.recv = rrecv,
	.poll = rpoll,
	.close = rclose,
	.setsockopt = rsetsockopt,
	.getsockopt = rgetsockopt,
	.getsockname = rgetsockname,
	.fcntl = rfcntl,
	.idle_sleep_us = 50,
};

static int rsocket_probe(char *why, size_t len)
{
	struct ibv_device **list;
	int n = 0;

	list = ibv_get_device_list(&n);
	if (list)
		ibv_free_device_list(list);
	if (n > 0)
		return 0;
	snprintf(why, len,
		 "no RDMA device found (rsockets run over RDMA); try -x tcp");
	return -ENODEV;
}

static int rsocket_listen(const struct rp_spec *spec,
			  const struct rp_xport_params *p, cJSON *endpoint,
			  struct rp_listener **out)
{
	return rp_sock_listen(&rsocket_calls, spec, p, endpoint, out);
}

static int rsocket_connect(const struct rp_spec *spec,
			   const struct rp_xport_params *p, const char *host,
			   const cJSON *endpoint, const char *token,
			   int timeout_ms, struct rp_stream **out)
{
	return rp_sock_connect(&rsocket_calls, spec, p, host, endpoint, token,
			       timeout_ms, out);
}

const struct rp_xport_ops rp_xport_rsocket =
	RP_SOCK_XPORT("rsocket", rsocket_calls, rsocket_probe, rsocket_listen,
		      rsocket_connect);
