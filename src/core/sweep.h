/* SPDX-License-Identifier: MIT */
/*
 * Sweeps: the message sizes and queue depths of a test, as the command line
 * gives them, and the points they make (every size with every depth,
 * size-major: 4K/1, 4K/16, 64K/1, ...). Pure functions, no I/O.
 *
 *   -S 4096          one size           -q 16        one depth
 *   -S 4K,64K,1M     a list             -q 1,16,64   a list
 *   -S 2-8M          the powers of two from 2 to 8 MiB (both ends included,
 *                    an end that is no power of two too)
 *   --all-sizes      2-8M, perftest's -a
 */
#ifndef RP_CORE_SWEEP_H
#define RP_CORE_SWEEP_H

#include <stddef.h>
#include <stdint.h>

#define RP_SWEEP_ALL_MIN   2ULL
#define RP_SWEEP_ALL_MAX   (8ULL << 20)
#define RP_SWEEP_BUDGET	   (256ULL << 20) /* bytes per point by default, */
#define RP_SWEEP_MIN_ITERS 1000ULL	  /* at least this many operations, */
#define RP_SWEEP_MAX_ITERS 1000000ULL	  /* at most this many */

/**
 * rp_sweep_parse_sizes - a size, a comma list of sizes or a LO-HI range of
 * powers of two (K, M, G suffixes, 1024-based) into @out, ascending order
 * kept as given for lists; each from 1 to @max_size, at most @cap values,
 * no duplicates.
 * @n: receives the count.
 * @err: one-line reason naming -S/--size and the accepted forms.
 * Return: 0, or -EINVAL.
 */
int rp_sweep_parse_sizes(const char *arg, uint64_t max_size, uint64_t *out,
			 size_t cap, size_t *n, char *err, size_t errlen);

/**
 * rp_sweep_parse_depths - as rp_sweep_parse_sizes for queue depths (no
 * suffixes), each from 1 to @max_depth; names -q/--queue-depth.
 */
int rp_sweep_parse_depths(const char *arg, uint32_t max_depth, uint32_t *out,
			  size_t cap, size_t *n, char *err, size_t errlen);

/** rp_sweep_all_sizes - 2 B to 8 MiB, powers of two, into @out (cap >= 23).
 *  Return: the count. */
size_t rp_sweep_all_sizes(uint64_t *out, size_t cap);

/**
 * rp_sweep_iterations - operations of one point of @size_bytes when the user
 * gave neither -C nor -t: RP_SWEEP_BUDGET / size, clamped to
 * [RP_SWEEP_MIN_ITERS, RP_SWEEP_MAX_ITERS].
 */
uint64_t rp_sweep_iterations(uint64_t size_bytes);

/** rp_sweep_max_u64 / rp_sweep_max_u32 - the largest of @n (> 0) values. */
uint64_t rp_sweep_max_u64(const uint64_t *v, size_t n);
uint32_t rp_sweep_max_u32(const uint32_t *v, size_t n);

#endif
