// SPDX-License-Identifier: MIT
/*
 * The file transport's file: open or create PATH, size the region, fill it
 * for reads, remove it at the end when this test created it. Stream 0
 * (the owner) does all of it; the other streams open what it made.
 *
 * PATH is never followed through a symbolic link (a link planted in a
 * shared directory must not aim a write at another file), and only a
 * regular file or a block device is taken, checked on the descriptor. A
 * read never writes to a file it did not create: it reads what is there.
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
#include <linux/fs.h>
#include <sys/ioctl.h>
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

/* What a path of @mode is, when the transport refuses it: NULL for a
 * regular file or a block device. */
static const char *kind_refused(mode_t mode)
{
	if (S_ISREG(mode) || S_ISBLK(mode))
		return NULL;
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISSOCK(mode))
		return "a socket";
	return S_ISCHR(mode) ? "a character device" : "not a regular file";
}

/* The bytes of the file or block device @fd (@st its fstat). */
static int have_bytes(struct file_stream *f, const struct stat *st,
		      uint64_t *out)
{
	if (!S_ISBLK(st->st_mode)) {
		*out = (uint64_t)st->st_size;
		return 0;
	}
	if (ioctl(f->fd, BLKGETSIZE64, out))
		return fail_errno(f, -errno, "cannot tell the device's size");
	return 0;
}

/* Open PATH with @flags, never through a symbolic link at PATH (O_NOFOLLOW;
 * O_CREAT | O_EXCL never follows one either), never waiting on a FIFO
 * (O_NONBLOCK, dropped once the descriptor is known to be a file), and
 * take only a regular file or a block device (fstat on the descriptor, so
 * nothing can be swapped in between). Return: 0, -ENOENT untold (the
 * caller may create it), or -errno with the reason in the stream. */
static int open_checked(struct file_stream *f, int flags, struct stat *st)
{
	const char *kind;
	int fl;

	f->fd = open(f->path, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
		     0644);
	if (f->fd < 0 && errno == ENOENT && !(flags & O_CREAT))
		return -ENOENT;
	if (f->fd < 0 && errno == ELOOP)
		return rp_stream_fail(&f->base, -ELOOP,
				      "%s: it is a symbolic link, which the "
				      "file transport never follows: give "
				      "the file's own path",
				      f->path);
	if (f->fd < 0 && errno == ENXIO) /* a FIFO without a reader */
		return rp_stream_fail(&f->base, -EINVAL,
				      "%s: it is a FIFO: give a regular file "
				      "or a block device",
				      f->path);
	if (f->fd < 0)
		return fail_errno(f, -errno,
				  flags & O_CREAT ? "cannot create it"
						  : "cannot open it");
	if (fstat(f->fd, st))
		return fail_errno(f, -errno, "cannot look at it");
	kind = kind_refused(st->st_mode);
	if (kind)
		return rp_stream_fail(&f->base, -EINVAL,
				      "%s: it is %s: give a regular file or a "
				      "block device",
				      f->path, kind);
	fl = fcntl(f->fd, F_GETFL);
	if (fl < 0 || fcntl(f->fd, F_SETFL, fl & ~O_NONBLOCK))
		return fail_errno(f, -errno, "cannot set it blocking");
	return 0;
}

/* The region exists in full: allocated where the filesystem can (as fio
 * does), else a sparse file of that size. A device is as large as it is. */
static int size_region(struct file_stream *f, const struct stat *st,
		       uint64_t have)
{
	if (have >= f->region)
		return 0;
	if (S_ISBLK(st->st_mode))
		return rp_stream_fail(&f->base, -ENOSPC,
				      "%s: the device holds %llu bytes, fewer "
				      "than the region of %llu (--file-size)",
				      f->path, (unsigned long long)have,
				      (unsigned long long)f->region);
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

/* A new PATH of the region's size, this test's own (removed at close). */
static int create_owned(struct file_stream *f)
{
	struct stat st;
	int err = open_checked(f, O_RDWR | O_CREAT | O_EXCL, &st);

	if (err)
		return err;
	f->created = true;
	return size_region(f, &st, 0);
}

/* A read: what is there is read, and a file this test did not create is
 * never written (no pattern, no growth): read-only, and refused when it
 * is shorter than the region. Only a file it creates is filled. */
static int open_for_read(struct file_stream *f, bool *fill)
{
	struct stat st;
	uint64_t have = 0;
	int err = open_checked(f, O_RDONLY, &st);

	if (err == -ENOENT) {
		*fill = true;
		return create_owned(f);
	}
	if (!err)
		err = have_bytes(f, &st, &have);
	if (err || have >= f->region)
		return err;
	return rp_stream_fail(&f->base, -EINVAL,
			      "%s: it holds %llu bytes, fewer than the region "
			      "of %llu (--file-size): a read test reads what "
			      "is there and never writes to a file it did not "
			      "create",
			      f->path, (unsigned long long)have,
			      (unsigned long long)f->region);
}

/* A write: PATH created, or the file or device there opened and its
 * region sized. */
static int open_for_write(struct file_stream *f)
{
	struct stat st;
	uint64_t have = 0;
	int err = create_owned(f);

	if (err != -EEXIST)
		return err;
	rp_err_clear(&f->base.err);
	err = open_checked(f, O_RDWR, &st);
	if (err == -ENOENT) /* gone between the two: not ours to guess */
		return fail_errno(f, err, "cannot open it");
	if (!err)
		err = have_bytes(f, &st, &have);
	return err ? err : size_region(f, &st, have);
}

/* Another stream's descriptor of what the owner opened, under the same
 * rules; read-only for a read of a file this test did not create. */
static int open_other(struct file_stream *f)
{
	struct stat st;
	int err = open_checked(
		f, f->base.spec.op == RP_OP_READ ? O_RDONLY : O_RDWR, &st);

	return err == -ENOENT ? fail_errno(f, err, "cannot open it") : err;
}

int file_open(struct file_stream *f)
{
	bool fill = false;
	int err;

	if (!f->owner)
		err = open_other(f);
	else if (f->base.spec.op == RP_OP_READ)
		err = open_for_read(f, &fill);
	else
		err = open_for_write(f);
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
