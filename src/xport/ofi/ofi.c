// SPDX-License-Identifier: MIT
/*
 * The transport's ops table (rp_xport_ofi), the top of ofi/: probe (is
 * libfabric there at all), preflight (can the provider -x names, or the
 * default one, do the operation: else the test is refused, exit 2).
 */
#include <errno.h>

#include "xport/ofi/ofi.h"

static int ofi_probe(const struct rp_xport_ops *self, struct rp_err *why)
{
	struct fi_info *all = NULL;
	int ret = fi_getinfo(OFI_API, NULL, NULL, 0, NULL, &all);

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
	char name[OFI_NAME_MAX];
	struct ofi_opts o;

	(void)self;
	(void)host;
	ofi_opts_init(&o, p);
	if (!prov &&
	    ofi_default_provider(&o, spec->op, name, sizeof(name), why))
		return -EOPNOTSUPP;
	return ofi_check(prov ? prov : name, &o, spec->op, spec->wait, why)
		       ? -EOPNOTSUPP
		       : 0;
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
