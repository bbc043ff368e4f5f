// SPDX-License-Identifier: MIT
/*
 * The test specification: defaults, validation and operation names.
 *
 * rp_spec_validate is the single gate a spec passes on both ends: the client
 * checks what the user asked for, the server checks what arrived on the wire
 * (proto/), so the limits in spec.h bound what a hostile client can make a
 * server allocate or run. Each rule names the field and its accepted range.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/spec.h"
#include "platform/clock.h"

#define RP_SPEC_MAX_DURATION_NS (RP_SPEC_MAX_SECONDS * RP_NS_PER_SEC)

/*
 * What every transport agrees on about an operation. rtt_halved: the
 * ping-pong goes there and back (the peer echoes), so unloaded latency is
 * half the round trip, as perftest reports; a read or an atomic is one
 * operation whose completion already includes the way back.
 */
static const struct rp_op_info op_info[RP_OP__COUNT] = {
	[RP_OP_WRITE] = { .name = "write", .rtt_halved = true },
	[RP_OP_READ] = { .name = "read" },
	[RP_OP_SEND] = { .name = "send", .rtt_halved = true },
	[RP_OP_WRITE_IMM] = { .name = "write_imm", .rtt_halved = true },
	[RP_OP_FETCH_ADD] = { .name = "fetch_add", .atomic = true },
	[RP_OP_CMP_SWAP] = { .name = "cmp_swap", .atomic = true },
};

/* Other spellings accepted on the command line: rPerf letters, short forms. */
static const struct {
	const char *name;
	enum rp_op op;
} op_aliases[] = {
	{ "w", RP_OP_WRITE },	     { "r", RP_OP_READ },
	{ "s", RP_OP_SEND },	     { "fadd", RP_OP_FETCH_ADD },
	{ "cswap", RP_OP_CMP_SWAP },
};

int rp_spec_errf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

void rp_spec_defaults(struct rp_spec *s)
{
	memset(s, 0, sizeof(*s));
	strcpy(s->transport, "tcp");
	s->op = RP_OP_WRITE;
	s->size_bytes = 65536;
	s->queue_depth = 16;
	s->iterations = 10000;
	s->duration_ns = 0;
	s->warmup = 1000;
	s->lat_iterations = 1000;
	s->latency = true;
	s->bandwidth = true;
	s->verify = false;
	s->streams = 1;
	s->threads = 1;
	s->bidir = false;
	s->wait = RP_WAIT_BUSY;
}

static bool transport_name_ok(const char *name)
{
	const char *end = memchr(name, '\0', RP_SPEC_NAME_LEN);
	const char *p, *colon = NULL;

	if (!end || end == name)
		return false;
	for (p = name; p < end; p++) {
		if (*p == ':' && !colon && p > name && p + 1 < end)
			colon = p; /* NAME:VARIANT (ofi:tcp), once */
		else if (!((*p >= 'a' && *p <= 'z') ||
			   (*p >= '0' && *p <= '9') || *p == '_'))
			return false;
	}
	return true;
}

