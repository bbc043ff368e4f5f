// SPDX-License-Identifier: MIT
/*
 * The file transport's hot path: operations into the ring, CQEs out.
 * post() prepares an SQE per operation and submits them all with one
 * io_uring_submit (--post-list N: one per N, fio's iodepth_batch_submit);
 * poll_seqs() reaps CQEs in batches (io_uring_peek_batch_cqe) and reports the
 * operations whose CQEs arrived, in the order they came. No allocation, no
 * system call beyond io_uring_enter.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

#include "platform/clock.h"
#include "xport/file/file.h"

#define REAP_BATCH   64
#define WAIT_STEP_NS (100 * 1000000LL) /* a sleeping ping looks this often */

/* The opcode of each operation, with plain and registered buffers. */
static const struct {
	uint8_t plain, fixed;
} opcodes[RP_OP__COUNT] = {
	[RP_OP_WRITE] = { IORING_OP_WRITE, IORING_OP_WRITE_FIXED },
	[RP_OP_READ] = { IORING_OP_READ, IORING_OP_READ_FIXED },
};

static void prep_op(struct file_stream *f, uint64_t seq)
{
	const struct rp_spec *sp = &f->base.spec;
	uint32_t i = f->free[--f->n_free]; /* the engine keeps one free */
	struct file_op *op = &f->ops[i];
	uint8_t *buf = f->buf + i * f->max_size;
	bool write = sp->op == RP_OP_WRITE;
	struct io_uring_sqe *sqe = io_uring_get_sqe(&f->ring);

	op->seq = seq;
	op->slot = rp_file_plan_next(&f->plan);
	op->err = 0;
	op->synced = write && rp_file_fsync_due(++f->writes, f->fsync_every);
	if (write && sp->verify)
		rp_payload_fill(buf, (size_t)sp->size_bytes, op->slot);
	io_uring_prep_rw(f->fixed ? opcodes[sp->op].fixed
				  : opcodes[sp->op].plain,
			 sqe, f->fd, buf, (unsigned int)sp->size_bytes,
			 op->slot * sp->size_bytes);
	sqe->buf_index = f->fixed ? (uint16_t)i : 0;
	io_uring_sqe_set_data64(sqe, i | (op->synced ? FILE_LINKED : 0));
	if (!op->synced)
		return;
	sqe->flags |= IOSQE_IO_LINK; /* the fsync starts when it is done */
	sqe = io_uring_get_sqe(&f->ring);
	io_uring_prep_fsync(sqe, f->fd, 0);
	io_uring_sqe_set_data64(sqe, i);
	f->fsyncs++;
}

int file_post(struct rp_stream *s, uint64_t seq, uint32_t count, bool last)
{
	struct file_stream *f = to_file(s);
	uint32_t i, per = s->spec.post_list; /* SQEs a submit; 0: all */
	int ret;

	(void)last; /* every operation has its own CQE */
	if (count > f->n_free)
		return rp_stream_fail(s, -EOVERFLOW,
				      "%s: more operations than the queue "
				      "depth",
				      f->path);
	for (i = 0, ret = 0; i < count && ret >= 0; i++) {
		prep_op(f, seq + i);
		if (i + 1 == count || (per && (i + 1) % per == 0))
			ret = io_uring_submit(&f->ring);
	}
	if (ret < 0)
		return rp_stream_fail(s, ret, "%s: io_uring_submit: %s",
				      f->path, strerror(-ret));
	return 0;
}

/* One CQE: its operation's error, if any; done with its last CQE. */
static void take(struct file_stream *f, const struct io_uring_cqe *cqe)
{
	uint64_t data = io_uring_cqe_get_data64(cqe);
	uint32_t i = (uint32_t)(data & ~FILE_LINKED) % f->max_depth;
	struct file_op *op = &f->ops[i];
	bool rw = (data & FILE_LINKED) || !op->synced;
	int32_t want = rw ? (int32_t)f->base.spec.size_bytes : 0;

	if (cqe->res != want && !op->err)
		op->err = cqe->res < 0 ? cqe->res : -EIO;
	if (!(data & FILE_LINKED))
		f->done[f->n_done++] = i;
}

