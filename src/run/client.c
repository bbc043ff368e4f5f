// SPDX-License-Identifier: MIT
/*
 * Client driver: one test on one transport, as the control protocol in
 * proto/proto.h draws it: HELLO, TEST, SETUP, connect every stream,
 * STREAMS, then for each point of the sweep START/READY ... STOP/DONE for
 * each phase (client_phase.c), BYE. The sweep's points: client_points.c;
 * the control calls: client_ctl.c; the streams' arrays: client_streams.c.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <stdlib.h>

#include "core/safe.h"
#include "platform/clock.h"
#include "platform/net.h"
#include "platform/wait.h"
#include "proto/auth.h"
#include "proto/proto.h"
#include "run/client.h"
#include "run/ticker.h"
#include "run/flow.h"
#include "xport/rails.h"

#define fail client_fail

void rp_result_fini(struct rp_result *r)
{
	cJSON_Delete(r->client_info);
	cJSON_Delete(r->server_info);
	cJSON_Delete(r->server_host);
	cJSON_Delete(r->client_host);
	r->client_info = r->server_info = r->server_host = NULL;
	r->client_host = NULL;
	cJSON_Delete(r->client_counters);
	cJSON_Delete(r->server_counters);
	cJSON_Delete(r->verdict);
	cJSON_Delete(r->repeat);
	cJSON_Delete(r->slo);
	cJSON_Delete(r->rails);
	cJSON_Delete(r->mcast);
	r->rails = r->mcast = NULL;
	r->client_counters = r->server_counters = r->verdict = NULL;
	r->repeat = r->slo = NULL;
	rp_direction_fini(&r->dir[RP_DIR_C2S]);
	rp_direction_fini(&r->dir[RP_DIR_S2C]);
	rp_intervals_free(r->intervals, r->n_intervals);
	r->intervals = NULL;
	r->n_intervals = 0;
}

/* --rails: where each rail's streams go from and to (rail i of each side
 * meets rail i of the other), and the rails' description for the result. */
struct rails_plan {
	unsigned int n;
	struct rp_rails mine;
	char peer[RP_SPEC_MAX_RAILS][RP_NET_ADDR_LEN];
};

static int plan_rails(struct client *c, const cJSON *reply, const char *addr,
		      struct rails_plan *rp)
{
	int family = strchr(addr, ':') ? AF_INET6 : AF_INET;
	const cJSON *theirs = cJSON_GetObjectItemCaseSensitive(reply, "rails");
	char why[RP_ERR_LEN];
	cJSON *desc, *o;
	unsigned int i;
	int err;

	rp->n = c->spec.rails;
	if (!rp->n)
		return 0;
	err = rp_rails_resolve(c->cfg->test.rails, c->ops->qp_types,
			       c->spec.rail_numa, &rp->mine, why, sizeof(why));
	if (!err)
		err = rp_rails_pick(&rp->mine, rp->n, family, "client", why,
				    sizeof(why));
	if (err)
		return fail(c->res, -EOPNOTSUPP, "unsupported", "%s", why);
	err = rp_rails_addresses(theirs, rp->n, family, rp->peer, why,
				 sizeof(why));
	if (err)
		return fail(c->res, err, "protocol", "%s", why);
	desc = rp_rails_json(&rp->mine, family);
	c->res->rails = cJSON_CreateArray();
	for (i = 0; desc && c->res->rails && i < rp->n; i++) {
		o = cJSON_CreateObject();
		if (!o || !cJSON_AddItemToArray(c->res->rails, o)) {
			cJSON_Delete(o);
			break;
		}
		cJSON_AddNumberToObject(o, "rail", i);
		cJSON_AddItemToObject(
			o, "client",
			cJSON_Duplicate(cJSON_GetArrayItem(desc, (int)i), 1));
		cJSON_AddItemToObject(
			o, "server",
			cJSON_Duplicate(cJSON_GetArrayItem(theirs, (int)i), 1));
	}
	cJSON_Delete(desc);
	if (rp_safe_json(c->res->rails) ||
	    (unsigned int)cJSON_GetArraySize(c->res->rails) != rp->n)
		return fail(c->res, -ENOMEM, "internal", "out of memory");
	return 0;
}

/* Stream i: the client initiates the first n_fwd, the server the rest;
 * with --rails, stream k of each direction runs on rail k % rails. */
