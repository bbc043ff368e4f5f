/* SPDX-License-Identifier: MIT */
/* -x all: the transports it stands for on this host (all.c). */
#ifndef RP_CLI_ALL_H
#define RP_CLI_ALL_H

#include <stddef.h>

#include "run/config.h"

/**
 * rp_cli_expand_all - when -x is "all", replace it with every built-in
 * network transport whose probe passes here, that can do the operation
 * and what the spec asks besides (--tos, --qp, --tagged, --mem; a file
 * needs its path, ofi the provider it is to use).
 * Return: 0, or -ENOENT when none is left, the reason in @err.
 */
int rp_cli_expand_all(struct rp_config *cfg, char *err, size_t len);

#endif
