// SPDX-License-Identifier: MIT
/*
 * Option parsing: one table row and one small handler per option; the
 * getopt_long tables are built from it. The short flags are rPerf's.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/options.h"
#include "cli/parse.h"
#include "platform/net.h"
#include "proto/proto.h"

typedef int (*handler_fn)(struct parse *p, const char *arg);

struct opt {
	const char *name;
	int val; /* short flag, or a code above 255 */
	int has_arg;
	handler_fn fn;
	const char *meta;
	const char *help;
};

static int set_mode(struct parse *p, enum rp_mode m)
{
	if (p->cfg->mode == RP_MODE_REPORT)
		return rp_cli_bad(p, "--report re-renders a saved result: "
				     "no -s, -c or --loopback with it");
	if (p->cfg->mode != RP_MODE_NONE && p->cfg->mode != m)
		return rp_cli_bad(p, "-s/--server, -c/--client, --loopback and "
				     "--matrix are exclusive: give one");
	p->cfg->mode = m;
	return 0;
}

static int o_server(struct parse *p, const char *arg)
{
	(void)arg;
	return set_mode(p, RP_MODE_SERVER);
}

static int o_client(struct parse *p, const char *arg)
{
	(void)arg;
	return set_mode(p, RP_MODE_CLIENT);
}

static int o_loopback(struct parse *p, const char *arg)
{
	(void)arg;
	return set_mode(p, RP_MODE_LOOPBACK);
}

static int o_matrix(struct parse *p, const char *arg)
{
	(void)arg;
	return set_mode(p, RP_MODE_MATRIX);
}

static int o_address(struct parse *p, const char *arg)
{
	char host[256];

	if (!arg[0])
		return rp_cli_bad(p, "-a/--address: empty address");
	p->cfg->test.host = arg;
	if (strchr(arg, '/')) /* a prefix: --matrix's, checked there */
		return 0;
	if (rp_net_host_parse(arg, host, sizeof(host)))
		return rp_cli_bad(p,
				  "-a/--address: '%s' is not a host name or an "
				  "address ([::1] for IPv6 in brackets; the "
				  "port goes to -p)",
				  arg);
	return 0;
}

static int o_port(struct parse *p, const char *arg)
{
	uint64_t v;
	int err = rp_cli_num_in(p, "-p/--port", arg, 1, 65535, &v);

	p->cfg->test.port = (uint16_t)v;
	p->set_port = true;
	return err;
}

static int add_transport(struct parse *p, const char *name, size_t len)
{
	struct rp_config *c = p->cfg;

	if (c->test.n_transports < RP_MAX_TRANSPORTS &&
	    rp_cli_local_entry(p, name, len, &len))
		return -EINVAL;
	if (len == 0 || len >= RP_SPEC_NAME_LEN)
		return rp_cli_bad(p, "-x/--transport: empty or too long name");
	if (c->test.n_transports == RP_MAX_TRANSPORTS)
		return rp_cli_bad(p, "-x/--transport: at most %d transports",
				  RP_MAX_TRANSPORTS);
	memcpy(c->test.transports[c->test.n_transports], name, len);
	c->test.transports[c->test.n_transports][len] = '\0';
	if (!rp_xport_find(c->test.transports[c->test.n_transports]) &&
	    strcmp(c->test.transports[c->test.n_transports], "all") != 0)
		return rp_cli_bad(p,
				  "-x/--transport: unknown transport '%s' "
				  "(see --help for those built in)",
				  c->test.transports[c->test.n_transports]);
	c->test.n_transports++;
	return 0;
}

static int o_transport(struct parse *p, const char *arg)
{
	const char *s = arg, *comma;
	int err;

	p->cfg->test.n_transports = 0;
	memset(p->cfg->test.paths, 0, sizeof(p->cfg->test.paths));
	do {
		comma = strchr(s, ',');
		err = add_transport(p, s,
				    comma ? (size_t)(comma - s) : strlen(s));
		if (comma)
			s = comma + 1;
	} while (!err && comma);
	return err;
}

static int o_once(struct parse *p, const char *arg)
{
	(void)arg;
	p->cfg->once = true;
	return 0;
}

static int o_quiet(struct parse *p, const char *arg)
{
	(void)arg;
	p->cfg->quiet = true;
	return 0;
}

static int o_help(struct parse *p, const char *arg)
{
	(void)arg;
	p->act = RP_CLI_HELP;
	return 0;
}

