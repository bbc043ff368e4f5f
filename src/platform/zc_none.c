// SPDX-License-Identifier: MIT
/*
 * platform/sock.h's zero-copy sends where there are none (Windows, or Linux
 * headers without SO_ZEROCOPY; CMakeLists.txt picks this file or
 * platform/posix/zerocopy.c): --zerocopy is refused before a test, since
 * rp_net_zc_built says false.
 */
#include <errno.h>

#include "platform/sock.h"

bool rp_net_zc_built(void)
{
	return false;
}

int rp_net_zc_enable(rp_sock_t fd)
{
	(void)fd;
	return -EOPNOTSUPP;
}

int rp_net_zc_reap(rp_sock_t fd, uint32_t *lo, uint32_t *hi, bool *copied)
{
	(void)fd;
	(void)lo;
	(void)hi;
	(void)copied;
	return 0;
}
