// SPDX-License-Identifier: MIT
/*
 * Unit tests of cli/options: the defaults of a plain client, rPerf's short
 * flags against the long ones, every rejection with a message naming the
 * flag, the rules applied after parsing (atomics, exclusive flags, loopback
 * host), help and version, and a usage text that lists every long option;
 * sweeps of sizes and depths, streams, threads, --bidir, --wait and --cpu.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli/options.h"
#include "proto/proto.h"
#include "xport/verbs/params.h"
#include "xport/xport.h"

#define MAX_ARGS 24
#define ARG_LEN	 64

/*
 * argv for rp_cli_parse: writable copies (getopt may permute the pointers,
 * and cfg->test.host points into them). Each stays alive and unchanged until
 * the group ends: rp_cli_parse leaves glibc's getopt pointing into the argv of
 * the call before (see test_reparse_mid_cluster), and a buffer reused for
 * the next argv would be read as options of its own.
 */
struct args {
	struct args *next;
	int argc;
	char *argv[MAX_ARGS + 1];
	char text[MAX_ARGS][ARG_LEN];
};

/* The rdma transport's block of @c's params (xport/verbs/params.h). */
static const struct rv_opts *rdma_block(const struct rp_config *c)
{
	return rp_xport_own_c(c->test.params, &rp_xport_rdma_options);
}

static struct args *all_args;
static struct rp_xport_params params_a, params_b;
static struct rp_config cfg_a = { .test.params = &params_a },
			cfg_b = { .test.params = &params_b };
static enum rp_cli_action act;
static char err[256];

static int parse_into(struct rp_config *cfg, const char *const *list)
{
	struct args *a = calloc(1, sizeof(*a));

	assert_non_null(a);
	a->next = all_args;
	all_args = a;
	snprintf(a->text[0], ARG_LEN, "rdmaperf");
	a->argv[0] = a->text[0];
	for (a->argc = 1; list[a->argc - 1]; a->argc++) {
		assert_true(a->argc < MAX_ARGS);
		assert_true(strlen(list[a->argc - 1]) < ARG_LEN);
		snprintf(a->text[a->argc], ARG_LEN, "%s", list[a->argc - 1]);
		a->argv[a->argc] = a->text[a->argc];
	}
	a->argv[a->argc] = NULL;
	err[0] = '\0';
	act = (enum rp_cli_action) - 1;
	return rp_cli_parse(a->argc, a->argv, cfg, &act, err, sizeof(err));
}

static int free_args(void **state)
{
	struct args *a;

	(void)state;
	while (all_args) {
		a = all_args;
		all_args = a->next;
		free(a);
	}
	return 0;
}

/* PARSE("-c", "-a", "h") parses "rdmaperf -c -a h" into cfg_a. */
#define PARSE(...)                                                             \
	parse_into(&cfg_a, (const char *const[]){ __VA_ARGS__, NULL })
#define PARSE_B(...)                                                           \
	parse_into(&cfg_b, (const char *const[]){ __VA_ARGS__, NULL })

static void parse_ok(int ret)
{
	if (ret)
		fail_msg("rejected (%d): %s", ret, err);
	assert_int_equal(act, RP_CLI_RUN);
}

static void test_client_defaults(void **state)
{
	const struct rp_spec *s = &cfg_a.test.spec;

	(void)state;
	parse_ok(PARSE("-c", "-a", "h"));
	assert_int_equal(cfg_a.mode, RP_MODE_CLIENT);
	assert_string_equal(cfg_a.test.host, "h");
	assert_false(cfg_a.test.host_defaulted);
	assert_int_equal(cfg_a.test.port, RP_PROTO_DEFAULT_PORT);
	assert_int_equal(cfg_a.test.n_transports, 1);
	assert_string_equal(cfg_a.test.transports[0], rp_xport_at(0)->name);
	assert_string_equal(s->transport, rp_xport_at(0)->name);
	assert_int_equal(s->op, RP_OP_WRITE);
	assert_int_equal(s->size_bytes, 65536);
	assert_int_equal(s->queue_depth, 16);
	assert_int_equal(s->iterations, 10000);
	assert_int_equal(s->duration_ns, 0);
	assert_int_equal(s->warmup, 1000);
	assert_int_equal(s->lat_iterations, 1000);
	assert_true(s->latency);
	assert_true(s->bandwidth);
	assert_false(s->verify);
	assert_false(cfg_a.json);
	assert_false(cfg_a.once);
	assert_false(cfg_a.quiet);
	assert_string_equal(rdma_block(&cfg_a)->device, "");
	assert_int_equal(rdma_block(&cfg_a)->gid_index, -1);
	assert_int_equal(rdma_block(&cfg_a)->inline_bytes, -1);
	assert_int_equal(cfg_a.test.spec.path_mtu, 0);
	/* One point of the defaults, one stream, one thread, busy polling. */
	assert_int_equal(cfg_a.test.n_sizes, 1);
	assert_int_equal(cfg_a.test.sizes[0], 65536);
	assert_int_equal(cfg_a.test.n_depths, 1);
	assert_int_equal(cfg_a.test.depths[0], 16);
	assert_false(cfg_a.test.iterations_defaulted);
	assert_int_equal(s->streams, 1);
	assert_int_equal(s->threads, 1);
	assert_false(s->bidir);
	assert_int_equal(s->wait, RP_WAIT_BUSY);
	assert_int_equal(cfg_a.test.n_cpus, 0);
}