static int connect_streams(struct client *c, const cJSON *reply,
			   const cJSON *endpoint, const char *token)
{
	const struct rp_access *acc = &c->cfg->access;
	unsigned int i, k, n = c->n_fwd + c->n_rev;
	char addr[RP_NET_ADDR_LEN], mine[RP_AUTH_STREAM_TOKEN_LEN + 1];
	const struct rp_xport_params *params = c->cfg->test.params;
	struct rp_xport_params p = { 0 };
	struct rp_err why = { "" };
	struct rails_plan rails;
	const char *host;
	enum rp_role role;
	int err;

	/* Where the control connection went, not the name again (it may
	 * resolve to other addresses): the server listens there only. */
	err = rp_net_sock_addr(c->fd, true, addr, sizeof(addr));
	if (err)
		return fail(c->res, err, "transport",
			    "cannot tell the server's address: %s",
			    strerror(-err));
	err = plan_rails(c, reply, addr, &rails);
	if (err)
		return err;
	for (i = 0; i < n; i++) {
		role = i < c->n_fwd ? RP_ROLE_INITIATOR : RP_ROLE_RESPONDER;
		err = rp_auth_stream_token(acc->key, acc->key_len, token, i,
					   mine, sizeof(mine));
		if (err)
			return fail(c->res, -EPROTO, "protocol",
				    "the server's data token is malformed");
		host = addr;
		if (rails.n) { /* a copy, with the rail's address */
			if (params)
				p = *params;
			params = &p;
			k = (i < c->n_fwd ? i : i - c->n_fwd) % rails.n;
			host = rails.peer[k];
			p.src = rp_rail_addr(&rails.mine.rail[k],
					     strchr(addr, ':') ? AF_INET6
							       : AF_INET);
		}
		err = c->ops->connect(c->ops, &c->spec, params, host, endpoint,
				      mine, role, RP_SETUP_TIMEOUT_MS,
				      &c->streams[i], &why);
		if (err) {
			fail(c->res, err, "transport",
			     "%s: connecting data stream %u of %u%s%s: %s",
			     c->ops->name, i + 1, n, rails.n ? " to " : "",
			     rails.n ? host : "", rp_err_text(&why, err));
			client_tell(c, "transport", c->res->error);
			return err;
		}
		if (i < c->n_fwd)
			c->fwd[i].s = c->streams[i];
		else
			c->rev[i - c->n_fwd].s = c->streams[i];
	}
	return 0;
}

static int setup(struct client *c)
{
	cJSON *body = rp_proto_spec_encode(&c->spec), *reply = NULL;
	const cJSON *token, *endpoint;
	int err;

	if (!body)
		return fail(c->res, -ENOMEM, "internal", "out of memory");
	err = client_call(c, RP_MSG_TEST, body, RP_MSG_SETUP,
			  RP_SETUP_TIMEOUT_MS, &reply);
	cJSON_Delete(body);
	if (err)
		return err;
	token = cJSON_GetObjectItemCaseSensitive(reply, "token");
	endpoint = cJSON_GetObjectItemCaseSensitive(reply, "endpoint");
	if (!cJSON_IsString(token) || !cJSON_IsObject(endpoint))
		err = fail(c->res, -EPROTO, "protocol",
			   "SETUP without token or endpoint");
	else
		err = connect_streams(c, reply, endpoint, token->valuestring);
	cJSON_Delete(reply);
	return err;
}

/* Swap the transports' local information with the server's. */
static int exchange(struct client *c)
{
	cJSON *info, *reply = NULL, *mine;
	const cJSON *peer;
	unsigned int i, n = c->n_fwd + c->n_rev;
	int err = client_collect_info(c);

	if (err)
		return err;
	info = c->res->client_info;
	mine = cJSON_CreateObject();
	if (!mine || !cJSON_AddItemReferenceToObject(mine, "streams", info)) {
		cJSON_Delete(mine);
		return fail(c->res, -ENOMEM, "internal", "out of memory");
	}
	err = client_call(c, RP_MSG_STREAMS, mine, RP_MSG_STREAMS,
			  RP_SETUP_TIMEOUT_MS, &reply);
	cJSON_Delete(mine);
	if (err)
		return err;
	peer = cJSON_GetObjectItemCaseSensitive(reply, "streams");
	if (!cJSON_IsArray(peer) || (unsigned)cJSON_GetArraySize(peer) != n) {
		cJSON_Delete(reply);
		return fail(c->res, -EPROTO, "protocol",
			    "STREAMS: the server did not describe %u streams",
			    n);
	}
	c->res->server_info =
		cJSON_DetachItemFromObjectCaseSensitive(reply, "streams");
	cJSON_Delete(reply);
	if (rp_safe_json(c->res->server_info)) /* the report prints it */
		return fail(c->res, -ENOMEM, "internal", "out of memory");
	for (i = 0; i < n; i++) {
		err = c->ops->set_peer(
			c->streams[i],
			cJSON_GetArrayItem(c->res->server_info, (int)i));
		if (err)
			return fail(c->res, err, "transport",
				    "%s: peer info: %s", c->ops->name,
				    rp_err_text(&c->streams[i]->err, err));
	}
	/* what setup and the peer's info made of the first stream */
	if (rp_safe_is_clean(c->streams[0]->note))
		snprintf(c->res->notes, sizeof(c->res->notes), "%s",
			 c->streams[0]->note);
	else /* it may quote the peer */
		rp_safe_text(c->res->notes, sizeof(c->res->notes),
			     c->streams[0]->note);
	return 0;
}

