/* SPDX-License-Identifier: MIT */
/*
 * Waiting on a descriptor under a deadline, and randomness: the operating
 * system's side of what the layers above need.
 */
#ifndef RP_PLATFORM_WAIT_H
#define RP_PLATFORM_WAIT_H

#include <stddef.h>
#include <stdint.h>

#include "platform/sock.h"

/* poll(2) or a stand-in with its signature (rsockets' rpoll). */
typedef int (*rp_poll_fn)(struct pollfd *fds, rp_nfds_t nfds, int timeout);

/**
 * rp_wait_fd - wait until @fd is ready for @events or @deadline_ns
 * (rp_clock_ns time, RP_NO_DEADLINE for none) passes, through @pollfn
 * (NULL: rp_poll). An interrupted wait is retried.
 * Return: 0 when ready (or in error: the next call says which), -ETIMEDOUT,
 * -EBADF for a descriptor that is not open, or -errno.
 */
int rp_wait_fd(rp_poll_fn pollfn, rp_sock_t fd, short events,
	       uint64_t deadline_ns);

/**
 * rp_random_bytes - fill @buf with @len bytes from the system's random
 * source (getrandom, else /dev/urandom; Windows: BCryptGenRandom). Never falls
 * back to a predictable generator. Return: 0, or -errno when no random source
 * can be read.
 */
int rp_random_bytes(void *buf, size_t len);

#endif
