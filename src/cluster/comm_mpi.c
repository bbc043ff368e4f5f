// SPDX-License-Identifier: MIT
/*
 * comm.h over MPI, standard MPI-3 calls only: the module rdmaperf-mpi.so,
 * which exports nothing but its table, rp_comm_mpi_ops. It links MPI and
 * libc alone, so it takes the clock of the deadlines from rdmaperf.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <time.h>

#include <mpi.h>

#include "cluster/comm.h"

/* Between looks at a request that has not completed: a rank that sits a
 * round out costs its node nothing measurable. */
#define COMM_NAP_NS 1000000L

static void nap(void)
{
	struct timespec ts = { 0, COMM_NAP_NS };

	nanosleep(&ts, NULL);
}

static uint64_t (*clock_ns)(void);

static const char *comm_init(int *rank, int *size, uint64_t (*now_ns)(void))
{
	int provided = 0;

	clock_ns = now_ns;
	if (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) !=
	    MPI_SUCCESS)
		return "MPI_Init_thread failed";
	if (provided < MPI_THREAD_FUNNELED) {
		MPI_Finalize();
		return "this MPI offers no MPI_THREAD_FUNNELED: the matrix "
		       "needs its server in a thread";
	}
	MPI_Comm_rank(MPI_COMM_WORLD, rank);
	MPI_Comm_size(MPI_COMM_WORLD, size);
	return NULL;
}

static void comm_fini(void)
{
	MPI_Finalize();
}

static void comm_abort(int code)
{
	MPI_Abort(MPI_COMM_WORLD, code);
}

/* Wait for @req until @deadline_ns: 0, -ETIMEDOUT or -EIO. */
static int wait_until(MPI_Request *req, uint64_t deadline_ns)
{
	int done = 0;

	for (;;) {
		if (MPI_Test(req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
			return -EIO;
		if (done)
			return 0;
		if (clock_ns() >= deadline_ns)
			return -ETIMEDOUT; /* the job is aborted next */
		nap();
	}
}

static int comm_allgather(const void *mine, size_t len, void *all,
			  uint64_t deadline_ns)
{
	MPI_Request req;

	if (len > INT_MAX)
		return -E2BIG;
	if (MPI_Iallgather(mine, (int)len, MPI_BYTE, all, (int)len, MPI_BYTE,
			   MPI_COMM_WORLD, &req) != MPI_SUCCESS)
		return -EIO;
	return wait_until(&req, deadline_ns);
}

static int comm_bcast_int(int *v)
{
	return MPI_Bcast(v, 1, MPI_INT, 0, MPI_COMM_WORLD) == MPI_SUCCESS
		       ? 0
		       : -EIO;
}

static int comm_send(int to, int tag, const char *buf, size_t len)
{
	if (len > INT_MAX)
		return -E2BIG;
	return MPI_Send(buf, (int)len, MPI_CHAR, to, tag, MPI_COMM_WORLD) ==
			       MPI_SUCCESS
		       ? 0
		       : -EIO;
}

static int recv_probed(const MPI_Status *st, int tag, char **buf, size_t *len,
		       int *from)
{
	int n = 0;

	MPI_Get_count(st, MPI_CHAR, &n);
	*buf = malloc((size_t)n + 1);
	if (!*buf)
		return -ENOMEM;
	if (MPI_Recv(*buf, n, MPI_CHAR, st->MPI_SOURCE, tag, MPI_COMM_WORLD,
		     MPI_STATUS_IGNORE) != MPI_SUCCESS) {
		free(*buf);
		*buf = NULL;
		return -EIO;
	}
	(*buf)[n] = '\0';
	*len = (size_t)n;
	*from = st->MPI_SOURCE;
	return 0;
}

static int comm_recv(int tag, char **buf, size_t *len, int *from,
		     uint64_t deadline_ns)
{
	MPI_Status st;
	int flag = 0;

	for (;;) {
		if (MPI_Iprobe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &flag,
			       &st) != MPI_SUCCESS)
			return -EIO;
		if (flag)
			return recv_probed(&st, tag, buf, len, from);
		if (clock_ns() >= deadline_ns)
			return -ETIMEDOUT;
		nap();
	}
}

static int comm_barrier(uint64_t deadline_ns)
{
	MPI_Request req;

	if (MPI_Ibarrier(MPI_COMM_WORLD, &req) != MPI_SUCCESS)
		return -EIO;
	return wait_until(&req, deadline_ns);
}

__attribute__((visibility("default")))
const struct rp_comm_ops rp_comm_mpi_ops = {
	.abi = RP_COMM_ABI,
	.init = comm_init,
	.fini = comm_fini,
	.abort = comm_abort,
	.allgather = comm_allgather,
	.bcast_int = comm_bcast_int,
	.send = comm_send,
	.recv = comm_recv,
	.barrier = comm_barrier,
};
