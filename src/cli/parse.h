/* SPDX-License-Identifier: MIT */
/* The parser's private state, shared by options.c (one handler per option)
 * and rules.c (what is checked once every option has been read); parse.c,
 * below both, refuses an argument or reads a count for any of them. */
#ifndef RP_CLI_PARSE_H
#define RP_CLI_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/options.h"
#include "xport/xport.h"

struct option;

struct parse {
	struct rp_config *cfg;
	char *err;
	size_t errlen;
	bool set_iters;
	bool set_time;
	bool set_warmup;
	bool set_sizes;	    /* -S */
	bool set_op;	    /* -o */
	bool all_sizes;	    /* --all-sizes */
	const char *format; /* --json, --json-stream or --csv */
	/* the first option given of each transport's set, "" if none */
	char xopt_flag[RP_XPORT_MAX_OWN][48];
	const char *test_flag; /* the first option that describes a test */
	const char *set_server_only; /* a server-only option given */
	const char *client_flag;     /* the first option a server refuses */
	const char *matrix_flag;     /* an option of --matrix given */
	bool set_port;		     /* -p */
	enum rp_cli_action act;
};

/** parse.c: rp_cli_bad - the one-line reason into @p's buffer. Return: -EINVAL.
 */
__attribute__((format(printf, 2, 3))) int rp_cli_bad(struct parse *p,
						     const char *fmt, ...);

/** rp_cli_finish - after the last option: the mode's needs, the sweep's
 *  points and the spec the server receives. Return: 0 or -EINVAL. */
int rp_cli_finish(struct parse *p);

/* parse.c: @arg as a count (k, m suffixes) within @lo..@hi, or the
 * one-line error naming @flag and the range. */
int rp_cli_num_in(struct parse *p, const char *flag, const char *arg,
		  uint64_t lo, uint64_t hi, uint64_t *out);

/* xport_opts.c: the transports' own options (struct rp_xport_options) */
#define RP_CLI_XOPT_BASE 512 /* their getopt codes without a short flag */
#define RP_CLI_XOPTS_MAX 64  /* rows they add to getopt's table */
/* Their rows into @lo, their short flags at @shorts[*@k...]. Return: how
 * many rows. */
size_t rp_cli_xopts_add(struct option *lo, char *shorts, size_t *k);
/* The option of getopt's code @val as "-d/--device" in @buf, or NULL. */
const char *rp_cli_xopt_flag(int val, char *buf, size_t len);
/* If @val is a transport's option (*@found), parse @arg into its block. */
int rp_cli_xopt(struct parse *p, int val, const char *arg, bool *found);
/* A -x entry @name of @len: "NAME:PATH" of a local transport records
 * PATH as the next transport's and puts the length of NAME in *@name_len;
 * other names are left alone. Return: 0 or -EINVAL. */
int rp_cli_local_entry(struct parse *p, const char *name, size_t len,
		       size_t *name_len);
/* Once the transports are known (a client): an option of a transport -x
 * does not name is refused, not ignored; the sets' checks against the
 * test. */
int rp_cli_finish_xopts(struct parse *p);
/* --help's row of one option (@flag 0: none) */
void rp_cli_usage_row(FILE *f, int flag, const char *name, const char *meta,
		      const char *help);
/* --help's sections of the transports' options */
void rp_cli_xopts_usage(FILE *f);

/* limits.c: what a server grants a test (--max-*), and the checks of
 * which options belong to which side */
int rp_cli_o_max_memory(struct parse *p, const char *arg);
int rp_cli_o_max_tests(struct parse *p, const char *arg);
int rp_cli_o_max_streams(struct parse *p, const char *arg);
int rp_cli_o_max_size(struct parse *p, const char *arg);
int rp_cli_o_max_time(struct parse *p, const char *arg);
int rp_cli_o_stall_timeout(struct parse *p, const char *arg);

