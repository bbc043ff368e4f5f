// SPDX-License-Identifier: MIT
/*
 * comm.h's calls, made through the MPI module (comm_mpi.c built as
 * rdmaperf-mpi.so) that rp_comm_load finds and loads for --matrix.
 *
 * CMake defines RP_COMM_MODULE_DIR (the directory it installs the module
 * to) and RP_COMM_MODULE_REL (the same, relative to the installed
 * executable's) where it builds the module; neither where it does not.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cluster/comm.h"
#include "platform/clock.h"

static const struct rp_comm_ops *ops;

#ifdef RP_COMM_MODULE_DIR
/* The executable's directory into @dir, or "" where it cannot be read. */
static void exe_dir(char *dir, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", dir, len - 1);
	char *slash;

	dir[n > 0 ? n : 0] = '\0';
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	else
		dir[0] = '\0';
}

/* The first of the module's places that holds a file, into @path;
 * false when none does (@path: the installed one). */
static bool find_module(char *path, size_t len)
{
	static const char *const sub[] = { "", "/" RP_COMM_MODULE_REL };
	char dir[PATH_MAX];

	exe_dir(dir, sizeof(dir));
	for (size_t i = 0; dir[0] && i < sizeof(sub) / sizeof(sub[0]); i++) {
		if ((size_t)snprintf(path, len, "%s%s/" RP_COMM_MODULE, dir,
				     sub[i]) < len &&
		    access(path, F_OK) == 0)
			return true;
	}
	snprintf(path, len, "%s", RP_COMM_MODULE_DIR "/" RP_COMM_MODULE);
	return access(path, F_OK) == 0;
}

int rp_comm_load(struct rp_err *why)
{
	const char *env = getenv("RP_MPI_MODULE");
	char path[PATH_MAX];
	void *mod;

	if (ops)
		return 0;
	if (env && *env)
		snprintf(path, sizeof(path), "%s", env);
	else if (!find_module(path, sizeof(path)))
		return rp_errf(why, -ENOENT,
			       "its MPI module, " RP_COMM_MODULE ", is neither "
			       "beside rdmaperf nor in " RP_COMM_MODULE_DIR
			       " (RP_MPI_MODULE names another)");
	/* global: Open MPI's own plugins look for its symbols there */
	mod = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
	if (!mod)
		return rp_errf(why, -ENOENT, "cannot load its MPI module: %s",
			       dlerror());
	ops = dlsym(mod, RP_COMM_OPS);
	if (!ops || ops->abi != RP_COMM_ABI) {
		ops = NULL;
		return rp_errf(why, -ENOENT,
			       "%s is not an MPI module of this rdmaperf",
			       path);
	}
	return 0; /* never unloaded: MPI keeps state past MPI_Finalize */
}
#else
int rp_comm_load(struct rp_err *why)
{
	return rp_errf(why, -ENOENT, "%s", RP_COMM_NONE);
}
#endif

int rp_comm_init(struct rp_comm *c, struct rp_err *why)
{
	const char *bad = ops->init(&c->rank, &c->size, rp_clock_ns);

	return bad ? rp_errf(why, -EIO, "%s", bad) : 0;
}

void rp_comm_fini(void)
{
	ops->fini();
}

_Noreturn void rp_comm_abort(int code)
{
	ops->abort(code);
	exit(code); /* MPI_Abort does not return; in case */
}

int rp_comm_allgather(const void *mine, size_t len, void *all,
		      uint64_t deadline_ns)
{
	return ops->allgather(mine, len, all, deadline_ns);
}

int rp_comm_bcast_int(int *v)
{
	return ops->bcast_int(v);
}

int rp_comm_send(int to, int tag, const char *buf, size_t len)
{
	return ops->send(to, tag, buf, len);
}

int rp_comm_recv(int tag, char **buf, size_t *len, int *from,
		 uint64_t deadline_ns)
{
	return ops->recv(tag, buf, len, from, deadline_ns);
}

int rp_comm_barrier(uint64_t deadline_ns)
{
	return ops->barrier(deadline_ns);
}
