// SPDX-License-Identifier: MIT
/* --matrix on Windows, which has no MPI module (comm.c loads it elsewhere). */
#include <stdio.h>

#include "cluster/comm.h"
#include "cluster/matrix.h"

int rp_matrix_main(struct rp_config *cfg, rp_matrix_out_fn out)
{
	(void)cfg;
	(void)out;
	fprintf(stderr, "rdmaperf: --matrix: %s\n", RP_COMM_NONE);
	return 2;
}
