/* SPDX-License-Identifier: MIT */
/*
 * Sockets through a table of calls: the kernel's (rp_sock_kernel) or a
 * stand-in with the same signatures (librdmacm's rsockets). The control
 * connection and the stream transports open their sockets here, so there is
 * one listening socket and one connect with a deadline in the project.
 *
 * Addresses: IPv4 or IPv6, a host name or a numeric address, an IPv6
 * literal optionally in brackets ("[::1]"). A name that does not resolve
 * says so (rp_net_resolve: "cannot resolve HOST: ..."). The server's data
 * listeners bind the address its control connection was reached on
 * (rp_net_sock_addr of the accepted socket), and the client connects its
 * data streams to the address its control connection reached.
 */
#ifndef RP_PLATFORM_NET_H
#define RP_PLATFORM_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "platform/err.h"
#include "platform/sock.h"

struct addrinfo;

/* Room for a numeric address without port: IPv6 (45 characters), '%' and an
 * interface name (15), the final NUL. */
#define RP_NET_ADDR_LEN 64

/* The calls follow POSIX: -1 (RP_SOCK_INVALID) and errno on failure. */
struct rp_sock_calls {
	rp_sock_t (*socket)(int domain, int type, int protocol);
	int (*bind)(rp_sock_t fd, const struct sockaddr *addr, socklen_t len);
	int (*listen)(rp_sock_t fd, int backlog);
	rp_sock_t (*accept)(rp_sock_t fd, struct sockaddr *addr,
			    socklen_t *len);
	int (*connect)(rp_sock_t fd, const struct sockaddr *addr,
		       socklen_t len);
	ssize_t (*send)(rp_sock_t fd, const void *buf, size_t len, int flags);
	ssize_t (*recv)(rp_sock_t fd, void *buf, size_t len, int flags);
	int (*poll)(struct pollfd *fds, rp_nfds_t nfds, int timeout);
	int (*close)(rp_sock_t fd);
	int (*setsockopt)(rp_sock_t fd, int level, int name, const void *val,
			  socklen_t len);
	int (*getsockopt)(rp_sock_t fd, int level, int name, void *val,
			  socklen_t *len);
	int (*getsockname)(rp_sock_t fd, struct sockaddr *addr, socklen_t *len);
	int (*set_nonblock)(rp_sock_t fd); /* 0 or -1 */
	/* When nonzero, at most this many streams may be open at once in a
	 * process on these calls, and why (a library's limit). */
	unsigned int max_open;
	const char *max_open_why;
	/* When nonzero, the accepting end's close first reads to the peer's
	 * end of stream, this long at most: the connecting end closes first,
	 * and the two closes never cross (rsocket.c says why). */
	unsigned int close_after_eof_ms;
};

/* The kernel's socket calls. */
extern const struct rp_sock_calls rp_sock_kernel;

/**
 * rp_net_host_parse - the host @in as getaddrinfo() takes it, into @out of
 * @len bytes: an IPv6 literal may come in brackets ("[::1]",
 * "[fe80::1%eth0]"), which are dropped; anything else is copied as is.
 * Return: 0; -EINVAL for an empty host, a '[' without its ']', an empty
 * pair or anything after the ']' (a port goes to -p); -ENAMETOOLONG when
 * it does not fit in @out.
 */
int rp_net_host_parse(const char *in, char *out, size_t len);

/**
 * rp_net_resolve - the stream-socket addresses of @host (brackets accepted,
 * see rp_net_host_parse) and @port, to listen on (@passive) or to connect
 * to.
 * Return: 0 and the list in *@res (free it with freeaddrinfo()); else, with
 * "cannot resolve HOST: why" in @why: -EINVAL (a malformed host),
 * -EADDRNOTAVAIL (the name does not resolve), -ENOMEM, or the resolver's
 * -errno.
 */
int rp_net_resolve(const char *host, uint16_t port, bool passive,
		   struct addrinfo **res, struct rp_err *why);

/**
 * rp_net_listen - a socket listening on @host (brackets accepted; NULL:
 * every address, one IPv6 socket that takes IPv4 too, or IPv4 alone where
 * the host has no IPv6) and @port (0: an ephemeral one), with SO_REUSEADDR.
 * Return: 0 and the socket in *@fd, or -errno (-EADDRNOTAVAIL when @host
 * does not resolve; rp_net_resolve says why).
 */
