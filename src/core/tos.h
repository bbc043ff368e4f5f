/* SPDX-License-Identifier: MIT */
/*
 * --tos: the IP TOS byte (RFC 2474's DSCP in its upper six bits, RFC 3168's
 * ECN in the lower two), as the user spells it and as reports say it.
 */
#ifndef RP_CORE_TOS_H
#define RP_CORE_TOS_H

#include <stddef.h>
#include <stdint.h>

/**
 * rp_tos_parse - @s as a TOS byte: a number, 0 to 255 (136, 0x88), or a
 * DSCP by its name (ef, af11 to af43, cs0 to cs7), ECN 0.
 * Return: 0, or -EINVAL leaving *out alone.
 */
int rp_tos_parse(const char *s, uint32_t *out);

/**
 * rp_tos_describe - @tos for people: "0x88 (DSCP 34 af41, ECN 0)"; a DSCP
 * without a name is said by its number alone.
 */
void rp_tos_describe(uint32_t tos, char *buf, size_t len);

#endif
