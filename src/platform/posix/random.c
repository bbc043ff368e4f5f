// SPDX-License-Identifier: MIT
/* POSIX side of rp_random_bytes (platform/wait.h). */
#include <errno.h>
#include <fcntl.h>
#include <sys/random.h>
#include <unistd.h>

#include "platform/wait.h"

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