static void assert_same_config(const struct rp_config *a,
			       const struct rp_config *b)
{
	size_t i;

	assert_int_equal(a->mode, b->mode);
	assert_string_equal(a->test.host, b->test.host);
	assert_int_equal(a->test.port, b->test.port);
	assert_int_equal(a->test.n_transports, b->test.n_transports);
	for (i = 0; i < a->test.n_transports; i++)
		assert_string_equal(a->test.transports[i],
				    b->test.transports[i]);
	assert_string_equal(a->test.spec.transport, b->test.spec.transport);
	assert_int_equal(a->test.spec.op, b->test.spec.op);
	assert_int_equal(a->test.spec.size_bytes, b->test.spec.size_bytes);
	assert_int_equal(a->test.spec.queue_depth, b->test.spec.queue_depth);
	assert_int_equal(a->test.spec.iterations, b->test.spec.iterations);
	assert_int_equal(a->test.spec.duration_ns, b->test.spec.duration_ns);
	assert_int_equal(a->test.spec.warmup, b->test.spec.warmup);
	assert_int_equal(a->test.spec.lat_iterations,
			 b->test.spec.lat_iterations);
	assert_int_equal(a->test.spec.latency, b->test.spec.latency);
	assert_int_equal(a->test.spec.bandwidth, b->test.spec.bandwidth);
	assert_int_equal(a->test.spec.verify, b->test.spec.verify);
	assert_int_equal(a->json, b->json);
	assert_int_equal(a->once, b->once);
	assert_int_equal(a->quiet, b->quiet);
	assert_int_equal(a->test.spec.streams, b->test.spec.streams);
	assert_int_equal(a->test.spec.threads, b->test.spec.threads);
	assert_int_equal(a->test.spec.bidir, b->test.spec.bidir);
	assert_int_equal(a->test.spec.wait, b->test.spec.wait);
	assert_int_equal(a->test.n_sizes, b->test.n_sizes);
	for (i = 0; i < a->test.n_sizes; i++)
		assert_int_equal(a->test.sizes[i], b->test.sizes[i]);
	assert_int_equal(a->test.n_depths, b->test.n_depths);
	for (i = 0; i < a->test.n_depths; i++)
		assert_int_equal(a->test.depths[i], b->test.depths[i]);
	assert_int_equal(a->test.iterations_defaulted,
			 b->test.iterations_defaulted);
	assert_int_equal(a->test.n_cpus, b->test.n_cpus);
	for (i = 0; i < a->test.n_cpus; i++)
		assert_int_equal(a->test.cpus[i], b->test.cpus[i]);
}

static void test_short_long_same(void **state)
{
	(void)state;
	parse_ok(PARSE("-c", "-a", "h", "-p", "1234", "-x", "tcp", "-o", "W",
		       "-S", "4K", "-q", "32", "-C", "5000"));
	parse_ok(PARSE_B("--client", "--address", "h", "--port", "1234",
			 "--transport", "tcp", "--op", "write", "--size",
			 "4096", "--queue-depth", "32", "--iterations",
			 "5000"));
	assert_same_config(&cfg_a, &cfg_b);
	assert_int_equal(cfg_a.test.port, 1234);
	assert_int_equal(cfg_a.test.spec.op, RP_OP_WRITE);
	assert_int_equal(cfg_a.test.spec.size_bytes, 4096);
	assert_int_equal(cfg_a.test.spec.queue_depth, 32);
	assert_int_equal(cfg_a.test.spec.iterations, 5000);

	/* --flag=value and attached short values mean the same. */
	parse_ok(PARSE_B("--client", "--address=h", "--port=1234",
			 "--transport=tcp", "--op=w", "-S4096", "-q32",
			 "--iterations=5k"));
	assert_same_config(&cfg_a, &cfg_b);

	parse_ok(PARSE("-c", "-a", "h", "-o", "R", "-t", "2"));
	parse_ok(PARSE_B("--client", "--address", "h", "--op", "read", "--time",
			 "2s"));
	assert_same_config(&cfg_a, &cfg_b);
	assert_int_equal(cfg_a.test.spec.op, RP_OP_READ);

	parse_ok(PARSE("-c", "-a", "h", "-o", "S"));
	assert_int_equal(cfg_a.test.spec.op, RP_OP_SEND);
}

/* -Z/--zerocopy sets the spec's flag (refusals: the bad-input table). */
static void test_zerocopy(void **state)
{
	(void)state;
	if (!rp_net_zc_built())
		skip();
	parse_ok(PARSE("-c", "-a", "h", "-x", "tcp", "-S", "64K", "-Z"));
	assert_true(cfg_a.test.spec.zerocopy);
	parse_ok(PARSE("-c", "-a", "h", "-x", "tcp"));
	assert_false(cfg_a.test.spec.zerocopy);
}

static void test_other_flags(void **state)
{
	/* write_imm needs rdma, the default transport where it is built in */
	bool imm = rp_xport_find("rdma") != NULL;

	(void)state;
	parse_ok(PARSE("-c", "-a", "h", "--warmup", "0", "--lat-iterations",
		       "5", "--verify", "--json", "-C", "100k", "-o",
		       imm ? "write_imm" : "write"));
	assert_int_equal(cfg_a.test.spec.warmup, 0);
	assert_int_equal(cfg_a.test.spec.lat_iterations, 5);
	assert_int_equal(cfg_a.test.spec.iterations, 100000);
	assert_true(cfg_a.test.spec.verify);
	assert_true(cfg_a.json);
	assert_int_equal(cfg_a.test.spec.op,
			 imm ? RP_OP_WRITE_IMM : RP_OP_WRITE);

	/* Limits themselves are accepted. */
	parse_ok(PARSE("-c", "-a", "h", "-p", "1", "-q", "4096", "-S", "512K"));
	assert_int_equal(cfg_a.test.port, 1);
	assert_int_equal(cfg_a.test.spec.queue_depth, 4096);
	parse_ok(PARSE("-c", "-a", "h", "-p", "65535", "-S", "1G", "-q", "2"));
	assert_int_equal(cfg_a.test.port, 65535);
	assert_int_equal(cfg_a.test.spec.size_bytes, 1ULL << 30);
}