/* test_opts.c: what the test is and how long it runs */
int rp_cli_o_op(struct parse *p, const char *arg);
int rp_cli_o_size(struct parse *p, const char *arg);
int rp_cli_o_all_sizes(struct parse *p, const char *arg);
int rp_cli_o_depth(struct parse *p, const char *arg);
int rp_cli_o_streams(struct parse *p, const char *arg);
int rp_cli_o_threads(struct parse *p, const char *arg);
int rp_cli_o_bidir(struct parse *p, const char *arg);
int rp_cli_o_wait(struct parse *p, const char *arg);
int rp_cli_o_cpu(struct parse *p, const char *arg);
int rp_cli_o_iters(struct parse *p, const char *arg);
int rp_cli_o_time(struct parse *p, const char *arg);
int rp_cli_o_warmup(struct parse *p, const char *arg);
int rp_cli_o_lat_iters(struct parse *p, const char *arg);
int rp_cli_o_no_latency(struct parse *p, const char *arg);
int rp_cli_o_no_bandwidth(struct parse *p, const char *arg);
int rp_cli_o_verify(struct parse *p, const char *arg);
int rp_cli_o_zerocopy(struct parse *p, const char *arg);
int rp_cli_o_tos(struct parse *p, const char *arg);
int rp_cli_o_mem(struct parse *p, const char *arg);
int rp_cli_o_qp(struct parse *p, const char *arg);
int rp_cli_o_tagged(struct parse *p, const char *arg);
int rp_cli_o_ep_type(struct parse *p, const char *arg);
int rp_cli_o_srq(struct parse *p, const char *arg);
int rp_cli_o_srq_size(struct parse *p, const char *arg);
int rp_cli_o_sl(struct parse *p, const char *arg);
int rp_cli_o_mtu(struct parse *p, const char *arg);

/* rails_opts.c: --rails (-d A,B), --rail-map, and their rules */
int rp_cli_o_rails(struct parse *p, const char *arg);
int rp_cli_o_rail_map(struct parse *p, const char *arg);
int rp_cli_o_mcast(struct parse *p, const char *arg);
int rp_cli_check_rails(struct parse *p);
int rp_cli_o_flow_label(struct parse *p, const char *arg);

/* load_opts.c: the offered load and batching, and their rules */
int rp_cli_o_rate(struct parse *p, const char *arg);
int rp_cli_o_load_curve(struct parse *p, const char *arg);
int rp_cli_o_signal(struct parse *p, const char *arg);
int rp_cli_o_post_list(struct parse *p, const char *arg);
int rp_cli_finish_load(struct parse *p);

/* expect_opts.c: --expect, --retry, and their rules */
int rp_cli_o_expect(struct parse *p, const char *arg);
int rp_cli_o_retry(struct parse *p, const char *arg);
int rp_cli_finish_expect(struct parse *p);

/* repeat_opts.c: --repeat, --confidence, and their rules */
int rp_cli_o_repeat(struct parse *p, const char *arg);
int rp_cli_o_confidence(struct parse *p, const char *arg);
int rp_cli_finish_repeat(struct parse *p);
int rp_cli_check_repeat_size(struct parse *p); /* after the sweep's */

/* slo_opts.c: --slo, --slo-tolerance, and their rules (before
 * --repeat's: with --slo it counts an edge's runs) */
int rp_cli_o_slo(struct parse *p, const char *arg);
int rp_cli_o_slo_tolerance(struct parse *p, const char *arg);
int rp_cli_finish_slo(struct parse *p);

/* matrix_opts.c: --matrix's options, defaults and rules */
int rp_cli_o_serial(struct parse *p, const char *arg);
int rp_cli_o_outlier(struct parse *p, const char *arg);
int rp_cli_o_no_retest(struct parse *p, const char *arg);
int rp_cli_o_pattern(struct parse *p, const char *arg);
int rp_cli_o_round_timeout(struct parse *p, const char *arg);
void rp_cli_matrix_defaults(struct rp_config *cfg);
int rp_cli_finish_matrix(struct parse *p);

/* access.c: --allow (server) and --auth-key (both sides) */
int rp_cli_o_allow(struct parse *p, const char *arg);
int rp_cli_o_auth_key(struct parse *p, const char *arg);

/* outputs.c: the handlers of the output options, and their rules */
int rp_cli_o_json(struct parse *p, const char *arg);
int rp_cli_o_json_stream(struct parse *p, const char *arg);
int rp_cli_o_csv(struct parse *p, const char *arg);
int rp_cli_o_plot(struct parse *p, const char *arg);
int rp_cli_o_report(struct parse *p, const char *arg);
int rp_cli_o_interval(struct parse *p, const char *arg);
void rp_cli_note_flag(struct parse *p, const char *name, bool report_ok,
		      bool server_ok);
int rp_cli_check_outputs(struct parse *p);

#endif
