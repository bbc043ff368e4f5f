// SPDX-License-Identifier: MIT
/* POSIX side of platform/sock.h, and the kernel's socket calls. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <time.h>
#include <unistd.h>

#include "platform/net.h"
#include "platform/sock.h"

int rp_net_errno(void)
{
	return errno;
}

rp_sock_t rp_net_socket(int domain, int type, int protocol)
{
	return socket(domain, type | SOCK_CLOEXEC, protocol);
}

rp_sock_t rp_net_accept(rp_sock_t fd, struct sockaddr *addr, socklen_t *len)
{
	return accept(fd, addr, len);
}

int rp_net_connect(rp_sock_t fd, const struct sockaddr *addr, socklen_t len)
{
	return connect(fd, addr, len);
}

ssize_t rp_net_send(rp_sock_t fd, const void *buf, size_t len, int flags)
{
	return send(fd, buf, len, flags);
}

ssize_t rp_net_recv(rp_sock_t fd, void *buf, size_t len, int flags)
{
	return recv(fd, buf, len, flags);
}

int rp_net_setsockopt(rp_sock_t fd, int level, int name, const void *val,
		      socklen_t len)
{
	return setsockopt(fd, level, name, val, len);
}

int rp_net_getsockopt(rp_sock_t fd, int level, int name, void *val,
		      socklen_t *len)
{
	return getsockopt(fd, level, name, val, len);
}

int rp_net_nonblock(rp_sock_t fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -1;
	return 0;
}

int rp_net_close(rp_sock_t fd)
{
	return close(fd);
}

int rp_poll(struct pollfd *fds, rp_nfds_t n, int timeout_ms)
{
	return poll(fds, n, timeout_ms);
}

int rp_poll_ns(struct pollfd *fds, rp_nfds_t n, uint64_t timeout_ns)
{
	struct timespec ts = { .tv_sec = (time_t)(timeout_ns / 1000000000ULL),
			       .tv_nsec = (long)(timeout_ns % 1000000000ULL) };

	return ppoll(fds, n, &ts, NULL);
}

/* The hot path's calls go straight to the C library. */
const struct rp_sock_calls rp_sock_kernel = {
	.socket = rp_net_socket,
	.bind = bind,
	.listen = listen,
	.accept = accept,
	.connect = connect,
	.send = send,
	.recv = recv,
	.poll = poll,
	.close = close,
	.setsockopt = setsockopt,
	.getsockopt = getsockopt,
	.getsockname = getsockname,
	.set_nonblock = rp_net_nonblock,
};