/* The rdma transport's options reach its parameters, with rdma among the
 * transports; with none of them rdma (or in a build without it) they are
 * refused, not ignored. */
static void test_rdma_options(void **state)
{
	(void)state;
	if (!rp_xport_find("rdma")) {
		assert_int_equal(PARSE("-c", "-a", "h", "-d", "mlx5_0"),
				 -EINVAL);
		assert_non_null(strstr(err, "this build does not have"));
		return;
	}
	parse_ok(PARSE("-c", "-a", "h", "-x", "rdma", "-d", "mlx5_0",
		       "--ib-port", "2", "--inline", "256", "--gid-index", "3",
		       "--mtu", "1024"));
	assert_string_equal(rdma_block(&cfg_a)->device, "mlx5_0");
	assert_int_equal(rdma_block(&cfg_a)->ib_port, 2);
	assert_int_equal(rdma_block(&cfg_a)->inline_bytes, 256);
	assert_int_equal(rdma_block(&cfg_a)->gid_index, 3);
	assert_int_equal(cfg_a.test.spec.path_mtu, 1024);
	parse_ok(PARSE("-c", "-a", "h", "-x", "rdma", "--mtu", "256"));
	assert_int_equal(cfg_a.test.spec.path_mtu, 256);
	parse_ok(PARSE("-c", "-a", "h", "-x", "rdma", "--mtu", "4K"));
	assert_int_equal(cfg_a.test.spec.path_mtu, 4096);
	assert_int_equal(PARSE("-c", "-a", "h", "-x", "rdma", "--qp", "ud",
			       "-o", "send", "-S", "1024", "--mtu", "1024"),
			 -EINVAL);
	assert_non_null(strstr(err, "--mtu with --qp ud"));
	parse_ok(PARSE("-c", "-a", "h", "-x", "tcp,rdma", "--inline", "0"));
	assert_int_equal(rdma_block(&cfg_a)->inline_bytes, 0);
	parse_ok(PARSE("-c", "-a", "h", "-x", "all", "--ib-port", "1"));
	parse_ok(PARSE("-s", "-d", "mlx5_0"));

	assert_int_equal(PARSE("-c", "-a", "h", "-x", "tcp", "-d", "mlx5_0"),
			 -EINVAL);
	assert_string_equal(err, "-d/--device applies to the rdma transport "
				 "only, and -x gives none: add rdma to -x");
	assert_int_equal(
		PARSE("-c", "-a", "h", "-x", "tcp,rsocket", "--mtu", "1024"),
		-EINVAL);
	assert_non_null(strstr(err, "--mtu: tcp has no queue pairs"));
	assert_int_equal(PARSE("--loopback", "-x", "tcp", "--inline", "64"),
			 -EINVAL);
	assert_non_null(strstr(err, "--inline applies to the rdma"));
}

static void test_time_mode(void **state)
{
	(void)state;
	parse_ok(PARSE("-c", "-a", "h", "-t", "0.5"));
	assert_int_equal(cfg_a.test.spec.duration_ns, 500000000ULL);
	assert_int_equal(cfg_a.test.spec.iterations, 0);
	parse_ok(PARSE("-c", "-a", "h", "--time", "250ms"));
	assert_int_equal(cfg_a.test.spec.duration_ns, 250000000ULL);
	assert_int_equal(cfg_a.test.spec.iterations, 0);
}

struct bad_case {
	const char *argv[10];  /* NULL-terminated */
	const char *needle[2]; /* substrings the message must hold */
};

