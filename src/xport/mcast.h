/* SPDX-License-Identifier: MIT */
/*
 * --mcast: one UD queue pair joined to an IP multicast group through
 * rdma_cm (RDMA_PS_UDP), for the client that sends to the group and for
 * each server that receives from it (run/mcast.c, run/session_mcast.c).
 *
 * A message is one datagram of the test's size, at most the path MTU; its
 * first RP_MCAST_HDR bytes are its header, written by the sender: a magic
 * number, the sequence number and the sender's clock when it was posted.
 * A receiver gives back, for each datagram that arrived, that header and
 * its own clock when the completion was polled.
 *
 * Built with the rdma transport (xport/verbs/mcast.c); without it every
 * call answers -EOPNOTSUPP (xport/mcast_none.c).
 */
#ifndef RP_XPORT_MCAST_H
#define RP_XPORT_MCAST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

#define RP_MCAST_HDR   24	   /* magic, seq, sent_ns */
#define RP_MCAST_MAGIC 0x4d435354u /* "MCST" */

struct rp_mcast;

struct rp_mcast_arrival {
	uint64_t seq;
	uint64_t sent_ns;    /* the sender's clock */
	uint64_t arrived_ns; /* this side's */
	uint32_t len;	     /* the message, without the GRH */
	bool bad;	     /* too short, or not our magic: not counted */
};

/* Join @group (an IPv4 or IPv6 multicast address) from the RDMA device
 * that holds local address @local: @depth sends (a sender) or receives
 * posted, each @size bytes (RP_MCAST_HDR at least, the MTU at most). */
int rp_mcast_open(const char *local, const char *group, bool sender,
		  uint32_t depth, uint32_t size, struct rp_mcast **out,
		  struct rp_err *why);
/* The device and port joined, and the path MTU (after open). */
const char *rp_mcast_device(const struct rp_mcast *m);
int rp_mcast_mtu(const struct rp_mcast *m);

/* The sender: post message @seq stamped @now_ns; -EAGAIN while @depth
 * sends are in flight (reap first). */
int rp_mcast_post(struct rp_mcast *m, uint64_t seq, uint64_t now_ns);
/* The sender: the sends completed since the last call (>= 0), or -errno
 * for a failed one; waits at most @timeout_ms for one (0: only looks). */
int rp_mcast_reap(struct rp_mcast *m, int timeout_ms);
/* The receiver: up to @n datagrams that arrived into @out, each receive
 * posted again; waits at most @timeout_ms for the first. Returns the
 * count, or -errno. */
int rp_mcast_recv(struct rp_mcast *m, struct rp_mcast_arrival *out, int n,
		  int timeout_ms, struct rp_err *why);
void rp_mcast_close(struct rp_mcast *m);

/* Whether @text is an IPv4 or IPv6 multicast address (numeric). */
bool rp_mcast_group_ok(const char *text);

#endif
