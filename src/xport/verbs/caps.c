// SPDX-License-Identifier: MIT
/*
 * What a device can do, by its kind: iWARP has write, read and send (no
 * immediate data, no atomics); InfiniBand and RoCE have every operation,
 * the atomics only where the device reports an atomic capability. A test
 * of an operation the device lacks is refused before anything connects:
 * by the client against the device its route to the server takes
 * (rv_preflight), by the server at SETUP against its listener's device
 * (listen.c), and by either end at setup as the last word (setup.c). So
 * is --mem odp on a device without on-demand paging for the operation.
 */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>

#include "platform/clock.h"
#include "xport/verbs/verbs.h"

#define PREFLIGHT_MS 5000

/* The operations of the device of @ctx (its port @port) and its kind. */
static uint32_t rv_caps(struct ibv_context *ctx, uint8_t port,
			const char **kind)
{
	uint32_t mask = RP_OP_MASK_ALL;
	struct ibv_device_attr a;
	struct ibv_port_attr pa;

	if (ctx->device->transport_type == IBV_TRANSPORT_IWARP) {
		*kind = "iWARP";
		return RP_OP_BIT(RP_OP_WRITE) | RP_OP_BIT(RP_OP_READ) |
		       RP_OP_BIT(RP_OP_SEND);
	}
	*kind = "InfiniBand";
	if (!ibv_query_port(ctx, port ? port : 1, &pa) &&
	    pa.link_layer == IBV_LINK_LAYER_ETHERNET)
		*kind = "RoCE";
	if (!ibv_query_device(ctx, &a) && a.atomic_cap == IBV_ATOMIC_NONE)
		mask &= ~(RP_OP_BIT(RP_OP_FETCH_ADD) |
			  RP_OP_BIT(RP_OP_CMP_SWAP));
	return mask;
}

int rv_caps_check(struct ibv_context *ctx, uint8_t port, enum rp_op op,
		  struct rp_err *why)
{
	const char *kind;
	uint32_t mask = rv_caps(ctx, port, &kind);
	char list[96];

	if (mask & RP_OP_BIT(op))
		return 0;
	rp_op_mask_list(mask, list, sizeof(list));
	return rp_errf(
		why, -EOPNOTSUPP, "device %s (%s) cannot do %s; it does %s",
		ibv_get_device_name(ctx->device), kind, rp_op_name(op), list);
}

/* --mem odp: the device's on-demand paging must cover what an RC queue
 * pair does with the buffer for @op, in both roles (a responder is read
 * from, written to, or receives). */
int rv_odp_check(struct ibv_context *ctx, enum rp_op op, struct rp_err *why)
{
	static const uint32_t need[RP_OP__COUNT] = {
		[RP_OP_WRITE] = IBV_ODP_SUPPORT_WRITE,
		[RP_OP_READ] = IBV_ODP_SUPPORT_READ,
		[RP_OP_SEND] = IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV,
		[RP_OP_WRITE_IMM] =
			IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_RECV,
		[RP_OP_FETCH_ADD] = IBV_ODP_SUPPORT_ATOMIC,
		[RP_OP_CMP_SWAP] = IBV_ODP_SUPPORT_ATOMIC,
	};
	struct ibv_device_attr_ex a = { 0 };
	uint32_t rc, want = (unsigned int)op < RP_OP__COUNT ? need[op] : 0;
	int err = ibv_query_device_ex(ctx, NULL, &a);

	if (err)
		return rp_errf(why, -err, "--mem odp: ibv_query_device_ex: %s",
			       strerror(err));
	rc = a.odp_caps.per_transport_caps.rc_odp_caps;
	if ((a.odp_caps.general_caps & IBV_ODP_SUPPORT) && (rc & want) == want)
		return 0;
	return rp_errf(why, -EOPNOTSUPP,
		       "--mem odp: device %s has no on-demand paging for RC "
		       "%s (odp_caps: general_caps 0x%llx, rc_odp_caps 0x%x; "
		       "%s needs 0x%x)",
		       ibv_get_device_name(ctx->device), rp_op_name(op),
		       (unsigned long long)a.odp_caps.general_caps, rc,
		       rp_op_name(op), want);
}

int rv_qp_check(struct ibv_context *ctx, enum rp_qp qp, struct rp_err *why)
{
	if (qp == RP_QP_RC ||
	    ctx->device->transport_type != IBV_TRANSPORT_IWARP)
		return 0;
	return rp_errf(why, -EOPNOTSUPP,
		       "--qp %s: device %s (iWARP) has RC queue pairs alone",
		       rp_qp_name(qp), ibv_get_device_name(ctx->device));
}