static const struct bad_case bad_cases[] = {
	{ { "-c", "-a", "h", "-S", "0" }, { "-S/--size" } },
	{ { "-c", "-a", "h", "-S", "12Q" }, { "-S/--size", "12Q" } },
	{ { "-c", "-a", "h", "-S", "2G" }, { "-S/--size" } },
	{ { "-c", "-a", "h", "--size", "-1" }, { "-S/--size" } },
	{ { "-c", "-a", "h", "-q", "0" }, { "-q/--queue-depth" } },
	{ { "-c", "-a", "h", "-q", "5000" }, { "-q/--queue-depth", "4096" } },
	{ { "-c", "-a", "h", "-q", "x" }, { "-q/--queue-depth" } },
	{ { "-c", "-a", "h", "-C", "0" }, { "-C/--iterations" } },
	{ { "-c", "-a", "h", "-C", "100", "-t", "1" }, { "exclusive" } },
	{ { "-c", "-a", "h", "-t", "1", "-C", "100" }, { "exclusive" } },
	{ { "-c", "-a", "h", "-t", "0" }, { "-t/--time" } },
	{ { "-c", "-a", "h", "-t", "abc" }, { "-t/--time" } },
	{ { "-c", "-a", "h", "-i", "0.05" }, { "-i/--interval", "0.1" } },
	{ { "-c", "-a", "h", "-i", "4000" }, { "-i/--interval", "3600" } },
	{ { "-c", "-a", "h", "-i", "x" }, { "-i/--interval" } },
	{ { "-c", "-a", "h", "-i", "1", "--no-bandwidth" },
	  { "-i/--interval" } },
	{ { "-c", "-a", "h", "--json", "--csv" }, { "--json", "--csv" } },
	{ { "-c", "-a", "h", "--csv", "--json-stream" }, { "exclusive" } },
	{ { "-c", "-a", "h", "--plot", "" }, { "--plot" } },
	{ { "-s", "-i", "1" }, { "the client's" } },
	{ { "-s", "--csv" }, { "the client's" } },
	{ { "--report", "f.json", "-c" }, { "--report", "no -s, -c" } },
	{ { "-c", "--report", "f.json" }, { "--report", "no -s, -c" } },
	{ { "--report", "f.json", "-S", "4K" }, { "--size", "--report" } },
	{ { "--report", "f.json", "--json-stream" }, { "--json-stream" } },
	{ { "--report", "" }, { "--report" } },
	{ { "-s", "-S", "4K" }, { "--size", "the client's" } },
	{ { "-s", "--bidir" }, { "--bidir", "the client's" } },
	{ { "-c", "-a", "h", "--max-size", "4K" },
	  { "--max-size", "server's" } },
	{ { "--loopback", "--max-time", "9" }, { "--max-time", "server's" } },
	{ { "-s", "--max-memory", "1K" }, { "--max-memory", "4096 bytes" } },
	{ { "-s", "--max-streams", "129" }, { "--max-streams", "128" } },
	{ { "-s", "--max-size", "2G" }, { "--max-size" } },
	{ { "-s", "--max-time", "0.5" }, { "--max-time", "1 to" } },
	{ { "-s", "--stall-timeout", "0.5" }, { "--stall-timeout", "1 to" } },
	{ { "-c", "-a", "h", "--stall-timeout", "86401" },
	  { "--stall-timeout", "86400" } },
	{ { "-c", "-a", "h", "--stall-timeout", "x" }, { "--stall-timeout" } },
	{ { "-c", "-a", "h", "-o", "X" }, { "-o/--op", "X" } },
	{ { "-c" }, { "--address" } },
	{ { "-c", "-a", "" }, { "--address" } },
	{ { "-c", "-a", "h", "-x", "nosuch" }, { "-x/--transport", "nosuch" } },
	{ { "-c", "-a", "h", "-x", "" }, { "-x/--transport" } },
	{ { "-c", "-a", "h", "-x", "tcp," }, { "-x/--transport" } },
	{ { "-c", "-a", "h", "-x", "tcp,tcp,tcp,tcp,tcp,tcp,tcp,tcp,tcp" },
	  { "-x/--transport", "8" } },
	{ { "-c", "-a", "h", "-p", "0" }, { "-p/--port" } },
	{ { "-c", "-a", "h", "-p", "65536" }, { "-p/--port", "65535" } },
	{ { "-c", "-a", "h", "--mtu", "1000" }, { "--mtu" } },
	{ { "-c", "-a", "h", "--mtu", "8192" }, { "--mtu" } },
	{ { "-c", "-a", "h", "--inline", "5000" }, { "--inline" } },
	{ { "-c", "-a", "h", "--warmup", "-1" }, { "--warmup" } },
	{ { "-c", "-a", "h", "--lat-iterations", "0" },
	  { "--lat-iterations" } },
	{ { "-c", "-a", "h", "--ib-port", "256" }, { "--ib-port" } },
	{ { "-c", "-a", "h", "--gid-index", "256" }, { "--gid-index" } },
	{ { "-c", "-a", "h", "-d", "" }, { "-d/--device" } },
	{ { "-a", "h" }, { "-s", "--loopback" } },
	{ { "-c", "-a", "h", "--no-latency", "--no-bandwidth" },
	  { "--no-latency", "--no-bandwidth" } },
	{ { "-c", "-a", "h", "-S", "1G", "-q", "4" }, { "-S/--size", "-q" } },
	{ { "-c", "-a", "h", "-S" }, { "-S/--size", "value" } },
	{ { "-c", "-a", "h", "--warmup" }, { "--warmup", "value" } },
	{ { "-c", "-a", "h", "-Y" }, { "unknown", "-Y" } },
	{ { "-c", "-a", "h", "-x", "rsocket", "-Z" },
	  { "--zerocopy", "rsocket" } },
	{ { "-c", "-a", "h", "-x", "tcp", "--zerocopy", "--verify" },
	  { "--zerocopy", "--verify" } },
	{ { "-c", "-a", "h", "--bogus" }, { "unknown", "--bogus" } },
	{ { "-c", "-a", "h", "stray" }, { "unexpected", "stray" } },
	{ { "-c", "-a", "h", "-S", "4K-2K" }, { "-S/--size", "descends" } },
	{ { "-c", "-a", "h", "-S", "4K,,8K" }, { "-S/--size", "empty" } },
	{ { "-c", "-a", "h", "-S", "1-2G" }, { "-S/--size", "1G" } },
	{ { "-c", "-a", "h", "-S", "4K,8K,4K" }, { "-S/--size", "twice" } },
	{ { "-c", "-a", "h", "-q", "16,1,16" },
	  { "-q/--queue-depth", "twice" } },
	{ { "-c", "-a", "h", "-q", "64-1" },
	  { "-q/--queue-depth", "descends" } },
	{ { "-c", "-a", "h", "-q", "1-8192" }, { "-q/--queue-depth", "4096" } },
	{ { "-c", "-a", "h", "-S", "4K", "--all-sizes" },
	  { "-S/--size", "--all-sizes" } },
	{ { "-c", "-a", "h", "--all-sizes", "-S", "4K" },
	  { "-S/--size", "--all-sizes" } },
	{ { "-c", "-a", "h", "-o", "fetch_add", "-S", "8,16" },
	  { "-S/--size", "8 bytes" } },
	{ { "-c", "-a", "h", "-o", "cmp_swap", "--all-sizes" },
	  { "--all-sizes", "8 bytes" } },
	{ { "-c", "-a", "h", "-x", "tcp", "-o", "fetch_add" },
	  { "-o/--op", "tcp cannot do fetch_add; it does write, read, send" } },
	{ { "-c", "-a", "h", "-x", "tcp", "-o", "write_imm" },
	  { "-o/--op", "tcp cannot do write_imm" } },
	{ { "-c", "-a", "h", "-P", "0" }, { "-P/--streams", "128" } },
	{ { "-c", "-a", "h", "-P", "129" }, { "-P/--streams", "128" } },
	{ { "-c", "-a", "h", "-P", "x" }, { "-P/--streams" } },
	{ { "-c", "-a", "h", "-T", "0" }, { "-T/--threads", "64" } },
	{ { "-c", "-a", "h", "-P", "128", "-T", "65" },
	  { "-T/--threads", "64" } },
	{ { "-c", "-a", "h", "-T", "4", "-P", "2" },
	  { "-T/--threads", "-P/--streams" } },
	{ { "-c", "-a", "h", "-T", "2" }, { "-T/--threads", "-P/--streams" } },
	{ { "-c", "-a", "h", "-P", "128", "-S", "1G" },
	  { "-P/--streams", "2048 MiB" } },
	{ { "-c", "-a", "h", "-P", "2", "-S", "128M", "-q", "16" },
	  { "-P/--streams", "2048 MiB" } },
	{ { "-c", "-a", "h", "--bidir", "-S", "1G", "-q", "2" },
	  { "--bidir", "2048 MiB" } },
	{ { "-c", "-a", "h", "-S", "2-8M", "-q", "1-4096" },
	  { "-S/--size", "-q/--queue-depth" } },
	{ { "-c", "-a", "h", "--wait", "spin" }, { "--wait", "busy, event" } },
	{ { "-c", "-a", "h", "--wait" }, { "--wait", "value" } },
	{ { "-c", "-a", "h", "--cpu", "x" }, { "--cpu", "0-3,6" } },
	{ { "-c", "-a", "h", "--cpu", "1024" }, { "--cpu", "1023" } },
	{ { "-c", "-a", "h", "--cpu", "0-3,2" }, { "--cpu", "twice" } },
	{ { "-c", "-a", "h", "--cpu", "0-64" }, { "--cpu", "64" } },
	{ { "-s", "--cpu", "3-1" }, { "--cpu", "descends" } },
};

