// SPDX-License-Identifier: MIT
/*
 * What the two sides swap once connected: where this side's buffer is and
 * its key (addr as a decimal string: a double cannot hold every address),
 * and what a report shows (device, port, MTU, inline size, GID index,
 * waiting, role, NUMA nodes of the device and of the buffer), and where
 * iWARP sends need them, the send credits' fields (credits.c). set_peer
 * reads only addr, rkey, len and those.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "core/json.h"
#include "platform/cpu.h"
#include "xport/verbs/verbs.h"

static bool rv_add_num(cJSON *o, const char *name, double v)
{
	return cJSON_AddNumberToObject(o, name, v) != NULL;
}

/* The NUMA node of the device, from sysfs; -1 when unknown (a soft
 * device has no parent device). */
static int rv_device_node(struct ibv_device *dev)
{
	char path[256];
	int node = -1;
	FILE *f;

	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/device/numa_node",
		 ibv_get_device_name(dev));
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &node) != 1 || node < 0)
		node = -1;
	fclose(f);
	return node;
}

/* Informational: the peer ignores them. */
static bool rv_add_placement(const struct rv_stream *s, cJSON *info)
{
	int bnode = rp_os_mem_node(s->buf);

	return cJSON_AddStringToObject(info, "wait",
				       rp_wait_name(s->base.spec.wait)) &&
	       cJSON_AddStringToObject(info, "role",
				       rp_role_name(s->base.role)) &&
	       rv_add_num(info, "numa_node",
			  rv_device_node(s->id->verbs->device)) &&
	       rv_add_num(info, "buffer_numa_node", bnode < 0 ? -1 : bnode);
}

int rv_local_info(struct rp_stream *bs, cJSON *info)
{
	struct rv_stream *s = rv_of(bs);
	char addr[24];
	bool ok;

	snprintf(addr, sizeof(addr), "%" PRIu64, (uint64_t)(uintptr_t)s->buf);
	ok = cJSON_AddStringToObject(info, "addr", addr) &&
	     rv_add_num(info, "rkey", s->mr->rkey) &&
	     rv_add_num(info, "len", (double)s->buf_len) &&
	     cJSON_AddStringToObject(
		     info, "device",
		     ibv_get_device_name(s->id->verbs->device)) &&
	     rv_add_num(info, "port", s->id->port_num) &&
	     rv_add_num(info, "mtu", s->mtu_bytes) &&
	     rv_add_num(info, "max_inline", s->inline_max);
	if (ok && s->gid_index >= 0)
		ok = rv_add_num(info, "gid_index", s->gid_index);
	if (ok)
		ok = rv_add_placement(s, info) && !rv_credits_info(s, info) &&
		     !rv_srq_info(s, info) && !rv_ud_info(s, info) &&
		     !rv_path_info(s, info);
	return ok ? 0 : rp_stream_fail(bs, -ENOMEM, "out of memory");
}

/* Aim the work requests at the peer's buffer: the initiator's slot i at
 * the responder's slot i; the responder's echo at the initiator's slot 1.
 * Both ends were set up for the same spec: the peer's stride is ours. */
static void rv_set_remote(struct rv_stream *s)
{
	bool echo = rv_responder(s);
	uint32_t i, n = echo ? 1 : s->max_depth;
	uint64_t base = s->peer_addr + (echo ? s->slot_bytes : 0);
	struct ibv_send_wr *w;

	for (i = 0; i < n; i++) {
		w = &s->wr[i];
		if (rp_op_is_atomic(s->base.spec.op)) {
			w->wr.atomic.remote_addr = base + i * s->slot_bytes;
			w->wr.atomic.rkey = s->peer_rkey;
			w->wr.atomic.compare_add = 1; /* fetch_add: add 1 */
		} else {
			w->wr.rdma.remote_addr = base + i * s->slot_bytes;
			w->wr.rdma.rkey = s->peer_rkey;
		}
	}
}

int rv_set_peer(struct rp_stream *bs, const cJSON *info)
{
	struct rv_stream *s = rv_of(bs);
	uint64_t addr, len, rkey, need;

	if (rp_json_u64(info, "addr", UINT64_MAX, &addr) ||
	    rp_json_u64(info, "rkey", UINT32_MAX, &rkey) ||
	    rp_json_u64(info, "len", UINT64_MAX, &len))
		return rp_stream_fail(bs, -EPROTO,
				      "the peer's addr, rkey or len is "
				      "missing or malformed");
	need = rv_span_slots(s, rv_side(s)->peer_need) * s->slot_bytes;
	if (len < need)
		return rp_stream_fail(bs, -EPROTO,
				      "the peer's buffer has %" PRIu64
				      " bytes, the test needs %" PRIu64,
				      len, need);
	s->peer_addr = addr;
	s->peer_rkey = (uint32_t)rkey;
	s->peer_len = len;
	if (!rv_ud(s)) /* UD: aimed through its address handle (ud.c) */
		rv_set_remote(s);
	return rv_ud_peer(s, info) ? -EPROTO : rv_credits_peer(s, info);
}
