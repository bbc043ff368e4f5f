// SPDX-License-Identifier: MIT
/* --mem's seam (platform/mem.h): each kind mapped, zeroed, unmapped. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "platform/mem.h"

static void test_names(void **state)
{
	int k, v;

	(void)state;
	for (k = 0; k < RP_MEM__COUNT; k++) {
		assert_int_equal(rp_mem_kind_parse(rp_mem_kind_name(k), &v), 0);
		assert_int_equal(v, k);
	}
	assert_string_equal(rp_mem_kind_name(RP_MEM__COUNT), "unknown");
	assert_string_equal(rp_mem_kind_name(-1), "unknown");
	assert_int_equal(rp_mem_kind_parse("HUGE", &v), -EINVAL);
	assert_int_equal(rp_mem_kind_parse(NULL, &v), -EINVAL);
}

static void zeroed(const struct rp_mem *m)
{
	size_t i;

	assert_non_null(m->p);
	assert_true(m->map_len >= m->len && m->map_len % m->page == 0);
	assert_int_equal((uintptr_t)m->p % m->page, 0);
	for (i = 0; i < m->map_len; i++)
		if (((const unsigned char *)m->p)[i])
			fail_msg("byte %zu not zero", i);
}

/* Every page is the mapping's own, in memory from the start: never the
 * zero page a sender would copy from cache (mincore says resident). */
static void resident(const struct rp_mem *m)
{
	unsigned char vec[64];
	size_t i, n = m->map_len / m->page;

	assert_true(n <= sizeof(vec));
	assert_int_equal(mincore(m->p, m->map_len, vec), 0);
	for (i = 0; i < n; i++)
		if (!(vec[i] & 1))
			fail_msg("page %zu of %zu not resident", i, n);
}

static void test_host(void **state)
{
	struct rp_err why = { "" };
	struct rp_mem m;

	(void)state;
	assert_int_equal(rp_mem_map(&m, RP_MEM_HOST, NULL, 10000, &why), 0);
	resident(&m);
	zeroed(&m);
	memset(m.p, 0xab, m.len);
	rp_mem_unmap(&m);
	assert_null(m.p);
	rp_mem_unmap(&m); /* twice: harmless */
}

/* file:PATH: two mappings take two regions, one after the other, of a
 * file that grows to hold them; what is written is in the file. */
static void test_file(void **state)
{
	char path[] = "/tmp/rp-test-mem-XXXXXX";
	struct rp_err why = { "" };
	struct rp_mem a, b;
	unsigned char buf[8];
	struct stat st;
	FILE *f;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "old bytes", 9), 9);
	close(fd);
	assert_int_equal(rp_mem_map(&a, RP_MEM_FILE, path, 5000, &why), 0);
	zeroed(&a); /* the file's old bytes are gone */
	assert_int_equal(rp_mem_map(&b, RP_MEM_FILE, path, 100, &why), 0);
	assert_int_equal(b.offset, a.offset + a.map_len);
	memset(b.p, 0x5a, b.len);
	assert_int_equal(stat(path, &st), 0);
	assert_true((uint64_t)st.st_size >= b.offset + b.map_len);
	f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fseek(f, (long)b.offset, SEEK_SET), 0);
	assert_int_equal(fread(buf, 1, sizeof(buf), f), sizeof(buf));
	fclose(f);
	assert_int_equal(buf[0], 0x5a);
	assert_int_equal(buf[7], 0x5a);
	rp_mem_unmap(&a);
	/* b still mapped: the next region is after it */
	assert_int_equal(rp_mem_map(&a, RP_MEM_FILE, path, 10, &why), 0);
	assert_int_equal(a.offset, b.offset + b.map_len);
	rp_mem_unmap(&a);
	rp_mem_unmap(&b);
	/* none left: the next test starts from the file's start */
	assert_int_equal(rp_mem_map(&a, RP_MEM_FILE, path, 10, &why), 0);
	assert_int_equal(a.offset, 0);
	rp_mem_unmap(&a);
	unlink(path);
}

static void test_file_temporary(void **state)
{
	struct rp_err why = { "" };
	struct rp_mem m;

	(void)state;
	assert_int_equal(rp_mem_map(&m, RP_MEM_FILE, NULL, 4096, &why), 0);
	assert_int_equal(m.offset, 0);
	zeroed(&m);
	rp_mem_unmap(&m);
	assert_int_equal(
		rp_mem_map(&m, RP_MEM_FILE, "/nonexistent/dir/f", 1, &why),
		-ENOENT);
	assert_non_null(strstr(why.msg, "--mem file:/nonexistent/dir/f"));
}

/* Huge pages: mapped where the pool has them; else the reason says how
 * many were wanted and how to reserve them. */
static void test_huge(void **state)
{
	struct rp_err why = { "" };
	uint64_t free_b = 0, page = 0;
	struct rp_mem m;
	int err;

	(void)state;
	if (rp_mem_huge_free(&free_b, &page))
		skip();
	err = rp_mem_map(&m, RP_MEM_HUGE, NULL, 3 * page + 1, &why);
	if (free_b >= 4 * page) {
		assert_int_equal(err, 0);
		assert_int_equal(m.page, page);
		assert_int_equal(m.map_len, 4 * page);
		zeroed(&m);
		rp_mem_unmap(&m);
	} else if (err) {
		assert_null(m.p);
		assert_non_null(strstr(why.msg, "4 huge pages of"));
		assert_non_null(strstr(why.msg, "/proc/sys/vm/nr_hugepages"));
	} else {
		rp_mem_unmap(&m); /* freed meanwhile by another process */
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_host),
		cmocka_unit_test(test_file),
		cmocka_unit_test(test_file_temporary),
		cmocka_unit_test(test_huge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