static void release(struct client *c)
{
	unsigned int i;

	for (i = 0; c->streams && i < c->n_fwd + c->n_rev; i++)
		if (c->streams[i])
			c->ops->close(c->streams[i]);
	for (i = 0; c->fwd && i < c->n_fwd; i++) {
		rp_hist_destroy(c->fwd[i].hist);
		rp_hist_destroy(c->fwd[i].corr);
	}
	for (i = 0; c->tick && i < c->n_fwd; i++)
		rp_ticker_fini(&c->tick[i]);
	free(c->tick);
	rp_hist_destroy(c->scratch);
	free(c->streams);
	free(c->fwd);
	free(c->rev);
}

/* BYE after a test that went well, ERROR after one that failed (unless it
 * was told already). Returns whether to wait for the server to close
 * (part_wait()). */
static bool part(struct client *c)
{
	const struct rp_result *res = c->res;

	if (res->failed)
		client_tell(c, "client", res->error);
	else if (rp_proto_send(c->fd, RP_MSG_BYE, NULL, RP_CTRL_TIMEOUT_MS))
		return false;
	/* interrupted: the user is waiting, no next transport to serve */
	return strcmp(res->error_code, "interrupted") != 0;
}

/* Wait, bounded, for the server to close: once it has, it is ready for the
 * next test, so a list of transports never finds it busy, even after one
 * that failed. */
static void part_wait(rp_sock_t fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char buf[256];

	while (rp_poll(&pfd, 1, 2000) > 0 &&
	       rp_net_recv(fd, buf, sizeof(buf), 0) > 0)
		;
}

/* The test against the server after the transport's probe. */
static int run_session(struct client *c, struct rp_result *res, size_t n,
		       size_t *ran, size_t *told)
{
	int err;

	err = client_connect(c, c->cfg->test.host, c->cfg->test.port);
	if (err)
		return err;
	err = client_hello(c);
	if (!err)
		err = client_alloc_streams(c);
	if (!err)
		err = setup(c);
	if (!err)
		err = exchange(c);
	return client_run_points(c, res, n, err, ran, told);
}

int rp_client_run_test(const struct rp_config *cfg, size_t t,
		       struct rp_result *res)
{
	const char *transport = cfg->test.transports[t];
	size_t n = rp_test_points(&cfg->test), ran = 1, told = 0;
	struct client c = { .cfg = cfg, .res = res, .fd = RP_SOCK_INVALID };
	struct rp_err why = { "" };
	const char *route = cfg->test.host;
	char first[RP_NET_ADDR_LEN * 2];
	bool wait;
	int err;

	/* --mcast: the sender's device is the route's to its receivers */
	if (cfg->test.spec.mcast[0] &&
	    !client_mcast_first(cfg, first, sizeof(first)))
		route = first;
	client_init_results(&c, transport, res, n);
	c.ops = rp_xport_find(transport);
	if (!c.ops)
		err = fail(res, -ENOENT, "transport",
			   "transport %s is not built in", transport);
	else if ((err = c.ops->probe(c.ops, &why)))
		fail(res, err, "transport", "%s: %s", transport,
		     rp_err_text(&why, err));
	else if (c.ops->preflight &&
		 (err = c.ops->preflight(c.ops, &cfg->test.spec,
					 cfg->test.params, route, &why)))
		fail(res, err, "unsupported", "%s: %s", transport,
		     rp_err_text(&why, err));
	else if (cfg->test.spec.mcast[0]) /* one sender, receivers */
		err = client_run_mcast(&c, res);
	else if (c.ops->local)
		err = client_run_local(&c, cfg->test.paths[t], res, n, &ran,
				       &told);
	else
		err = run_session(&c, res, n, &ran, &told);
	/* BYE before the data streams close: the server closes its own on
	 * BYE, so both ends of an rdma stream disconnect at once. The other
	 * way round, each stream's close waited out RV_CLOSE_MS for a peer
	 * that was waiting for BYE. */
	wait = rp_sock_valid(c.fd) && part(&c);
	release(&c);
	if (rp_sock_valid(c.fd)) {
		if (wait)
			part_wait(c.fd);
		rp_net_close(c.fd);
	}
	client_finish_results(&c, res, n, ran, told);
	return err;
}
