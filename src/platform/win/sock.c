// SPDX-License-Identifier: MIT
/*
 * Windows side of platform/sock.h, and the kernel's socket calls: Winsock
 * behind POSIX's conventions (-1 and errno, SO_ERROR as an errno value,
 * sockets non-blocking from birth, WSAPoll for poll).
 */
#include <errno.h>
#include <limits.h>

#include "platform/net.h"
#include "platform/sock.h"

struct wsa_errno {
	int wsa, err;
};

static const struct wsa_errno wsa_map[] = {
	{ WSAEWOULDBLOCK, EAGAIN },
	{ WSAEINPROGRESS, EINPROGRESS },
	{ WSAEALREADY, EALREADY },
	{ WSAEINTR, EINTR },
	{ WSAECONNRESET, ECONNRESET },
	{ WSAECONNABORTED, ECONNABORTED },
	{ WSAECONNREFUSED, ECONNREFUSED },
	{ WSAETIMEDOUT, ETIMEDOUT },
	{ WSAENETDOWN, ENETDOWN },
	{ WSAENETUNREACH, ENETUNREACH },
	{ WSAENETRESET, ENETRESET },
	{ WSAEHOSTUNREACH, EHOSTUNREACH },
	{ WSAEHOSTDOWN, EHOSTUNREACH },
	{ WSAEADDRINUSE, EADDRINUSE },
	{ WSAEADDRNOTAVAIL, EADDRNOTAVAIL },
	{ WSAEAFNOSUPPORT, EAFNOSUPPORT },
	{ WSAEPFNOSUPPORT, EAFNOSUPPORT },
	{ WSAEACCES, EACCES },
	{ WSAEINVAL, EINVAL },
	{ WSAEFAULT, EFAULT },
	{ WSAEMFILE, EMFILE },
	{ WSAENOBUFS, ENOBUFS },
	{ WSAENOTSOCK, EBADF },
	{ WSAEBADF, EBADF },
	{ WSAENOTCONN, ENOTCONN },
	{ WSAEISCONN, EISCONN },
	{ WSAESHUTDOWN, EPIPE },
	{ WSAEMSGSIZE, EMSGSIZE },
	{ WSAEOPNOTSUPP, EOPNOTSUPP },
	{ WSAEPROTONOSUPPORT, EPROTONOSUPPORT },
	{ WSAENOPROTOOPT, ENOPROTOOPT },
	{ WSAEPROTOTYPE, EPROTOTYPE },
	{ WSANOTINITIALISED, ENETDOWN },
	{ WSAENAMETOOLONG, ENAMETOOLONG },
};

static int wsa_to_errno(int wsa)
{
	size_t i;

	if (!wsa)
		return 0;
	for (i = 0; i < sizeof(wsa_map) / sizeof(wsa_map[0]); i++)
		if (wsa_map[i].wsa == wsa)
			return wsa_map[i].err;
	return EIO;
}

int rp_net_errno(void)
{
	return wsa_to_errno(WSAGetLastError());
}

/* The failure of the call just made, into errno: returns @ret. */
static int failed(int ret)
{
	errno = rp_net_errno();
	return ret;
}

int rp_net_nonblock(rp_sock_t fd)
{
	u_long one = 1;

	return ioctlsocket(fd, FIONBIO, &one) ? failed(-1) : 0;
}

/* Every socket non-blocking from birth: Winsock has no MSG_DONTWAIT. */
static rp_sock_t born(rp_sock_t fd)
{
	if (fd == INVALID_SOCKET) {
		failed(-1);
		return fd;
	}
	if (rp_net_nonblock(fd)) {
		closesocket(fd);
		return INVALID_SOCKET;
	}
	return fd;
}

rp_sock_t rp_net_socket(int domain, int type, int protocol)
{
	return born(
		WSASocketW(domain, type, protocol, NULL, 0,
			   WSA_FLAG_OVERLAPPED | WSA_FLAG_NO_HANDLE_INHERIT));
}

rp_sock_t rp_net_accept(rp_sock_t fd, struct sockaddr *addr, socklen_t *len)
{
	return born(accept(fd, addr, len));
}

int rp_net_connect(rp_sock_t fd, const struct sockaddr *addr, socklen_t len)
{
	if (connect(fd, addr, len) == 0)
		return 0;
	failed(-1);
	if (errno == EAGAIN) /* a non-blocking connect under way */
		errno = EINPROGRESS;
	return -1;
}

ssize_t rp_net_send(rp_sock_t fd, const void *buf, size_t len, int flags)
{
	int n = send(fd, buf, len > INT_MAX ? INT_MAX : (int)len, flags);

	return n == SOCKET_ERROR ? failed(-1) : n;
}

ssize_t rp_net_recv(rp_sock_t fd, void *buf, size_t len, int flags)
{
	int n = recv(fd, buf, len > INT_MAX ? INT_MAX : (int)len, flags);

	return n == SOCKET_ERROR ? failed(-1) : n;
}

int rp_net_setsockopt(rp_sock_t fd, int level, int name, const void *val,
		      socklen_t len)
{
	return setsockopt(fd, level, name, val, len) ? failed(-1) : 0;
}

int rp_net_getsockopt(rp_sock_t fd, int level, int name, void *val,
		      socklen_t *len)
{
	if (getsockopt(fd, level, name, val, len))
		return failed(-1);
	if (level == SOL_SOCKET && name == SO_ERROR && *len >= (int)sizeof(int))
		*(int *)val = wsa_to_errno(*(int *)val);
	return 0;
}

int rp_net_close(rp_sock_t fd)
{
	return closesocket(fd) ? failed(-1) : 0;
}

int rp_poll(struct pollfd *fds, rp_nfds_t n, int timeout_ms)
{
	int ret;

	if (!n) { /* WSAPoll refuses an empty set */
		Sleep(timeout_ms < 0 ? INFINITE : (DWORD)timeout_ms);
		return 0;
	}
	ret = WSAPoll(fds, n, timeout_ms);
	return ret == SOCKET_ERROR ? failed(-1) : ret;
}

int rp_poll_ns(struct pollfd *fds, rp_nfds_t n, uint64_t timeout_ns)
{
	return rp_poll(fds, n, (int)((timeout_ns + 999999) / 1000000));
}

static int win_bind(rp_sock_t fd, const struct sockaddr *addr, socklen_t len)
{
	return bind(fd, addr, len) ? failed(-1) : 0;
}

static int win_listen(rp_sock_t fd, int backlog)
{
	return listen(fd, backlog) ? failed(-1) : 0;
}

static int win_getsockname(rp_sock_t fd, struct sockaddr *addr, socklen_t *len)
{
	return getsockname(fd, addr, len) ? failed(-1) : 0;
}

const struct rp_sock_calls rp_sock_kernel = {
	.socket = rp_net_socket,
	.bind = win_bind,
	.listen = win_listen,
	.accept = rp_net_accept,
	.connect = rp_net_connect,
	.send = rp_net_send,
	.recv = rp_net_recv,
	.poll = rp_poll,
	.close = rp_net_close,
	.setsockopt = rp_net_setsockopt,
	.getsockopt = rp_net_getsockopt,
	.getsockname = win_getsockname,
	.set_nonblock = rp_net_nonblock,
};
