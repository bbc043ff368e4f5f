/* SPDX-License-Identifier: MIT */
/*
 * The memory a transport's messages live in (--mem): one seam, so that a
 * kind of memory is added here once (device memory, a dma-buf, next) and
 * every transport that maps its buffers through it gets it. A transport
 * registers what this maps; ODP is host memory that the rdma transport
 * registers on demand. Implementations: posix/mem.c, win/mem.c.
 */
#ifndef RP_PLATFORM_MEM_H
#define RP_PLATFORM_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "platform/err.h"

enum rp_mem_kind {
	RP_MEM_HOST, /* anonymous pages, the system's page size */
	RP_MEM_HUGE, /* MAP_HUGETLB: the default huge page size */
	RP_MEM_FILE, /* MAP_SHARED of a file: the page cache */
	RP_MEM_ODP,  /* host pages, registered on demand (rdma) */
	RP_MEM__COUNT
};

/** One mapping: what rp_mem_map gave. */
struct rp_mem {
	void *p;
	size_t len;	 /* asked for */
	size_t map_len;	 /* mapped: len rounded up to whole pages */
	size_t page;	 /* the size of the pages behind it */
	uint64_t offset; /* RP_MEM_FILE: where in the file it starts */
	bool named;	 /* RP_MEM_FILE: of the run's PATH, not a temporary */
	enum rp_mem_kind kind;
};

/** rp_mem_kind_name - "host", "huge", "file", "odp"; "unknown". */
const char *rp_mem_kind_name(int kind);

/** rp_mem_kind_parse - the inverse of rp_mem_kind_name. 0 or -EINVAL. */
int rp_mem_kind_parse(const char *s, int *out);

/**
 * rp_mem_map - @len bytes (at least one) of @kind, page-aligned, zeroed
 * and every page touched (backed by pages of its own, not the zero page),
 * into @m. RP_MEM_FILE maps @path (NULL: an unlinked temporary file in
 * $TMPDIR, else /tmp) shared, each mapping of this process a region of
 * its own after the ones still mapped (from the start again once none
 * is), the file grown to hold it.
 * @why gets a one-line reason (no huge pages reserved: how many it took
 * and how to reserve them). Return: 0 or -errno.
 */
int rp_mem_map(struct rp_mem *m, enum rp_mem_kind kind, const char *path,
	       size_t len, struct rp_err *why);

/** rp_mem_unmap - undo rp_mem_map; a zeroed @m is fine. */
void rp_mem_unmap(struct rp_mem *m);

/**
 * rp_mem_huge_free - the huge pages free on this host (HugePages_Free less
 * those reserved for mappings made), and their size (the default one), in
 * bytes: for a client's check before a test. Return: 0,
 * or -ENOENT where the system has none to say.
 */
int rp_mem_huge_free(uint64_t *free_bytes, uint64_t *page_bytes);

#endif