static int o_version(struct parse *p, const char *arg)
{
	(void)arg;
	p->act = RP_CLI_VERSION;
	return 0;
}

enum {
	O_WARMUP = 256,
	O_LAT_ITERS,
	O_NO_LAT,
	O_NO_BW,
	O_VERIFY,
	O_JSON,
	O_ONCE,
	O_LOOPBACK,
	O_QUIET,
	O_ALL_SIZES,
	O_BIDIR,
	O_WAIT,
	O_CPU,
	O_JSON_STREAM,
	O_CSV,
	O_PLOT,
	O_REPORT,
	O_MAX_MEMORY,
	O_MAX_TESTS,
	O_MAX_STREAMS,
	O_MAX_SIZE,
	O_MAX_TIME,
	O_STALL_TIMEOUT,
	O_ALLOW,
	O_AUTH_KEY,
	O_RATE,
	O_LOAD_CURVE,
	O_SIGNAL,
	O_POST_LIST,
	O_MATRIX,
	O_SERIAL,
	O_OUTLIER,
	O_NO_RETEST,
	O_PATTERN,
	O_ROUND_TIMEOUT,
	O_EXPECT,
	O_RETRY,
	O_REPEAT,
	O_CONFIDENCE,
	O_SLO,
	O_SLO_TOLERANCE,
	O_TOS,
	O_MEM,
	O_QP,
	O_TAGGED,
	O_EP_TYPE,
	O_SRQ,
	O_SRQ_SIZE,
	O_SL,
	O_FLOW_LABEL,
	O_MTU,
	O_RAILS,
	O_RAIL_MAP,
	O_MCAST
};

