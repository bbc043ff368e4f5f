// SPDX-License-Identifier: MIT
/*
 * The link an RDMA stream runs on: the port's facts (xport/link.c reads
 * sysfs) with what only verbs knows (the active MTU, the GID the
 * connection uses), and the port's counters between phases.
 */
#include <errno.h>
#include <string.h>

#include "xport/link.h"
#include "xport/verbs/verbs.h"

cJSON *rv_link_facts(struct rp_stream *bs)
{
	struct rv_stream *s = rv_of(bs);
	struct rp_link_known k = { .gid_index = s->gid_index };
	struct ibv_port_attr pa;

	if (!s->id || !s->id->verbs)
		return NULL;
	if (ibv_query_port(s->id->verbs, s->id->port_num, &pa) == 0)
		k.active_mtu = (uint32_t)(128u << pa.active_mtu);
	return rp_link_rdma(ibv_get_device_name(s->id->verbs->device),
			    s->id->port_num, &k);
}

int rv_counters(struct rp_stream *bs, struct rp_counters *out)
{
	struct rv_stream *s = rv_of(bs);

	if (!s->id || !s->id->verbs)
		return -ENODEV;
	return rp_counters_read_rdma(ibv_get_device_name(s->id->verbs->device),
				     s->id->port_num, out);
}

int rp_link_active_mtu(const char *dev, unsigned port, uint32_t *mtu)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	struct ibv_port_attr pa;
	int i, err = -ENODEV;

	for (i = 0; list && list[i] && !ctx; i++)
		if (!strcmp(ibv_get_device_name(list[i]), dev))
			ctx = ibv_open_device(list[i]);
	if (ctx && port <= 255 &&
	    ibv_query_port(ctx, (uint8_t)port, &pa) == 0) {
		*mtu = 128u << pa.active_mtu;
		err = 0;
	}
	if (ctx)
		ibv_close_device(ctx);
	if (list)
		ibv_free_device_list(list);
	return err;
}