/* transport, op, size, queue depth and the memory they add up to. */
static int validate_shape(const struct rp_spec *s, char *err, size_t errlen)
{
	uint64_t mem;

	if (!transport_name_ok(s->transport))
		return rp_spec_errf(err, errlen,
				    "transport name invalid: accepted 1 to %d "
				    "characters of a-z, 0-9 and _, and one "
				    "':' between two of them",
				    RP_SPEC_NAME_LEN - 1);
	if ((unsigned int)s->op >= RP_OP__COUNT)
		return rp_spec_errf(err, errlen,
				    "op %u out of range: accepted 0 to %d",
				    (unsigned int)s->op, RP_OP__COUNT - 1);
	if (s->size_bytes < 1 || s->size_bytes > RP_SPEC_MAX_SIZE)
		return rp_spec_errf(
			err, errlen,
			"size %llu out of range: accepted 1 to %llu "
			"bytes",
			(unsigned long long)s->size_bytes, RP_SPEC_MAX_SIZE);
	if (s->queue_depth < 1 || s->queue_depth > RP_SPEC_MAX_DEPTH)
		return rp_spec_errf(
			err, errlen,
			"queue_depth %u out of range: accepted 1 to "
			"%d",
			s->queue_depth, RP_SPEC_MAX_DEPTH);
	if (s->streams < 1 || s->streams > RP_SPEC_MAX_STREAMS)
		return rp_spec_errf(err, errlen,
				    "streams %u out of range: accepted 1 to %d",
				    s->streams, RP_SPEC_MAX_STREAMS);
	/* all bounded: no overflow */
	mem = s->size_bytes * s->queue_depth * s->streams * (s->bidir ? 2 : 1);
	if (mem > RP_SPEC_MAX_MEM)
		return rp_spec_errf(
			err, errlen,
			"size * queue_depth * streams%s %llu out of "
			"range: accepted up to %llu bytes",
			s->bidir ? " * 2 (bidir)" : "", (unsigned long long)mem,
			RP_SPEC_MAX_MEM);
	if (rp_op_is_atomic(s->op) && s->size_bytes != 8)
		return rp_spec_errf(err, errlen,
				    "size %llu invalid for %s: atomics accept "
				    "exactly 8 bytes",
				    (unsigned long long)s->size_bytes,
				    rp_op_name(s->op));
	return 0;
}

static int check_count(const char *field, uint64_t v, uint64_t min,
		       uint64_t max, const char *unit, char *err, size_t errlen)
{
	if (v >= min && v <= max)
		return 0;
	return rp_spec_errf(
		err, errlen, "%s %llu out of range: accepted %llu to %llu%s",
		field, (unsigned long long)v, (unsigned long long)min,
		(unsigned long long)max, unit);
}

/*
 * Throughput phase: a count of operations or a duration, exactly one nonzero.
 * Without the phase both may be 0 but still may not exceed their limits.
 */
static int validate_bandwidth(const struct rp_spec *s, char *err, size_t errlen)
{
	bool by_count = s->bandwidth && !s->duration_ns;
	bool by_time = s->bandwidth && !s->iterations;

	if (s->bandwidth && !s->iterations == !s->duration_ns)
		return rp_spec_errf(err, errlen,
				    "iterations %llu and duration_ns %llu: "
				    "exactly one of them must be nonzero",
				    (unsigned long long)s->iterations,
				    (unsigned long long)s->duration_ns);
	if (check_count("iterations", s->iterations, by_count ? 1 : 0,
			RP_SPEC_MAX_ITERS, "", err, errlen))
		return -EINVAL;
	return check_count("duration_ns", s->duration_ns, by_time ? 1 : 0,
			   RP_SPEC_MAX_DURATION_NS, " ns", err, errlen);
}

/* MSG_ZEROCOPY is the kernel's TCP; --verify would rewrite a message's
 * pages while the kernel may still send from them. */
static int validate_zerocopy(const struct rp_spec *s, char *err, size_t errlen)
{
	if (!s->zerocopy)
		return 0;
	if (strcmp(s->transport, "tcp"))
		return rp_spec_errf(err, errlen,
				    "zerocopy is for the tcp transport only, "
				    "not %.*s",
				    RP_SPEC_NAME_LEN, s->transport);
	if (s->verify)
		return rp_spec_errf(err, errlen,
				    "zerocopy and verify together: verify "
				    "rewrites payloads the kernel may still "
				    "be sending");
	return 0;
}

/* --srq: the server's responders share it, so neither --bidir (whose
 * client-side responders would not) nor an op without receives; RC. */
