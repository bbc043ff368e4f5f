/* SPDX-License-Identifier: MIT */
/*
 * Offered load (--rate, --load-curve): what the command line says, and the
 * operations per second it makes at a point of the sweep. Pure functions,
 * no I/O.
 *
 *   --rate 200k        operations per second (k, M: 1000-based)
 *   --rate 20G         a bit rate: b, Kb, Mb, Gb, Tb (and G, T alone),
 *                      1000-based; operations/s = bits / (8 * size)
 *   --rate 100k,200k   a list: one point each
 *   --load-curve N     a closed-loop point, then N points at 1/N .. N/N of
 *                      the operations per second it achieved
 */
#ifndef RP_CORE_RATE_H
#define RP_CORE_RATE_H

#include <stddef.h>
#include <stdint.h>

#define RP_RATE_MAX_POINTS 32	/* rates of one sweep (--load-curve: 31) */
#define RP_RATE_SATURATED  0.97 /* achieved below this share: saturated */
#define RP_RATE_DEFAULT_NS (2ULL * 1000000000ULL) /* no -C, no -t */

enum rp_rate_kind {
	RP_RATE_CLOSED, /* no schedule: as fast as the queue depth allows */
	RP_RATE_OPS,	/* value: operations per second */
	RP_RATE_BITS,	/* value: bits per second */
	RP_RATE_PEAK,	/* value: share of the closed-loop point before it */
};

struct rp_rate {
	enum rp_rate_kind kind;
	double value;
};

/**
 * rp_rate_parse_list - a rate or a comma list of rates into @out (at most
 * @cap); each above 0 and at most RP_SPEC_MAX_RATE operations per second
 * (bit rates: checked per size by rp_rate_ops).
 * @n: receives the count.
 * @err: one-line reason naming --rate and the accepted forms.
 * Return: 0, or -EINVAL.
 */
int rp_rate_parse_list(const char *arg, struct rp_rate *out, size_t cap,
		       size_t *n, char *err, size_t errlen);

/** rp_rate_curve - the @points + 1 rates of --load-curve into @out. */
void rp_rate_curve(struct rp_rate *out, unsigned int points);

/**
 * rp_rate_ops - operations per second @r offers at messages of
 * @size_bytes, @peak_ops the closed-loop point's (RP_RATE_PEAK); at least 1
 * for an open loop, 0 for RP_RATE_CLOSED.
 */
uint64_t rp_rate_ops(const struct rp_rate *r, uint64_t size_bytes,
		     double peak_ops);

/** rp_rate_text - @r as the user would write it ("200k", "20Gb",
 *  "closed", "50%"), into @buf. */
void rp_rate_text(const struct rp_rate *r, char *buf, size_t len);

#endif
