// SPDX-License-Identifier: MIT
/* --matrix on Windows, which has no MPI module (comm.c loads it elsewhere). */
#include <stdio.h>

#include "cluster/matrix.h"

int rp_matrix_main(struct rp_config *cfg)
{
	(void)cfg;
	fprintf(stderr, "rdmaperf: --matrix: this rdmaperf was built without "
			"MPI (cmake -DRP_MPI=ON with Open MPI or MPICH "
			"installed)\n");
	return 2;
}