static void reap(struct file_stream *f)
{
	struct io_uring_cqe *cqes[REAP_BATCH];
	unsigned int n, i;

	do {
		n = io_uring_peek_batch_cqe(&f->ring, cqes, REAP_BATCH);
		for (i = 0; i < n; i++)
			take(f, cqes[i]);
		io_uring_cq_advance(&f->ring, n);
	} while (n == REAP_BATCH);
}

static int op_failed(struct file_stream *f, const struct file_op *op)
{
	const struct rp_spec *sp = &f->base.spec;
	const char *hint = "";

	if (op->err == -EINVAL && f->direct)
		hint = " (O_DIRECT needs sizes aligned to the device's "
		       "blocks: try --buffered)";
	return rp_stream_fail(&f->base, op->err,
			      "%s: %s of %llu bytes at offset %llu%s: %s%s",
			      f->path, rp_op_name(sp->op),
			      (unsigned long long)sp->size_bytes,
			      (unsigned long long)(op->slot * sp->size_bytes),
			      op->synced ? " and its fsync" : "",
			      op->err == -EIO ? "short or failed transfer"
					      : strerror(-op->err),
			      hint);
}

int file_poll_seqs(struct rp_stream *s, uint64_t *seqs, uint32_t max)
{
	struct file_stream *f = to_file(s);
	const struct rp_spec *sp = &s->spec;
	bool check = sp->verify && sp->op == RP_OP_READ;
	struct file_op *op;
	uint32_t k, i, n = 0;

	reap(f);
	for (k = 0; k < f->n_done && n < max; k++) {
		i = f->done[k];
		op = &f->ops[i];
		if (op->err)
			return op_failed(f, op);
		if (check && rp_payload_check(f->buf + i * f->max_size,
					      (size_t)sp->size_bytes, op->slot))
			f->verify_errors++;
		seqs[n++] = op->seq;
		f->free[f->n_free++] = i;
	}
	f->n_done -= k; /* max is the depth: never left over */
	memmove(f->done, f->done + k, f->n_done * sizeof(*f->done));
	return (int)n;
}

/* In posting order: with one operation out (ping), or ops arriving
 * in order, the same. */
int file_poll(struct rp_stream *s)
{
	return file_poll_seqs(s, to_file(s)->scratch, to_file(s)->max_depth);
}

/* --wait event: sleep until a CQE arrives, at most WAIT_STEP_NS and not
 * past @deadline_ns. */
static void wait_cqe(struct file_stream *f, uint64_t deadline_ns)
{
	uint64_t now = rp_clock_ns();
	long long ns = deadline_ns > now ? (long long)(deadline_ns - now) : 0;
	struct __kernel_timespec ts;
	struct io_uring_cqe *cqe;

	ns = ns < WAIT_STEP_NS ? ns : WAIT_STEP_NS;
	ts.tv_sec = ns / 1000000000LL;
	ts.tv_nsec = ns % 1000000000LL;
	io_uring_wait_cqe_timeout(&f->ring, &cqe, &ts); /* left for poll */
}

int file_ping(struct rp_stream *s, uint64_t seq, uint64_t deadline_ns)
{
	int n = file_post(s, seq, 1, true);

	while (n == 0) {
		n = file_poll(s);
		if (n)
			break;
		if (rp_clock_ns() > deadline_ns)
			return -ETIMEDOUT;
		if (s->spec.wait == RP_WAIT_EVENT)
			wait_cqe(to_file(s), deadline_ns);
	}
	return n < 0 ? n : 0;
}

int file_arm(struct rp_stream *s, rp_sock_t *fd, short *events)
{
	struct file_stream *f = to_file(s);

	if (io_uring_cq_ready(&f->ring))
		return 1;
	*fd = f->ring.ring_fd;
	*events = POLLIN;
	return 0;
}
