/* SPDX-License-Identifier: MIT */
/*
 * The accounting of zero-copy sends (--zerocopy, TCP's MSG_ZEROCOPY). The
 * kernel numbers every successful send() call made with MSG_ZEROCOPY on a
 * socket, 0, 1, 2, ... modulo 2^32, and later reports on the socket's error
 * queue that the calls lo..hi (inclusive, coalesced) are done: their pages
 * are the sender's again. It says whether it copied them anyway
 * (SO_EE_CODE_ZEROCOPY_COPIED: always so on loopback, where the receiver
 * would otherwise read the sender's pages). No I/O here: the socket side is
 * platform/sock.h's rp_net_zc_*().
 */
#ifndef RP_CORE_ZC_H
#define RP_CORE_ZC_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

/* Messages smaller than this are sent copied: pinning pages and reaping a
 * notification cost more than copying a few pages (the kernel's own advice:
 * zero copy pays from about 10 KB). */
#define RP_ZC_MIN_BYTES (16u * 1024)

/** What the zero-copy sends of a stream (or a side) came to. */
struct rp_zc_count {
	uint64_t issued; /* send() calls made with MSG_ZEROCOPY */
	uint64_t sends;	 /* of those, notified complete */
	uint64_t copied; /* of those notified, copied by the kernel anyway */
};

/**
 * rp_zc_notified - account one notification: calls @lo..@hi (inclusive,
 * counted modulo 2^32 as the kernel does) are done, @copied says whether
 * the kernel copied them. A range that claims more calls than are
 * outstanding (a confused peer of ours: the kernel) is clamped.
 * Return: the number of calls it covers.
 */
uint64_t rp_zc_notified(struct rp_zc_count *c, uint32_t lo, uint32_t hi,
			bool copied);

/** rp_zc_pending - zero-copy sends not yet notified. */
static inline uint64_t rp_zc_pending(const struct rp_zc_count *c)
{
	return c->issued - c->sends;
}

/** rp_zc_add - add @b's counts to @a. */
void rp_zc_add(struct rp_zc_count *a, const struct rp_zc_count *b);

/** rp_zc_sub - @a minus @b, count by count (what happened since @b). */
struct rp_zc_count rp_zc_sub(const struct rp_zc_count *a,
			     const struct rp_zc_count *b);

/**
 * rp_zc_to_json - @c as a JSON object: "issued", "sends" (notified),
 * "copied". Return: the object, or NULL out of memory.
 */
cJSON *rp_zc_to_json(const struct rp_zc_count *c);

/**
 * rp_zc_from_json - the inverse, for what a peer sent: absent or malformed
 * counts read 0, as does everything when @o is not an object.
 */
void rp_zc_from_json(const cJSON *o, struct rp_zc_count *c);

#endif