int rp_net_listen(const struct rp_sock_calls *c, const char *host,
		  uint16_t port, int backlog, rp_sock_t *fd);

/** rp_net_local_port - the port @fd is bound to, or -errno. */
int rp_net_local_port(const struct rp_sock_calls *c, rp_sock_t fd);

/**
 * rp_net_set_tos - mark what @fd sends with the IP TOS byte @tos
 * (--tos), by the family it speaks: IP_TOS, or IPV6_TCLASS (and IP_TOS,
 * for IPv4-mapped peers, where the kernel takes it). A listening socket
 * passes it on to the connections it accepts, and marks their SYN-ACK.
 * Return: 0 and in *@got what the kernel marks (Linux keeps a TCP
 * socket's ECN bits its own), or -errno.
 */
int rp_net_set_tos(const struct rp_sock_calls *c, rp_sock_t fd, int tos,
		   int *got);

/**
 * rp_net_dial_addrs - connect to each address of the list @ai in turn
 * (rp_net_resolve's) until one answers, before @deadline_ns (rp_clock_ns
 * time), each socket marked with @tos before its SYN (0: left alone,
 * rp_net_set_tos). The socket is left non-blocking.
 * Return: 0 and the socket in *@fd; else the error of the last address
 * tried (-EHOSTUNREACH for an empty list).
 */
int rp_net_dial_addrs(const struct rp_sock_calls *c, const struct addrinfo *ai,
		      int tos, uint64_t deadline_ns, rp_sock_t *fd);

/**
 * rp_net_dial - rp_net_resolve() then rp_net_dial_addrs(), for a caller
 * with no use for the reason: -EHOSTUNREACH when @host does not resolve.
 */
int rp_net_dial(const struct rp_sock_calls *c, const char *host, uint16_t port,
		int tos, uint64_t deadline_ns, rp_sock_t *fd);

/**
 * rp_net_dial_from - rp_net_dial() from the local address @src (numeric,
 * a rail's: --rails), bound before the SYN; NULL: as rp_net_dial().
 * Return: as rp_net_dial(); -EADDRNOTAVAIL when @src does not resolve,
 * -EAFNOSUPPORT when the host has no address of @src's family.
 */
int rp_net_dial_from(const struct rp_sock_calls *c, const char *host,
		     uint16_t port, const char *src, int tos,
		     uint64_t deadline_ns, rp_sock_t *fd);

/**
 * rp_net_sock_addr - the numeric address (no port, no brackets) of a
 * kernel socket @fd's own end, or of its peer's with @peer, into @buf of
 * @len bytes (RP_NET_ADDR_LEN suffice): an IPv4-mapped IPv6 address (an
 * IPv4 peer of a dual-stack socket) as plain IPv4, a link-local IPv6 one
 * with its %scope, so that getaddrinfo() takes it back.
 * Return: 0 or -errno.
 */
int rp_net_sock_addr(rp_sock_t fd, bool peer, char *buf, size_t len);

/** rp_net_addr_text - the numeric address of @sa (@sl bytes) as
 *  rp_net_sock_addr() writes it. Return: 0 or -errno. */
int rp_net_addr_text(const struct sockaddr *sa, socklen_t sl, char *buf,
		     size_t len);

/**
 * rp_net_xfer_all - send (@tx) or receive exactly @len bytes of @buf on
 * @fd before @deadline_ns, waiting in @c->poll whenever the socket is not
 * ready (the socket may be blocking or not: every call is MSG_DONTWAIT).
 * Return: 0; -ECONNRESET when the peer closed before @len bytes came;
 * -ETIMEDOUT at the deadline; or the socket's -errno.
 */
int rp_net_xfer_all(const struct rp_sock_calls *c, rp_sock_t fd, void *buf,
		    size_t len, bool tx, uint64_t deadline_ns);

/**
 * rp_net_accept_failed - what to do after accept() failed with errno @err.
 * A connection that went away before it was taken, an interrupted call or
 * an empty backlog need nothing: false. Anything else (out of descriptors
 * or buffers) leaves the connection queued, so poll() says "readable" again
 * at once: pause up to 10 ms, never past @deadline_ns, and return true, so
 * that a listener neither spins nor forgets why it took nobody.
 */
bool rp_net_accept_failed(int err, uint64_t deadline_ns);

/** rp_net_set_nonblock - make @fd non-blocking. Return: 0 or -errno. */
int rp_net_set_nonblock(const struct rp_sock_calls *c, rp_sock_t fd);

#endif
