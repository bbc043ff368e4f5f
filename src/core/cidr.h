/* SPDX-License-Identifier: MIT */
/* Address prefixes (--allow 10.0.0.0/8,fd00::/8): parse and match. */
#ifndef RP_CORE_CIDR_H
#define RP_CORE_CIDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "platform/sock.h"

/** One prefix: an IPv4 or IPv6 address and how many leading bits count. */
struct rp_cidr {
	int family; /* AF_INET or AF_INET6 */
	uint8_t addr[16];
	unsigned int prefix; /* 0..32 or 0..128 */
};

/**
 * rp_cidr_parse - "10.0.0.0/8", "::1", "fd00::/8" (no prefix: the whole
 * address). Bits beyond the prefix must be zero.
 * Return: 0 or -EINVAL.
 */
int rp_cidr_parse(const char *text, struct rp_cidr *out);

/**
 * rp_cidr_match - whether the address @sa (AF_INET or AF_INET6; an
 * IPv4-mapped IPv6 address counts as its IPv4 address) lies in @c.
 */
bool rp_cidr_match(const struct rp_cidr *c, const struct sockaddr *sa);

/**
 * rp_cidr_admits - whether @sa lies in any of the @n prefixes of @set; with
 * none (@n 0), every address is admitted (--allow unset).
 */
bool rp_cidr_admits(const struct rp_cidr *set, size_t n,
		    const struct sockaddr *sa);

#endif
