// SPDX-License-Identifier: MIT
/* The file transport's open (src/xport/file/open.c) on a scratch
 * directory: never through a link, only a regular file or a block device,
 * and a read never writes to a file it did not create (issue 39: 1, 2). */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "xport/file/params.h"
#include "xport/xport.h"
#ifdef RP_HAVE_URING
#include "xport/file/file.h"
#endif

#define REGION (1 << 20)

static char dir[] = "/tmp/rp-unit-file-XXXXXX";
static char path[256], target[256];
static struct rp_err why;
static bool verify; /* --verify on the streams open_stream() opens */

static const struct rp_xport_ops *file_xport(void)
{
	const struct rp_xport_ops *x = rp_xport_find("file");
	struct rp_err e = { "" };

	return x && x->probe(x, &e) == 0 ? x : NULL;
}

/* connect() stream @stream of @streams of @op on @p, O_DIRECT off. */
static int open_stream(enum rp_op op, const char *p, unsigned int stream,
		       unsigned int streams, struct rp_stream **out)
{
	const struct rp_xport_ops *x = file_xport();
	struct rp_spec spec = { .transport = "file",
				.op = op,
				.size_bytes = 65536,
				.queue_depth = 2,
				.streams = streams,
				.verify = verify };
	struct rp_xport_params prm;
	struct rp_file_params *fp;

	rp_xport_params_defaults(&prm);
	prm.path = p;
	prm.stream = stream;
	fp = rp_xport_own(&prm, &rp_xport_file_options);
	fp->buffered = true;
	fp->file_size = REGION;
	memset(&why, 0, sizeof(why));
	*out = NULL;
	return x->connect(x, &spec, &prm, NULL, NULL, NULL, RP_ROLE_INITIATOR,
			  1000, out, &why);
}

static void write_file(const char *p, size_t len, uint8_t seed)
{
	FILE *f = fopen(p, "wb");
	size_t i;

	assert_non_null(f);
	for (i = 0; i < len; i++)
		fputc((int)((i * 31 + seed) & 0xff), f);
	assert_int_equal(fclose(f), 0);
}

/* A file's size, mtime and a sum of its bytes: what must not change. */
struct look {
	off_t size;
	struct timespec mtime;
	uint64_t sum;
};

static struct look look_at(const char *p)
{
	struct look l = { 0 };
	struct stat st;
	FILE *f = fopen(p, "rb");
	int c;

	assert_non_null(f);
	assert_int_equal(fstat(fileno(f), &st), 0);
	l.size = st.st_size;
	l.mtime = st.st_mtim;
	while ((c = fgetc(f)) != EOF)
		l.sum = l.sum * 1099511628211ULL + (uint64_t)c;
	fclose(f);
	return l;
}

static void same(const struct look *a, const struct look *b)
{
	assert_int_equal(a->size, b->size);
	assert_int_equal(a->mtime.tv_sec, b->mtime.tv_sec);
	assert_int_equal(a->mtime.tv_nsec, b->mtime.tv_nsec);
	assert_int_equal(a->sum, b->sum);
}

static void unchanged(const struct look *before, const char *p)
{
	struct look now = look_at(p);

	same(before, &now);
}

