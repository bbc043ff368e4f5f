// SPDX-License-Identifier: MIT
/*
 * rsocket transport: the stream transport driven through librdmacm's
 * rsocket calls, which carry a byte stream over RDMA (the successor of
 * SDP). Same semantics as TCP: cumulative acknowledgements, queue depth,
 * ping-pong. Like rdma, it needs an RDMA netdev's address for --loopback.
 * Its descriptors are rsockets, not the kernel's: under --wait event the
 * engine sleeps on them through rpoll (the ops' wait_poll).
 */
#include <errno.h>
#include <fcntl.h>

#include <rdma/rsocket.h>

#include "xport/rdma_addr.h"
#include "xport/sock/sock.h"

static int rsocket_nonblock(int fd)
{
	int fl = rfcntl(fd, F_GETFL);

	return fl < 0 ? -1 : rfcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

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
	.set_nonblock = rsocket_nonblock,
	.idle_sleep_us = 50,
#ifdef RP_RSOCKET_MAX_OPEN
	/* librdmacm before rdma-core v53: its connection service thread
	 * (cm_svc_run) keeps polling a freed pollfd array once its table
	 * grows past 3 rsockets, writing into memory the process reuses
	 * (rdma-core PR #1484). CMake sets the cap for such a library. */
	.max_open = RP_RSOCKET_MAX_OPEN,
	.max_open_why = "this librdmacm (before rdma-core v53) corrupts "
			"memory once a process holds more than 3 rsockets "
			"(rdma-core PR #1484): at most 3 rsocket streams per "
			"process here (-P, doubled by --bidir; client and "
			"server together with --loopback)",
#endif
};

static int rsocket_probe(const struct rp_xport_ops *self, struct rp_err *why)
{
	(void)self;
	if (rp_rdma_device_count() > 0)
		return 0;
	return rp_errf(why, -ENODEV,
		       "no RDMA device found (rsockets run over RDMA); "
		       "try -x tcp");
}

static const struct rp_sock_xport rsocket_xport = {
	.ops = RP_SOCK_OPS("rsocket", rsocket_probe, rp_rdma_loopback_addr,
			   rpoll),
	.calls = &rsocket_calls,
};

const struct rp_xport_ops *const rp_xport_rsocket = &rsocket_xport.ops;
