/* SPDX-License-Identifier: MIT */
/* The parser's private state, shared by options.c (one handler per option)
 * and rules.c (what is checked once every option has been read); parse.c,
 * below both, refuses an argument or reads a count for any of them. */
#ifndef RP_CLI_PARSE_H
#define RP_CLI_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
	const char *set_file;  /* a file transport's option given */
	const char *set_rdma;  /* an rdma transport's option given */
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

/* rdma_opts.c: the rdma transport's parameters */
int rp_cli_o_device(struct parse *p, const char *arg);
int rp_cli_o_ib_port(struct parse *p, const char *arg);
int rp_cli_o_inline(struct parse *p, const char *arg);
int rp_cli_o_gid_index(struct parse *p, const char *arg);
int rp_cli_o_mtu(struct parse *p, const char *arg);
/* once the transports are known (a client): an rdma option with none of
 * them rdma is refused, not ignored */
int rp_cli_finish_rdma(struct parse *p);

/* limits.c: what a server grants a test (--max-*), and the checks of
 * which options belong to which side */
int rp_cli_o_max_memory(struct parse *p, const char *arg);
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

/* load_opts.c: the offered load and batching, and their rules */
int rp_cli_o_rate(struct parse *p, const char *arg);
int rp_cli_o_load_curve(struct parse *p, const char *arg);
int rp_cli_o_signal(struct parse *p, const char *arg);
int rp_cli_o_post_list(struct parse *p, const char *arg);
int rp_cli_finish_load(struct parse *p);

/* matrix_opts.c: --matrix's options, defaults and rules */
int rp_cli_o_serial(struct parse *p, const char *arg);
int rp_cli_o_outlier(struct parse *p, const char *arg);
int rp_cli_o_round_timeout(struct parse *p, const char *arg);
void rp_cli_matrix_defaults(struct rp_config *cfg);
int rp_cli_finish_matrix(struct parse *p);

/* file_opts.c: the file transport's entries of -x and options */
void rp_cli_file_defaults(struct rp_config *cfg);
/* A -x entry @name of @len: "file:PATH" records PATH as the next
 * transport's and puts the length of its name ("file") in *@name_len;
 * other names are left alone. Return: 0 or -EINVAL. */
int rp_cli_file_entry(struct parse *p, const char *name, size_t len,
		      size_t *name_len);
int rp_cli_o_file_size(struct parse *p, const char *arg);
int rp_cli_o_buffered(struct parse *p, const char *arg);
int rp_cli_o_random(struct parse *p, const char *arg);
int rp_cli_o_fsync_every(struct parse *p, const char *arg);
int rp_cli_finish_file(struct parse *p);

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
