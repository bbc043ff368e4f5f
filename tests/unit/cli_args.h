/* SPDX-License-Identifier: MIT */
/*
 * What the option tests that parse one config at a time share
 * (test_cli_file.c, test_xopts.c): the config and its params, and PARSE,
 * which runs rp_cli_parse on a list of arguments. Each argv stays alive
 * for the whole program: glibc's getopt may still point into the one
 * before (test_cli.c says why). Include after <cmocka.h>.
 */
#ifndef RP_TESTS_UNIT_CLI_ARGS_H
#define RP_TESTS_UNIT_CLI_ARGS_H

#include <stdio.h>
#include <string.h>

#include "cli/options.h"

#define CLI_MAX_ARGS 16
#define CLI_ARG_LEN  300
#define CLI_CALLS    128

static struct rp_xport_params params;
static struct rp_config cfg = { .test.params = &params };
static enum rp_cli_action act;
static char err[256];
static char cli_text[CLI_CALLS][CLI_MAX_ARGS][CLI_ARG_LEN];
static unsigned int cli_calls;

static inline int parse_list(const char *const *list)
{
	char *argv[CLI_MAX_ARGS + 1];
	int argc;

	assert_true(cli_calls < CLI_CALLS);
	snprintf(cli_text[cli_calls][0], CLI_ARG_LEN, "rdmaperf");
	argv[0] = cli_text[cli_calls][0];
	for (argc = 1; list[argc - 1]; argc++) {
		assert_true(argc < CLI_MAX_ARGS);
		snprintf(cli_text[cli_calls][argc], CLI_ARG_LEN, "%s",
			 list[argc - 1]);
		argv[argc] = cli_text[cli_calls][argc];
	}
	argv[argc] = NULL;
	cli_calls++;
	err[0] = '\0';
	return rp_cli_parse(argc, argv, &cfg, &act, err, sizeof(err));
}

#define PARSE(...) parse_list((const char *const[]){ __VA_ARGS__, NULL })

#endif
