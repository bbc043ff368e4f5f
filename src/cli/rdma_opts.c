// SPDX-License-Identifier: MIT
/* The rdma transport's options (-d, --ib-port, --inline, --gid-index,
 * --mtu): parameters the transport reads, checked here. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/parse.h"
#include "core/units.h"
#include "xport/xport.h"

int rp_cli_o_device(struct parse *p, const char *arg)
{
	if (!arg[0] || strlen(arg) > 63)
		return rp_cli_bad(
			p, "-d/--device: a device name of 1 to 63 chars");
	p->set_rdma = "-d/--device";
	p->cfg->params->device = arg;
	return 0;
}

int rp_cli_o_ib_port(struct parse *p, const char *arg)
{
	uint64_t v;
	int err = rp_cli_num_in(p, "--ib-port", arg, 1, 255, &v);

	p->set_rdma = "--ib-port";

	p->cfg->params->ib_port = (int)v;
	return err;
}

int rp_cli_o_inline(struct parse *p, const char *arg)
{
	uint64_t v;
	int err = rp_units_parse_size(arg, &v);

	p->set_rdma = "--inline";
	if (err || v > 4096)
		return rp_cli_bad(
			p,
			"--inline: %s out of range: accepted 0 to 4096 "
			"bytes",
			arg);
	p->cfg->params->inline_bytes = (int)v;
	return 0;
}

int rp_cli_o_gid_index(struct parse *p, const char *arg)
{
	uint64_t v;
	int err = rp_cli_num_in(p, "--gid-index", arg, 0, 255, &v);

	p->set_rdma = "--gid-index";

	p->cfg->params->gid_index = (int)v;
	return err;
}

int rp_cli_o_mtu(struct parse *p, const char *arg)
{
	uint64_t v;
	int err = rp_cli_num_in(p, "--mtu", arg, 256, 4096, &v);

	p->set_rdma = "--mtu";

	if (!err && (v & (v - 1)))
		return rp_cli_bad(
			p, "--mtu: %s: accepted 256, 512, 1024, 2048, 4096",
			arg);
	p->cfg->params->mtu = (int)v;
	return err;
}

int rp_cli_finish_rdma(struct parse *p)
{
	const struct rp_config *c = p->cfg;
	size_t i;

	if (!p->set_rdma)
		return 0;
	if (!rp_xport_find("rdma"))
		return rp_cli_bad(p,
				  "%s is an option of the rdma transport, "
				  "which this build does not have",
				  p->set_rdma);
	for (i = 0; i < c->n_transports; i++)
		if (!strcmp(c->transports[i], "rdma") ||
		    !strcmp(c->transports[i], "all"))
			return 0;
	return rp_cli_bad(p,
			  "%s applies to the rdma transport only, and -x "
			  "gives none: add rdma to -x",
			  p->set_rdma);
}
