// SPDX-License-Identifier: MIT
/*
 * The client's run of a local transport (-x file:PATH): no server, no
 * control connection; the streams open here and the sweep's points run
 * through the same phases (client_phase.c) as on any transport.
 */
#include <stdio.h>

#include "run/client.h"

#define fail client_fail

/* A local transport (-x file:PATH): no server, no control connection;
 * this side connect()s its streams itself, on @path. */
int client_run_local(struct client *c, const char *path, struct rp_result *res,
		     size_t n, size_t *ran, size_t *told)
{
	struct rp_xport_params p = *c->cfg->test.params;
	struct rp_err why = { "" };
	unsigned int i;
	int err = client_alloc_streams(c);

	p.path = path;
	for (i = 0; !err && i < c->n_fwd; i++) {
		p.stream = i;
		err = c->ops->connect(c->ops, &c->spec, &p, NULL, NULL, NULL,
				      RP_ROLE_INITIATOR, RP_SETUP_TIMEOUT_MS,
				      &c->streams[i], &why);
		if (err)
			fail(c->res, err, "transport", "%s:%s", c->ops->name,
			     rp_err_text(&why, err));
		else
			c->fwd[i].s = c->streams[i];
	}
	if (!err)
		snprintf(c->res->notes, sizeof(c->res->notes), "%s",
			 c->streams[0]->note);
	if (!err)
		err = client_collect_info(c);
	return client_run_points(c, res, n, err, ran, told);
}
