/* SPDX-License-Identifier: MIT */
/*
 * The 128-bit helpers that are not on a hot path (see u128.h): division by
 * a 64-bit value and conversion to long double.
 */
#include "core/u128.h"

/* (@hi * 2^64 + @lo) / @d for @hi < @d (so the quotient fits 64 bits):
 * restoring division, one quotient bit per step. */
static uint64_t div_small(uint64_t hi, uint64_t lo, uint64_t d, uint64_t *rem)
{
	uint64_t q = 0, r = hi, top;
	int i;

	for (i = 63; i >= 0; i--) {
		top = r >> 63; /* set: 2r + bit >= 2^64 > d */
		r = (r << 1) | ((lo >> i) & 1);
		q <<= 1;
		if (top || r >= d) {
			r -= d; /* modulo 2^64: exact, the result is below d */
			q |= 1;
		}
	}
	*rem = r;
	return q;
}

struct rp_u128 rp_u128_divmod(struct rp_u128 a, uint64_t d, uint64_t *rem)
{
	struct rp_u128 q;

	q.hi = a.hi / d;
	q.lo = div_small(a.hi % d, a.lo, d, rem);
	return q;
}

/*
 * hi * 2^64 and lo are each exact in a long double that holds 64 bits of
 * mantissa, so their sum is rounded once, as a direct conversion is.
 */
long double rp_u128_to_ld(struct rp_u128 a)
{
	return (long double)a.hi * 0x1p64L + (long double)a.lo;
}
