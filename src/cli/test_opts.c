// SPDX-License-Identifier: MIT
/*
 * The options that shape a test: its operation, sizes, depths, streams and
 * threads, directions, waiting, pinning, and how long each phase runs.
 * One handler each, called by the table in options.c.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/parse.h"
#include "core/cpulist.h"
#include "core/sweep.h"
#include "core/tos.h"
#include "core/units.h"
#include "platform/mem.h"
#include "run/run.h"
#include "xport/mcast.h"
#include "xport/rails.h"

int rp_cli_o_op(struct parse *p, const char *arg)
{
	p->set_op = true;
	if (rp_op_parse(arg, &p->cfg->test.spec.op))
		return rp_cli_bad(
			p,
			"-o/--op: unknown operation '%s': accepted W|write,"
			" R|read, S|send, write_imm, fetch_add, "
			"cmp_swap",
			arg);
	return 0;
}

int rp_cli_o_size(struct parse *p, const char *arg)
{
	struct rp_config *c = p->cfg;

	if (p->all_sizes)
		return rp_cli_bad(
			p, "-S/--size and --all-sizes are exclusive: give one");
	p->set_sizes = true;
	return rp_sweep_parse_sizes(arg, RP_SPEC_MAX_SIZE, c->test.sizes,
				    RP_MAX_SIZES, &c->test.n_sizes, p->err,
				    p->errlen);
}

int rp_cli_o_all_sizes(struct parse *p, const char *arg)
{
	(void)arg;
	if (p->set_sizes)
		return rp_cli_bad(
			p, "-S/--size and --all-sizes are exclusive: give one");
	p->all_sizes = true;
	p->cfg->test.n_sizes =
		rp_sweep_all_sizes(p->cfg->test.sizes, RP_MAX_SIZES);
	return 0;
}

int rp_cli_o_depth(struct parse *p, const char *arg)
{
	struct rp_config *c = p->cfg;

	return rp_sweep_parse_depths(arg, RP_SPEC_MAX_DEPTH, c->test.depths,
				     RP_MAX_DEPTHS, &c->test.n_depths, p->err,
				     p->errlen);
}

int rp_cli_o_streams(struct parse *p, const char *arg)
{
	uint64_t v;
	int err = rp_cli_num_in(p, "-P/--streams", arg, 1, RP_SPEC_MAX_STREAMS,
				&v);

	p->cfg->test.spec.streams = (uint32_t)v;
	return err;
}

int rp_cli_o_threads(struct parse *p, const char *arg)
{
	uint64_t v;
	int err = rp_cli_num_in(p, "-T/--threads", arg, 1, RP_SPEC_MAX_THREADS,
				&v);

	p->cfg->test.spec.threads = (uint32_t)v;
	return err;
}

int rp_cli_o_bidir(struct parse *p, const char *arg)
{
	(void)arg;
	p->cfg->test.spec.bidir = true;
	return 0;
}

int rp_cli_o_wait(struct parse *p, const char *arg)
{
	if (rp_wait_parse(arg, &p->cfg->test.spec.wait))
		return rp_cli_bad(
			p, "--wait: unknown mode '%s': accepted busy, event",
			arg);
	return 0;
}

int rp_cli_o_cpu(struct parse *p, const char *arg)
{
	struct rp_config *c = p->cfg;

	return rp_cpulist_parse(arg, c->test.cpus, RP_MAX_CPUS, &c->test.n_cpus,
				p->err, p->errlen);
}

int rp_cli_o_iters(struct parse *p, const char *arg)
{
	p->set_iters = true;
	return rp_cli_num_in(p, "-C/--iterations", arg, 1, RP_SPEC_MAX_ITERS,
			     &p->cfg->test.spec.iterations);
}

int rp_cli_o_time(struct parse *p, const char *arg)
{
	uint64_t ns;
	int err = rp_units_parse_seconds(arg, &ns);

	p->set_time = true;
	if (err || ns < 1000000 || ns > RP_SPEC_MAX_SECONDS * 1000000000ULL)
		return rp_cli_bad(
			p,
			"-t/--time: '%s' is not a duration from 0.001 "
			"to %llu seconds",
			arg, (unsigned long long)RP_SPEC_MAX_SECONDS);
	p->cfg->test.spec.duration_ns = ns;
	return 0;
}

int rp_cli_o_warmup(struct parse *p, const char *arg)
{
	p->set_warmup = true;
	return rp_cli_num_in(p, "--warmup", arg, 0, RP_SPEC_MAX_ITERS,
			     &p->cfg->test.spec.warmup);
}

int rp_cli_o_lat_iters(struct parse *p, const char *arg)
{
	return rp_cli_num_in(p, "--lat-iterations", arg, 1, RP_SPEC_MAX_ITERS,
			     &p->cfg->test.spec.lat_iterations);
}

int rp_cli_o_no_latency(struct parse *p, const char *arg)
{
	(void)arg;
	p->cfg->test.spec.latency = false;
	return 0;
}

int rp_cli_o_no_bandwidth(struct parse *p, const char *arg)
{
	(void)arg;
	p->cfg->test.spec.bandwidth = false;
	return 0;
}

int rp_cli_o_verify(struct parse *p, const char *arg)
{
	(void)arg;
	p->cfg->test.spec.verify = true;
	return 0;
}

int rp_cli_o_zerocopy(struct parse *p, const char *arg)
{
	(void)arg;
	p->cfg->test.spec.zerocopy = true;
	return 0;
}

int rp_cli_o_tagged(struct parse *p, const char *arg)
{
	(void)arg;
	p->cfg->test.spec.tagged = true;
	return 0;
}

int rp_cli_o_srq(struct parse *p, const char *arg)
{
	(void)arg;
	p->cfg->test.spec.srq = true;
	return 0;
}

int rp_cli_o_srq_size(struct parse *p, const char *arg)
{
	uint64_t v;
	int err = rp_cli_num_in(p, "--srq-size", arg, 2, RP_SPEC_MAX_SRQ, &v);

	p->cfg->test.spec.srq_size = (uint32_t)v;
	p->cfg->test.spec.srq = true;
	return err;
}

int rp_cli_o_sl(struct parse *p, const char *arg)
{
	uint64_t v;
	int err = rp_cli_num_in(p, "--sl", arg, 0, RP_SPEC_MAX_SL, &v);

	p->cfg->test.spec.sl = (uint32_t)v;
	return err;
}

int rp_cli_o_mtu(struct parse *p, const char *arg)
{
	uint64_t v;

	if (rp_units_parse_size(arg, &v) || v < 256 || v > RP_SPEC_MAX_MTU ||
	    (v & (v - 1)))
		return rp_cli_bad(p,
				  "--mtu: %s: a path MTU, 256, 512, 1024, "
				  "2048 or 4096 bytes",
				  arg);
	p->cfg->test.spec.path_mtu = (uint32_t)v;
	return 0;
}

/* decimal or 0x hex: a flow label is 20 bits, written either way */
int rp_cli_o_flow_label(struct parse *p, const char *arg)
{
	unsigned long long v;
	char *end = NULL;
	bool hex;

	errno = 0;
	hex = arg[0] == '0' && (arg[1] == 'x' || arg[1] == 'X');
	v = isdigit((unsigned char)arg[0]) ? strtoull(arg, &end, hex ? 16 : 10)
					   : 0;
	if (!end || *end || errno || v > RP_SPEC_MAX_FLOW)
		return rp_cli_bad(p,
				  "--flow-label: %s: a flow label, 0 to "
				  "1048575 (0xfffff)",
				  arg);
	p->cfg->test.spec.flow_label = (uint32_t)v;
	return 0;
}

