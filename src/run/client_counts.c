// SPDX-License-Identifier: MIT
/*
 * What a point added to both ends' counts, after its phases (client.h):
 * --verify's bad messages, --zerocopy's sends. Counts on both sides run
 * over the test; each point takes the difference from the last.
 */
#include <errno.h>

#include "run/client.h"

#define fail client_fail

/* --verify: what this point added to both ends' counts. */
int client_check_verify(struct client *c)
{
	struct rp_result *r = c->res;
	uint64_t total = 0;
	unsigned int i;

	for (i = 0; i < c->n_fwd + c->n_rev; i++)
		total += c->ops->verify_errors(c->streams[i]);
	r->client.verify_errors = total - c->verify_seen;
	c->verify_seen = total;
	if (!r->spec.verify)
		return 0;
	if (r->client.verify_errors || r->server.verify_errors)
		return fail(r, -EIO, "verify",
			    "payload check failed: %llu bad messages on the "
			    "client, %llu on the server",
			    (unsigned long long)r->client.verify_errors,
			    (unsigned long long)r->server.verify_errors);
	return 0;
}

/* --zerocopy: what this point added to both ends' counts (the server's
 * DONE holds its counts over the test). */
void client_count_zerocopy(struct client *c)
{
	struct rp_result *r = c->res;
	struct rp_zc_count now;

	if (!r->spec.zerocopy || !c->ops->zerocopy)
		return;
	rp_streams_zerocopy(c->streams, c->n_fwd + c->n_rev, &now);
	r->client.has_zc = true;
	r->client.zc = rp_zc_sub(&now, &c->zc_seen);
	c->zc_seen = now;
	if (!r->server.has_zc)
		return;
	now = r->server.zc;
	r->server.zc = rp_zc_sub(&now, &c->zc_server_seen);
	c->zc_server_seen = now;
}
