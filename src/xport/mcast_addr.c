// SPDX-License-Identifier: MIT
/*
 * --mcast's group address, checked on every build (the command line
 * refuses a bad one whether or not the rdma transport is built).
 */
#include <stdint.h>

#include "platform/sock.h"
#include "xport/mcast.h"

bool rp_mcast_group_ok(const char *text)
{
	uint8_t a[16];

	if (inet_pton(AF_INET, text, a) == 1)
		return a[0] >= 224 && a[0] <= 239; /* 224.0.0.0/4 */
	return inet_pton(AF_INET6, text, a) == 1 && a[0] == 0xff; /* ff00::/8 */
}
