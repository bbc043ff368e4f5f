// SPDX-License-Identifier: MIT
/* platform/net.h, on any system: the differences live in platform/sock.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "platform/clock.h"
#include "platform/net.h"
#include "platform/wait.h"

int rp_net_host_parse(const char *in, char *out, size_t len)
{
	const char *end;
	size_t n = strlen(in);

	if (in[0] == '[') {
		end = strchr(in, ']');
		if (!end || end[1])
			return -EINVAL;
		n = (size_t)(end - ++in);
	}
	if (n == 0)
		return -EINVAL;
	if (n >= len)
		return -ENAMETOOLONG;
	memcpy(out, in, n);
	out[n] = '\0';
	return 0;
}

/* getaddrinfo()'s failure @gai for @host: -errno, the reason in @why. */
static int resolve_failed(const char *host, int gai, struct rp_err *why)
{
	int err = gai == EAI_MEMORY ? -ENOMEM : -EADDRNOTAVAIL;

	if (gai == RP_EAI_SYSTEM && errno) {
		err = -errno;
		return rp_errf(why, err, "cannot resolve %s: %s", host,
			       strerror(-err));
	}
	return rp_errf(why, err, "cannot resolve %s: %s", host,
		       gai_strerror(gai));
}

int rp_net_resolve(const char *host, uint16_t port, bool passive,
		   struct addrinfo **res, struct rp_err *why)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICSERV,
				  .ai_socktype = SOCK_STREAM };
	char name[NI_MAXHOST], service[8];
	int err;

	if (passive)
		hints.ai_flags |= AI_PASSIVE;
	if (host) {
		err = rp_net_host_parse(host, name, sizeof(name));
		if (err)
			return rp_errf(why, err,
				       "cannot resolve %s: not a host name or "
				       "address (brackets hold one whole "
				       "IPv6 address)",
				       host);
	}
	snprintf(service, sizeof(service), "%u", port);
	err = getaddrinfo(host ? name : NULL, service, &hints, res);
	return err ? resolve_failed(host ? host : "any", err, why) : 0;
}

/* A socket listening on @sa. An IPv6 wildcard takes IPv4 too, whatever
 * net.ipv6.bindv6only says. */
static int listen_on(const struct rp_sock_calls *c, const struct sockaddr *sa,
		     socklen_t sl, int backlog, rp_sock_t *fd)
{
	const struct sockaddr_in6 *a6 = (const struct sockaddr_in6 *)sa;
	int one = 1, zero = 0, err;

	*fd = c->socket(sa->sa_family, SOCK_STREAM, 0);
	if (!rp_sock_valid(*fd))
		return -errno;
	c->setsockopt(*fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (sa->sa_family == AF_INET6 &&
	    IN6_IS_ADDR_UNSPECIFIED(&a6->sin6_addr))
		c->setsockopt(*fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero,
			      sizeof(zero));
	if (c->bind(*fd, sa, sl) == 0 && c->listen(*fd, backlog) == 0)
		return 0;
	err = -errno;
	c->close(*fd);
	*fd = RP_SOCK_INVALID;
	return err;
}

/* Every address: IPv6 and IPv4 on one socket, IPv4 alone where the host
 * has no IPv6 (a port in use or forbidden is that on both). */
static int listen_any(const struct rp_sock_calls *c, uint16_t port, int backlog,
		      rp_sock_t *fd)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6,
				   .sin6_port = htons(port),
				   .sin6_addr = IN6ADDR_ANY_INIT };
	struct sockaddr_in a4 = { .sin_family = AF_INET,
				  .sin_port = htons(port),
				  .sin_addr.s_addr = htonl(INADDR_ANY) };
	int err;

	err = listen_on(c, (struct sockaddr *)&a6, sizeof(a6), backlog, fd);
	if (err && err != -EADDRINUSE && err != -EACCES)
		err = listen_on(c, (struct sockaddr *)&a4, sizeof(a4), backlog,
				fd);
	return err;
}

