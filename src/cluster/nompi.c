// SPDX-License-Identifier: MIT
/* --matrix on Windows, which has no MPI module (comm.c loads it elsewhere). */
#include <stdio.h>

#include "cluster/comm.h"
#include "cluster/matrix.h"

int rp_matrix_main(struct rp_config *cfg)
{
	(void)cfg;
	fprintf(stderr, "rdmaperf: --matrix: %s\n", RP_COMM_NONE);
	return 2;
}
