/* SPDX-License-Identifier: MIT */
/* Command line: argv into a validated struct rp_config; no I/O here. */
#ifndef RP_CLI_OPTIONS_H
#define RP_CLI_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

#include "run/run.h"

enum rp_cli_action { RP_CLI_RUN, RP_CLI_HELP, RP_CLI_VERSION };

/**
 * rp_cli_parse - parse @argv into @cfg, and the transports' options into
 * *@cfg->test.params, storage the caller owns and points @cfg at first.
 * @act: what to do: run, or print help or the version.
 * @err: a one-line reason naming the flag and its accepted range.
 * Return: 0, or -EINVAL (exit status 2 for the caller).
 */
int rp_cli_parse(int argc, char **argv, struct rp_config *cfg,
		 enum rp_cli_action *act, char *err, size_t errlen);

/** rp_cli_usage - the --help text. */
void rp_cli_usage(FILE *f);

/** rp_cli_xopts_man - the man page's sections of the transports' options
 *  (roff), from the registry: man/rdmaperf.1 holds them between the
 *  markers scripts/man-transports.sh rewrites. */
void rp_cli_xopts_man(FILE *f);

#endif
