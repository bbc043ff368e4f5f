// SPDX-License-Identifier: MIT
/*
 * The file transport's ops table: a local transport (no server, no
 * responder) that reads or writes PATH through io_uring (file.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "xport/file/file.h"

#define BUF_ALIGN 4096	      /* O_DIRECT: a page satisfies every block size */
#define HUGE	  (2UL << 20) /* a transparent huge page */
/* Completions need no interrupt of a spinning poller: the kernel flags
 * pending work in the ring, which liburing's peek then runs. */
#define RING_FLAGS (IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG)

static int file_probe(const struct rp_xport_ops *self, struct rp_err *why)
{
	struct io_uring ring;
	int err = io_uring_queue_init(2, &ring, 0);

	(void)self;
	if (err)
		return rp_errf(why, err,
			       "io_uring is not available here: %s (is "
			       "kernel.io_uring_disabled set?)",
			       strerror(-err));
	io_uring_queue_exit(&ring);
	return 0;
}

static void file_close(struct rp_stream *s)
{
	struct file_stream *f;

	if (!s)
		return;
	f = to_file(s);
	if (f->ring_ok)
		io_uring_queue_exit(&f->ring);
	file_close_fd(f);
	free(f->buf);
	free(f->ops);
	free(f->free);
	free(f->done);
	free(f->scratch);
	free(f->path);
	free(f);
}

/* The ring, and its buffers registered where the kernel lets us (one per
 * operation in flight: a registered buffer is at most 1 GiB). */
static int ring_setup(struct file_stream *f)
{
	struct iovec *iov = calloc(f->max_depth, sizeof(*iov));
	uint32_t i;
	int err;

	if (!iov)
		return rp_stream_fail(&f->base, -ENOMEM, "out of memory");
	err = io_uring_queue_init(2 * f->max_depth, &f->ring, RING_FLAGS);
	if (err == -EINVAL) /* a kernel before 5.19 */
		err = io_uring_queue_init(2 * f->max_depth, &f->ring, 0);
	if (err) {
		free(iov);
		return rp_stream_fail(&f->base, err, "io_uring: %s",
				      strerror(-err));
	}
	f->ring_ok = true;
	for (i = 0; i < f->max_depth; i++)
		iov[i] = (struct iovec){ f->buf + i * f->max_size,
					 (size_t)f->max_size };
	err = io_uring_register_buffers(&f->ring, iov, f->max_depth);
	f->fixed = err == 0;
	if (err)
		rp_stream_note(&f->base,
			       "buffers not registered with io_uring (%s): "
			       "plain reads and writes",
			       strerror(-err));
	free(iov);
	return 0;
}

static int file_init(struct file_stream *f, const struct rp_xport_params *p)
{
	const struct rp_spec *sp = &f->base.spec;
	const struct rp_file_params *fp = rp_file_params(p);
	size_t len = (size_t)(sp->size_bytes * sp->queue_depth);

	f->fd = -1;
	f->path = strdup(p->path ? p->path : "");
	f->owner = p->stream == 0;
	f->index = p->stream;
	f->streams = sp->streams ? sp->streams : 1;
	f->direct = !fp->buffered;
	f->random = fp->random;
	f->region = fp->file_size;
	f->fsync_every = fp->fsync_every;
	f->max_size = sp->size_bytes;
	f->max_depth = sp->queue_depth;
	f->ops = calloc(f->max_depth, sizeof(*f->ops));
	f->free = calloc(f->max_depth, sizeof(*f->free));
	f->done = calloc(f->max_depth, sizeof(*f->done));
	f->scratch = calloc(f->max_depth, sizeof(*f->scratch));
	if (!f->path || !f->ops || !f->free || !f->done || !f->scratch ||
	    posix_memalign((void **)&f->buf, len >= HUGE ? HUGE : BUF_ALIGN,
			   len ? len : BUF_ALIGN))
		return rp_stream_fail(&f->base, -ENOMEM,
				      "out of memory for the buffers");
	for (f->n_free = 0; f->n_free < f->max_depth; f->n_free++)
		f->free[f->n_free] = f->max_depth - 1 - f->n_free;
	if (len >= HUGE) /* fewer, larger segments per I/O; best effort */
		madvise(f->buf, len, MADV_HUGEPAGE);
	memset(f->buf, 0, len);
	rp_file_plan_init(&f->plan, f->region, sp->size_bytes, f->random,
			  f->index, f->streams);
	return 0;
}