static int validate_srq(const struct rp_spec *s, char *err, size_t errlen)
{
	if (!s->srq)
		return s->srq_size ? rp_spec_errf(err, errlen,
						  "srq_size without srq")
				   : 0;
	if (s->op != RP_OP_SEND && s->op != RP_OP_WRITE_IMM)
		return rp_spec_errf(err, errlen,
				    "srq is for operations that take "
				    "receives (send, write_imm), not %s",
				    rp_op_name(s->op));
	if (s->qp != RP_QP_RC || s->bidir)
		return rp_spec_errf(err, errlen,
				    "srq is for one direction (not bidir) "
				    "over rc queue pairs");
	if (s->srq_size == 1 || s->srq_size > RP_SPEC_MAX_SRQ ||
	    (uint64_t)s->srq_size * s->size_bytes > RP_SPEC_MAX_MEM)
		return rp_spec_errf(err, errlen,
				    "srq_size %u out of range: accepted 2 to "
				    "%d, and srq_size * size up to %llu bytes",
				    s->srq_size, RP_SPEC_MAX_SRQ,
				    RP_SPEC_MAX_MEM);
	return 0;
}

static int validate_run(const struct rp_spec *s, char *err, size_t errlen)
{
	if (s->threads < 1 || s->threads > RP_SPEC_MAX_THREADS ||
	    s->threads > s->streams)
		return rp_spec_errf(err, errlen,
				    "threads %u out of range: accepted 1 to "
				    "streams (%u), at most %d",
				    s->threads, s->streams,
				    RP_SPEC_MAX_THREADS);
	if ((unsigned int)s->wait >= RP_WAIT__COUNT)
		return rp_spec_errf(err, errlen,
				    "wait %u out of range: accepted 0 to %d",
				    (unsigned int)s->wait, RP_WAIT__COUNT - 1);
	if (check_count("rate", s->rate, 0, RP_SPEC_MAX_RATE, " ops/s", err,
			errlen) ||
	    check_count("signal", s->signal, 0, s->queue_depth,
			" (the queue depth)", err, errlen) ||
	    check_count("post_list", s->post_list, 0, s->queue_depth,
			" (the queue depth)", err, errlen) ||
	    check_count("tos", s->tos, 0, RP_SPEC_MAX_TOS, "", err, errlen) ||
	    check_count("sl", s->sl, 0, RP_SPEC_MAX_SL, "", err, errlen) ||
	    check_count("flow_label", s->flow_label, 0, RP_SPEC_MAX_FLOW, "",
			err, errlen) ||
	    check_count("path_mtu", s->path_mtu, 0, RP_SPEC_MAX_MTU, "", err,
			errlen) ||
	    check_count("mem", (uint64_t)s->mem, 0, RP_MEM__COUNT - 1, "", err,
			errlen) ||
	    check_count("qp", (uint64_t)s->qp, 0, RP_QP__COUNT - 1, "", err,
			errlen) ||
	    check_count("ep_type", (uint64_t)s->ep_type, 0, RP_EP__COUNT - 1,
			"", err, errlen))
		return -EINVAL;
	if (s->path_mtu &&
	    (s->path_mtu < 256 || (s->path_mtu & (s->path_mtu - 1))))
		return rp_spec_errf(err, errlen,
				    "path_mtu %u: 256, 512, 1024, 2048 or 4096",
				    (unsigned int)s->path_mtu);
	if (s->path_mtu && s->qp == RP_QP_UD)
		return rp_spec_errf(err, errlen,
				    "path_mtu with qp ud: a datagram is one "
				    "packet, whatever the MTU");
	if (s->rails > RP_SPEC_MAX_RAILS || (s->rails && s->streams % s->rails))
		return rp_spec_errf(err, errlen,
				    "rails %u: at most %d, and streams (%u) a "
				    "multiple of it",
				    s->rails, RP_SPEC_MAX_RAILS, s->streams);
	if (s->rail_numa && !s->rails)
		return rp_spec_errf(err, errlen, "rail_numa without rails");
	if (s->mcast[0] && (s->qp != RP_QP_UD || s->op != RP_OP_SEND ||
			    s->streams != 1 || s->bidir || s->rails))
		return rp_spec_errf(err, errlen,
				    "mcast is one stream of UD sends one way");
	if (s->tagged && s->op != RP_OP_SEND)
		return rp_spec_errf(err, errlen, "tagged is for send, not %s",
				    rp_op_name(s->op));
	if (!(rp_qp_ops(s->qp) & (1u << s->op)))
		return rp_spec_errf(err, errlen, "qp %s has no %s: %s",
				    rp_qp_name(s->qp), rp_op_name(s->op),
				    s->qp == RP_QP_UD
					    ? "send alone"
					    : "write, write_imm, send");
	if (s->qp == RP_QP_UD && s->bidir)
		return rp_spec_errf(err, errlen,
				    "qp ud: one direction, not bidir");
	if (s->qp == RP_QP_UD && s->size_bytes > RP_QP_UD_MAX_MSG)
		return rp_spec_errf(err, errlen,
				    "qp ud: a message is one packet, at most "
				    "%d bytes (the largest MTU), not %llu",
				    RP_QP_UD_MAX_MSG,
				    (unsigned long long)s->size_bytes);
	return validate_srq(s, err, errlen) ? -EINVAL
					    : validate_zerocopy(s, err, errlen);
}