static const struct opt opts[] = {
	{ "server", 's', 0, o_server, NULL, "run as server (waits for tests)" },
	{ "client", 'c', 0, o_client, NULL, "run as client" },
	{ "loopback", O_LOOPBACK, 0, o_loopback, NULL,
	  "server and client in one process, on -a or 127.0.0.1" },
	{ "matrix", O_MATRIX, 0, o_matrix, NULL,
	  "under mpirun/srun: every pair of ranks (see below)" },
	{ "address", 'a', 1, o_address, "HOST",
	  "client: server to test; server, --matrix: address to bind" },
	{ "port", 'p', 1, o_port, "PORT", "control port (default 18520)" },
	{ "transport", 'x', 1, o_transport, "LIST",
	  "transports, comma-separated (see below)" },
	{ "op", 'o', 1, rp_cli_o_op, "OP",
	  "W|write, R|read, S|send, write_imm, fetch_add, cmp_swap" },
	{ "size", 'S', 1, rp_cli_o_size, "SIZES",
	  "message size, list 4K,1M or range 2-8M (default 64K)" },
	{ "all-sizes", O_ALL_SIZES, 0, rp_cli_o_all_sizes, NULL,
	  "sweep sizes 2 B to 8 MiB, powers of two (-S 2-8M)" },
	{ "queue-depth", 'q', 1, rp_cli_o_depth, "DEPTHS",
	  "operations in flight, list or range (default 16)" },
	{ "streams", 'P', 1, rp_cli_o_streams, "N",
	  "parallel streams, 1 to 128 (default 1)" },
	{ "threads", 'T', 1, rp_cli_o_threads, "N",
	  "threads on each side, 1 to 64, at most -P (default 1)" },
	{ "bidir", O_BIDIR, 0, rp_cli_o_bidir, NULL, "both ends send at once" },
	{ "wait", O_WAIT, 1, rp_cli_o_wait, "MODE",
	  "busy|event: spin on completions or sleep (default busy)" },
	{ "cpu", O_CPU, 1, rp_cli_o_cpu, "LIST",
	  "pin this side's threads to LIST (0-3,6), in turn" },
	{ "iterations", 'C', 1, rp_cli_o_iters, "N",
	  "operations per stream and point (default: below)" },
	{ "time", 't', 1, rp_cli_o_time, "SECONDS",
	  "run the throughput phase this long instead of -C" },
	{ "rate", O_RATE, 1, rp_cli_o_rate, "RATE",
	  "open loop: offer RATE ops/s (200k) or bits/s (20G), a list" },
	{ "load-curve", O_LOAD_CURVE, 1, rp_cli_o_load_curve, "N",
	  "peak, then N open-loop points to it" },
	{ "signal", O_SIGNAL, 1, rp_cli_o_signal, "N",
	  "one completion/ack per N operations" },
	{ "post-list", O_POST_LIST, 1, rp_cli_o_post_list, "N",
	  "rdma: N work requests per post call; file: SQEs per submit" },
	{ "warmup", O_WARMUP, 1, rp_cli_o_warmup, "N",
	  "warm-up operations, not counted (default 1000)" },
	{ "lat-iterations", O_LAT_ITERS, 1, rp_cli_o_lat_iters, "N",
	  "ping-pongs in the unloaded latency phase (default 1000)" },
	{ "no-latency", O_NO_LAT, 0, rp_cli_o_no_latency, NULL,
	  "skip the unloaded latency phase" },
	{ "no-bandwidth", O_NO_BW, 0, rp_cli_o_no_bandwidth, NULL,
	  "skip the throughput phase" },
	{ "verify", O_VERIFY, 0, rp_cli_o_verify, NULL,
	  "receiver checks the payload of every message" },
	{ "zerocopy", 'Z', 0, rp_cli_o_zerocopy, NULL,
	  "tcp: send messages of 16K or more with MSG_ZEROCOPY" },
	{ "mem", O_MEM, 1, rp_cli_o_mem, "KIND",
	  "buffers: host, huge, file[:PATH], odp (rdma); default host" },
	{ "qp", O_QP, 1, rp_cli_o_qp, "TYPE",
	  "rdma: queue pair type, rc, uc (write, write_imm, send) or ud "
	  "(send, up to the MTU); default rc" },
	{ "srq", O_SRQ, 0, rp_cli_o_srq, NULL,
	  "rdma, send and write_imm: the server's receives come from one "
	  "shared receive queue" },
	{ "srq-size", O_SRQ_SIZE, 1, rp_cli_o_srq_size, "N",
	  "--srq with N receives (default: depth x streams + 16, at least "
	  "as many as one stream keeps)" },
	{ "tagged", O_TAGGED, 0, rp_cli_o_tagged, NULL,
	  "ofi: send as tagged messages (fi_tsend, fi_trecv)" },
	{ "ep-type", O_EP_TYPE, 1, rp_cli_o_ep_type, "TYPE",
	  "ofi: endpoint type, msg, rdm or auto (msg where the provider's "
	  "can); default auto" },
	{ "tos", O_TOS, 1, rp_cli_o_tos, "TOS",
	  "tcp, rdma: mark the data traffic with TOS (0x88, 136, af41)" },
	{ "tclass", O_TOS, 1, rp_cli_o_tos, "TOS",
	  "the same as --tos (perftest's name: RoCE's traffic class)" },
	{ "sl", O_SL, 1, rp_cli_o_sl, "N",
	  "rdma: the queue pairs' service level, 0 to 15 (in place of the "
	  "path's)" },
	{ "flow-label", O_FLOW_LABEL, 1, rp_cli_o_flow_label, "N",
	  "rdma: the GRH's flow label, 0 to 0xfffff" },
	{ "mtu", O_MTU, 1, rp_cli_o_mtu, "BYTES",
	  "rdma: the queue pairs' path MTU, 256 to 4096 (default: the "
	  "path's)" },
	{ "rails", O_RAILS, 1, rp_cli_o_rails, "LIST",
	  "spread the streams over these NICs (or auto), -P per rail" },
	{ "rail-map", O_RAIL_MAP, 1, rp_cli_o_rail_map, "MAP",
	  "--rails: index (rail i meets i, default) or numa (NUMA order)" },
	{ "mcast", O_MCAST, 1, rp_cli_o_mcast, "GROUP",
	  "rdma: UD sends to this multicast group; -a HOST,... receive" },
	{ "interval", 'i', 1, rp_cli_o_interval, "SEC",
	  "report every SEC seconds of the throughput phase" },
	{ "json", O_JSON, 0, rp_cli_o_json, NULL, "print one JSON document" },
	{ "json-stream", O_JSON_STREAM, 0, rp_cli_o_json_stream, NULL,
	  "print JSON lines as the test runs, the document last" },
	{ "csv", O_CSV, 0, rp_cli_o_csv, NULL,
	  "print CSV: a header, a row per point" },
	{ "plot", O_PLOT, 1, rp_cli_o_plot, "FILE",
	  "draw the results into an SVG file" },
	{ "report", O_REPORT, 1, rp_cli_o_report, "FILE",
	  "re-render a saved --json result (no test)" },
	{ "expect", O_EXPECT, 1, rp_cli_o_expect, "EXPRS",
	  "verdict: each point must show EXPRS (bw>=90%,p99<=5us), exit 3" },
	{ "retry", O_RETRY, 1, rp_cli_o_retry, "N",
	  "run a point that fails --expect up to N times more" },
	{ "repeat", O_REPEAT, 1, rp_cli_o_repeat, "N",
	  "run every point N times, interleaved; intervals, ratios" },
	{ "confidence", O_CONFIDENCE, 1, rp_cli_o_confidence, "LEVEL[,WIDTH]",
	  "interval level in % (95); stop when WIDTH% of the mean" },
	{ "slo", O_SLO, 1, rp_cli_o_slo, "EXPR",
	  "highest --rate whose latency meets EXPR (p99<=20us), exit 3" },
	{ "slo-tolerance", O_SLO_TOLERANCE, 1, rp_cli_o_slo_tolerance, "PCT",
	  "--slo: stop when the bracket is PCT% of the rate (5)" },
	{ "serial", O_SERIAL, 0, rp_cli_o_serial, NULL,
	  "--matrix: one pair at a time (no contention)" },
	{ "outlier", O_OUTLIER, 1, rp_cli_o_outlier, "F",
	  "--matrix: flag pairs below F x the median (0.8)" },
	{ "no-retest", O_NO_RETEST, 0, rp_cli_o_no_retest, NULL,
	  "--matrix: do not run the outlier pairs again, alone" },
	{ "pattern", O_PATTERN, 1, rp_cli_o_pattern, "P",
	  "--matrix: incast:N, one-to-many:N, all-to-all, bisection, file:F" },
	{ "round-timeout", O_ROUND_TIMEOUT, 1, rp_cli_o_round_timeout, "SEC",
	  "--matrix: end the job if a round lasts longer (600)" },
	{ "once", O_ONCE, 0, o_once, NULL, "server: exit after one test" },
	{ "max-tests", O_MAX_TESTS, 1, rp_cli_o_max_tests, "N",
	  "server: tests at once (default 1; the rest told busy)" },
	{ "max-memory", O_MAX_MEMORY, 1, rp_cli_o_max_memory, "SIZE",
	  "server: buffers of all its tests at once (default 2G)" },
	{ "max-streams", O_MAX_STREAMS, 1, rp_cli_o_max_streams, "N",
	  "server: streams one test may open (default 128)" },
	{ "max-size", O_MAX_SIZE, 1, rp_cli_o_max_size, "SIZE",
	  "server: largest message (default 1G)" },
	{ "max-time", O_MAX_TIME, 1, rp_cli_o_max_time, "SEC",
	  "server: longest timed phase, and test (default 3600)" },
	{ "stall-timeout", O_STALL_TIMEOUT, 1, rp_cli_o_stall_timeout, "SEC",
	  "end a phase with no sign of life this long (default 30)" },
	{ "allow", O_ALLOW, 1, rp_cli_o_allow, "CIDRS",
	  "server: only clients from these prefixes (10.0.0.0/8,::1)" },
	{ "auth-key", O_AUTH_KEY, 1, rp_cli_o_auth_key, "FILE",
	  "both sides prove they hold the key in FILE (HMAC-SHA256)" },
	{ "quiet", O_QUIET, 0, o_quiet, NULL,
	  "no log lines (server), no progress line (client)" },
	{ "help", 'h', 0, o_help, NULL, "this help" },
	{ "version", 'V', 0, o_version, NULL, "print the version" },
};

