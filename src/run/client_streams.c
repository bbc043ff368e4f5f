// SPDX-License-Identifier: MIT
/*
 * The client's streams, shared by the test against a server (client.c)
 * and the local one (client_local.c): their arrays and histograms, and
 * the transports' local information about each.
 */
#include <errno.h>
#include <stdlib.h>

#include "run/client.h"
#include "run/ticker.h"

#define fail client_fail

int client_alloc_streams(struct client *c)
{
	unsigned int i, n = c->n_fwd + c->n_rev;

	c->streams = calloc(n, sizeof(*c->streams));
	c->fwd = calloc(c->n_fwd, sizeof(*c->fwd));
	c->rev = calloc(c->n_rev ? c->n_rev : 1, sizeof(*c->rev));
	if (!c->streams || !c->fwd || !c->rev || rp_hist_create(&c->scratch))
		return fail(c->res, -ENOMEM, "internal", "out of memory");
	for (i = 0; i < c->n_fwd; i++)
		if (rp_hist_create(&c->fwd[i].hist) ||
		    (c->cfg->test.n_rates && rp_hist_create(&c->fwd[i].corr)))
			return fail(c->res, -ENOMEM, "internal",
				    "out of memory");
	if (!c->cfg->test.interval_s && !c->cfg->progress)
		return 0;
	c->tick = calloc(c->n_fwd, sizeof(*c->tick));
	for (i = 0; c->tick && i < c->n_fwd; i++)
		if (rp_ticker_init(&c->tick[i]))
			break;
	return i < c->n_fwd ? fail(c->res, -ENOMEM, "internal", "out of memory")
			    : 0;
}

/* The transports' local information (addresses, keys, device; a file's
 * path and mode), one object per stream, in stream order, into the
 * result's client_info. */
int client_collect_info(struct client *c)
{
	cJSON *info = cJSON_CreateArray(), *one;
	unsigned int i, n = c->n_fwd + c->n_rev;
	int err = 0;

	for (i = 0; info && !err && i < n; i++) {
		one = cJSON_CreateObject();
		if (!one || !cJSON_AddItemToArray(info, one))
			err = -ENOMEM;
		else
			err = c->ops->local_info(c->streams[i], one);
		if (!err && !i) /* every stream runs on one link */
			err = rp_stream_add_link(c->ops, c->streams[i], one);
	}
	if (!info || err) {
		cJSON_Delete(info);
		return fail(c->res, err ? err : -ENOMEM, "transport",
			    "%s: local info: %s", c->ops->name,
			    rp_err_text(&c->streams[i - 1]->err, err));
	}
	c->res->client_info = info;
	return 0;
}
