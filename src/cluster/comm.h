/* SPDX-License-Identifier: MIT */
/*
 * What --matrix asks of MPI, and nothing more: ranks, one all-gather of
 * fixed-size records at start, cells sent to rank 0, and a barrier; the
 * waits that can hang (a rank stuck) take a deadline. MPI only launches
 * and coordinates: the measured traffic goes over rdmaperf's transports.
 * Only MPI-3 calls of the standard (no Open MPI extension), called from
 * the main thread alone (MPI_THREAD_FUNNELED); the server thread never
 * touches MPI.
 *
 * rdmaperf itself does not link MPI: comm_mpi.c is a module of its own,
 * rdmaperf-mpi.so, built with MPI (CMake RP_MPI), that comm.c loads when
 * --matrix runs. Every other run starts without MPI's libraries, and a
 * host without MPI runs everything but --matrix.
 */
#ifndef RP_CLUSTER_COMM_H
#define RP_CLUSTER_COMM_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

struct rp_comm {
	int rank;
	int size;
};

/* The module's file, and the table it exports under RP_COMM_OPS. */
#define RP_COMM_MODULE "rdmaperf-mpi.so"
#define RP_COMM_OPS    "rp_comm_mpi_ops"
#define RP_COMM_ABI    1 /* changes with struct rp_comm_ops */
/* What --matrix says where no module was built (and on Windows). */
#define RP_COMM_NONE                                                           \
	"this rdmaperf was built without MPI (cmake -DRP_MPI=ON with Open "    \
	"MPI or MPICH installed)"

/*
 * What the module does: the calls below, less the loading. @init returns
 * NULL, or why MPI cannot be used; @now_ns is the executable's clock, the
 * one the deadlines are in. recv's buffer is malloc'd, for the caller to
 * free.
 */
struct rp_comm_ops {
	unsigned int abi;
	const char *(*init)(int *rank, int *size, uint64_t (*now_ns)(void));
	void (*fini)(void);
	void (*abort)(int code);
	int (*allgather)(const void *mine, size_t len, void *all,
			 uint64_t deadline_ns);
	int (*bcast_int)(int *v);
	int (*send)(int to, int tag, const char *buf, size_t len);
	int (*recv)(int tag, char **buf, size_t *len, int *from,
		    uint64_t deadline_ns);
	int (*barrier)(uint64_t deadline_ns);
};

/**
 * rp_comm_load - load the MPI module: the file $RP_MPI_MODULE names, else
 * the first found of rdmaperf-mpi.so beside the executable (a build tree)
 * and in the library directory that CMake installs it to, taken from the
 * executable's directory (so an installed tree can move) and as installed.
 * Return: 0, or -ENOENT with the reason in @why (not built, not found, or
 * not loadable: its MPI library missing). Only the first call loads.
 */
int rp_comm_load(struct rp_err *why);

/** rp_comm_init - MPI_Init_thread, after rp_comm_load; this process's rank
 *  and the count. Return: 0, or -EIO with the reason in @why. */
int rp_comm_init(struct rp_comm *c, struct rp_err *why);

/** rp_comm_fini - MPI_Finalize. */
void rp_comm_fini(void);

/** rp_comm_abort - end every rank of the job with @code (MPI_Abort). */
_Noreturn void rp_comm_abort(int code);

/** rp_comm_allgather - each rank's @len bytes at @mine into @all, rank
 *  by rank (@len x size bytes), by @deadline_ns. Return: 0, -ETIMEDOUT,
 *  -E2BIG or -EIO. */
int rp_comm_allgather(const void *mine, size_t len, void *all,
		      uint64_t deadline_ns);

/** rp_comm_bcast_int - rank 0's *@v to every rank (blocking). Return: 0
 *  or -EIO. */
int rp_comm_bcast_int(int *v);

/** rp_comm_send - @len bytes to rank @to with @tag (blocking). Return: 0,
 *  -E2BIG (over INT_MAX) or -EIO. */
int rp_comm_send(int to, int tag, const char *buf, size_t len);

/**
 * rp_comm_recv - the next message with @tag from any rank: a malloc'd,
 * NUL-terminated copy in *@buf, its length in *@len, its sender in
 * *@from. Waits until @deadline_ns (rp_clock_ns time).
 * Return: 0, -ETIMEDOUT, -ENOMEM or -EIO.
 */
int rp_comm_recv(int tag, char **buf, size_t *len, int *from,
		 uint64_t deadline_ns);

/** rp_comm_barrier - every rank got here, or -ETIMEDOUT at @deadline_ns;
 *  -EIO on an MPI error. */
int rp_comm_barrier(uint64_t deadline_ns);

#endif