static void test_rejects(void **state)
{
	const struct bad_case *c;
	size_t i, k;
	int ret;

	(void)state;
	for (i = 0; i < sizeof(bad_cases) / sizeof(*bad_cases); i++) {
		c = &bad_cases[i];
		ret = parse_into(&cfg_a, c->argv);
		if (ret != -EINVAL)
			fail_msg("case %zu (%s ...): returned %d, want -EINVAL",
				 i, c->argv[0], ret);
		for (k = 0; k < 2 && c->needle[k]; k++)
			if (!strstr(err, c->needle[k]))
				fail_msg("case %zu: message \"%s\" lacks "
					 "\"%s\"",
					 i, err, c->needle[k]);
	}
}

static void test_transport_list(void **state)
{
	(void)state;
	parse_ok(PARSE("-c", "-a", "h", "-x", "tcp,tcp"));
	assert_int_equal(cfg_a.test.n_transports, 2);
	assert_string_equal(cfg_a.test.transports[0], "tcp");
	assert_string_equal(cfg_a.test.transports[1], "tcp");
	assert_string_equal(cfg_a.test.spec.transport, "tcp");

	/* The last -x wins; "all" is taken for the driver to expand. */
	parse_ok(PARSE("-c", "-a", "h", "-x", "tcp,tcp", "-x", "tcp"));
	assert_int_equal(cfg_a.test.n_transports, 1);
	parse_ok(PARSE("-c", "-a", "h", "-x", "all"));
	assert_int_equal(cfg_a.test.n_transports, 1);
	assert_string_equal(cfg_a.test.transports[0], "all");
}

/* Atomics need a transport that does them: the default one where rdma
 * is built in; a build without it refuses them (bad_cases). */
static void skip_without_rdma(void)
{
	if (!rp_xport_find("rdma"))
		skip();
}

static void test_atomics_size(void **state)
{
	(void)state;
	skip_without_rdma();
	parse_ok(PARSE("-c", "-a", "h", "-o", "fetch_add", "-S", "4K"));
	assert_int_equal(cfg_a.test.spec.op, RP_OP_FETCH_ADD);
	assert_int_equal(cfg_a.test.spec.size_bytes, 8);
	parse_ok(PARSE("-c", "-a", "h", "--op", "cmp_swap"));
	assert_int_equal(cfg_a.test.spec.op, RP_OP_CMP_SWAP);
	assert_int_equal(cfg_a.test.spec.size_bytes, 8);
}

