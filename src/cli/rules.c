// SPDX-License-Identifier: MIT
/*
 * The rules checked once every option has been read: what the mode needs,
 * the sweep's points (the largest sizes the buffers) and the spec the
 * server receives, validated as the server will.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/parse.h"
#include "core/cidr.h"
#include "core/sweep.h"
#include "platform/sock.h"
#include "xport/rails.h"
#include "xport/xport.h"

/* Does every transport of the list run here, without a server? */
static bool all_local(const struct rp_config *c)
{
	size_t i;

	for (i = 0; i < c->test.n_transports; i++)
		if (!c->test.paths[i][0])
			return false;
	return c->test.n_transports > 0;
}

static int check_mode(struct parse *p)
{
	struct rp_config *c = p->cfg;
	struct rp_cidr prefix;
	bool local = all_local(c);

	if (c->mode == RP_MODE_NONE && local)
		c->mode = RP_MODE_CLIENT; /* no server to name */
	if (c->mode == RP_MODE_NONE)
		return rp_cli_bad(p, "say -s (server), -c (client), --loopback "
				     "or --matrix");
	if (c->mode == RP_MODE_CLIENT && !c->test.host && !local)
		return rp_cli_bad(p,
				  "-a/--address: the client needs the server's "
				  "address");
	if (c->test.host && strchr(c->test.host, '/') &&
	    (c->mode != RP_MODE_MATRIX || rp_cidr_parse(c->test.host, &prefix)))
		return rp_cli_bad(p,
				  "-a/--address: '%s': a prefix (10.0.0.0/8) "
				  "only with --matrix, with the bits past its "
				  "length zero",
				  c->test.host);
	if (c->mode == RP_MODE_LOOPBACK && !c->test.host) {
		c->test.host = "127.0.0.1";
		c->test.host_defaulted = true;
	}
	if (p->set_iters && p->set_time)
		return rp_cli_bad(
			p, "-C/--iterations and -t/--time are exclusive: "
			   "give one");
	return 0;
}

/* One point of the defaults where -S or -q was not given. */
static void default_points(struct rp_config *c)
{
	if (!c->test.n_sizes)
		c->test.sizes[c->test.n_sizes++] = c->test.spec.size_bytes;
	if (!c->test.n_depths)
		c->test.depths[c->test.n_depths++] = c->test.spec.queue_depth;
}

/* The sweep's largest point sizes the buffers; atomics move 8 bytes. */
static int finish_sweep(struct parse *p)
{
	struct rp_config *c = p->cfg;
	struct rp_spec *s = &c->test.spec;
	uint64_t mem;

	if (rp_op_is_atomic(s->op) && c->test.n_sizes > 1)
		return rp_cli_bad(
			p,
			"%s: %s moves exactly 8 bytes: give one size or "
			"none, not a sweep",
			p->all_sizes ? "--all-sizes" : "-S/--size",
			rp_op_name(s->op));
	if (rp_op_is_atomic(s->op))
		c->test.sizes[0] = 8;
	s->size_bytes = rp_sweep_max_u64(c->test.sizes, c->test.n_sizes);
	s->queue_depth = rp_sweep_max_u32(c->test.depths, c->test.n_depths);
	c->test.iterations_defaulted =
		!p->set_iters && !p->set_time &&
		(c->test.n_sizes * c->test.n_depths > 1 || c->test.n_rates ||
		 c->test.slo.n);
	if (s->threads > s->streams)
		return rp_cli_bad(
			p,
			"-T/--threads %u is more than -P/--streams %u: "
			"accepted 1 to the number of streams",
			s->threads, s->streams);
	mem = s->size_bytes * s->queue_depth * s->streams * (s->bidir ? 2 : 1);
	if (mem > RP_SPEC_MAX_MEM) /* each bounded above: no overflow */
		return rp_cli_bad(
			p,
			"-S/--size x -q/--queue-depth x -P/--streams%s = "
			"%llu MiB, over the %llu MiB a side may register",
			s->bidir ? " x 2 (--bidir)" : "",
			(unsigned long long)(mem >> 20),
			(unsigned long long)(RP_SPEC_MAX_MEM >> 20));
	return 0;
}

