// SPDX-License-Identifier: MIT
/*
 * The transport's ops table (rp_xport_ofi), the top of ofi/: probe (is
 * libfabric there at all), preflight (can the provider -x names, or the
 * default one, do the operation: else the test is refused, exit 2).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "xport/ofi/ofi.h"

static int ofi_probe(const struct rp_xport_ops *self, struct rp_err *why)
{
	struct fi_info *all = NULL;
	int ret = ofi_fi_getinfo(NULL, &all);

	(void)self;
	fi_freeinfo(all);
	return ret ? rp_errf(why, -ENODEV,
			     "libfabric %u.%u finds no provider (%s); "
			     "try -x tcp",
			     FI_MAJOR(fi_version()), FI_MINOR(fi_version()),
			     fi_strerror(-ret))
		   : 0;
}

static int ofi_preflight(const struct rp_xport_ops *self,
			 const struct rp_spec *spec,
			 const struct rp_xport_params *p, const char *host,
			 struct rp_err *why)
{
	const char *prov = ofi_provider_of(spec->transport);
	struct ofi_want w = ofi_want_of(spec, FI_EP_RDM);
	char name[OFI_NAME_MAX];
	struct ofi_opts o;

	(void)self;
	(void)host;
	ofi_opts_init(&o, p);
	if (!prov &&
	    ofi_default_provider(&o, spec->op, name, sizeof(name), why))
		return -EOPNOTSUPP;
	return ofi_pick_ep(prov ? prov : name, &o, spec->ep_type, &w, why)
		       ? -EOPNOTSUPP
		       : 0;
}

/* The endpoint type a test of @spec gets here: --ep-type's, or what auto
 * picks for its provider (the default's when -x names none). */
static enum fi_ep_type ofi_ep_for(const struct rp_spec *spec, const char *prov)
{
	struct ofi_want w = ofi_want_of(spec, FI_EP_RDM);
	char name[OFI_NAME_MAX];
	struct ofi_opts o;
	struct rp_err why;

	if (spec->ep_type != RP_EP_AUTO)
		return spec->ep_type == RP_EP_MSG ? FI_EP_MSG : FI_EP_RDM;
	ofi_opts_init(&o, NULL);
	if (!prov &&
	    ofi_default_provider(&o, spec->op, name, sizeof(name), &why))
		return FI_EP_RDM;
	return ofi_pick_ep(prov ? prov : name, &o, RP_EP_AUTO, &w, &why)
		       ? FI_EP_RDM
		       : w.ep;
}

/* What a provider allocates for one endpoint beyond our buffers, measured
 * here (libfabric 1.17, peak RSS against -P, doc/ofi.md): ofi_rxm keeps
 * pools of 1024 bounce buffers of FI_OFI_RXM_BUFFER_SIZE (16 KiB), two
 * over verbs (35 MB an endpoint), about five over tcp with tcp's own (79
 * MB); shm about 6 MB; a connected endpoint (FI_EP_MSG, tcp's or verbs')
 * under 1 MB. -x ofi counts as tcp, the default here and the most; the
 * providers not measured (efa, cxi, opx...), nothing. */
static uint64_t ofi_stream_memory(const struct rp_spec *spec)
{
	const char *prov = ofi_provider_of(spec->transport);
	const char *env = getenv("FI_OFI_RXM_BUFFER_SIZE");
	uint64_t buf = 16384, pools;
	char *end;

	if (env && env[0]) {
		unsigned long long v = strtoull(env, &end, 10);

		if (!*end && v && v < (1ULL << 30))
			buf = v;
	}
	if (ofi_ep_for(spec, prov) == FI_EP_MSG)
		return 1ULL << 20;
	if (!prov || !strncmp(prov, "tcp", 3))
		pools = 5;
	else if (!strncmp(prov, "verbs", 5))
		pools = 2;
	else if (!strcmp(prov, "shm"))
		return 6ULL << 20;
	else
		return 0;
	return pools * 1024 * (buf + 1024);
}

static uint64_t ofi_verify_errors(struct rp_stream *bs)
{
	return ofi_of(bs)->verify_errors;
}

static const struct rp_xport_ops ofi_xport_ops = {
	.name = "ofi",
	.op_mask = RP_OP_MASK_ALL,  /* the provider's: ofi_preflight */
	.variant = "PROVIDER",	    /* -x ofi:tcp */
	.mem_kinds = RP_MEM_MAPPED, /* setup.c */
	.stream_memory = ofi_stream_memory,
	.tagged = true,	  /* setup.c: ofi_msg_* */
	.ep_types = true, /* stream.c, cm.c */
	.probe = ofi_probe,
	.preflight = ofi_preflight,
	.listen = ofi_listen,
	.accept = ofi_accept,
	.unlisten = ofi_unlisten,
	.connect = ofi_connect,
	.local_info = ofi_local_info,
	.set_peer = ofi_set_peer,
	.set_point = ofi_set_point,
	.serve = ofi_serve,
	.ping = ofi_ping,
	.post = ofi_post,
	.poll = ofi_poll,
	.arm = ofi_arm,
	.verify_errors = ofi_verify_errors,
	.close = ofi_close,
};

const struct rp_xport_ops *const rp_xport_ofi = &ofi_xport_ops;
