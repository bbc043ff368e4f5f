// SPDX-License-Identifier: MIT
/*
 * The rdma transport's options and their parsers. Compiled in every build
 * (nothing here needs libibverbs): one without rdma still knows them, and
 * refuses them as the rdma transport's.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/units.h"
#include "xport/verbs/params.h"

static int o_device(void *own, const char *flag, const char *arg, char *err,
		    size_t errlen)
{
	struct rv_opts *o = own;

	if (!arg[0] || strlen(arg) >= sizeof(o->device)) {
		snprintf(err, errlen, "%s: a device name of 1 to %zu chars",
			 flag, sizeof(o->device) - 1);
		return -EINVAL;
	}
	snprintf(o->device, sizeof(o->device), "%s", arg);
	return 0;
}

static int o_ib_port(void *own, const char *flag, const char *arg, char *err,
		     size_t errlen)
{
	uint64_t v;
	int ret = rp_units_count_in(flag, arg, 1, 255, &v, err, errlen);

	if (!ret)
		((struct rv_opts *)own)->ib_port = (int)v;
	return ret;
}

static int o_inline(void *own, const char *flag, const char *arg, char *err,
		    size_t errlen)
{
	uint64_t v;

	if (rp_units_parse_size(arg, &v) || v > 4096) {
		snprintf(err, errlen,
			 "%s: %s out of range: accepted 0 to 4096 bytes", flag,
			 arg);
		return -EINVAL;
	}
	((struct rv_opts *)own)->inline_bytes = (int)v;
	return 0;
}

static int o_gid_index(void *own, const char *flag, const char *arg, char *err,
		       size_t errlen)
{
	uint64_t v;
	int ret = rp_units_count_in(flag, arg, 0, 255, &v, err, errlen);

	if (!ret)
		((struct rv_opts *)own)->gid_index = (int)v;
	return ret;
}

static void defaults(void *own)
{
	struct rv_opts *o = own;

	memset(o, 0, sizeof(*o));
	o->gid_index = -1;
	o->inline_bytes = -1;
}

void rv_opts_init(struct rv_opts *o, const struct rp_xport_params *p)
{
	const struct rv_opts *own = rp_xport_own_c(p, &rp_xport_rdma_options);

	if (own)
		*o = *own;
	else
		defaults(o);
}

static const struct rp_xport_opt opts[] = {
	{ "device", 'd', true, true, "DEV",
	  "device (default: the one routing to the address)",
	  "the device to use (default: the one that owns the route to the "
	  "address).",
	  o_device },
	{ "ib-port", 0, true, true, "N", "device port", "the device port.",
	  o_ib_port },
	{ "inline", 0, true, true, "BYTES",
	  "inline size (default: what the device allows)",
	  "inline data size (default: as much as the device allows for "
	  "small messages).",
	  o_inline },
	{ "gid-index", 0, true, true, "N",
	  "GID index, where rdma_cm cannot decide",
	  "GID index, only where rdma_cm cannot decide.", o_gid_index },
};

_Static_assert(sizeof(struct rv_opts) <= RP_XPORT_OWN_BYTES,
	       "the rdma block fits struct rp_xport_params");

const struct rp_xport_options rp_xport_rdma_options = {
	.transport = "rdma",
	.absent = "libibverbs and librdmacm",
	.opts = opts,
	.n_opts = sizeof(opts) / sizeof(opts[0]),
	.size = sizeof(struct rv_opts),
	.defaults = defaults,
};
