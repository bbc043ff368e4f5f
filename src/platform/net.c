// SPDX-License-Identifier: MIT
/* POSIX side of platform/net.h. */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"

#include "platform/net.h"
#include "platform/wait.h"

const struct rp_sock_calls rp_sock_kernel = {
	.socket = socket,
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
	.fcntl = fcntl,
};

static int resolve(const char *host, uint16_t port, int flags,
		   struct addrinfo **res)
{
	struct addrinfo hints = { .ai_flags = flags | AI_NUMERICSERV,
				  .ai_socktype = SOCK_STREAM };
	char service[8];
	int err;

	snprintf(service, sizeof(service), "%u", port);
	err = getaddrinfo(host, service, &hints, res);
	if (err == EAI_SYSTEM && errno)
		return -errno;
	return err ? -EADDRNOTAVAIL : 0;
}

static int listen_one(const struct rp_sock_calls *c, const struct addrinfo *ai,
		      int backlog, int *fd)
{
	int one = 1, err;

	*fd = c->socket(ai->ai_family, SOCK_STREAM, 0);
	if (*fd < 0)
		return -errno;
	c->fcntl(*fd, F_SETFD, FD_CLOEXEC);
	c->setsockopt(*fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (c->bind(*fd, ai->ai_addr, ai->ai_addrlen) == 0 &&
	    c->listen(*fd, backlog) == 0)
		return 0;
	err = -errno;
	c->close(*fd);
	*fd = -1;
	return err;
}

int rp_net_listen(const struct rp_sock_calls *c, const char *host,
		  uint16_t port, int backlog, int *fd)
{
	struct addrinfo *res, *ai;
	int err;

	err = resolve(host, port, AI_PASSIVE, &res);
	if (err)
		return err;
	err = -EADDRNOTAVAIL;
	for (ai = res; ai; ai = ai->ai_next) {
		err = listen_one(c, ai, backlog, fd);
		if (!err)
			break;
	}
	freeaddrinfo(res);
	return err;
}

int rp_net_local_port(const struct rp_sock_calls *c, int fd)
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

int rp_net_set_nonblock(const struct rp_sock_calls *c, int fd)
{
	int fl = c->fcntl(fd, F_GETFL);

	if (fl < 0 || c->fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

static int dial_one(const struct rp_sock_calls *c, const struct addrinfo *ai,
		    uint64_t deadline_ns, int *out)
{
	int fd = c->socket(ai->ai_family, SOCK_STREAM, 0), err = 0;
	socklen_t len = sizeof(err);

	if (fd < 0)
		return -errno;
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

int rp_net_dial(const struct rp_sock_calls *c, const char *host, uint16_t port,
		uint64_t deadline_ns, int *fd)
{
	struct addrinfo *res, *ai;
	int err;

	if (resolve(host, port, 0, &res))
		return -EHOSTUNREACH;
	err = -EHOSTUNREACH;
	for (ai = res; ai; ai = ai->ai_next) {
		err = dial_one(c, ai, deadline_ns, fd);
		if (!err)
			break;
	}
	freeaddrinfo(res);
	return err;
}

int rp_net_xfer_all(const struct rp_sock_calls *c, int fd, void *buf,
		    size_t len, bool tx, uint64_t deadline_ns)
{
	uint8_t *p = buf;
	size_t off = 0;
	ssize_t n;
	int err;

	while (off < len) {
		n = tx ? c->send(fd, p + off, len - off,
				 MSG_DONTWAIT | MSG_NOSIGNAL)
		       : c->recv(fd, p + off, len - off, MSG_DONTWAIT);
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
