// SPDX-License-Identifier: MIT
/*
 * The ofi transport's options and their parsers. Compiled in every build
 * (nothing here needs libfabric): one without ofi still knows them, and
 * refuses them as the ofi transport's.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "xport/ofi/params.h"

static int o_domain(void *own, const char *flag, const char *arg, char *err,
		    size_t errlen)
{
	struct ofi_opts *o = own;

	if (!arg[0] || strlen(arg) >= sizeof(o->domain)) {
		snprintf(err, errlen, "%s: a domain name of 1 to %zu chars",
			 flag, sizeof(o->domain) - 1);
		return -EINVAL;
	}
	snprintf(o->domain, sizeof(o->domain), "%s", arg);
	return 0;
}

void ofi_opts_init(struct ofi_opts *o, const struct rp_xport_params *p)
{
	const struct ofi_opts *own = rp_xport_own_c(p, &rp_xport_ofi_options);

	if (own)
		*o = *own;
	else
		memset(o, 0, sizeof(*o));
	o->mem_path = p ? p->mem_path : NULL;
}

static const struct rp_xport_opt opts[] = {
	{ "ofi-domain", 0, true, true, "NAME",
	  "libfabric domain (fi_info's domain: lo, eth0, mlx5_0)",
	  "the libfabric domain to open, as fi_info names it (tcp: the "
	  "interface, such as lo or eth0; verbs: the device, such as "
	  "mlx5_0); default: the first the provider offers. The domain in "
	  "use is always reported.",
	  o_domain },
};

_Static_assert(sizeof(struct ofi_opts) <= RP_XPORT_OWN_BYTES,
	       "the ofi block fits struct rp_xport_params");

const struct rp_xport_options rp_xport_ofi_options = {
	.transport = "ofi",
	.absent = "libfabric",
	.opts = opts,
	.n_opts = sizeof(opts) / sizeof(opts[0]),
	.size = sizeof(struct ofi_opts),
};
