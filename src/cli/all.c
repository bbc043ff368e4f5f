// SPDX-License-Identifier: MIT
/* -x all: the transports it stands for on this host. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/all.h"
#include "xport/xport.h"

/* Can @ops run @s as asked, beside the operation? */
static bool fits(const struct rp_xport_ops *ops, const struct rp_spec *s)
{
	return (!s->tos || ops->tos) && (s->qp == RP_QP_RC || ops->qp_types) &&
	       (!(s->sl || s->flow_label || s->path_mtu) || ops->qp_types) &&
	       (!s->tagged || ops->tagged) &&
	       (s->ep_type == RP_EP_AUTO || ops->ep_types) &&
	       (!s->srq || ops->srq) && (!s->rails || ops->rails) &&
	       (s->mem == RP_MEM_HOST || ops->mem_kinds & RP_MEM_BIT(s->mem));
}

int rp_cli_expand_all(struct rp_config *cfg, char *err, size_t len)
{
	const struct rp_spec *s = &cfg->test.spec;
	const struct rp_xport_ops *ops;
	struct rp_err why;
	size_t i;

	if (cfg->test.n_transports != 1 ||
	    strcmp(cfg->test.transports[0], "all"))
		return 0;
	cfg->test.n_transports = 0;
	for (i = 0; i < rp_xport_count(); i++) {
		ops = rp_xport_at(i);
		if (!ops->local && !ops->variant &&
		    ops->probe(ops, &why) == 0 &&
		    rp_xport_check_op(ops, s->op, NULL) == 0 && fits(ops, s))
			snprintf(cfg->test.transports[cfg->test.n_transports++],
				 RP_SPEC_NAME_LEN, "%s", ops->name);
	}
	if (cfg->test.n_transports)
		return 0;
	snprintf(err, len,
		 "-x all: no transport on this host can do %s%s%s%s%s%s%s",
		 rp_op_name(s->op), s->tagged ? " tagged" : "",
		 s->ep_type != RP_EP_AUTO ? " on a chosen --ep-type"
		 : s->srq		  ? " with --srq"
					  : "",
		 s->qp == RP_QP_UC   ? " on UC queue pairs"
		 : s->qp == RP_QP_UD ? " on UD queue pairs"
				     : "",
		 s->tos ? " marked with --tos" : "",
		 s->sl || s->flow_label || s->path_mtu
			 ? " with --sl, --flow-label or --mtu"
			 : "",
		 s->mem != RP_MEM_HOST ? " in --mem's memory"
		 : s->rails	       ? " over --rails"
				       : "");
	return -ENOENT;
}
