// SPDX-License-Identifier: MIT
/* --allow and --auth-key: placeholder until the access work lands. */
#include <errno.h>

#include "cli/parse.h"

int rp_cli_o_allow(struct parse *p, const char *arg)
{
	(void)arg;
	return rp_cli_bad(p, "--allow: not built yet");
}

int rp_cli_o_auth_key(struct parse *p, const char *arg)
{
	(void)arg;
	return rp_cli_bad(p, "--auth-key: not built yet");
}
