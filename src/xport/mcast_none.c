// SPDX-License-Identifier: MIT
/*
 * --mcast without the rdma transport (xport/mcast.h): every call says so.
 * Built only where xport/verbs/ is not (CMakeLists.txt).
 */
#include <errno.h>

#include "xport/mcast.h"

int rp_mcast_open(const char *local, const char *group, bool sender,
		  uint32_t depth, uint32_t size, struct rp_mcast **out,
		  struct rp_err *why)
{
	(void)local, (void)group, (void)sender, (void)depth, (void)size;
	*out = NULL;
	return rp_errf(why, -EOPNOTSUPP,
		       "--mcast: this build has no rdma transport");
}

const char *rp_mcast_device(const struct rp_mcast *m)
{
	(void)m;
	return "";
}

int rp_mcast_mtu(const struct rp_mcast *m)
{
	(void)m;
	return 0;
}

int rp_mcast_post(struct rp_mcast *m, uint64_t seq, uint64_t now_ns)
{
	(void)m, (void)seq, (void)now_ns;
	return -EOPNOTSUPP;
}

int rp_mcast_reap(struct rp_mcast *m, int timeout_ms)
{
	(void)m, (void)timeout_ms;
	return -EOPNOTSUPP;
}

int rp_mcast_recv(struct rp_mcast *m, struct rp_mcast_arrival *out, int n,
		  int timeout_ms, struct rp_err *why)
{
	(void)m, (void)out, (void)n, (void)timeout_ms;
	return rp_errf(why, -EOPNOTSUPP,
		       "--mcast: this build has no rdma transport");
}

void rp_mcast_close(struct rp_mcast *m)
{
	(void)m;
}
