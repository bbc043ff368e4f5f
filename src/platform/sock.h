/* SPDX-License-Identifier: MIT */
/*
 * Sockets on any system: the headers, a socket handle type and the few
 * calls whose spelling or behaviour differs between POSIX and Windows.
 *
 * Every call here follows the POSIX convention on both systems: -1 (or
 * RP_SOCK_INVALID) and the reason in errno, with Windows' WSA error codes
 * mapped to the errno values the layers above compare against (a socket
 * that would block: EAGAIN; a non-blocking connect under way:
 * EINPROGRESS). On Windows every socket made or accepted here is
 * non-blocking from birth, so RP_MSG_DONTWAIT may be 0 there, and a peer
 * that is gone never raises a signal (RP_MSG_NOSIGNAL 0).
 *
 * Implementations: posix/sock.c, win/sock.c.
 */
#ifndef RP_PLATFORM_SOCK_H
#define RP_PLATFORM_SOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef _WIN32
#include <winsock2.h>
#include <ws2tcpip.h>

typedef SOCKET rp_sock_t;
typedef ULONG rp_nfds_t;
#define RP_SOCK_INVALID INVALID_SOCKET
#define RP_MSG_DONTWAIT 0
#define RP_MSG_NOSIGNAL 0
#define RP_MSG_ZEROCOPY 0 /* none: rp_net_zc_enable says so */
/* getaddrinfo() results Windows never returns */
#define RP_EAI_SYSTEM	(-0x7ff1)
#define RP_EAI_OVERFLOW (-0x7ff2)
#ifndef SHUT_RD
#define SHUT_RD	  SD_RECEIVE
#define SHUT_WR	  SD_SEND
#define SHUT_RDWR SD_BOTH
#endif
#else
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>

typedef int rp_sock_t;
typedef nfds_t rp_nfds_t;
#define RP_SOCK_INVALID (-1)
#define RP_MSG_DONTWAIT MSG_DONTWAIT
#define RP_MSG_NOSIGNAL MSG_NOSIGNAL
#ifdef MSG_ZEROCOPY
#define RP_MSG_ZEROCOPY MSG_ZEROCOPY
#else
#define RP_MSG_ZEROCOPY 0 /* none: rp_net_zc_enable says so */
#endif
#define RP_EAI_SYSTEM	EAI_SYSTEM
#define RP_EAI_OVERFLOW EAI_OVERFLOW
#endif

/** rp_sock_valid - whether @fd is a socket handle, not RP_SOCK_INVALID. */
static inline bool rp_sock_valid(rp_sock_t fd)
{
	return fd != RP_SOCK_INVALID;
}

/**
 * rp_net_errno - the errno value for the last failed socket call of this
 * thread (Windows: WSAGetLastError() mapped; POSIX: errno itself).
 */
int rp_net_errno(void);

/** rp_net_socket - socket(2), close-on-exec, non-blocking on Windows. */
rp_sock_t rp_net_socket(int domain, int type, int protocol);

/** rp_net_accept - accept(2); on Windows the socket is non-blocking. */
rp_sock_t rp_net_accept(rp_sock_t fd, struct sockaddr *addr, socklen_t *len);

/** rp_net_connect - connect(2): EINPROGRESS for one under way. */
int rp_net_connect(rp_sock_t fd, const struct sockaddr *addr, socklen_t len);

/** rp_net_send - send(2): the bytes sent, or -1 and errno. */
ssize_t rp_net_send(rp_sock_t fd, const void *buf, size_t len, int flags);

/** rp_net_recv - recv(2): the bytes received, 0 at the end, or -1. */
ssize_t rp_net_recv(rp_sock_t fd, void *buf, size_t len, int flags);

/** rp_net_setsockopt - setsockopt(2), @val as POSIX types it. */
int rp_net_setsockopt(rp_sock_t fd, int level, int name, const void *val,
		      socklen_t len);

/** rp_net_getsockopt - getsockopt(2); SO_ERROR's value is an errno. */
int rp_net_getsockopt(rp_sock_t fd, int level, int name, void *val,
		      socklen_t *len);

/** rp_net_nonblock - make @fd non-blocking. Return: 0 or -1. */
int rp_net_nonblock(rp_sock_t fd);

/** rp_net_close - close socket @fd (closesocket on Windows). 0 or -1. */
int rp_net_close(rp_sock_t fd);

/**
 * rp_poll - poll(2) over sockets (WSAPoll on Windows, which sleeps
 * @timeout_ms when @n is 0 instead of failing). Return: as poll(2).
 */
int rp_poll(struct pollfd *fds, rp_nfds_t n, int timeout_ms);

/**
 * rp_poll_ns - rp_poll with a timeout in nanoseconds (ppoll; Windows:
 * rounded up to WSAPoll's milliseconds), for an open loop's wait until its
 * next intended start. Return: as poll(2).
 */
int rp_poll_ns(struct pollfd *fds, rp_nfds_t n, uint64_t timeout_ns);

/**
 * rp_net_zc_built - whether this build can send with MSG_ZEROCOPY at all
 * (Linux headers of 4.14 or later); the running kernel may still refuse
 * (rp_net_zc_enable).
 */
bool rp_net_zc_built(void);

/**
 * rp_net_zc_enable - set SO_ZEROCOPY on kernel socket @fd, so that sends
 * flagged RP_MSG_ZEROCOPY pin the caller's pages instead of copying them.
 * Return: 0, or -errno (-EOPNOTSUPP where the build has none; a kernel
 * before 4.14 answers -ENOPROTOOPT).
 */
int rp_net_zc_enable(rp_sock_t fd);

/**
 * rp_net_zc_reap - take one notification of zero-copy sends off @fd's
 * error queue (recvmsg with MSG_ERRQUEUE): the send calls *@lo..*@hi
 * (inclusive, numbered modulo 2^32 from 0) are done, *@copied when the
 * kernel copied them anyway (SO_EE_CODE_ZEROCOPY_COPIED).
 * Return: 1 and the range; 0 when the queue holds no notification;
 * -errno. Other entries of the queue are taken and passed over.
 */
int rp_net_zc_reap(rp_sock_t fd, uint32_t *lo, uint32_t *hi, bool *copied);

#endif