int rp_net_listen(const struct rp_sock_calls *c, const char *host,
		  uint16_t port, int backlog, rp_sock_t *fd)
{
	struct addrinfo *res, *ai;
	int err;

	if (!host)
		return listen_any(c, port, backlog, fd);
	err = rp_net_resolve(host, port, true, &res, NULL);
	if (err)
		return err == -ENOMEM ? err : -EADDRNOTAVAIL;
	err = -EADDRNOTAVAIL;
	for (ai = res; ai; ai = ai->ai_next) {
		err = listen_on(c, ai->ai_addr, ai->ai_addrlen, backlog, fd);
		if (!err)
			break;
	}
	freeaddrinfo(res);
	return err;
}

int rp_net_local_port(const struct rp_sock_calls *c, rp_sock_t fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (c->getsockname(fd, (struct sockaddr *)&ss, &len) < 0)
		return -errno;
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

#define ACCEPT_BACKOFF_MS 10

bool rp_net_accept_failed(int err, uint64_t deadline_ns)
{
	int ms = rp_ms_left(deadline_ns);
	struct timespec pause = { 0 };

	if (err == EAGAIN || err == EWOULDBLOCK || err == EINTR ||
	    err == ECONNABORTED || err == EPROTO)
		return false;
	if (ms < 0 || ms > ACCEPT_BACKOFF_MS)
		ms = ACCEPT_BACKOFF_MS;
	pause.tv_nsec = (long)ms * (long)RP_NS_PER_MS;
	nanosleep(&pause, NULL);
	return true;
}

int rp_net_set_nonblock(const struct rp_sock_calls *c, rp_sock_t fd)
{
	return c->set_nonblock(fd) < 0 ? -errno : 0;
}

int rp_net_set_tos(const struct rp_sock_calls *c, rp_sock_t fd, int tos,
		   int *got)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss), vl = sizeof(*got);
	int level = IPPROTO_IP, name = IP_TOS;

	if (c->getsockname(fd, (struct sockaddr *)&ss, &sl) < 0)
		return -errno;
	if (ss.ss_family == AF_INET6) {
		(void)c->setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof(tos));
		level = IPPROTO_IPV6;
		name = IPV6_TCLASS;
	}
	if (c->setsockopt(fd, level, name, &tos, sizeof(tos)) < 0)
		return -errno;
	*got = tos;
	if (c->getsockopt(fd, level, name, got, &vl) < 0)
		*got = tos;
	return 0;
}