#define N_OPTS (sizeof(opts) / sizeof(opts[0]))

#define N_ROWS (N_OPTS + RP_CLI_XOPTS_MAX)

/* --help's headings (the man page's), each before the row of its first
 * option */
static const struct {
	int val;
	const char *title;
} groups[] = {
	{ 's', "Mode and address" },
	{ 'o', "The test" },
	{ 'i', "Output" },
	{ O_EXPECT, "Verdict" },
	{ O_REPEAT, "Repetitions" },
	{ O_SERIAL, "Matrix (--matrix)" },
	{ O_ONCE, "Server, time-outs and access" },
	{ 'h', "Help" },
};

static const char *group_of(int val)
{
	size_t i;

	for (i = 0; i < sizeof(groups) / sizeof(groups[0]); i++)
		if (groups[i].val == val)
			return groups[i].title;
	return NULL;
}

static const struct opt *find_opt(int val)
{
	size_t i;

	for (i = 0; i < N_OPTS; i++)
		if (opts[i].val == val)
			return &opts[i];
	return NULL;
}

static void build_tables(struct option *lo, char *shorts)
{
	size_t i, k = 0, n;

	shorts[k++] = ':';
	for (i = 0; i < N_OPTS; i++) {
		lo[i] = (struct option){ opts[i].name, opts[i].has_arg, NULL,
					 opts[i].val };
		if (opts[i].val < 256) {
			shorts[k++] = (char)opts[i].val;
			if (opts[i].has_arg)
				shorts[k++] = ':';
		}
	}
	n = rp_cli_xopts_add(lo + N_OPTS, shorts, &k);
	lo[N_OPTS + n] = (struct option){ 0 };
	shorts[k] = '\0';
}

