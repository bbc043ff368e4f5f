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
	bool set_sizes;	       /* -S */
	bool all_sizes;	       /* --all-sizes */
	const char *format;    /* --json, --json-stream or --csv */
	const char *test_flag; /* the first option that describes a test */
	enum rp_cli_action act;
};

/** rp_cli_bad - the one-line reason into @p's buffer. Return: -EINVAL. */
__attribute__((format(printf, 2, 3))) int rp_cli_bad(struct parse *p,
						     const char *fmt, ...);

/** rp_cli_finish - after the last option: the mode's needs, the sweep's
 *  points and the spec the server receives. Return: 0 or -EINVAL. */
int rp_cli_finish(struct parse *p);

/* outputs.c: the handlers of the output options, and their rules */
int rp_cli_o_json(struct parse *p, const char *arg);
int rp_cli_o_json_stream(struct parse *p, const char *arg);
int rp_cli_o_csv(struct parse *p, const char *arg);
int rp_cli_o_plot(struct parse *p, const char *arg);
int rp_cli_o_report(struct parse *p, const char *arg);
int rp_cli_o_interval(struct parse *p, const char *arg);
void rp_cli_note_test_flag(struct parse *p, const char *name, bool report_ok);
int rp_cli_check_outputs(struct parse *p);

#endif
