// SPDX-License-Identifier: MIT
/*
 * POSIX side of platform/sock.h's zero-copy sends: Linux's SO_ZEROCOPY and
 * MSG_ZEROCOPY (4.14 and later), notifications read from the socket's error
 * queue as struct sock_extended_err of origin SO_EE_ORIGIN_ZEROCOPY, the
 * range of send calls in ee_info..ee_data (Documentation/networking/
 * msg_zerocopy.rst). Built where CMake finds these in the headers;
 * elsewhere platform/zc_none.c.
 */
#include <errno.h>
#include <string.h>

#include "platform/sock.h"

#include <linux/errqueue.h> /* after sock.h: it needs struct timespec */

bool rp_net_zc_built(void)
{
	return true;
}

int rp_net_zc_enable(rp_sock_t fd)
{
	int one = 1;

	if (setsockopt(fd, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof(one)))
		return -errno;
	return 0;
}

/* The zero-copy notification of one error-queue message, if it is one. */
static bool zc_of(struct msghdr *msg, uint32_t *lo, uint32_t *hi, bool *copied)
{
	struct cmsghdr *cm;
	struct sock_extended_err ee;

	for (cm = CMSG_FIRSTHDR(msg); cm; cm = CMSG_NXTHDR(msg, cm)) {
		if (cm->cmsg_len < CMSG_LEN(sizeof(ee)))
			continue;
		memcpy(&ee, CMSG_DATA(cm), sizeof(ee));
		if (ee.ee_errno != 0 || ee.ee_origin != SO_EE_ORIGIN_ZEROCOPY)
			continue;
		*lo = ee.ee_info;
		*hi = ee.ee_data;
		*copied = ee.ee_code & SO_EE_CODE_ZEROCOPY_COPIED;
		return true;
	}
	return false;
}

int rp_net_zc_reap(rp_sock_t fd, uint32_t *lo, uint32_t *hi, bool *copied)
{
	union {
		char buf[CMSG_SPACE(sizeof(struct sock_extended_err)) + 64];
		struct cmsghdr align;
	} ctl;
	struct msghdr msg;

	for (;;) {
		memset(&msg, 0, sizeof(msg));
		msg.msg_control = ctl.buf;
		msg.msg_controllen = sizeof(ctl.buf);
		if (recvmsg(fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT) < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK ||
			    errno == EINTR)
				return 0;
			return -errno;
		}
		if (zc_of(&msg, lo, hi, copied))
			return 1;
	}
}