int rp_cli_o_ep_type(struct parse *p, const char *arg)
{
	int t;

	if (rp_spec_ep_type_enum.parse(arg, &t))
		return rp_cli_bad(p, "--ep-type: %s: one of msg, rdm, auto",
				  arg);
	p->cfg->test.spec.ep_type = (enum rp_ep_type)t;
	return 0;
}

int rp_cli_o_qp(struct parse *p, const char *arg)
{
	if (!strcmp(arg, "xrc") || !strcmp(arg, "dc"))
		return rp_cli_bad(p,
				  "--qp %s: not built: rdmaperf runs rc, uc "
				  "and ud queue pairs",
				  arg);
	if (rp_qp_parse(arg, &p->cfg->test.spec.qp))
		return rp_cli_bad(p, "--qp: %s: one of rc, uc, ud", arg);
	return 0;
}

int rp_cli_o_tos(struct parse *p, const char *arg)
{
	if (rp_tos_parse(arg, &p->cfg->test.spec.tos))
		return rp_cli_bad(
			p,
			"--tos: %s: a TOS byte, 0 to 255 (136, 0x88), "
			"or a DSCP name (ef, af11 to af43, cs0 to cs7)",
			arg);
	return 0;
}

int rp_cli_o_mem(struct parse *p, const char *arg)
{
	struct rp_test *t = &p->cfg->test;
	int kind;

	if (!strncmp(arg, "file:", 5) && arg[5]) {
		t->spec.mem = RP_MEM_FILE;
		t->params->mem_path = arg + 5;
		return 0;
	}
	if (rp_mem_kind_parse(arg, &kind))
		return rp_cli_bad(p,
				  "--mem: %s: one of host, huge, file[:PATH], "
				  "odp",
				  arg);
	t->spec.mem = (enum rp_mem_kind)kind;
	t->params->mem_path = NULL;
	return 0;
}

/* --rails LIST|auto, and -d A,B (xport_opts.c); what the names are is
 * checked once the transports are known (rules.c) */
int rp_cli_o_rails(struct parse *p, const char *arg)
{
	if (rp_rails_check(arg, p->err, p->errlen))
		return -EINVAL;
	if (strlen(arg) >= sizeof(p->cfg->test.rails))
		return rp_cli_bad(p, "--rails: a list of at most %zu bytes",
				  sizeof(p->cfg->test.rails) - 1);
	snprintf(p->cfg->test.rails, sizeof(p->cfg->test.rails), "%s", arg);
	return 0;
}

int rp_cli_o_rail_map(struct parse *p, const char *arg)
{
	if (strcmp(arg, "index") && strcmp(arg, "numa"))
		return rp_cli_bad(p, "--rail-map: %s: index or numa", arg);
	p->cfg->test.spec.rail_numa = !strcmp(arg, "numa");
	return 0;
}

/* --mcast GROUP; what it asks of the rest is checked at the end (rules.c) */
int rp_cli_o_mcast(struct parse *p, const char *arg)
{
	if (!rp_mcast_group_ok(arg))
		return rp_cli_bad(p,
				  "--mcast: %s is not a multicast address "
				  "(IPv4 224.0.0.0/4, IPv6 ff00::/8)",
				  arg);
	if (strlen(arg) >= sizeof(p->cfg->test.spec.mcast))
		return rp_cli_bad(p, "--mcast: %s is too long", arg);
	snprintf(p->cfg->test.spec.mcast, sizeof(p->cfg->test.spec.mcast), "%s",
		 arg);
	return 0;
}