static int validate_phases(const struct rp_spec *s, char *err, size_t errlen)
{
	int ret;

	if (!s->latency && !s->bandwidth)
		return rp_spec_errf(
			err, errlen,
			"latency and bandwidth both false: at least "
			"one phase must run");
	ret = validate_bandwidth(s, err, errlen);
	if (ret)
		return ret;
	ret = check_count("lat_iterations", s->lat_iterations,
			  s->latency ? 1 : 0, RP_SPEC_MAX_ITERS, "", err,
			  errlen);
	if (ret)
		return ret;
	return check_count("warmup", s->warmup, 0, RP_SPEC_MAX_ITERS, "", err,
			   errlen);
}

int rp_spec_validate(const struct rp_spec *s, char *err, size_t errlen)
{
	int ret;

	ret = validate_shape(s, err, errlen);
	if (!ret)
		ret = validate_run(s, err, errlen);
	if (ret)
		return ret;
	return validate_phases(s, err, errlen);
}

const struct rp_op_info *rp_op_info(enum rp_op op)
{
	static const struct rp_op_info unknown = { .name = "unknown" };

	return (unsigned int)op < RP_OP__COUNT ? &op_info[op] : &unknown;
}

const char *rp_op_name(enum rp_op op)
{
	return rp_op_info(op)->name;
}

int rp_op_parse(const char *s, enum rp_op *out)
{
	size_t i;

	if (!s)
		return -EINVAL;
	for (i = 0; i < RP_OP__COUNT; i++) {
		if (!strcasecmp(s, op_info[i].name)) {
			*out = (enum rp_op)i;
			return 0;
		}
	}
	for (i = 0; i < sizeof(op_aliases) / sizeof(op_aliases[0]); i++) {
		if (!strcasecmp(s, op_aliases[i].name)) {
			*out = op_aliases[i].op;
			return 0;
		}
	}
	return -EINVAL;
}

static const char *const wait_names[RP_WAIT__COUNT] = {
	[RP_WAIT_BUSY] = "busy",
	[RP_WAIT_EVENT] = "event",
};

static const char *const qp_names[RP_QP__COUNT] = { "rc", "uc", "ud" };

unsigned int rp_qp_ops(enum rp_qp q)
{
	return q == RP_QP_UC   ? RP_QP_UC_OPS
	       : q == RP_QP_UD ? RP_QP_UD_OPS
			       : ~0u;
}

static const char *const ep_type_names[RP_EP__COUNT] = { "auto", "msg", "rdm" };

