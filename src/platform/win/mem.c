// SPDX-License-Identifier: MIT
/* Windows side of platform/mem.h: host memory alone. Large pages need
 * SeLockMemoryPrivilege and files a section object; neither is done. */
#include <errno.h>
#include <string.h>

#include "platform/mem.h"
#include "platform/os.h"

#define PAGE 4096

int rp_mem_huge_free(uint64_t *free_bytes, uint64_t *page_bytes)
{
	(void)free_bytes;
	(void)page_bytes;
	return -ENOENT;
}

int rp_mem_map(struct rp_mem *m, enum rp_mem_kind kind, const char *path,
	       size_t len, struct rp_err *why)
{
	(void)path;
	memset(m, 0, sizeof(*m));
	if (kind != RP_MEM_HOST)
		return rp_errf(why, -EOPNOTSUPP,
			       "--mem %s: the Windows build maps host memory "
			       "alone",
			       rp_mem_kind_name(kind));
	m->len = len ? len : 1;
	m->page = PAGE;
	m->map_len = (m->len + PAGE - 1) / PAGE * PAGE;
	m->p = rp_os_aligned_alloc(PAGE, m->map_len);
	if (!m->p)
		return rp_errf(why, -ENOMEM, "out of memory for %zu bytes",
			       m->map_len);
	memset(m->p, 0, m->map_len);
	return 0;
}

void rp_mem_unmap(struct rp_mem *m)
{
	rp_os_aligned_free(m->p);
	memset(m, 0, sizeof(*m));
}
