/* SPDX-License-Identifier: MIT */
/*
 * Stream transports (TCP, rsockets) share one implementation, sock.c, over a
 * table of socket calls. A transport is its calls table plus the ops table
 * that RP_SOCK_XPORT() builds from it.
 */
#ifndef RP_XPORT_SOCK_H
#define RP_XPORT_SOCK_H

#include <poll.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "xport/xport.h"

struct rp_sock_calls {
	int (*socket)(int domain, int type, int protocol);
	int (*bind)(int fd, const struct sockaddr *addr, socklen_t len);
	int (*listen)(int fd, int backlog);
	int (*accept)(int fd, struct sockaddr *addr, socklen_t *len);
	int (*connect)(int fd, const struct sockaddr *addr, socklen_t len);
	ssize_t (*send)(int fd, const void *buf, size_t len, int flags);
	ssize_t (*recv)(int fd, void *buf, size_t len, int flags);
	int (*poll)(struct pollfd *fds, nfds_t nfds, int timeout);
	int (*close)(int fd);
	int (*setsockopt)(int fd, int level, int name, const void *val,
			  socklen_t len);
	int (*getsockopt)(int fd, int level, int name, void *val,
			  socklen_t *len);
	int (*getsockname)(int fd, struct sockaddr *addr, socklen_t *len);
	int (*fcntl)(int fd, int cmd, ...);
	/* When nonzero, an idle side sleeps this long instead of waiting in
	 * poll(): rpoll() can sleep far past its timeout while the peer's
	 * rsocket sends internal updates, and would miss the stop flag. */
	unsigned int idle_sleep_us;
};

int rp_sock_listen(const struct rp_sock_calls *c, const struct rp_spec *spec,
		   const struct rp_xport_params *p, cJSON *endpoint,
		   struct rp_listener **out);
int rp_sock_connect(const struct rp_sock_calls *c, const struct rp_spec *spec,
		    const struct rp_xport_params *p, const char *host,
		    const cJSON *endpoint, const char *token, int timeout_ms,
		    struct rp_stream **out);
int rp_sock_accept(struct rp_listener *l, const char *token, int timeout_ms,
		   struct rp_stream **out);
void rp_sock_unlisten(struct rp_listener *l);
int rp_sock_local_info(struct rp_stream *s, cJSON *info);
int rp_sock_set_peer(struct rp_stream *s, const cJSON *info);
int rp_sock_serve(struct rp_stream *s, enum rp_phase phase,
		  const volatile int *stop, struct rp_side_stats *st);
int rp_sock_ping(struct rp_stream *s, uint64_t seq, uint64_t deadline_ns);
int rp_sock_post(struct rp_stream *s, uint64_t seq, uint32_t count);
int rp_sock_poll(struct rp_stream *s);
uint64_t rp_sock_verify_errors(struct rp_stream *s);
void rp_sock_close(struct rp_stream *s);

/* The ops table of a stream transport named NAME over CALLS. */
#define RP_SOCK_XPORT(NAME, CALLS, PROBE, LISTEN, CONNECT)                     \
	{                                                                      \
		.name = NAME, .probe = PROBE, .listen = LISTEN,                \
		.accept = rp_sock_accept, .unlisten = rp_sock_unlisten,        \
		.connect = CONNECT, .local_info = rp_sock_local_info,          \
		.set_peer = rp_sock_set_peer, .serve = rp_sock_serve,          \
		.ping = rp_sock_ping, .post = rp_sock_post,                    \
		.poll = rp_sock_poll, .verify_errors = rp_sock_verify_errors,  \
		.close = rp_sock_close,                                        \
	}

#endif