static void test_atomics_sweep(void **state)
{
	(void)state;
	skip_without_rdma();
	/* One size is forced to 8 as before; a sweep of depths is fine. */
	parse_ok(PARSE("-c", "-a", "h", "-o", "fetch_add", "-S", "8"));
	assert_int_equal(cfg_a.test.n_sizes, 1);
	assert_int_equal(cfg_a.test.sizes[0], 8);
	parse_ok(PARSE("-c", "-a", "h", "-o", "cmp_swap", "-S", "4K", "-q",
		       "1,16"));
	assert_int_equal(cfg_a.test.sizes[0], 8);
	assert_int_equal(cfg_a.test.spec.size_bytes, 8);
	assert_int_equal(cfg_a.test.n_depths, 2);
	assert_int_equal(
		PARSE("-c", "-a", "h", "-o", "fetch_add", "-S", "8-16"),
		-EINVAL);
}

static void test_phases(void **state)
{
	(void)state;
	parse_ok(PARSE("-c", "-a", "h", "--no-latency"));
	assert_false(cfg_a.test.spec.latency);
	assert_true(cfg_a.test.spec.bandwidth);
	parse_ok(PARSE("-c", "-a", "h", "--no-bandwidth"));
	assert_true(cfg_a.test.spec.latency);
	assert_false(cfg_a.test.spec.bandwidth);
}

static void test_help_version(void **state)
{
	(void)state;
	assert_int_equal(PARSE("-h"), 0);
	assert_int_equal(act, RP_CLI_HELP);
	assert_int_equal(PARSE("--help"), 0);
	assert_int_equal(act, RP_CLI_HELP);
	assert_int_equal(PARSE("-c", "-h"), 0); /* no -a needed for help */
	assert_int_equal(act, RP_CLI_HELP);
	assert_int_equal(PARSE("-V"), 0);
	assert_int_equal(act, RP_CLI_VERSION);
	assert_int_equal(PARSE("--version"), 0);
	assert_int_equal(act, RP_CLI_VERSION);
}

static void test_server(void **state)
{
	(void)state;
	parse_ok(PARSE("-s"));
	assert_int_equal(cfg_a.mode, RP_MODE_SERVER);
	assert_null(cfg_a.test.host);
	assert_int_equal(cfg_a.test.port, RP_PROTO_DEFAULT_PORT);
	assert_false(cfg_a.once);

	parse_ok(PARSE("--server", "-a", "0.0.0.0", "-p", "9000", "--once",
		       "--quiet"));
	assert_int_equal(cfg_a.mode, RP_MODE_SERVER);
	assert_string_equal(cfg_a.test.host, "0.0.0.0");
	assert_int_equal(cfg_a.test.port, 9000);
	assert_true(cfg_a.once);
	assert_true(cfg_a.quiet);
}

static void test_loopback(void **state)
{
	(void)state;
	parse_ok(PARSE("--loopback"));
	assert_int_equal(cfg_a.mode, RP_MODE_LOOPBACK);
	assert_string_equal(cfg_a.test.host, "127.0.0.1");
	assert_true(cfg_a.test.host_defaulted);
	assert_int_equal(cfg_a.test.n_transports, 1);
	assert_int_equal(cfg_a.test.spec.size_bytes, 65536);

	parse_ok(PARSE("--loopback", "-a", "::1", "-S", "1K"));
	assert_string_equal(cfg_a.test.host, "::1");
	assert_false(cfg_a.test.host_defaulted);
	assert_int_equal(cfg_a.test.spec.size_bytes, 1024);
}

/* Each call starts afresh: nothing of one parse leaks into the next. */
static void test_reparse(void **state)
{
	(void)state;
	parse_ok(PARSE("-c", "-a", "h", "-S", "1K", "--verify", "-x",
		       "tcp,tcp"));
	parse_ok(PARSE("-c", "-a", "h"));
	assert_int_equal(cfg_a.test.spec.size_bytes, 65536);
	assert_false(cfg_a.test.spec.verify);
	parse_ok(PARSE("-c", "-a", "h", "-S", "4K,8K", "-q", "1,2", "-P", "4",
		       "-T", "2", "--cpu", "1", "--bidir", "--wait", "event"));
	parse_ok(PARSE("-c", "-a", "h"));
	assert_int_equal(cfg_a.test.n_sizes, 1);
	assert_int_equal(cfg_a.test.n_depths, 1);
	assert_int_equal(cfg_a.test.spec.streams, 1);
	assert_int_equal(cfg_a.test.spec.threads, 1);
	assert_int_equal(cfg_a.test.n_cpus, 0);
	assert_false(cfg_a.test.spec.bidir);
	assert_int_equal(cfg_a.test.spec.wait, RP_WAIT_BUSY);
	assert_false(cfg_a.test.iterations_defaulted);
	assert_int_equal(cfg_a.test.n_transports, 1);
	assert_int_equal(PARSE("-c", "-a", "h", "-S", "0"), -EINVAL);
	parse_ok(PARSE("-s"));
	assert_int_equal(cfg_a.mode, RP_MODE_SERVER);
}

/*
 * A parse that stops inside "-Zs" must not leave the "s" for the next one.
 * (glibc resets getopt fully only for optind = 0; optind = 1 keeps its
 * pointer into the previous argv.)
 */
static void test_reparse_mid_cluster(void **state)
{
	int ret;

	(void)state;
	assert_int_equal(PARSE("-c", "-a", "h", "-Zs"), -EINVAL);
	ret = PARSE("-c", "-a", "h");
	parse_ok(ret);
	assert_int_equal(cfg_a.mode, RP_MODE_CLIENT);
}