/* Every field as no option sets it; cfg->test.params stays the caller's. */
static void defaults(struct rp_config *cfg)
{
	struct rp_xport_params *xp = cfg->test.params;

	memset(cfg, 0, sizeof(*cfg));
	rp_xport_params_defaults(xp);
	cfg->test.params = xp;
	rp_spec_defaults(&cfg->test.spec);
	cfg->test.port = RP_PROTO_DEFAULT_PORT;
	rp_cli_matrix_defaults(cfg);
	cfg->limits = (struct rp_limits){
		.max_tests = 1,
		.max_memory = RP_SPEC_MAX_MEM,
		.max_streams = RP_SPEC_MAX_STREAMS,
		.max_size = RP_SPEC_MAX_SIZE,
		.max_time_ns = RP_LIMIT_TIME_DEFAULT_S * 1000000000ULL,
	};
	cfg->stall_ns = RP_STALL_TIMEOUT_NS;
}

/* What --report takes: the output options, and --expect (judging the
 * saved figures anew). */
static bool report_ok(int val)
{
	static const int ok[] = { O_JSON, O_CSV,   O_PLOT,	  O_REPORT, 'h',
				  'V',	  O_QUIET, O_JSON_STREAM, O_EXPECT };
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (ok[i] == val)
			return true;
	return false;
}

/* What a server takes: the rest describe a test, which the client sends. */
static bool server_ok(int val)
{
	static const int ok[] = {
		's',	     'a',	 'p',	  'h',		'V',
		O_ONCE,	     O_QUIET,	 O_CPU,	  O_MAX_MEMORY, O_MAX_STREAMS,
		O_MAX_SIZE,  O_MAX_TIME, O_ALLOW, O_AUTH_KEY,	O_STALL_TIMEOUT,
		O_MAX_TESTS, O_RAILS,
	};
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (ok[i] == val)
			return true;
	return false;
}

static const char *flag_name(int val, char *buf, size_t len)
{
	const struct opt *o = find_opt(val);

	if (o && val < 256)
		snprintf(buf, len, "-%c/--%s", val, o->name);
	else if (o)
		snprintf(buf, len, "--%s", o->name);
	else if (!rp_cli_xopt_flag(val, buf, len))
		snprintf(buf, len, "-%c", val);
	return buf;
}

static int getopt_error(struct parse *p, int c, char **argv)
{
	char name[48];

	if (c == ':')
		return rp_cli_bad(p, "%s needs a value",
				  optopt ? flag_name(optopt, name, sizeof(name))
					 : argv[optind - 1]);
	if (optopt)
		return rp_cli_bad(p, "unknown flag -%c", optopt);
	return rp_cli_bad(p, "unknown flag %s", argv[optind - 1]);
}

int rp_cli_parse(int argc, char **argv, struct rp_config *cfg,
		 enum rp_cli_action *act, char *err, size_t errlen)
{
	struct parse p = { .cfg = cfg, .err = err, .errlen = errlen };
	struct option lo[N_ROWS + 1];
	char shorts[2 * N_ROWS + 2];
	const struct opt *o;
	bool xopt;
	int c, rc = 0;