/* The index of @s in @names (@n of them), or -1. */
static int name_index(const char *const *names, int n, const char *s)
{
	int i;

	for (i = 0; s && i < n; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

const char *rp_qp_name(enum rp_qp q)
{
	return (unsigned int)q < RP_QP__COUNT ? qp_names[q] : "unknown";
}

int rp_qp_parse(const char *s, enum rp_qp *out)
{
	int i = name_index(qp_names, RP_QP__COUNT, s);

	if (i < 0)
		return -EINVAL;
	*out = (enum rp_qp)i;
	return 0;
}

const char *rp_ep_type_name(enum rp_ep_type t)
{
	return (unsigned int)t < RP_EP__COUNT ? ep_type_names[t] : "unknown";
}

const char *rp_wait_name(enum rp_wait w)
{
	return (unsigned int)w < RP_WAIT__COUNT ? wait_names[w] : "unknown";
}

int rp_wait_parse(const char *s, enum rp_wait *out)
{
	int i = name_index(wait_names, RP_WAIT__COUNT, s);

	if (i < 0)
		return -EINVAL;
	*out = (enum rp_wait)i;
	return 0;
}

bool rp_op_is_atomic(enum rp_op op)
{
	return rp_op_info(op)->atomic;
}

/* ---- the spec's members ------------------------------------------------- */

_Static_assert(sizeof(enum rp_op) == sizeof(int) &&
		       sizeof(enum rp_wait) == sizeof(int) &&
		       sizeof(enum rp_ep_type) == sizeof(int),
	       "RP_FIELD_ENUM stores an enum through an int");

static const char *op_name(int v)
{
	return rp_op_name((enum rp_op)v);
}

static int op_parse(const char *s, int *out)
{
	enum rp_op op;

	if (rp_op_parse(s, &op))
		return -EINVAL;
	*out = (int)op;
	return 0;
}

static const char *wait_name(int v)
{
	return rp_wait_name((enum rp_wait)v);
}

const struct rp_field_enum rp_spec_op_enum = { RP_OP__COUNT, op_name,
					       op_parse };
const struct rp_field_enum rp_spec_wait_enum = { RP_WAIT__COUNT, wait_name,
						 NULL };
static int mem_parse(const char *s, int *out)
{
	return rp_mem_kind_parse(s, out);
}

static const char *qp_name(int v)
{
	return rp_qp_name((enum rp_qp)v);
}

static int qp_parse(const char *s, int *out)
{
	enum rp_qp q;
	int ret = rp_qp_parse(s, &q);

	if (!ret)
		*out = (int)q;
	return ret;
}

const struct rp_field_enum rp_spec_qp_enum = { RP_QP__COUNT, qp_name,
					       qp_parse };

static const char *ep_type_name(int v)
{
	return rp_ep_type_name((enum rp_ep_type)v);
}

static int ep_type_parse(const char *s, int *out)
{
	int i = name_index(ep_type_names, RP_EP__COUNT, s);

	if (i < 0)
		return -EINVAL;
	*out = i;
	return 0;
}

const struct rp_field_enum rp_spec_ep_type_enum = { RP_EP__COUNT, ep_type_name,
						    ep_type_parse };
const struct rp_field_enum rp_spec_mem_enum = { RP_MEM__COUNT, rp_mem_kind_name,
						mem_parse };

/* The depth has its own words: rp_spec_validate's range. */
static int depth_check(const struct rp_field *f, uint64_t v, char *err,
		       size_t errlen)
{
	(void)f;
	if (v <= UINT32_MAX)
		return 0;
	return rp_spec_errf(err, errlen,
			    "queue_depth %llu out of range: accepted 1 to %d",
			    (unsigned long long)v, RP_SPEC_MAX_DEPTH);
}

#define SPEC_AS(k, m, kind_, fl)                                               \
	.key = (k), .off = offsetof(struct rp_spec, m), .kind = (kind_),       \
	.flags = RP_FIELD_IN_WIRE | (fl)
#define SPEC(k, m, kind_) SPEC_AS(k, m, kind_, 0)
/* protocol 1.1: absent from a 1.0 client's spec, read as @d */
#define SPEC_11(k, m, kind_, d)                                                \
	SPEC_AS(k, m, kind_, RP_FIELD_OPTIONAL), .dflt = (d)

const struct rp_field rp_spec_fields[] = {
	{ SPEC("transport", transport, RP_FIELD_STRING),
	  .size = RP_SPEC_NAME_LEN },
	{ SPEC("op", op, RP_FIELD_ENUM), .en = &rp_spec_op_enum },
	{ SPEC("size", size_bytes, RP_FIELD_U64) },
	{ SPEC("queue_depth", queue_depth, RP_FIELD_U32),
	  .check = depth_check },
	{ SPEC("iterations", iterations, RP_FIELD_U64) },
	{ SPEC("duration_ns", duration_ns, RP_FIELD_U64) },
	{ SPEC("warmup", warmup, RP_FIELD_U64) },
	{ SPEC("lat_iterations", lat_iterations, RP_FIELD_U64) },
	{ SPEC("latency", latency, RP_FIELD_BOOL) },
	{ SPEC("bandwidth", bandwidth, RP_FIELD_BOOL) },
	{ SPEC("verify", verify, RP_FIELD_BOOL) },
	{ SPEC_11("streams", streams, RP_FIELD_U32, 1) },
	{ SPEC_11("threads", threads, RP_FIELD_U32, 1) },
	{ SPEC_11("bidir", bidir, RP_FIELD_BOOL, 0) },
	{ SPEC_11("wait", wait, RP_FIELD_ENUM, RP_WAIT_BUSY),
	  .en = &rp_spec_wait_enum },
	{ SPEC_11("rate", rate, RP_FIELD_U64, 0) },
	{ SPEC_11("signal", signal, RP_FIELD_U32, 0) },
	{ SPEC_11("post_list", post_list, RP_FIELD_U32, 0) },
	/* sent only when true */
	{ SPEC_AS("zerocopy", zerocopy, RP_FIELD_BOOL, RP_FIELD_SPARSE) },
	{ SPEC_AS("tos", tos, RP_FIELD_U32, RP_FIELD_SPARSE) },
	{ SPEC_AS("mem", mem, RP_FIELD_ENUM, RP_FIELD_SPARSE),
	  .en = &rp_spec_mem_enum },
	{ SPEC_AS("qp", qp, RP_FIELD_ENUM, RP_FIELD_SPARSE),
	  .en = &rp_spec_qp_enum },
	{ SPEC_AS("tagged", tagged, RP_FIELD_BOOL, RP_FIELD_SPARSE) },
	{ SPEC_AS("ep_type", ep_type, RP_FIELD_ENUM, RP_FIELD_SPARSE),
	  .en = &rp_spec_ep_type_enum },
	{ SPEC_AS("srq", srq, RP_FIELD_BOOL, RP_FIELD_SPARSE) },
	{ SPEC_AS("srq_size", srq_size, RP_FIELD_U32, RP_FIELD_SPARSE),
	  .max = RP_SPEC_MAX_SRQ },
	{ SPEC_AS("sl", sl, RP_FIELD_U32, RP_FIELD_SPARSE),
	  .max = RP_SPEC_MAX_SL },
	{ SPEC_AS("flow_label", flow_label, RP_FIELD_U32, RP_FIELD_SPARSE),
	  .max = RP_SPEC_MAX_FLOW },
	{ SPEC_AS("path_mtu", path_mtu, RP_FIELD_U32, RP_FIELD_SPARSE),
	  .max = RP_SPEC_MAX_MTU },
	{ SPEC_AS("rails", rails, RP_FIELD_U32, RP_FIELD_SPARSE),
	  .max = RP_SPEC_MAX_RAILS },
	{ SPEC_AS("rail_numa", rail_numa, RP_FIELD_BOOL, RP_FIELD_SPARSE) },
	{ SPEC_AS("mcast", mcast, RP_FIELD_STRING, RP_FIELD_SPARSE),
	  .size = RP_SPEC_GROUP_LEN },
};

const size_t rp_spec_n_fields = RP_FIELDS_N(rp_spec_fields);
