/* SPDX-License-Identifier: MIT */
/* Parsing of numbers with unit suffixes, and formatting for people. */
#ifndef RP_CORE_UNITS_H
#define RP_CORE_UNITS_H

#include <stddef.h>
#include <stdint.h>

/**
 * rp_units_parse_size - a byte count: digits and an optional suffix from
 * K, M, G, T (1024-based, any case, optionally followed by "B" or "iB").
 * Return: 0; -EINVAL for malformed text; -ERANGE on overflow.
 */
int rp_units_parse_size(const char *s, uint64_t *out);

/**
 * rp_units_parse_count - a plain count, digits with an optional suffix
 * k, m, g (1000-based: "100k" iterations). Return: as above.
 */
int rp_units_parse_count(const char *s, uint64_t *out);

/**
 * rp_units_count_in - @arg as a count (rp_units_parse_count) within @lo..@hi,
 * or a one-line reason naming @flag and the range in @err.
 * Return: 0 or -EINVAL.
 */
int rp_units_count_in(const char *flag, const char *arg, uint64_t lo,
		      uint64_t hi, uint64_t *out, char *err, size_t errlen);

/**
 * rp_units_parse_seconds - a duration: a decimal number of seconds, or a
 * number with "ms", "us" or "s". Return: 0 and nanoseconds, -EINVAL, -ERANGE.
 */
int rp_units_parse_seconds(const char *s, uint64_t *out_ns);

/** rp_units_format_size - "4 KiB", "1.5 MiB", "100 B" into @buf. */
const char *rp_units_format_size(uint64_t bytes, char *buf, size_t len);

#endif