static void test_sweep_lists(void **state)
{
	(void)state;
	parse_ok(PARSE("-c", "-a", "h", "-S", "4K,64K,1M", "-q", "1,16,64"));
	assert_int_equal(cfg_a.test.n_sizes, 3);
	assert_int_equal(cfg_a.test.n_depths, 3);
	assert_int_equal(cfg_a.test.n_sizes * cfg_a.test.n_depths, 9);
	assert_int_equal(cfg_a.test.sizes[0], 4096);
	assert_int_equal(cfg_a.test.sizes[2], 1 << 20);
	assert_int_equal(cfg_a.test.depths[1], 16);
	/* The buffers are sized for the largest point. */
	assert_int_equal(cfg_a.test.spec.size_bytes, 1 << 20);
	assert_int_equal(cfg_a.test.spec.queue_depth, 64);
	assert_true(cfg_a.test.iterations_defaulted);
	assert_int_equal(cfg_a.test.spec.iterations, 10000);

	/* Largest, not last. */
	parse_ok(PARSE("-c", "-a", "h", "-S", "1M,4K", "-q", "64,1"));
	assert_int_equal(cfg_a.test.sizes[1], 4096);
	assert_int_equal(cfg_a.test.spec.size_bytes, 1 << 20);
	assert_int_equal(cfg_a.test.spec.queue_depth, 64);

	parse_ok(PARSE("-c", "-a", "h", "-S", "2-8M"));
	assert_int_equal(cfg_a.test.n_sizes, 23);
	assert_int_equal(cfg_a.test.n_depths, 1);
	assert_int_equal(cfg_a.test.depths[0], 16);
	assert_int_equal(cfg_a.test.spec.size_bytes, 8 << 20);

	parse_ok(PARSE("-c", "-a", "h", "-q", "1-64"));
	assert_int_equal(cfg_a.test.n_sizes, 1);
	assert_int_equal(cfg_a.test.sizes[0], 65536);
	assert_int_equal(cfg_a.test.n_depths, 7);
	assert_int_equal(cfg_a.test.spec.queue_depth, 64);
	assert_true(cfg_a.test.iterations_defaulted);
}

static void test_all_sizes(void **state)
{
	(void)state;
	parse_ok(PARSE("-c", "-a", "h", "--all-sizes", "-q", "16"));
	parse_ok(PARSE_B("-c", "-a", "h", "-S", "2-8M", "-q", "16"));
	assert_same_config(&cfg_a, &cfg_b);
	assert_int_equal(cfg_a.test.n_sizes, 23);
	assert_int_equal(cfg_a.test.sizes[0], 2);
	assert_int_equal(cfg_a.test.sizes[22], 8 << 20);
	/* -a stays the address. */
	parse_ok(PARSE("-c", "--all-sizes", "-a", "h"));
	assert_string_equal(cfg_a.test.host, "h");
	assert_int_equal(cfg_a.test.n_sizes, 23);
}

/* The sweep's own iteration count only when neither -C nor -t was given. */
static void test_iterations_defaulted(void **state)
{
	(void)state;
	parse_ok(PARSE("-c", "-a", "h", "-S", "4K"));
	assert_false(cfg_a.test.iterations_defaulted);
	parse_ok(PARSE("-c", "-a", "h", "-S", "4K-4K", "-q", "8"));
	assert_false(cfg_a.test.iterations_defaulted);
	parse_ok(PARSE("-c", "-a", "h", "-S", "4K,8K"));
	assert_true(cfg_a.test.iterations_defaulted);
	parse_ok(PARSE("-c", "-a", "h", "-S", "4K,8K", "-C", "500"));
	assert_false(cfg_a.test.iterations_defaulted);
	assert_int_equal(cfg_a.test.spec.iterations, 500);
	parse_ok(PARSE("-c", "-a", "h", "--all-sizes", "-t", "1"));
	assert_false(cfg_a.test.iterations_defaulted);
	assert_int_equal(cfg_a.test.spec.iterations, 0);
}

static void test_streams_threads(void **state)
{
	(void)state;
	parse_ok(PARSE("-c", "-a", "h", "-P", "8", "-T", "2", "--bidir",
		       "--wait", "event", "--cpu", "0-3,6"));
	parse_ok(PARSE_B("-c", "-a", "h", "--streams", "8", "--threads=2",
			 "--bidir", "--wait=event", "--cpu=0-3,6"));
	assert_same_config(&cfg_a, &cfg_b);
	assert_int_equal(cfg_a.test.spec.streams, 8);
	assert_int_equal(cfg_a.test.spec.threads, 2);
	assert_true(cfg_a.test.spec.bidir);
	assert_int_equal(cfg_a.test.spec.wait, RP_WAIT_EVENT);
	assert_int_equal(cfg_a.test.n_cpus, 5);
	assert_int_equal(cfg_a.test.cpus[0], 0);
	assert_int_equal(cfg_a.test.cpus[4], 6);

	/* Limits themselves are accepted; -T may equal -P. */
	parse_ok(PARSE("-c", "-a", "h", "-P", "128", "-T", "64", "--wait",
		       "busy"));
	assert_int_equal(cfg_a.test.spec.streams, RP_SPEC_MAX_STREAMS);
	assert_int_equal(cfg_a.test.spec.threads, RP_SPEC_MAX_THREADS);
	assert_int_equal(cfg_a.test.spec.wait, RP_WAIT_BUSY);
	parse_ok(PARSE("-c", "-a", "h", "-T", "3", "-P", "3"));
	assert_int_equal(cfg_a.test.spec.threads, 3);
	parse_ok(PARSE("-c", "-a", "h", "-P", "2", "-S", "512M", "-q", "2"));
	parse_ok(PARSE("-c", "-a", "h", "--cpu", "0-63"));
	assert_int_equal(cfg_a.test.n_cpus, RP_MAX_CPUS);

	/* A server pins its own threads. */
	parse_ok(PARSE("-s", "--cpu", "2,3"));
	assert_int_equal(cfg_a.test.n_cpus, 2);
	assert_int_equal(cfg_a.test.cpus[1], 3);
}

