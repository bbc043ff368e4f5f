/* SPDX-License-Identifier: MIT */
/*
 * The file transport's own options (--file-size, --buffered, --random,
 * --fsync-every), in every build: the block they fill in struct
 * rp_xport_params. They shape the run on this side only.
 */
#ifndef RP_XPORT_FILE_PARAMS_H
#define RP_XPORT_FILE_PARAMS_H

#include <stdbool.h>
#include <stdint.h>

#include "xport/xport.h"

#define RP_FILE_SIZE_DEFAULT	(1ULL << 30) /* --file-size: 1 GiB */
#define RP_FILE_SIZE_MAX	(1ULL << 50) /* 1 PiB */
#define RP_FILE_FSYNC_EVERY_MAX (1ULL << 40)

struct rp_file_params {
	uint64_t file_size;   /* --file-size: bytes of the region */
	uint64_t fsync_every; /* --fsync-every: an fsync per N writes; 0 */
	bool buffered;	      /* --buffered: through the page cache */
	bool random;	      /* --random: random offsets */
};

/** rp_file_params - @p's file block (the defaults' when @p is NULL). */
const struct rp_file_params *rp_file_params(const struct rp_xport_params *p);

#endif