/* Every transport named must do -o's operation (-x all: main.c keeps only
 * those that do). */
static int check_ops(struct parse *p)
{
	const struct rp_xport_ops *x;
	struct rp_err why = { "" };
	unsigned int i;

	for (i = 0; i < p->cfg->test.n_transports; i++) {
		x = rp_xport_find(p->cfg->test.transports[i]);
		if (x && rp_xport_check_op(x, p->cfg->test.spec.op, &why))
			return rp_cli_bad(p, "-o/--op: %s", why.msg);
	}
	return 0;
}

/* --zerocopy: the kernel's TCP on a system with MSG_ZEROCOPY, without
 * --verify (it rewrites payloads the kernel may still be sending). */
static int check_zerocopy(struct parse *p)
{
	const struct rp_config *c = p->cfg;
	size_t i;

	if (!c->test.spec.zerocopy)
		return 0;
	if (!rp_net_zc_built())
		return rp_cli_bad(p, "--zerocopy: this system has no "
				     "MSG_ZEROCOPY (Linux 4.14 or later)");
	for (i = 0; i < c->test.n_transports; i++)
		if (strcmp(c->test.transports[i], "tcp"))
			return rp_cli_bad(p,
					  "--zerocopy: TCP's MSG_ZEROCOPY, "
					  "for -x tcp only, not %s%s",
					  c->test.transports[i],
					  c->test.transport_defaulted
						  ? " (the default): add -x tcp"
						  : "");
	if (c->test.spec.verify)
		return rp_cli_bad(p, "--zerocopy and --verify are exclusive: "
				     "--verify rewrites payloads the kernel "
				     "may still be sending");
	return 0;
}

/* The first of -x's transports (-x all's expansion comes later: main.c
 * keeps those that can) for which @has is false, as "NAME" or "NAME (the
 * default)" in @buf; NULL when each has it. */
static const char *lacking(const struct parse *p,
			   bool (*has)(const struct rp_xport_ops *x), char *buf,
			   size_t len)
{
	const struct rp_config *c = p->cfg;
	const struct rp_xport_ops *x;
	size_t i;

	for (i = 0; i < c->test.n_transports; i++) {
		x = rp_xport_find(c->test.transports[i]);
		if (x && !has(x)) {
			snprintf(buf, len, "%s%s", c->test.transports[i],
				 c->test.transport_defaulted ? " (the default)"
							     : "");
			return buf;
		}
	}
	return NULL;
}

static bool has_tos(const struct rp_xport_ops *x)
{
	return x->tos;
}

static bool has_qp_types(const struct rp_xport_ops *x)
{
	return x->qp_types;
}

static bool has_tagged(const struct rp_xport_ops *x)
{
	return x->tagged;
}

static bool has_srq(const struct rp_xport_ops *x)
{
	return x->srq;
}

/* --srq: transports with shared receive queues (rdma), for what takes
 * receives, one way, over RC. */
static int check_srq(struct parse *p)
{
	const struct rp_spec *s = &p->cfg->test.spec;
	char name[RP_SPEC_NAME_LEN + 16];

	if (!s->srq)
		return 0;
	if (lacking(p, has_srq, name, sizeof(name)))
		return rp_cli_bad(p,
				  "--srq: %s has no shared receive queues; "
				  "the rdma transport has",
				  name);
	if (s->op != RP_OP_SEND && s->op != RP_OP_WRITE_IMM)
		return rp_cli_bad(p,
				  "--srq: %s takes no receives; send and "
				  "write_imm do",
				  rp_op_name(s->op));
	if (s->bidir)
		return rp_cli_bad(p, "--srq: the server's responders share "
				     "it; not with --bidir, whose client-side "
				     "responders would not");
	if (s->qp != RP_QP_RC)
		return rp_cli_bad(p, "--srq: on rc queue pairs (--qp rc)");
	return 0;
}

