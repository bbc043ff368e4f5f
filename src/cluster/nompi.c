// SPDX-License-Identifier: MIT
/* --matrix in a build without MPI (CMake RP_MPI=OFF, or no MPI found). */
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