	defaults(cfg);
	build_tables(lo, shorts);
	optind = 0; /* 0, not 1: glibc then forgets the previous argv */
	opterr = 0;
	while (!rc && (c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		o = find_opt(c);
		rc = o ? o->fn(&p, optarg) : rp_cli_xopt(&p, c, optarg, &xopt);
		if (!o && !xopt)
			rc = getopt_error(&p, c, argv);
		if (o)
			rp_cli_note_flag(&p, o->name, report_ok(c),
					 server_ok(c));
	}
	/* iperf3's and qperf's habit, "-c HOST": a hint, not a second way to
	 * give the address (-a is rPerf's, and a stray word after the flags
	 * would otherwise become a server to dial) */
	if (!rc && optind < argc && cfg->mode == RP_MODE_CLIENT &&
	    !cfg->test.host)
		rc = rp_cli_bad(&p,
				"unexpected argument '%s': did you mean "
				"-a %s?",
				argv[optind], argv[optind]);
	else if (!rc && optind < argc)
		rc = rp_cli_bad(&p, "unexpected argument '%s'", argv[optind]);
	*act = p.act;
	if (rc || p.act != RP_CLI_RUN)
		return rc;
	return rp_cli_finish(&p);
}

void rp_cli_usage(FILE *f)
{
	size_t i;

	fprintf(f,
		"Usage: rdmaperf -s [-a ADDR] [-p PORT] [--once] [--cpu LIST]\n"
		"       rdmaperf -c -a HOST [-x LIST] [-o OP] "
		"[-S SIZES | --all-sizes] [-q DEPTHS]\n"
		"                [-P N] [-T N] [--bidir] [--wait MODE] "
		"[-C N | -t SEC] [-i SEC]\n"
		"                [--json | --json-stream | --csv] "
		"[--plot FILE.svg]\n"
		"       rdmaperf -x file:PATH[,file:PATH2] [-o W|R] "
		"[--file-size SIZE] [--buffered]\n"
		"                [--random] [--fsync-every N] [options]\n"
		"       rdmaperf --loopback [options]\n"
		"       mpirun -np N rdmaperf --matrix [-a IFACE|PREFIX] "
		"[--serial] [options]\n"
		"       rdmaperf --report FILE.json [--json | --csv] "
		"[--plot FILE.svg]\n"
		"       rdmaperf doctor [-d DEV] [-a ADDR] [--json]   "
		"(rdmaperf doctor --help)\n"
		"       rdmaperf diff OLD.json NEW.json [--threshold PCT] "
		"[--figures LIST]\n"
		"                [--confidence LEVEL] [--json] [--plot "
		"FILE.svg]"
		"   (rdmaperf diff --help)\n"
		"       rdmaperf monitor CONFIG [--listen ADDR:PORT] "
		"[--textfile PATH] [--once]\n"
		"                (rdmaperf monitor --help)\n\n"
		"Latency and throughput of RDMA, TCP and rsockets (and of "
		"files) in one run.\n");
	for (i = 0; i < N_OPTS; i++) {
		const char *group = group_of(opts[i].val);

		if (opts[i].val == 'h')
			rp_cli_xopts_usage(f);
		if (group) /* one call: gcc on aarch64 saw a NULL otherwise */
			fprintf(f, "\n%s:\n", group);
		rp_cli_usage_row(f, opts[i].val < 256 ? opts[i].val : 0,
				 opts[i].name, opts[i].meta, opts[i].help);
	}
	fprintf(f, "\nTransports built in (the first is the default):");
	for (i = 0; i < rp_xport_count(); i++) {
		fprintf(f, " %s%s", rp_xport_at(i)->name,
			rp_xport_at(i)->local ? ":PATH" : "");
		if (rp_xport_at(i)->variant)
			fprintf(f, "[:%s]", rp_xport_at(i)->variant);
	}
	fprintf(f,
		"\nfile:PATH is local: no server needed (no -c, or -c "
		"for the others of a list);\n  -o write or read of PATH "
		"through io_uring%s.",
		rp_xport_find("file") ? ""
				      : " (not in this build: no liburing)");
	fprintf(f,
		"\n\nSizes take K, M, G (1024-based); counts take k, m "
		"(1000-based).\nA sweep (several sizes or depths) runs every "
		"size with every depth.\n-C default 10000; in a sweep 256 "
		"MiB / size per point, 1000 to 1000000.\nExit status: 0 ok, "
		"1 the test failed, 2 bad usage.\n--matrix: each MPI rank "
		"serves on -a (an interface, a prefix, an address;\ndefault: "
		"the rdma device's or the host name's address) and tests "
		"every\nother rank in rounds, each rank in one pair a round; "
		"rank 0 prints the\nN x N throughput and latency, the "
		"outliers and the bad nodes.\n");
}