static void test_outputs(void **state)
{
	(void)state;
	parse_ok(PARSE("-c", "-a", "h", "-i", "0.5", "--json-stream", "--plot",
		       "x.svg"));
	assert_true(cfg_a.test.interval_s > 0.499 &&
		    cfg_a.test.interval_s < 0.501);
	assert_true(cfg_a.json_stream);
	assert_false(cfg_a.json || cfg_a.csv);
	assert_string_equal(cfg_a.plot, "x.svg");
	parse_ok(PARSE_B("-c", "-a", "h", "--interval", "2", "--csv"));
	assert_true(cfg_b.test.interval_s == 2.0 && cfg_b.csv);
	assert_null(cfg_b.plot);
	parse_ok(PARSE("--report", "run.json", "--csv", "--plot", "p.svg"));
	assert_int_equal(cfg_a.mode, RP_MODE_REPORT);
	assert_string_equal(cfg_a.report, "run.json");
	assert_true(cfg_a.csv);
	parse_ok(PARSE("--report", "run.json"));
	assert_false(cfg_a.csv || cfg_a.json || cfg_a.plot);
	parse_ok(PARSE("--json", "--report", "run.json", "--json"));
	assert_true(cfg_a.json);
}

static void test_limits(void **state)
{
	const struct rp_limits *l = &cfg_a.limits;

	(void)state;
	parse_ok(PARSE("-s"));
	assert_int_equal(l->max_memory, RP_SPEC_MAX_MEM);
	assert_int_equal(l->max_streams, RP_SPEC_MAX_STREAMS);
	assert_int_equal(l->max_size, RP_SPEC_MAX_SIZE);
	assert_int_equal(l->max_time_ns, 3600ULL * 1000000000ULL);
	assert_int_equal(cfg_a.stall_ns, 30ULL * 1000000000ULL);
	parse_ok(PARSE("-s", "--max-memory", "64M", "--max-streams", "4",
		       "--max-size", "1M", "--max-time", "10", "--once", "-a",
		       "::1", "--cpu", "0", "--stall-timeout", "2.5"));
	assert_int_equal(cfg_a.stall_ns, 2500ULL * 1000000ULL);
	assert_int_equal(l->max_memory, 64ULL << 20);
	assert_int_equal(l->max_streams, 4);
	assert_int_equal(l->max_size, 1ULL << 20);
	assert_int_equal(l->max_time_ns, 10ULL * 1000000000ULL);
}

static void test_usage(void **state)
{
	static const char *const longs[] = {
		"--server",	 "--client",	    "--interval",
		"--json-stream", "--csv",	    "--plot",
		"--report",	 "--max-memory",    "--max-streams",
		"--max-size",	 "--max-time",	    "--allow",
		"--auth-key",	 "--loopback",	    "--address",
		"--port",	 "--transport",	    "--op",
		"--size",	 "--queue-depth",   "--iterations",
		"--time",	 "--warmup",	    "--lat-iterations",
		"--no-latency",	 "--no-bandwidth",  "--verify",
		"--json",	 "--once",	    "--quiet",
		"--device",	 "--ib-port",	    "--inline",
		"--gid-index",	 "--mtu",	    "--all-sizes",
		"--streams",	 "--threads",	    "--bidir",
		"--wait",	 "--cpu",	    "--help",
		"--version",	 "--stall-timeout",
	};
	char *text = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&text, &len);

	(void)state;
	assert_non_null(f);
	rp_cli_usage(f);
	assert_int_equal(fclose(f), 0);
	assert_non_null(strstr(text, "Usage:"));
	assert_non_null(strstr(text, "256 MiB / size per point"));
	for (i = 0; i < sizeof(longs) / sizeof(*longs); i++)
		if (!strstr(text, longs[i]))
			fail_msg("usage does not mention %s", longs[i]);
	for (i = 0; i < rp_xport_count(); i++)
		assert_non_null(strstr(text, rp_xport_at(i)->name));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_client_defaults),
		cmocka_unit_test(test_short_long_same),
		cmocka_unit_test(test_other_flags),
		cmocka_unit_test(test_zerocopy),
		cmocka_unit_test(test_time_mode),
		cmocka_unit_test(test_rejects),
		cmocka_unit_test(test_transport_list),
		cmocka_unit_test(test_atomics_size),
		cmocka_unit_test(test_atomics_sweep),
		cmocka_unit_test(test_phases),
		cmocka_unit_test(test_help_version),
		cmocka_unit_test(test_server),
		cmocka_unit_test(test_loopback),
		cmocka_unit_test(test_reparse),
		cmocka_unit_test(test_reparse_mid_cluster),
		cmocka_unit_test(test_sweep_lists),
		cmocka_unit_test(test_all_sizes),
		cmocka_unit_test(test_iterations_defaulted),
		cmocka_unit_test(test_streams_threads),
		cmocka_unit_test(test_rdma_options),
		cmocka_unit_test(test_outputs),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_usage),
	};

	return cmocka_run_group_tests(tests, NULL, free_args);
}
