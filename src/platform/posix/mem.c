// SPDX-License-Identifier: MIT
/* POSIX side of platform/mem.h: mmap of each kind. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "platform/mem.h"

/* --mem file:PATH names one file for the whole run: each mapping takes the
 * next region of it, and once none is left mapped (a test's streams are
 * gone) the next test starts again from the file's start, so that rounds
 * and transports in turn do not grow it. */
static pthread_mutex_t file_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t file_next;
static unsigned int file_live;

static uint64_t file_region(size_t len)
{
	uint64_t at;

	pthread_mutex_lock(&file_lock);
	at = file_next;
	file_next += len;
	file_live++;
	pthread_mutex_unlock(&file_lock);
	return at;
}

static void file_region_put(void)
{
	pthread_mutex_lock(&file_lock);
	if (file_live && --file_live == 0)
		file_next = 0;
	pthread_mutex_unlock(&file_lock);
}

int rp_mem_huge_free(uint64_t *free_bytes, uint64_t *page_bytes)
{
	unsigned long long free_pages = 0, rsvd = 0, kib = 0, v;
	char line[128];
	int seen = 0;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -ENOENT;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "HugePages_Free: %llu", &v) == 1) {
			free_pages = v;
			seen |= 1;
		} else if (sscanf(line, "HugePages_Rsvd: %llu", &v) == 1) {
			rsvd = v; /* promised to mappings, not yet touched */
		} else if (sscanf(line, "Hugepagesize: %llu kB", &v) == 1) {
			kib = v;
			seen |= 2;
		}
	}
	fclose(f);
	if (seen != 3 || !kib)
		return -ENOENT;
	*page_bytes = kib * 1024;
	*free_bytes = (free_pages > rsvd ? free_pages - rsvd : 0) * kib * 1024;
	return 0;
}

static size_t round_up(size_t len, size_t page)
{
	return (len + page - 1) / page * page;
}

static int map_huge(struct rp_mem *m, size_t len, struct rp_err *why)
{
#ifdef MAP_HUGETLB
	uint64_t free_b = 0, page = 2u << 20;
	void *p;
	int err;

	(void)rp_mem_huge_free(&free_b, &page);
	m->page = (size_t)page;
	m->map_len = round_up(len, m->page);
	p = mmap(NULL, m->map_len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	if (p != MAP_FAILED) {
		m->p = p;
		return 0;
	}
	err = -errno;
	return rp_errf(why, err,
		       "--mem huge: %zu huge pages of %llu KiB wanted, %llu "
		       "free (mmap: %s): reserve more, echo N > "
		       "/proc/sys/vm/nr_hugepages",
		       m->map_len / m->page, (unsigned long long)(page >> 10),
		       (unsigned long long)(page ? free_b / page : 0),
		       strerror(-err));
#else
	(void)m;
	(void)len;
	return rp_errf(why, -EOPNOTSUPP,
		       "--mem huge: this system has no MAP_HUGETLB");
#endif
}

static int open_file(const char *path, struct rp_err *why)
{
	const char *dir = getenv("TMPDIR");
	char tmp[4096];
	int fd;

	if (path) {
		fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
		if (fd < 0)
			return rp_errf(why, -errno, "--mem file:%s: %s", path,
				       strerror(errno));
		return fd;
	}
	snprintf(tmp, sizeof(tmp), "%s/rdmaperf-mem-XXXXXX",
		 dir && *dir ? dir : "/tmp");
	fd = mkstemp(tmp);
	if (fd < 0)
		return rp_errf(why, -errno,
			       "--mem file: a temporary file in %s: %s",
			       dir && *dir ? dir : "/tmp", strerror(errno));
	unlink(tmp);
	return fd;
}

static int map_file(struct rp_mem *m, const char *path, size_t len,
		    struct rp_err *why)
{
	struct stat st;
	void *p;
	int fd, err = 0;

	m->page = (size_t)sysconf(_SC_PAGESIZE);
	m->map_len = round_up(len, m->page);
	fd = open_file(path, why);
	if (fd < 0)
		return fd;
	/* a temporary file is this mapping's alone: from its start */
	m->offset = path ? file_region(m->map_len) : 0;
	m->named = path != NULL;
	if (fstat(fd, &st) < 0 ||
	    ((uint64_t)st.st_size < m->offset + m->map_len &&
	     ftruncate(fd, (off_t)(m->offset + m->map_len)) < 0))
		err = -errno;
	p = err ? MAP_FAILED
		: mmap(NULL, m->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		       (off_t)m->offset);
	if (!err && p == MAP_FAILED)
		err = -errno;
	close(fd);
	if (err && m->named)
		file_region_put();
	if (err)
		return rp_errf(why, err,
			       "--mem file:%s: %llu bytes at %llu: %s",
			       path ? path : "(temporary)",
			       (unsigned long long)m->map_len,
			       (unsigned long long)m->offset, strerror(-err));
	m->p = p;
	memset(p, 0, m->map_len); /* the file's old bytes are not a payload */
	return 0;
}

int rp_mem_map(struct rp_mem *m, enum rp_mem_kind kind, const char *path,
	       size_t len, struct rp_err *why)
{
	void *p;
	int err;

	memset(m, 0, sizeof(*m));
	m->kind = kind;
	m->len = len ? len : 1;
	if (kind == RP_MEM_HUGE)
		err = map_huge(m, m->len, why);
	else if (kind == RP_MEM_FILE)
		err = map_file(m, path, m->len, why);
	else {
		m->page = (size_t)sysconf(_SC_PAGESIZE);
		m->map_len = round_up(m->len, m->page);
		p = mmap(NULL, m->map_len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		err = p == MAP_FAILED
			      ? rp_errf(why, -errno, "mmap of %zu bytes: %s",
					m->map_len, strerror(errno))
			      : 0;
		if (!err)
			m->p = p;
	}
	if (err) {
		memset(m, 0, sizeof(*m));
		return err;
	}
	/* Touch every page now: an anonymous page never written is the
	 * kernel's one zero page, and a sender copying from it reads 4 KiB
	 * that sit in cache (tcp's write measured 1.45x faster that way
	 * than from a buffer of its own pages). A huge page short is found
	 * here too, not by a SIGBUS later. */
	if (kind != RP_MEM_FILE)
		memset(m->p, 0, m->map_len);
	return 0;
}

void rp_mem_unmap(struct rp_mem *m)
{
	if (m->p)
		munmap(m->p, m->map_len);
	if (m->p && m->named)
		file_region_put();
	memset(m, 0, sizeof(*m));
}
