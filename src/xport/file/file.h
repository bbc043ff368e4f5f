/* SPDX-License-Identifier: MIT */
/*
 * The file transport (-x file:PATH): a local transport, no server. Each
 * stream has its own io_uring and descriptor of PATH; it posts reads or
 * writes of the point's size at the slots its plan gives (plan.h), into
 * buffers registered with the ring once, sized for the largest point.
 *
 *   connect()  open.c: stream 0 opens PATH, or creates it (and so removes
 *              it at close), sizes the region, fills it for reads; the
 *              other streams open what stream 0 made; a ring each.
 *   post()     ring.c: an SQE per operation (a write and its linked fsync
 *              under --fsync-every), one io_uring_submit per call.
 *   poll_seqs() ring.c: CQEs reaped in batches; an operation completes
 *              when its CQE (its fsync's) arrives, and is reported then,
 *              in the order the CQEs came (ops.poll_seqs): the queue is
 *              refilled at once, as fio does, never held behind a slow
 *              operation (a third of random reads here complete out of
 *              order).
 *
 * Each operation in flight holds one of max_depth records (and the buffer
 * of the same index), taken from a free list at post. CQE user_data: the
 * record's index; bit 63 set on a write whose linked fsync's CQE completes
 * the operation.
 */
#ifndef RP_XPORT_FILE_FILE_H
#define RP_XPORT_FILE_FILE_H

#include <liburing.h>

#include "xport/file/params.h"
#include "xport/file/plan.h"
#include "xport/xport.h"

#define FILE_LINKED (1ULL << 63)

/* One operation in flight. */
struct file_op {
	uint64_t seq;  /* the engine's number */
	uint64_t slot; /* where in the region */
	int32_t err;   /* 0, or the first -errno (-EIO: short) of its CQEs */
	bool synced;   /* its last CQE is an fsync's */
};

struct file_stream {
	struct rp_stream base;
	struct io_uring ring;
	bool ring_ok;
	int fd;
	char *path;
	bool owner;	      /* stream 0: created, filled, removes */
	bool created;	      /* this test created PATH: removed at close */
	bool direct;	      /* O_DIRECT (not --buffered) */
	bool random;	      /* --random */
	bool fixed;	      /* buffers registered with the ring */
	uint64_t region;      /* bytes of --file-size in use */
	uint64_t fsync_every; /* 0: never */
	uint64_t filled_size; /* the slot size of the pattern in the region */
	unsigned int index, streams;
	struct rp_file_plan plan;
	uint8_t *buf; /* max_depth buffers of max_size bytes */
	uint64_t max_size;
	uint32_t max_depth;
	struct file_op *ops; /* max_depth */
	uint32_t *free;	     /* indexes of the records not in flight */
	uint32_t n_free;
	uint32_t *done; /* indexes whose last CQE came, in that order */
	uint32_t n_done;
	uint64_t *scratch; /* poll()'s sequence numbers, max_depth */
	uint64_t writes;   /* since connect, for --fsync-every */
	uint64_t fsyncs;
	uint64_t verify_errors;
};

static inline struct file_stream *to_file(struct rp_stream *s)
{
	return rp_container_of(s, struct file_stream, base);
}

/* open.c */
int file_open(struct file_stream *f);
int file_fill(struct file_stream *f, uint64_t size_bytes);
void file_close_fd(struct file_stream *f);

/* ring.c */
int file_post(struct rp_stream *s, uint64_t seq, uint32_t count, bool last);
int file_poll(struct rp_stream *s);
int file_poll_seqs(struct rp_stream *s, uint64_t *seqs, uint32_t max);
int file_ping(struct rp_stream *s, uint64_t seq, uint64_t deadline_ns);
int file_arm(struct rp_stream *s, rp_sock_t *fd, short *events);

#endif
