// SPDX-License-Identifier: MIT
/*
 * Address prefixes (--allow). A peer is compared in the form of the prefix:
 * against an IPv4 prefix an IPv4-mapped IPv6 peer (::ffff:a.b.c.d, what a
 * dual-stack listener sees of an IPv4 client) counts as a.b.c.d, and
 * against an IPv6 prefix an IPv4 peer counts as its mapped address, so
 * ::/0 admits everyone and 10.0.0.0/8 admits 10.1.2.3 however it arrives.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/cidr.h"

static const uint8_t v4_mapped[12] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff
};

static unsigned int family_bits(int family)
{
	return family == AF_INET ? 32 : 128;
}

/* "0".."128": decimal digits only, no sign, no space. */
static int parse_prefix(const char *s, unsigned int max, unsigned int *out)
{
	unsigned int v = 0;
	size_t n;

	for (n = 0; s[n]; n++) {
		if (s[n] < '0' || s[n] > '9' || n >= 3)
			return -EINVAL;
		v = v * 10 + (unsigned int)(s[n] - '0');
	}
	if (!n || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

/* Whether the first @bits bits of @a and @b agree. */
static bool same_bits(const uint8_t *a, const uint8_t *b, unsigned int bits)
{
	unsigned int full = bits / 8, rest = bits % 8;
	uint8_t mask = (uint8_t)(0xff00u >> rest);

	if (memcmp(a, b, full))
		return false;
	return !rest || ((a[full] ^ b[full]) & mask) == 0;
}

/* Whether bits @from..@bits-1 of @a are all zero: the host part. */
static bool zero_beyond(const uint8_t *a, unsigned int from, unsigned int bits)
{
	unsigned int i;

	for (i = from; i < bits; i++)
		if (a[i / 8] & (0x80u >> (i % 8)))
			return false;
	return true;
}

int rp_cidr_parse(const char *text, struct rp_cidr *out)
{
	char addr[INET6_ADDRSTRLEN];
	const char *slash = strchr(text, '/');
	size_t len = slash ? (size_t)(slash - text) : strlen(text);
	struct rp_cidr c = { 0 };

	if (!len || len >= sizeof(addr))
		return -EINVAL;
	memcpy(addr, text, len);
	addr[len] = '\0';
	if (inet_pton(AF_INET, addr, c.addr) == 1)
		c.family = AF_INET;
	else if (inet_pton(AF_INET6, addr, c.addr) == 1)
		c.family = AF_INET6;
	else
		return -EINVAL;
	c.prefix = family_bits(c.family);
	if (slash && parse_prefix(slash + 1, c.prefix, &c.prefix))
		return -EINVAL;
	if (!zero_beyond(c.addr, c.prefix, family_bits(c.family)))
		return -EINVAL;
	*out = c;
	return 0;
}

/* @sa as 16 bytes of IPv6 (IPv4 mapped) and, where it is IPv4 or mapped,
 * 4 bytes of IPv4 in @v4. Return: false for another family. */
static bool peer_forms(const struct sockaddr *sa, uint8_t v6[16], uint8_t v4[4],
		       bool *is_v4)
{
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)sa;

		memcpy(v4, &in->sin_addr, 4);
		memcpy(v6, v4_mapped, 12);
		memcpy(v6 + 12, v4, 4);
		*is_v4 = true;
		return true;
	}
	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const void *)sa;

		memcpy(v6, &in6->sin6_addr, 16);
		memcpy(v4, v6 + 12, 4);
		*is_v4 = memcmp(v6, v4_mapped, 12) == 0;
		return true;
	}
	return false;
}

bool rp_cidr_match(const struct rp_cidr *c, const struct sockaddr *sa)
{
	uint8_t v6[16], v4[4];
	bool is_v4;

	if (!sa || !peer_forms(sa, v6, v4, &is_v4))
		return false;
	if (c->family == AF_INET)
		return is_v4 && same_bits(v4, c->addr, c->prefix);
	return c->family == AF_INET6 && same_bits(v6, c->addr, c->prefix);
}

bool rp_cidr_admits(const struct rp_cidr *set, size_t n,
		    const struct sockaddr *sa)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (rp_cidr_match(&set[i], sa))
			return true;
	return !n;
}