static void close_stream(struct rp_stream *s)
{
	s->ops->close(s);
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/bench", dir);
	snprintf(target, sizeof(target), "%s/target", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	unlink(target);
	return rmdir(dir);
}

static void need_file(void)
{
	if (!file_xport())
		skip();
}

static void test_symlink_refused(void **state)
{
	enum rp_op ops[] = { RP_OP_WRITE, RP_OP_READ };
	struct rp_stream *s;
	struct look before;
	size_t i;

	(void)state;
	need_file();
	write_file(target, 32, 1);
	before = look_at(target);
	assert_int_equal(symlink(target, path), 0);
	for (i = 0; i < 2; i++) {
		assert_int_equal(open_stream(ops[i], path, 0, 1, &s), -ELOOP);
		assert_null(s);
		assert_non_null(strstr(why.msg, "symbolic link"));
		assert_non_null(strstr(why.msg, path));
		assert_int_equal(open_stream(ops[i], path, 1, 2, &s), -ELOOP);
		unchanged(&before, target);
	}
	/* a dangling one: nothing is made where it points */
	unlink(target);
	assert_int_equal(open_stream(RP_OP_WRITE, path, 0, 1, &s), -ELOOP);
	assert_int_equal(access(target, F_OK), -1);
	unlink(path);
}

static void test_hard_link_not_written(void **state)
{
	struct rp_stream *s;
	struct look before;

	(void)state;
	need_file();
	write_file(target, REGION, 2);
	before = look_at(target);
	assert_int_equal(link(target, path), 0);
	assert_int_equal(open_stream(RP_OP_WRITE, path, 0, 1, &s), -EMLINK);
	assert_non_null(strstr(why.msg, "hard links"));
	unchanged(&before, target);
	assert_int_equal(open_stream(RP_OP_READ, path, 0, 1, &s), 0);
	close_stream(s);
	unchanged(&before, target);
	unlink(path);
	unlink(target);
}

static void test_short_read_refused(void **state)
{
	struct rp_stream *s;
	struct look before;

	(void)state;
	need_file();
	write_file(path, 27, 3);
	before = look_at(path);
	assert_int_equal(open_stream(RP_OP_READ, path, 0, 1, &s), -EINVAL);
	assert_non_null(strstr(why.msg, "27 bytes"));
	assert_non_null(strstr(why.msg, "1048576"));
	unchanged(&before, path);
	unlink(path);
}

#ifdef RP_HAVE_URING
/* Stream 0 and stream 1 of a read of a file this test did not create,
 * --verify or not: both read-only, the file as it was, and still there
 * after. */
static void read_only(bool with_verify)
{
	struct rp_stream *s0, *s1;
	struct look before;

	verify = with_verify;
	write_file(path, REGION + 5, 4);
	before = look_at(path);
	assert_int_equal(open_stream(RP_OP_READ, path, 0, 2, &s0), 0);
	assert_int_equal(open_stream(RP_OP_READ, path, 1, 2, &s1), 0);
	assert_int_equal(fcntl(to_file(s0)->fd, F_GETFL) & O_ACCMODE, O_RDONLY);
	assert_int_equal(fcntl(to_file(s1)->fd, F_GETFL) & O_ACCMODE, O_RDONLY);
	assert_false(to_file(s0)->created);
	close_stream(s1);
	close_stream(s0);
	unchanged(&before, path);
	unlink(path);
	verify = false;
}

static void test_read_is_read_only(void **state)
{
	(void)state;
	need_file();
	read_only(false);
	read_only(true);
}

/* A read of a missing file: made, filled, removed at close. */
static void test_read_creates_missing(void **state)
{
	struct rp_stream *s;
	struct stat st;

	(void)state;
	need_file();
	assert_int_equal(open_stream(RP_OP_READ, path, 0, 1, &s), 0);
	assert_true(to_file(s)->created);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, REGION);
	close_stream(s);
	assert_int_equal(access(path, F_OK), -1);
}
#endif

static void refused_kind(const char *p, const char *kind)
{
	enum rp_op ops[] = { RP_OP_WRITE, RP_OP_READ };
	struct rp_stream *s;
	size_t i;

	for (i = 0; i < 2; i++) {
		assert_int_equal(open_stream(ops[i], p, 0, 1, &s), -EINVAL);
		assert_non_null(strstr(why.msg, kind));
		assert_non_null(strstr(why.msg, p));
	}
}

static void test_not_a_file_refused(void **state)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	(void)state;
	need_file();
	assert_int_equal(mkfifo(path, 0600), 0);
	refused_kind(path, "a FIFO");
	unlink(path);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(fd >= 0);
	assert_true(strlen(path) < sizeof(sa.sun_path));
	memcpy(sa.sun_path, path, strlen(path) + 1);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	refused_kind(path, "a socket");
	close(fd);
	unlink(path);
	refused_kind(dir, "a directory");
	refused_kind("/dev/null", "a character device");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_symlink_refused),
		cmocka_unit_test(test_hard_link_not_written),
		cmocka_unit_test(test_short_read_refused),
#ifdef RP_HAVE_URING
		cmocka_unit_test(test_read_is_read_only),
		cmocka_unit_test(test_read_creates_missing),
#endif
		cmocka_unit_test(test_not_a_file_refused),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