static bool has_ep_types(const struct rp_xport_ops *x)
{
	return x->ep_types;
}

/* --ep-type: transports with a choice of endpoint (ofi). */
static int check_ep_type(struct parse *p)
{
	char name[RP_SPEC_NAME_LEN + 16];

	if (p->cfg->test.spec.ep_type != RP_EP_AUTO &&
	    lacking(p, has_ep_types, name, sizeof(name)))
		return rp_cli_bad(p,
				  "--ep-type %s: %s has no libfabric "
				  "endpoints; ofi has",
				  rp_ep_type_name(p->cfg->test.spec.ep_type),
				  name);
	return 0;
}

/* --tos: transports that mark their traffic (tcp, rdma). */
static int check_tos(struct parse *p)
{
	char name[RP_SPEC_NAME_LEN + 16];

	if (p->cfg->test.spec.tos && lacking(p, has_tos, name, sizeof(name)))
		return rp_cli_bad(p,
				  "--tos: %s cannot mark its data traffic; tcp "
				  "and rdma can (rsocket, ofi and file cannot, "
				  "nor tcp on Windows)",
				  name);
	return 0;
}

/* --qp uc|ud: transports with a choice of queue pair (rdma), the
 * operations each type has, UD's one-packet messages. */
static int check_qp(struct parse *p)
{
	const struct rp_spec *s = &p->cfg->test.spec;
	char name[RP_SPEC_NAME_LEN + 16];
	const char *q = rp_qp_name(s->qp);

	if (s->qp == RP_QP_RC)
		return 0;
	if (lacking(p, has_qp_types, name, sizeof(name)))
		return rp_cli_bad(p,
				  "--qp %s: %s has no queue pairs; the rdma "
				  "transport has",
				  q, name);
	if (s->qp == RP_QP_UC && !(RP_QP_UC_OPS & (1u << s->op)))
		return rp_cli_bad(p,
				  "--qp uc: UC has no %s (no acknowledgements: "
				  "no RDMA read, no atomics); it does write, "
				  "write_imm, send",
				  rp_op_name(s->op));
	if (s->qp == RP_QP_UD && !(RP_QP_UD_OPS & (1u << s->op)))
		return rp_cli_bad(p,
				  "--qp ud: UD has no %s (datagrams: no RDMA "
				  "write, read or atomics); it does send",
				  rp_op_name(s->op));
	if (s->qp == RP_QP_UD && s->bidir)
		return rp_cli_bad(p, "--qp ud: one direction, not with --bidir "
				     "(the server's sends would need a path "
				     "before any datagram came)");
	if (s->qp == RP_QP_UD && s->size_bytes > RP_QP_UD_MAX_MSG)
		return rp_cli_bad(p,
				  "--qp ud: a UD message is one packet: %llu "
				  "bytes is over the largest MTU, %d (the "
				  "path's own MTU is checked once connected)",
				  (unsigned long long)s->size_bytes,
				  RP_QP_UD_MAX_MSG);
	return 0;
}

/* --sl, --flow-label, --mtu: transports with queue pairs and paths
 * (rdma); --mtu not for UD, whose messages are a packet each. */
static int check_path(struct parse *p)
{
	const struct rp_spec *s = &p->cfg->test.spec;
	char name[RP_SPEC_NAME_LEN + 16];

	if ((s->sl || s->flow_label || s->path_mtu) &&
	    lacking(p, has_qp_types, name, sizeof(name)))
		return rp_cli_bad(p,
				  "--%s: %s has no queue pairs to set it in; "
				  "the rdma transport has",
				  s->sl		  ? "sl"
				  : s->flow_label ? "flow-label"
						  : "mtu",
				  name);
	if (s->path_mtu && s->qp == RP_QP_UD)
		return rp_cli_bad(p, "--mtu with --qp ud: a datagram is one "
				     "packet; the path's MTU bounds -S");
	return 0;
}

static bool has_rails(const struct rp_xport_ops *x)
{
	return x->rails;
}