int rv_srq_check(struct ibv_context *ctx, bool srq, struct rp_err *why)
{
	if (!srq || ctx->device->transport_type != IBV_TRANSPORT_IWARP)
		return 0;
	return rp_errf(why, -EOPNOTSUPP,
		       "--srq: device %s (iWARP): its send credits count each "
		       "stream's own receives",
		       ibv_get_device_name(ctx->device));
}

int rv_path_dev_check(struct ibv_context *ctx, uint8_t port,
		      const struct rp_spec *spec, struct rp_err *why)
{
	struct ibv_port_attr pa;
	int active;

	if (!(spec->sl || spec->flow_label || spec->path_mtu) ||
	    spec->qp == RP_QP_UD)
		return 0;
	if (ctx->device->transport_type == IBV_TRANSPORT_IWARP)
		return rp_errf(why, -EOPNOTSUPP,
			       "--%s: device %s (iWARP) has no service level, "
			       "flow label or path MTU (its packets are TCP's)",
			       spec->sl		  ? "sl"
			       : spec->flow_label ? "flow-label"
						  : "mtu",
			       ibv_get_device_name(ctx->device));
	if (!spec->path_mtu || ibv_query_port(ctx, port, &pa))
		return 0;
	active = rv_mtu_bytes(pa.active_mtu);
	if (active && (int)spec->path_mtu > active)
		return rp_errf(why, -EOPNOTSUPP,
			       "--mtu %u: over device %s port %u's active MTU "
			       "of %d bytes",
			       spec->path_mtu, ibv_get_device_name(ctx->device),
			       port, active);
	return 0;
}

/* The id @id resolved toward @host: which device the route takes. */
static int rv_resolve_to(struct rdma_event_channel *ch, struct rdma_cm_id *id,
			 const char *host, struct rp_err *why)
{
	uint64_t deadline = rp_deadline_ns(PREFLIGHT_MS);
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai = NULL;
	int ret = getaddrinfo(host, NULL, &hints, &ai);

	if (ret)
		return rp_errf(why, -EHOSTUNREACH, "cannot resolve %s: %s",
			       host, gai_strerror(ret));
	ret = rdma_resolve_addr(id, NULL, ai->ai_addr, PREFLIGHT_MS);
	freeaddrinfo(ai);
	if (ret)
		return rv_fail(why, "rdma_resolve_addr");
	return rv_expect(ch, RDMA_CM_EVENT_ADDR_RESOLVED, deadline,
			 "resolving the server's address", why);
}

int rv_preflight(const struct rp_xport_ops *self, const struct rp_spec *spec,
		 const struct rp_xport_params *p, const char *host,
		 struct rp_err *why)
{
	struct rdma_event_channel *ch = NULL;
	struct rdma_cm_id *id = NULL;
	struct rp_err ignored = { "" };
	int ret;

	(void)self;
	(void)p;
	/* every kind of device does write, read and send, on host memory */
	if (!rp_op_is_atomic(spec->op) && spec->op != RP_OP_WRITE_IMM &&
	    spec->mem != RP_MEM_ODP && spec->qp == RP_QP_RC && !spec->srq &&
	    !spec->sl && !spec->flow_label && !spec->path_mtu)
		return 0;
	ret = rv_channel_create(&ch, &ignored);
	if (!ret && rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
		ret = -errno;
	/* a route not found here is the connection's to report */
	if (!ret && !rv_resolve_to(ch, id, host, &ignored) && id->verbs)
		ret = rv_caps_check(id->verbs, id->port_num, spec->op, why);
	if (!ret && id && id->verbs && spec->mem == RP_MEM_ODP)
		ret = rv_odp_check(id->verbs, spec->op, why);
	if (!ret && id && id->verbs && spec->qp != RP_QP_RC)
		ret = rv_qp_check(id->verbs, spec->qp, why);
	if (!ret && id && id->verbs)
		ret = rv_srq_check(id->verbs, spec->srq, why);
	if (!ret && id && id->verbs)
		ret = rv_path_dev_check(id->verbs, id->port_num, spec, why);
	if (!ret && id && id->verbs && spec->qp == RP_QP_UD &&
	    rv_ud_mtu(id->verbs, id->port_num, spec->size_bytes, NULL,
		      &ignored) == -EMSGSIZE) /* a usage error: exit 2 */
		ret = rp_errf(why, -EOPNOTSUPP, "%s", ignored.msg);
	if (id)
		rdma_destroy_id(id);
	if (ch)
		rdma_destroy_event_channel(ch);
	return ret == -EOPNOTSUPP ? ret : 0;
}
