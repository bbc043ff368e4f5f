// SPDX-License-Identifier: MIT
/*
 * A stream's endpoint and memory: the fabric and domain fi_getinfo chose,
 * an address vector (FI_EP_RDM) or an EQ (FI_EP_MSG: cm.c), one CQ (with an FD
 * wait object under --wait event), the endpoint, the buffer of slots and its MR
 * as the domain's mr_mode says, a send responder's receives; the facts a report
 * shows.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xport/ofi/ofi.h"

static int ofi_open_cq(struct ofi_stream *s)
{
	struct fi_cq_attr attr = {
		.format = FI_CQ_FORMAT_DATA,
		.size = 2 * (size_t)s->nslots + 64,
		.wait_obj = s->base.spec.wait == RP_WAIT_EVENT ? FI_WAIT_FD
							       : FI_WAIT_NONE,
	};
	int ret = fi_cq_open(s->fab.domain, &attr, &s->cq, NULL);

	if (ret)
		return ofi_fail(s,
				attr.wait_obj == FI_WAIT_FD
					? "fi_cq_open with an FD to wait on "
					  "(--wait event)"
					: "fi_cq_open",
				ret);
	if (attr.wait_obj != FI_WAIT_FD)
		return 0;
	ret = fi_control(&s->cq->fid, FI_GETWAIT, &s->wait_fd);
	return ret ? ofi_fail(s, "fi_control(FI_GETWAIT)", ret) : 0;
}

/* The peer's address: an AV (FI_EP_RDM), or connection events on an EQ
 * (FI_EP_MSG). */
static int ofi_open_addressing(struct ofi_stream *s)
{
	struct fi_av_attr av = { .type = s->fab.info->domain_attr->av_type };
	int ret;

	if (s->ep_type == FI_EP_MSG)
		return ofi_eq_open(s->fab.fabric, &s->eq, &s->base.err);
	if (av.type == FI_AV_UNSPEC)
		av.type = FI_AV_TABLE;
	ret = fi_av_open(s->fab.domain, &av, &s->av, NULL);
	return ret ? ofi_fail(s, "fi_av_open", ret) : 0;
}

static int ofi_open_ep(struct ofi_stream *s)
{
	int ret = ofi_open_addressing(s);

	if (!ret)
		ret = ofi_open_cq(s);
	if (ret)
		return ret;
	ret = fi_endpoint(s->fab.domain, s->fab.info, &s->ep, NULL);
	if (ret)
		return ofi_fail(s, "fi_endpoint", ret);
	ret = fi_ep_bind(s->ep, s->av ? &s->av->fid : &s->eq->fid, 0);
	if (!ret)
		ret = fi_ep_bind(s->ep, &s->cq->fid, FI_TRANSMIT | FI_RECV);
	if (ret)
		return ofi_fail(s, "fi_ep_bind", ret);
	ret = fi_enable(s->ep);
	return ret ? ofi_fail(s, "fi_enable", ret) : 0;
}

/* The least access the operation needs: remote access only where the
 * provider must grant it to someone (ofi_ops[].caps). */
static uint64_t ofi_access(const struct ofi_stream *s)
{
	return FI_SEND | FI_RECV | FI_READ | FI_WRITE |
	       (s->op->caps & (FI_REMOTE_READ | FI_REMOTE_WRITE));
}

static int ofi_reg_mr(struct ofi_stream *s)
{
	int mode = s->fab.info->domain_attr->mr_mode;
	int ret = fi_mr_reg(s->fab.domain, s->buf, s->buf_len, ofi_access(s), 0,
			    1, 0, &s->mr, NULL);

	if (ret)
		return ofi_fail(s, "fi_mr_reg", ret);
	if (mode & FI_MR_ENDPOINT) {
		ret = fi_mr_bind(s->mr, &s->ep->fid, 0);
		if (!ret)
			ret = fi_mr_enable(s->mr);
		if (ret)
			return ofi_fail(s, "fi_mr_bind (FI_MR_ENDPOINT)", ret);
	}
	s->desc = fi_mr_desc(s->mr);
	return 0;
}