static int file_connect(const struct rp_xport_ops *self,
			const struct rp_spec *spec,
			const struct rp_xport_params *p, const char *host,
			const cJSON *endpoint, const char *token,
			enum rp_role role, int timeout_ms,
			struct rp_stream **out, struct rp_err *why)
{
	struct file_stream *f = calloc(1, sizeof(*f));
	int err;

	(void)host, (void)endpoint, (void)token, (void)timeout_ms;
	if (!f)
		return rp_errf(why, -ENOMEM, "out of memory");
	rp_stream_init(&f->base, self, spec, role);
	err = role == RP_ROLE_INITIATOR
		      ? file_init(f, p)
		      : rp_stream_fail(&f->base, -EINVAL,
				       "a file has no responder");
	if (!err)
		err = file_open(f);
	if (!err)
		err = ring_setup(f);
	if (err) {
		rp_errf(why, err, "%s", f->base.err.msg);
		file_close(&f->base);
		return err;
	}
	*out = &f->base;
	return 0;
}

static int file_local_info(struct rp_stream *s, cJSON *info)
{
	struct file_stream *f = to_file(s);

	if (!cJSON_AddStringToObject(info, "path", f->path) ||
	    !cJSON_AddBoolToObject(info, "direct", f->direct) ||
	    !cJSON_AddStringToObject(info, "access",
				     f->random ? "random" : "sequential") ||
	    !cJSON_AddNumberToObject(info, "file_size", (double)f->region) ||
	    !cJSON_AddNumberToObject(info, "fsync_every",
				     (double)f->fsync_every) ||
	    !cJSON_AddBoolToObject(info, "created", f->created) ||
	    !cJSON_AddBoolToObject(info, "fixed_buffers", f->fixed))
		return rp_stream_fail(s, -ENOMEM, "out of memory");
	return 0;
}

static int file_set_peer(struct rp_stream *s, const cJSON *info)
{
	(void)s, (void)info;
	return 0;
}

/* The next point: its slots; a read under --verify finds the pattern of
 * its own size there (the owner fills again when the size changed, in a
 * file this test created: one it did not is read as it is). */
static int file_set_point(struct rp_stream *s, uint64_t size_bytes,
			  uint32_t depth)
{
	struct file_stream *f = to_file(s);

	s->spec.size_bytes = size_bytes;
	s->spec.queue_depth = depth;
	rp_file_plan_init(&f->plan, f->region, size_bytes, f->random, f->index,
			  f->streams);
	if (f->owner && f->created && s->spec.op == RP_OP_READ &&
	    s->spec.verify && f->filled_size != size_bytes)
		return file_fill(f, size_bytes);
	return 0;
}

static uint64_t file_verify_errors(struct rp_stream *s)
{
	return to_file(s)->verify_errors;
}

static const struct rp_xport_ops file_ops = {
	.name = "file",
	.op_mask = RP_OP_BIT(RP_OP_WRITE) | RP_OP_BIT(RP_OP_READ),
	.local = true,
	.probe = file_probe,
	.connect = file_connect,
	.local_info = file_local_info,
	.set_peer = file_set_peer,
	.set_point = file_set_point,
	.ping = file_ping,
	.post = file_post,
	.poll = file_poll,
	.poll_seqs = file_poll_seqs,
	.arm = file_arm,
	.verify_errors = file_verify_errors,
	.close = file_close,
};

const struct rp_xport_ops *const rp_xport_file = &file_ops;