/* --rails: transports that connect from a chosen address (rdma, tcp,
 * rsocket); the names resolved here, where a bad one is exit 2, and again
 * by the run; -P becomes streams per rail. */
int rp_cli_check_rails(struct parse *p)
{
	struct rp_spec *s = &p->cfg->test.spec;
	char name[RP_SPEC_NAME_LEN + 16];
	struct rp_rails rails;
	bool rdma = false;
	size_t i;

	if (!p->cfg->test.rails[0])
		return s->rail_numa
			       ? rp_cli_bad(p, "--rail-map without --rails")
			       : 0;
	if (p->cfg->mode == RP_MODE_MATRIX)
		return rp_cli_bad(p, "--rails: not under --matrix, whose ranks "
				     "each run on one address (-a)");
	if (lacking(p, has_rails, name, sizeof(name)))
		return rp_cli_bad(p,
				  "--rails: %s cannot choose the NIC a stream "
				  "takes; rdma, tcp and rsocket can",
				  name);
	for (i = 0; i < p->cfg->test.n_transports; i++) {
		const struct rp_xport_ops *x =
			rp_xport_find(p->cfg->test.transports[i]);

		rdma = rdma || (x && x->qp_types);
	}
	if (rp_rails_resolve(p->cfg->test.rails, rdma, s->rail_numa, &rails,
			     p->err, p->errlen))
		return -EINVAL;
	if ((uint64_t)s->streams * rails.n > RP_SPEC_MAX_STREAMS)
		return rp_cli_bad(p,
				  "-P %u per rail over %u rails is over %d "
				  "streams",
				  s->streams, rails.n, RP_SPEC_MAX_STREAMS);
	s->streams *= rails.n;
	s->rails = rails.n;
	return 0;
}

/* A server's --rails: names it cannot resolve are refused at its start
 * ("auto" is looked at test by test: a device may come up later). */
static int check_server_rails(struct parse *p)
{
	struct rp_rails rails;

	if (p->cfg->mode != RP_MODE_SERVER || !p->cfg->test.rails[0] ||
	    !strcmp(p->cfg->test.rails, "auto"))
		return 0;
	return rp_rails_resolve(p->cfg->test.rails, false, false, &rails,
				p->err, p->errlen)
		       ? -EINVAL
		       : 0;
}

/* --tagged: transports that send tagged messages (ofi), for send. */
static int check_tagged(struct parse *p)
{
	char name[RP_SPEC_NAME_LEN + 16];

	if (!p->cfg->test.spec.tagged)
		return 0;
	if (lacking(p, has_tagged, name, sizeof(name)))
		return rp_cli_bad(p,
				  "--tagged: %s has no tagged messages; ofi "
				  "has",
				  name);
	if (p->cfg->test.spec.op != RP_OP_SEND)
		return rp_cli_bad(p,
				  "--tagged: tagged messages are sends, not "
				  "%s (-o send)",
				  rp_op_name(p->cfg->test.spec.op));
	return 0;
}

/* --mem: transports whose buffers can be that kind; huge pages only where
 * some are reserved (how many a test needs, its setup says). */
static int check_mem(struct parse *p)
{
	const struct rp_config *c = p->cfg;
	enum rp_mem_kind k = c->test.spec.mem;
	const struct rp_xport_ops *x;
	uint64_t free_b, page;
	size_t i;

	if (k == RP_MEM_HOST)
		return 0;
	for (i = 0; i < c->test.n_transports; i++) {
		x = rp_xport_find(c->test.transports[i]);
		if (x && !(x->mem_kinds & RP_MEM_BIT(k)))
			return rp_cli_bad(
				p,
				"--mem %s: %s%s cannot put its buffers there "
				"(%s)",
				rp_mem_kind_name(k), c->test.transports[i],
				c->test.transport_defaulted ? " (the default)"
							    : "",
				k == RP_MEM_ODP
					? "on-demand paging is the rdma "
					  "transport's"
					: "it has buffers of its own");
	}
	if (k == RP_MEM_HUGE && !rp_mem_huge_free(&free_b, &page) && !free_b)
		return rp_cli_bad(p,
				  "--mem huge: no huge page of %llu KiB is "
				  "free here: reserve some, echo N > "
				  "/proc/sys/vm/nr_hugepages",
				  (unsigned long long)(page >> 10));
	return 0;
}

