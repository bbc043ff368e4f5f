// SPDX-License-Identifier: MIT
/*
 * --sl, --flow-label and --mtu: a path rdma_cm would not give. rdma_cm
 * builds the address vector and path MTU of a connected QP from its route
 * (RoCE: the SL from the TOS, a flow label hashed from the ports, the
 * ports' active MTU) and moves the QP itself when the QP is its own
 * (rdma_create_qp). With any of the flags the stream's QP is ours instead
 * (ibv_create_qp): rdma_cm still says what each state needs
 * (rdma_init_qp_attr), we put the SL, flow label and MTU into the RTR
 * attributes and move the QP; the client then calls rdma_establish on the
 * CONNECT_RESPONSE event (connect.c), the server accepts with the QP in
 * RTS (listen.c). Both ends do it (the spec carries the fields), so the
 * server's acknowledgements and read responses take them too, and the two
 * MTUs agree, which RC needs. UD's address handles take the SL and flow
 * label at creation (ud.c). What the QP holds afterwards is read back
 * (ibv_query_qp) and reported as the stream's "qp_path" and "mtu": a device
 * that keeps no SL shows it there.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "xport/verbs/verbs.h"

bool rv_hand_path(const struct rv_stream *s)
{
	const struct rp_spec *sp = &s->base.spec;

	return !rv_ud(s) && (sp->sl || sp->flow_label || sp->path_mtu);
}

int rv_mtu_bytes(enum ibv_mtu m)
{
	return m >= IBV_MTU_256 && m <= IBV_MTU_4096 ? 128 << m : 0;
}

/* --mtu's bytes as an ibv_mtu (the spec holds 256 to 4096, a power of 2) */
static enum ibv_mtu rv_mtu_enum(uint32_t bytes)
{
	enum ibv_mtu m = IBV_MTU_256;

	while (m < IBV_MTU_4096 && rv_mtu_bytes(m) < (int)bytes)
		m++;
	return m;
}

void rv_path_ah(const struct rv_stream *s, struct ibv_ah_attr *ah)
{
	if (s->base.spec.sl)
		ah->sl = (uint8_t)s->base.spec.sl;
	if (s->base.spec.flow_label && ah->is_global)
		ah->grh.flow_label = s->base.spec.flow_label;
}

void rv_path_took(struct rv_stream *s, const struct ibv_ah_attr *ah)
{
	s->path_known = true;
	s->path_sl = ah->sl;
	s->path_flow = ah->is_global ? ah->grh.flow_label : 0;
	s->path_tclass = ah->is_global ? ah->grh.traffic_class : 0;
}

static const char *rv_qps_name(enum ibv_qp_state st)
{
	return st == IBV_QPS_INIT ? "INIT" : st == IBV_QPS_RTR ? "RTR" : "RTS";
}

/* --mtu into @a's RTR attributes: at most the path's own (what rdma_cm
 * says, the smaller of the ports' active MTUs on RoCE), a smaller one as
 * asked. */
static int rv_path_mtu(struct rv_stream *s, struct ibv_qp_attr *a)
{
	uint32_t want = s->base.spec.path_mtu;
	int path = rv_mtu_bytes(a->path_mtu);

	if (!want)
		return 0;
	if (path && (int)want > path)
		return rp_errf(&s->base.err, -EOPNOTSUPP,
			       "--mtu %u: over the path's MTU of %d bytes",
			       want, path);
	a->path_mtu = rv_mtu_enum(want);
	return 0;
}

/* Move our QP to @st with what rdma_cm says that state needs; at RTR the
 * asked SL and flow label go into its address vector. */
static int rv_path_move(struct rv_stream *s, enum ibv_qp_state st)
{
	struct ibv_qp_attr a;
	int mask = 0, ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = st;
	if (rdma_init_qp_attr(s->id, &a, &mask))
		return rp_errf(&s->base.err, errno ? -errno : -EIO,
			       "rdma_init_qp_attr (%s): %s", rv_qps_name(st),
			       strerror(errno));
	if (st == IBV_QPS_RTR) {
		if (s->base.spec.flow_label && !a.ah_attr.is_global)
			return rp_errf(&s->base.err, -EINVAL,
				       "--flow-label: the path has no GRH "
				       "(an InfiniBand path inside one "
				       "subnet) to carry it");
		rv_path_ah(s, &a.ah_attr);
		ret = rv_path_mtu(s, &a);
		if (ret)
			return ret;
	}
	ret = ibv_modify_qp(s->qp, &a, mask);
	if (ret)
		return rp_errf(&s->base.err, -ret, "ibv_modify_qp (to %s): %s",
			       rv_qps_name(st), strerror(ret));
	return 0;
}

int rv_path_create_qp(struct rv_stream *s, struct ibv_qp_init_attr *a)
{
	s->qp = ibv_create_qp(s->pd, a);
	if (!s->qp)
		return -(errno ? errno : EIO);
	s->own_qp = true;
	return rv_path_move(s, IBV_QPS_INIT);
}

/* INIT again first, as librdmacm does for its own QPs: before the
 * client's REQ, rdma_cm gave INIT no access flags (no connection to take
 * them from); now the responder resources grant remote reads, atomics and
 * always remote writes. */
int rv_path_ready(struct rv_stream *s)
{
	int ret = rv_path_move(s, IBV_QPS_INIT);

	if (!ret)
		ret = rv_path_move(s, IBV_QPS_RTR);
	return ret ? ret : rv_path_move(s, IBV_QPS_RTS);
}

void rv_path_check(struct rv_stream *s)
{
	const struct rp_spec *sp = &s->base.spec;

	if (!s->path_known)
		return;
	if (sp->sl && s->path_sl != sp->sl)
		rp_stream_note(&s->base,
			       "--sl %u: the queue pair holds SL %u (%s keeps "
			       "no other)",
			       sp->sl, s->path_sl,
			       ibv_get_device_name(s->id->verbs->device));
	if (sp->flow_label && s->path_flow != sp->flow_label)
		rp_stream_note(&s->base,
			       "--flow-label %u: the queue pair holds %u",
			       sp->flow_label, s->path_flow);
	if (sp->path_mtu && s->mtu_bytes != (int)sp->path_mtu)
		rp_stream_note(&s->base,
			       "--mtu %u: the queue pair's path MTU is %d",
			       sp->path_mtu, s->mtu_bytes);
}

int rv_path_info(const struct rv_stream *s, cJSON *info)
{
	cJSON *p;

	if (!s->path_known)
		return 0;
	p = cJSON_AddObjectToObject(info, "qp_path");
	if (!p || !cJSON_AddNumberToObject(p, "sl", s->path_sl) ||
	    !cJSON_AddNumberToObject(p, "flow_label", s->path_flow) ||
	    !cJSON_AddNumberToObject(p, "traffic_class", s->path_tclass) ||
	    !cJSON_AddStringToObject(
		    p, "from", rv_ud(s) ? "address handle" : "queue pair"))
		return -ENOMEM;
	return 0;
}
