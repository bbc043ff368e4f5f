/* SPDX-License-Identifier: MIT */
/*
 * Unsigned 128-bit integers as two 64-bit halves, for exact sums that a
 * 64-bit integer would overflow (a histogram's sum of squares). Portable C:
 * 32-bit targets (i386, arm) and compilers without unsigned __int128 get
 * the same results, bit for bit, as a 64-bit build. Arithmetic is modulo
 * 2^128, as unsigned arithmetic in C is.
 *
 * The helpers on the recording path (add, mul) are inline and branch-free;
 * division and conversion, used when a histogram is summarized, are not.
 * Only rp_u128_mul64() uses the compiler's 128-bit type where there is one,
 * for speed; tests/unit/test_u128.c checks that both forms agree.
 */
#ifndef RP_CORE_U128_H
#define RP_CORE_U128_H

#include <stdint.h>

/** An unsigned 128-bit value: hi * 2^64 + lo. */
struct rp_u128 {
	uint64_t hi, lo;
};

/** rp_u128_of - the 128-bit value of @v. */
static inline struct rp_u128 rp_u128_of(uint64_t v)
{
	struct rp_u128 r = { 0, v };

	return r;
}

/** rp_u128_add - @a + @b. */
static inline struct rp_u128 rp_u128_add(struct rp_u128 a, struct rp_u128 b)
{
	struct rp_u128 r;

	r.lo = a.lo + b.lo;
	r.hi = a.hi + b.hi + (r.lo < a.lo);
	return r;
}

/** rp_u128_add64 - add @v to *@acc in place. */
static inline void rp_u128_add64(struct rp_u128 *acc, uint64_t v)
{
	acc->lo += v;
	acc->hi += acc->lo < v;
}

/** rp_u128_sub - @a - @b. */
static inline struct rp_u128 rp_u128_sub(struct rp_u128 a, struct rp_u128 b)
{
	struct rp_u128 r;

	r.lo = a.lo - b.lo;
	r.hi = a.hi - b.hi - (a.lo < b.lo);
	return r;
}

/**
 * rp_u128_mul64_portable - the full product of two 64-bit values, from four
 * 32 x 32-bit products: what rp_u128_mul64() is without unsigned __int128.
 */
static inline struct rp_u128 rp_u128_mul64_portable(uint64_t a, uint64_t b)
{
	uint64_t a0 = (uint32_t)a, a1 = a >> 32;
	uint64_t b0 = (uint32_t)b, b1 = b >> 32;
	uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
	uint64_t mid = (p00 >> 32) + (uint32_t)p01 + (uint32_t)p10;
	struct rp_u128 r;

	r.lo = (mid << 32) | (uint32_t)p00;
	r.hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
	return r;
}

/**
 * rp_u128_mul64 - the full product of two 64-bit values. Where the compiler
 * has a 128-bit type (64-bit targets) it is one multiply instruction, which
 * keeps rp_hist_record() at its cost; the result is the same either way.
 */
static inline struct rp_u128 rp_u128_mul64(uint64_t a, uint64_t b)
{
#ifdef __SIZEOF_INT128__
	__extension__ unsigned __int128 p = (unsigned __int128)a * b;
	struct rp_u128 r = { (uint64_t)(p >> 64), (uint64_t)p };

	return r;
#else
	return rp_u128_mul64_portable(a, b);
#endif
}

/** rp_u128_mul - @a * @b modulo 2^128. */
static inline struct rp_u128 rp_u128_mul(struct rp_u128 a, uint64_t b)
{
	struct rp_u128 r = rp_u128_mul64(a.lo, b);

	r.hi += a.hi * b;
	return r;
}

/** rp_u128_cmp - <0, 0 or >0 as @a is below, equal to or above @b. */
static inline int rp_u128_cmp(struct rp_u128 a, struct rp_u128 b)
{
	if (a.hi != b.hi)
		return a.hi < b.hi ? -1 : 1;
	return (a.lo > b.lo) - (a.lo < b.lo);
}

/**
 * rp_u128_divmod - @a / @d, the quotient returned, the remainder in *@rem.
 * @d: not 0.
 */
struct rp_u128 rp_u128_divmod(struct rp_u128 a, uint64_t d, uint64_t *rem);

/**
 * rp_u128_to_ld - @a as a long double, rounded once to nearest (the value a
 * compiler's own conversion gives, where long double holds a 64-bit value
 * exactly: x87 extended and IEEE quad).
 */
long double rp_u128_to_ld(struct rp_u128 a);

#endif
