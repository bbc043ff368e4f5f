// SPDX-License-Identifier: MIT
/*
 * The file transport's file: open or create PATH, size the region, fill it
 * for reads, remove it at the end when this test created it. Stream 0
 * (the owner) does all of it; the other streams open what it made.
 *
 * PATH is never followed through a symbolic link (a link planted in a
 * shared directory must not aim a write at another file), a write never
 * goes to a file of several names (a planted hard link), and only a
 * regular file or a block device is taken: what is at PATH is looked at
 * without opening it (O_PATH), then that inode is opened and checked on
 * the descriptor. A read never writes to a file it did not create: it
 * opens it read-only and reads what is there. A symbolic link in PATH's
 * directories is followed, as every program does (/var/run, a mount
 * elsewhere); in a sticky world-writable directory the kernel's
 * fs.protected_symlinks guards those.
 *
 * Nothing is left behind on failure: PATH is created without O_DIRECT,
 * which is then asked for with fcntl (a filesystem without it says EINVAL
 * there, after open(O_CREAT|O_DIRECT) would already have made the file),
 * and a file this test created is removed on every error path.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
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

/* Refused, with the reason in the stream, unless @st is a regular file's
 * or a block device's. */
static int refuse_kind(struct file_stream *f, const struct stat *st)
{
	const char *kind = kind_refused(st->st_mode);

	if (S_ISLNK(st->st_mode))
		return rp_stream_fail(&f->base, -ELOOP,
				      "%s: it is a symbolic link, which the "
				      "file transport never follows: give "
				      "the file's own path",
				      f->path);
	if (kind)
		return rp_stream_fail(&f->base, -EINVAL,
				      "%s: it is %s: give a regular file or a "
				      "block device",
				      f->path, kind);
	return 0;
}

/* f->fd, just opened, is the file @at was taken from (the descriptor's
 * fstat in @st), and blocking again. */
static int opened_same(struct file_stream *f, const struct stat *at,
		       struct stat *st)
{
	int fl;

	if (fstat(f->fd, st))
		return fail_errno(f, -errno, "cannot look at it");
	if (st->st_dev != at->st_dev || st->st_ino != at->st_ino)
		return rp_stream_fail(&f->base, -EBUSY,
				      "%s: it was replaced while it was being "
				      "opened: try again",
				      f->path);
	fl = fcntl(f->fd, F_GETFL);
	if (fl < 0 || fcntl(f->fd, F_SETFL, fl & ~O_NONBLOCK))
		return fail_errno(f, -errno, "cannot set it blocking");
	return 0;
}

/* Open the existing PATH with @flags (O_RDONLY or O_RDWR), never through
 * a symbolic link at PATH, and only a regular file or a block device. What
 * is there is looked at first without opening it (O_PATH | O_NOFOLLOW: the
 * open of a FIFO may wake its writer, a device's may act, a watchdog's arms
 * it), then that very inode is opened (its /proc/self/fd link; by PATH
 * again where there is no /proc, O_NOFOLLOW | O_NONBLOCK, and refused if it
 * is another file by then). Return: 0 with the descriptor's fstat in @st,
 * -ENOENT untold (the caller may create it), or -errno with the reason in
 * the stream. */
static int open_existing(struct file_stream *f, int flags, struct stat *st)
{
	char self[32];
	struct stat at;
	int pfd = open(f->path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	int err;

	if (pfd < 0)
		return errno == ENOENT
			       ? -ENOENT
			       : fail_errno(f, -errno, "cannot open it");
	err = fstat(pfd, &at) ? fail_errno(f, -errno, "cannot look at it")
			      : refuse_kind(f, &at);
	if (!err) {
		snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
		f->fd = open(self, flags | O_NONBLOCK | O_CLOEXEC);
		if (f->fd < 0 && errno == ENOENT) /* no /proc here */
			f->fd = open(f->path, flags | O_NOFOLLOW | O_NONBLOCK |
						      O_CLOEXEC);
		if (f->fd < 0)
			err = fail_errno(f, -errno, "cannot open it");
	}
	close(pfd);
	return err ? err : opened_same(f, &at, st);
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

/* A new PATH of the region's size, this test's own (removed at close):
 * O_CREAT | O_EXCL makes a file or fails (EEXIST, untold), and never
 * follows a link, dangling or not. */
static int create_owned(struct file_stream *f)
{
	struct stat st;

	f->fd = open(f->path,
		     O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (f->fd < 0 && errno == EEXIST)
		return -EEXIST;
	if (f->fd < 0)
		return fail_errno(f, -errno, "cannot create it");
	f->created = true;
	if (fstat(f->fd, &st))
		return fail_errno(f, -errno, "cannot look at it");
	return size_region(f, &st, 0);
}

/* A read: what is there is read, and a file this test did not create is
 * never written (no pattern, no growth): read-only, and refused when it
 * is shorter than the region. Only a file it creates is filled (one that
 * appears between the look and the create is read as it is). */
static int open_for_read(struct file_stream *f, bool *fill)
{
	struct stat st;
	uint64_t have = 0;
	int err = open_existing(f, O_RDONLY, &st);

	if (err == -ENOENT) {
		err = create_owned(f);
		*fill = err == 0;
		if (err != -EEXIST)
			return err;
		err = open_existing(f, O_RDONLY, &st);
	}
	if (err == -ENOENT) /* came and went: not ours to guess */
		return fail_errno(f, err, "cannot open it");
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

/* A regular file of more than one name (a hard link, which O_NOFOLLOW does
 * not see) is refused for a write: a link planted in a shared directory
 * would aim the write at the file under its other names. */
static int one_name(struct file_stream *f, const struct stat *st)
{
	if (!S_ISREG(st->st_mode) || st->st_nlink <= 1)
		return 0;
	return rp_stream_fail(&f->base, -EMLINK,
			      "%s: the file has %ju names (hard links): a "
			      "write test would change it under all of them: "
			      "give a file of its own",
			      f->path, (uintmax_t)st->st_nlink);
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
	err = open_existing(f, O_RDWR, &st);
	if (err == -ENOENT) /* gone between the two: not ours to guess */
		return fail_errno(f, err, "cannot open it");
	if (!err)
		err = one_name(f, &st);
	if (!err)
		err = have_bytes(f, &st, &have);
	return err ? err : size_region(f, &st, have);
}

/* Another stream's descriptor of what the owner opened, under the same
 * rules; read-only for a read. */
static int open_other(struct file_stream *f)
{
	struct stat st;
	int err = open_existing(
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
