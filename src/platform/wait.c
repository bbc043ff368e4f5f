// SPDX-License-Identifier: MIT
/* rp_wait_fd of platform/wait.h, on any system (rp_random_bytes: posix/
 * and win/). */
#include <errno.h>

#include "platform/clock.h"
#include "platform/wait.h"

int rp_wait_fd(rp_poll_fn pollfn, rp_sock_t fd, short events,
	       uint64_t deadline_ns)
{
	struct pollfd pfd = { .fd = fd, .events = events };
	int ms, n;

	if (!pollfn)
		pollfn = rp_poll;
	for (;;) {
		ms = rp_ms_left(deadline_ns);
		if (ms == 0)
			return -ETIMEDOUT;
		n = pollfn(&pfd, 1, ms);
		if (n > 0)
			return (pfd.revents & POLLNVAL) ? -EBADF : 0;
		if (n < 0 && errno != EINTR)
			return -errno;
	}
}