/* --mcast: one stream of UD sends from this side to the group (--qp ud
 * and -o send unless said otherwise, and then refused), no latency
 * phase: the receivers time each datagram's way one way. */
static int check_mcast(struct parse *p)
{
	struct rp_config *c = p->cfg;
	struct rp_spec *s = &c->test.spec;
	const char *bad = NULL;

	if (!s->mcast[0])
		return 0;
	if (c->mode == RP_MODE_MATRIX)
		bad = "not under --matrix";
	else if (c->test.n_transports != 1 ||
		 strcmp(c->test.transports[0], "rdma"))
		bad = "the rdma transport alone (-x rdma)";
	else if (s->qp == RP_QP_UC)
		bad = "datagrams: --qp ud (the default with --mcast)";
	else if (p->set_op && s->op != RP_OP_SEND)
		bad = "datagrams are sends: -o S (the default with --mcast)";
	else if (s->streams != 1 || s->bidir || c->test.rails[0])
		bad = "one stream one way: not with -P, --bidir or --rails";
	else if (rp_test_points(&c->test) != 1)
		bad = "one size, depth and rate: no sweep";
	else if (s->verify)
		bad = "no --verify (each datagram's header is checked)";
	if (bad)
		return rp_cli_bad(p, "--mcast: %s", bad);
	if (c->test.host &&
	    rp_mcast_check_receivers(c->test.host, p->err, p->errlen))
		return -EINVAL;
	s->qp = RP_QP_UD;
	s->op = RP_OP_SEND;
	s->latency = false;
	s->bandwidth = true;
	s->warmup = 0;
	return 0;
}

/* Turn what was said into the spec the server receives. */
static int finish_spec(struct parse *p)
{
	struct rp_spec *s = &p->cfg->test.spec;
	char why[160];

	if (p->set_time)
		s->iterations = 0;
	if (!s->latency && !s->bandwidth)
		return rp_cli_bad(
			p, "--no-latency and --no-bandwidth together leave "
			   "nothing to measure");
	if (rp_cli_finish_load(p) || finish_sweep(p))
		return -EINVAL;
	if (!p->cfg->test.n_transports) {
		p->cfg->test.transport_defaulted = true;
		snprintf(p->cfg->test.transports[p->cfg->test.n_transports++],
			 RP_SPEC_NAME_LEN, "%s", rp_xport_at(0)->name);
	}
	snprintf(s->transport, sizeof(s->transport), "%s",
		 p->cfg->test.transports[0]);
	if (rp_cli_finish_xopts(p) || check_zerocopy(p) || check_tos(p) ||
	    check_mem(p) || check_mcast(p) || check_qp(p) || check_path(p) ||
	    check_tagged(p) || check_ep_type(p) || check_srq(p) ||
	    rp_cli_check_rails(p))
		return -EINVAL;
	if (rp_spec_validate(s, why, sizeof(why)))
		return rp_cli_bad(p, "%s", why);
	return check_ops(p);
}

int rp_cli_finish(struct parse *p)
{
	int rc;

	if (rp_cli_finish_expect(p) || rp_cli_finish_slo(p) ||
	    rp_cli_finish_repeat(p))
		return -EINVAL;
	if (p->cfg->mode == RP_MODE_REPORT)
		return rp_cli_check_outputs(p);
	default_points(p->cfg);
	rc = check_mode(p);
	if (!rc)
		rc = check_server_rails(p);
	if (!rc && p->cfg->mode != RP_MODE_SERVER)
		rc = finish_spec(p);
	if (!rc)
		rc = rp_cli_finish_matrix(p);
	if (!rc)
		rc = rp_cli_check_repeat_size(p);
	return rc ? rc : rp_cli_check_outputs(p);
}