static int ofi_alloc(struct ofi_stream *s)
{
	uint32_t i;
	int err;

	s->buf_len = (size_t)s->nslots * s->slot_bytes;
	err = rp_mem_map(&s->mem, s->base.spec.mem, s->opts.mem_path,
			 s->buf_len, &s->base.err);
	if (err)
		return err;
	s->buf = s->mem.p;
	s->ctx = calloc((size_t)s->nslots + OFI_ECHOES + 1, sizeof(*s->ctx));
	s->atom_next = calloc(s->nslots, sizeof(*s->atom_next));
	if (!s->ctx || !s->atom_next)
		return rp_stream_fail(&s->base, -ENOMEM, "out of memory");
	for (i = 0; rp_op_is_atomic(s->base.spec.op) && i < s->nslots; i++) {
		uint64_t one = 1; /* fetch_add's operand */

		memcpy(s->buf + i * s->slot_bytes + 8, &one, sizeof(one));
	}
	/* --verify of reads: slot i holds message i, for any size */
	for (i = 0; ofi_responder(s) && s->op->prefill && s->base.spec.verify &&
		    i < s->nslots;
	     i++)
		rp_payload_fill(s->buf + i * s->slot_bytes, s->slot_bytes, i);
	return 0;
}

int ofi_post_recv(struct ofi_stream *s, uint32_t slot)
{
	ssize_t ret;

	do
		ret = ofi_msg_recv(s, s->buf + (size_t)slot * s->slot_bytes,
				   s->slot_bytes, &s->ctx[slot]);
	while (ret == -FI_EAGAIN && fi_cq_read(s->cq, NULL, 0) <= 0);
	return ret ? ofi_fail(s, "fi_recv", ret) : 0;
}

/* Open what @info (the stream's now) describes: its endpoint, buffer and
 * MR; a send responder's receives posted (FI_EP_MSG: before it connects,
 * so that the first message finds one). */
int ofi_stream_open(struct ofi_stream *s, struct fi_info *info)
{
	uint32_t i;
	int ret;

	s->ep_type = info->ep_attr->type;
	ret = ofi_fabric_open(&s->fab, info, &s->base.err);
	if (!ret) {
		s->inject_max = info->tx_attr->inject_size;
		ret = ofi_open_ep(s);
	}
	if (!ret)
		ret = ofi_alloc(s);
	if (!ret)
		ret = ofi_reg_mr(s);
	for (i = 0;
	     !ret && ofi_responder(s) && s->op->receives && i < s->nslots; i++)
		ret = ofi_post_recv(s, i);
	return ret;
}

/* The endpoint before what is bound to it. */
void ofi_stream_close(struct ofi_stream *s)
{
	if (s->ep)
		fi_close(&s->ep->fid);
	if (s->mr)
		fi_close(&s->mr->fid);
	if (s->cq)
		fi_close(&s->cq->fid);
	if (s->av)
		fi_close(&s->av->fid);
	if (s->eq)
		fi_close(&s->eq->fid);
	ofi_fabric_close(&s->fab);
	rp_mem_unmap(&s->mem);
	free(s->ctx);
	free(s->atom_next);
}

/* What a report shows: the provider and its version, libfabric's, the
 * endpoint type, fabric, domain, the MR modes the domain asked for, and
 * FI_UNIVERSE_SIZE (fabric.c). */
int ofi_info_facts(const struct ofi_stream *s, cJSON *info)
{
	const struct fi_info *i = s->fab.info;
	char ver[32], lib[32], mr[160], sum[384];
	uint32_t v = i->fabric_attr->prov_version;

	snprintf(ver, sizeof(ver), "%u.%u", FI_MAJOR(v), FI_MINOR(v));
	snprintf(lib, sizeof(lib), "%u.%u", FI_MAJOR(fi_version()),
		 FI_MINOR(fi_version()));
	ofi_mr_mode_text(i->domain_attr->mr_mode, mr, sizeof(mr));
	snprintf(sum, sizeof(sum),
		 "libfabric %s, provider %s %s, %s, fabric %s, domain %s, "
		 "mr_mode %s, universe %s",
		 lib, i->fabric_attr->prov_name, ver,
		 ofi_ep_type_name(i->ep_attr->type), i->fabric_attr->name,
		 i->domain_attr->name, mr, ofi_universe());
	return cJSON_AddStringToObject(info, "provider",
				       i->fabric_attr->prov_name) &&
			       cJSON_AddStringToObject(info, "provider_version",
						       ver) &&
			       cJSON_AddStringToObject(info, "libfabric",
						       lib) &&
			       cJSON_AddStringToObject(
				       info, "ep_type",
				       ofi_ep_type_name(i->ep_attr->type)) &&
			       cJSON_AddStringToObject(info, "fabric",
						       i->fabric_attr->name) &&
			       cJSON_AddStringToObject(info, "domain",
						       i->domain_attr->name) &&
			       cJSON_AddStringToObject(info, "mr_mode", mr) &&
			       cJSON_AddStringToObject(info, "universe",
						       ofi_universe()) &&
			       cJSON_AddStringToObject(info, "summary", sum)
		       ? 0
		       : -ENOMEM;
}
