// SPDX-License-Identifier: MIT
/*
 * The file transport's file: open or create PATH, size the region, fill it
 * for reads, remove it at the end when this test created it. Stream 0
 * (the owner) does all of it; the other streams open what it made.
 *
 * Nothing is left behind on failure: PATH is created without O_DIRECT,
 * which is then asked for with fcntl (a filesystem without it says EINVAL
 * there, after open(O_CREAT|O_DIRECT) would already have made the file),
 * and a file this test created is removed on every error path.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xport/file/file.h"

/* What to tell the user about an errno from opening or sizing PATH. */
static const struct {
	int err;
	const char *hint;
} hints[] = {
	{ ENOENT, "no such directory" },
	{ EROFS, "the filesystem is read-only" },
	{ ENOSPC, "no space left on the device (see --file-size)" },
	{ EDQUOT, "over the disk quota (see --file-size)" },
	{ EACCES, "permission denied" },
	{ EISDIR, "it is a directory: give a file's path" },
};

static int fail_errno(struct file_stream *f, int err, const char *what)
{
	const char *hint = strerror(-err);
	size_t i;

	for (i = 0; i < sizeof(hints) / sizeof(hints[0]); i++)
		if (hints[i].err == -err)
			hint = hints[i].hint;
	return rp_stream_fail(&f->base, err, "%s: %s: %s", f->path, what, hint);
}

/* A read of an existing file large enough, without --verify, needs no
 * writing: it goes read-only (an export mounted ro serves). */
static bool read_only(const struct file_stream *f, const struct stat *st,
		      bool exists)
{
	return exists && f->base.spec.op == RP_OP_READ &&
	       !f->base.spec.verify && (uint64_t)st->st_size >= f->region;
}

/* The region exists in full: allocated where the filesystem can (as fio
 * does), else a sparse file of that size. */
static int size_region(struct file_stream *f, uint64_t have)
{
	if (have >= f->region)
		return 0;
	if (fallocate(f->fd, 0, 0, (off_t)f->region) == 0)
		return 0;
	if (errno != EOPNOTSUPP && errno != ENOSYS)
		return fail_errno(f, -errno, "cannot allocate the region");
	if (ftruncate(f->fd, (off_t)f->region))
		return fail_errno(f, -errno, "cannot extend it");
	return 0;
}

static int set_direct(struct file_stream *f)
{
	int fl = fcntl(f->fd, F_GETFL);

	if (!f->direct)
		return 0;
	if (fl >= 0 && fcntl(f->fd, F_SETFL, fl | O_DIRECT) == 0)
		return 0;
	if (errno == EINVAL)
		return rp_stream_fail(&f->base, -EINVAL,
				      "%s: the filesystem does not support "
				      "O_DIRECT: use --buffered",
				      f->path);
	return fail_errno(f, -errno, "cannot set O_DIRECT");
}

/* The owner's file: opened, or created; read-only when that serves. */
static int open_owner(struct file_stream *f, bool *fill)
{
	struct stat st = { 0 };
	bool exists = stat(f->path, &st) == 0, ro;
	int flags = O_RDWR | O_CLOEXEC;

	if (!exists && errno != ENOENT)
		return fail_errno(f, -errno, "cannot look at it");
	if (exists && S_ISDIR(st.st_mode))
		return fail_errno(f, -EISDIR, "cannot use it");
	ro = read_only(f, &st, exists);
	if (ro)
		flags = O_RDONLY | O_CLOEXEC;
	else if (!exists)
		flags |= O_CREAT | O_EXCL;
	f->fd = open(f->path, flags, 0644);
	if (f->fd < 0)
		return fail_errno(f, -errno,
				  exists ? "cannot open it"
					 : "cannot create it");
	f->created = !exists;
	*fill = f->base.spec.op == RP_OP_READ && !ro;
	if (ro)
		return 0;
	if (!exists)
		return size_region(f, 0);
	return S_ISREG(st.st_mode) ? size_region(f, (uint64_t)st.st_size) : 0;
}

int file_open(struct file_stream *f)
{
	bool fill = false;
	int err;

	if (f->owner) {
		err = open_owner(f, &fill);
	} else {
		f->fd = open(f->path, (f->base.spec.op == RP_OP_READ &&
						       !f->base.spec.verify
					       ? O_RDONLY
					       : O_RDWR) |
					      O_CLOEXEC);
		err = f->fd < 0 ? fail_errno(f, -errno, "cannot open it") : 0;
	}
	if (!err)
		err = set_direct(f);
	if (!err && fill)
		err = file_fill(f, f->base.spec.size_bytes);
	return err;
}

static int write_all(struct file_stream *f, const uint8_t *buf, size_t len,
		     uint64_t off)
{
	ssize_t n;

	while (len) {
		n = pwrite(f->fd, buf, len, (off_t)off);
		if (n <= 0)
			return fail_errno(f, n < 0 ? -errno : -EIO,
					  "cannot fill the region");
		buf += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

/* Before a read test: slot k of @size_bytes holds message k's pattern, so
 * that --verify can check every read; then on stable storage and out of
 * the page cache, so that the test starts cold (fio's invalidate). */
int file_fill(struct file_stream *f, uint64_t size_bytes)
{
	uint64_t slots = f->region / size_bytes, k, n;
	uint64_t per = f->max_size * f->max_depth / size_bytes;
	int err = 0;

	for (k = 0; !err && k < slots; k += n) {
		n = slots - k < per ? slots - k : per;
		rp_file_fill_slots(f->buf, size_bytes, k, n);
		err = write_all(f, f->buf, (size_t)(n * size_bytes),
				k * size_bytes);
	}
	if (!err && fdatasync(f->fd))
		err = fail_errno(f, -errno, "cannot sync the region");
	if (err)
		return err;
	posix_fadvise(f->fd, 0, (off_t)f->region, POSIX_FADV_DONTNEED);
	f->filled_size = size_bytes;
	return 0;
}

void file_close_fd(struct file_stream *f)
{
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	if (f->created)
		unlink(f->path);
	f->created = false;
}
