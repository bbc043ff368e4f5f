// SPDX-License-Identifier: MIT
/* Print the man page's sections of the transports' options, as
 * rp_cli_xopts_man makes them from the registry (scripts/man-transports.sh
 * puts them into man/rdmaperf.1, tests/doc/man_transports.sh checks). */
#include <stdio.h>

#include "cli/options.h"

int main(void)
{
	rp_cli_xopts_man(stdout);
	return ferror(stdout) ? 1 : 0;
}
