// SPDX-License-Identifier: MIT
/* rdmaperf monitor where it is not built (Windows): it says so. */
#include <stdio.h>

#include "cli/monitor.h"

int rp_monitor_main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "rdmaperf monitor: not built on this system (Linux "
			"only: doc/monitor.md)\n");
	return 2;
}