static int dial_one(const struct rp_sock_calls *c, const struct addrinfo *ai,
		    const struct addrinfo *src, int tos, uint64_t deadline_ns,
		    rp_sock_t *out)
{
	rp_sock_t fd = c->socket(ai->ai_family, SOCK_STREAM, 0);
	int err = 0, got;
	socklen_t len = sizeof(err);

	if (!rp_sock_valid(fd))
		return -errno;
	if (src &&
	    (src->ai_family != ai->ai_family ||
	     c->bind(fd, src->ai_addr, (socklen_t)src->ai_addrlen) < 0)) {
		err = src->ai_family != ai->ai_family ? -EAFNOSUPPORT : -errno;
		goto out_close;
	}
	err = tos ? rp_net_set_tos(c, fd, tos, &got) : 0;
	if (!err)
		err = rp_net_set_nonblock(c, fd);
	if (err)
		goto out_close;
	if (c->connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
		if (errno != EINPROGRESS) {
			err = -errno;
			goto out_close;
		}
		err = rp_wait_fd(c->poll, fd, POLLOUT, deadline_ns);
		if (err)
			goto out_close;
		if (c->getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
			err = errno;
		err = -err;
		if (err)
			goto out_close;
	}
	*out = fd;
	return 0;
out_close:
	c->close(fd);
	return err;
}

int rp_net_dial_addrs(const struct rp_sock_calls *c, const struct addrinfo *ai,
		      int tos, uint64_t deadline_ns, rp_sock_t *fd)
{
	int err = -EHOSTUNREACH;

	for (; ai; ai = ai->ai_next) {
		err = dial_one(c, ai, NULL, tos, deadline_ns, fd);
		if (!err)
			break;
	}
	return err;
}

int rp_net_dial(const struct rp_sock_calls *c, const char *host, uint16_t port,
		int tos, uint64_t deadline_ns, rp_sock_t *fd)
{
	struct addrinfo *res;
	int err;

	if (rp_net_resolve(host, port, false, &res, NULL))
		return -EHOSTUNREACH;
	err = rp_net_dial_addrs(c, res, tos, deadline_ns, fd);
	freeaddrinfo(res);
	return err;
}

int rp_net_dial_from(const struct rp_sock_calls *c, const char *host,
		     uint16_t port, const char *src, int tos,
		     uint64_t deadline_ns, rp_sock_t *fd)
{
	struct addrinfo *res, *from, *ai;
	int err = -EHOSTUNREACH;

	if (!src)
		return rp_net_dial(c, host, port, tos, deadline_ns, fd);
	if (rp_net_resolve(src, 0, false, &from, NULL))
		return -EADDRNOTAVAIL;
	if (rp_net_resolve(host, port, false, &res, NULL)) {
		freeaddrinfo(from);
		return -EHOSTUNREACH;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		err = dial_one(c, ai, from, tos, deadline_ns, fd);
		if (!err)
			break;
	}
	freeaddrinfo(res);
	freeaddrinfo(from);
	return err;
}

/* An IPv4 peer of a dual-stack socket shows as ::ffff:a.b.c.d: make it
 * a.b.c.d, which an IPv4 socket can bind and connect to. */
static void unmap_v4(struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in a4 = { .sin_family = AF_INET };

	if (ss->ss_family != AF_INET6 || !IN6_IS_ADDR_V4MAPPED(&a6->sin6_addr))
		return;
	a4.sin_port = a6->sin6_port;
	memcpy(&a4.sin_addr, &a6->sin6_addr.s6_addr[12], sizeof(a4.sin_addr));
	memcpy(ss, &a4, sizeof(a4));
	*len = sizeof(a4);
}

int rp_net_addr_text(const struct sockaddr *sa, socklen_t sl, char *buf,
		     size_t len)
{
	struct sockaddr_storage ss;
	int err;

	if (sl <= 0 || (size_t)sl > sizeof(ss))
		return -EINVAL;
	memcpy(&ss, sa, sl);
	unmap_v4(&ss, &sl);
	err = getnameinfo((struct sockaddr *)&ss, sl, buf, (socklen_t)len, NULL,
			  0, NI_NUMERICHOST);
	if (err == RP_EAI_SYSTEM)
		return -errno;
	if (err == RP_EAI_OVERFLOW)
		return -ENAMETOOLONG;
	return err ? -EAFNOSUPPORT : 0;
}

int rp_net_sock_addr(rp_sock_t fd, bool peer, char *buf, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	int err;

	err = peer ? getpeername(fd, (struct sockaddr *)&ss, &sl)
		   : getsockname(fd, (struct sockaddr *)&ss, &sl);
	if (err < 0)
		return -rp_net_errno();
	return rp_net_addr_text((struct sockaddr *)&ss, sl, buf, len);
}

int rp_net_xfer_all(const struct rp_sock_calls *c, rp_sock_t fd, void *buf,
		    size_t len, bool tx, uint64_t deadline_ns)
{
	uint8_t *p = buf;
	size_t off = 0;
	ssize_t n;
	int err;

	while (off < len) {
		n = tx ? c->send(fd, p + off, len - off,
				 RP_MSG_DONTWAIT | RP_MSG_NOSIGNAL)
		       : c->recv(fd, p + off, len - off, RP_MSG_DONTWAIT);
		if (n > 0) {
			off += (size_t)n;
			continue;
		}
		if (n == 0 && !tx)
			return -ECONNRESET;
		if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK &&
		    errno != EINTR)
			return -errno;
		err = rp_wait_fd(c->poll, fd, tx ? POLLOUT : POLLIN,
				 deadline_ns);
		if (err)
			return err;
	}
	return 0;
}
