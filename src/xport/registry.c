// SPDX-License-Identifier: MIT
/*
 * The registry: the transports this build has, the first the default, and
 * the option sets of every transport, built or not. Adding a transport is
 * a line in each table below.
 */
#include <string.h>

#include "xport/xport.h"

static const struct rp_xport_ops *const *const registry[] = {
#ifdef RP_HAVE_RDMA
	&rp_xport_rdma,
#endif
	&rp_xport_tcp,
#ifdef RP_HAVE_RDMA
	&rp_xport_rsocket,
#endif
#ifdef RP_HAVE_OFI
	&rp_xport_ofi,
#endif
#ifdef RP_HAVE_URING
	&rp_xport_file, /* a local transport: never the default */
#endif
};

size_t rp_xport_count(void)
{
	return sizeof(registry) / sizeof(registry[0]);
}

const struct rp_xport_ops *rp_xport_at(size_t i)
{
	return i < rp_xport_count() ? *registry[i] : NULL;
}

bool rp_xport_entry_is(const char *entry, const char *name)
{
	size_t n = strlen(name);

	return !strncmp(entry, name, n) &&
	       (!entry[n] || (entry[n] == ':' && entry[n + 1]));
}

const struct rp_xport_ops *rp_xport_find(const char *name)
{
	const struct rp_xport_ops *x;
	size_t i;

	for (i = 0; i < rp_xport_count(); i++) {
		x = *registry[i];
		if (!strcmp(x->name, name) ||
		    (x->variant && rp_xport_entry_is(name, x->name)))
			return x;
	}
	return NULL;
}

static const struct rp_xport_options *const options[] = {
	&rp_xport_rdma_options,
	&rp_xport_file_options,
	&rp_xport_ofi_options,
};

_Static_assert(sizeof(options) / sizeof(options[0]) <= RP_XPORT_MAX_OWN,
	       "struct rp_xport_params has a block for each option set");

size_t rp_xport_options_count(void)
{
	return sizeof(options) / sizeof(options[0]);
}

const struct rp_xport_options *rp_xport_options_at(size_t i)
{
	return i < rp_xport_options_count() ? options[i] : NULL;
}

static size_t own_index(const struct rp_xport_options *o)
{
	size_t i;

	for (i = 0; i < rp_xport_options_count(); i++)
		if (options[i] == o)
			return i;
	return RP_XPORT_MAX_OWN; /* not registered: a bug, caught below */
}

void rp_xport_params_defaults(struct rp_xport_params *p)
{
	size_t i;

	memset(p, 0, sizeof(*p));
	for (i = 0; i < rp_xport_options_count(); i++)
		if (options[i]->defaults)
			options[i]->defaults(&p->own[i]);
}

void *rp_xport_own(struct rp_xport_params *p, const struct rp_xport_options *o)
{
	size_t i = own_index(o);

	return i < RP_XPORT_MAX_OWN ? &p->own[i] : NULL;
}

const void *rp_xport_own_c(const struct rp_xport_params *p,
			   const struct rp_xport_options *o)
{
	size_t i = own_index(o);

	return p && i < RP_XPORT_MAX_OWN ? &p->own[i] : NULL;
}
