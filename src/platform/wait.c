// SPDX-License-Identifier: MIT
/* POSIX side of platform/wait.h. */
#include <errno.h>
#include <fcntl.h>
#include <sys/random.h>
#include <unistd.h>

#include "core/clock.h"
#include "platform/wait.h"

int rp_wait_fd(rp_poll_fn pollfn, int fd, short events, uint64_t deadline_ns)
{
	struct pollfd pfd = { .fd = fd, .events = events };
	int ms, n;

	if (!pollfn)
		pollfn = poll;
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

static int urandom(void *buf, size_t len)
{
	size_t off = 0;
	ssize_t n;
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	while (off < len && !err) {
		n = read(fd, (char *)buf + off, len - off);
		if (n > 0)
			off += (size_t)n;
		else if (n == 0)
			err = -EIO;
		else if (errno != EINTR)
			err = -errno;
	}
	close(fd);
	return err;
}

int rp_random_bytes(void *buf, size_t len)
{
	size_t off = 0;
	ssize_t n;

	while (off < len) {
		n = getrandom((char *)buf + off, len - off, 0);
		if (n > 0)
			off += (size_t)n;
		else if (n < 0 && errno != EINTR)
			return urandom((char *)buf + off, len - off);
	}
	return 0;
}
