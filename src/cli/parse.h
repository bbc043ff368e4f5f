/* SPDX-License-Identifier: MIT */
/* The parser's private state, shared by options.c (one handler per option)
 * and rules.c (what is checked once every option has been read). */
#ifndef RP_CLI_PARSE_H
#define RP_CLI_PARSE_H

#include <stdbool.h>
#include <stddef.h>

#include "cli/options.h"

struct parse {
	struct rp_config *cfg;
	char *err;
	size_t errlen;
	bool set_iters;
	bool set_time;
	bool set_warmup;
	bool set_sizes; /* -S */
	bool all_sizes; /* --all-sizes */
	enum rp_cli_action act;
};

/** rp_cli_bad - the one-line reason into @p's buffer. Return: -EINVAL. */
__attribute__((format(printf, 2, 3))) int rp_cli_bad(struct parse *p,
						     const char *fmt, ...);

/** rp_cli_finish - after the last option: the mode's needs, the sweep's
 *  points and the spec the server receives. Return: 0 or -EINVAL. */
int rp_cli_finish(struct parse *p);

#endif
