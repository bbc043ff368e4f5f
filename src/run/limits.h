/* SPDX-License-Identifier: MIT */
/* What a server grants one test (struct rp_limits, --max-*). */
#ifndef RP_RUN_LIMITS_H
#define RP_RUN_LIMITS_H

#include <stddef.h>

#include "run/run.h"

/** rp_limits_memory - the bytes a side allocates for @sp: its streams'
 *  buffers and what their transport's library takes (stream_memory). */
uint64_t rp_limits_memory(const struct rp_spec *sp);

/** rp_limits_size - @bytes as "N MiB" when whole MiB, else "N bytes", in
 *  @buf. Return: @buf. */
const char *rp_limits_size(uint64_t bytes, char *buf, size_t len);

/**
 * rp_limits_check - whether @sp stays within @l.
 * Return: 0, or -EPERM with the limit it passes named in @why.
 */
int rp_limits_check(const struct rp_limits *l, const struct rp_spec *sp,
		    char *why, size_t len);

#endif
