/* SPDX-License-Identifier: MIT */
/*
 * The ofi transport's own options (--ofi-domain), in every build: the
 * block they fill in struct rp_xport_params, which this side's streams
 * copy at creation.
 */
#ifndef RP_XPORT_OFI_PARAMS_H
#define RP_XPORT_OFI_PARAMS_H

#include "xport/xport.h"

#define OFI_DOMAIN_LEN 64

struct ofi_opts {
	char domain[OFI_DOMAIN_LEN]; /* "": the provider's first */
	const char *mem_path; /* no option: the params' --mem file:PATH */
};

/** ofi_opts_init - @p's ofi block into @o; the defaults when @p is NULL. */
void ofi_opts_init(struct ofi_opts *o, const struct rp_xport_params *p);

#endif
