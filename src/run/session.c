// SPDX-License-Identifier: MIT
/*
 * A server session's setup, on the session thread:
 *
 *   HELLO -> TEST -> (listen, SETUP, accept every stream) -> STREAMS
 *         -> { START -> serving -> STOP -> DONE }* -> BYE (server_phase.c)
 *
 * Any error: ERROR to the client where possible, release, next client.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/clock.h"
#include "platform/net.h"
#include "platform/wait.h"
#include "proto/auth.h"
#include "proto/proto.h"
#include "run/limits.h"
#include "run/server.h"
#include "xport/rails.h"

#define SESSION_POLL_MS 200
#define TOKEN_BYTES	12

/* With --auth-key, the gate's part (server.c): the peer holds no test
 * slot yet, and however it dribbles, HELLO and its proof take one control
 * timeout in all (the server's AUTH goes into an empty send buffer). */
int session_admit(struct session *s)
{
	const struct rp_access *acc = &s->srv->cfg->access;
	uint64_t deadline = rp_deadline_ns(RP_CTRL_TIMEOUT_MS);
	struct rp_err why = { "" };
	cJSON *body = NULL;
	int err;

	err = session_expect(s, RP_MSG_HELLO, RP_CTRL_TIMEOUT_MS, &body);
	if (err)
		return err;
	if (acc->key_len) /* --auth-key: nothing about this host before it */
		err = rp_auth_server(s->fd, acc->key, acc->key_len, body,
				     rp_ms_left(deadline), &why);
	cJSON_Delete(body);
	if (err) {
		session_log(s, "refused: %s: %s", RP_AUTH_FAILED,
			    rp_err_text(&why, err));
		return -ECONNABORTED; /* no test, so no failed one */
	}
	s->admitted = true;
	return 0;
}

static int do_hello(struct session *s)
{
	cJSON *me;
	int err;

	if (!s->admitted && (err = session_admit(s)))
		return err;
	me = rp_host_info();
	if (!me)
		return -ENOMEM;
	cJSON_AddNumberToObject(me, "proto", RP_PROTO_VERSION);
	err = rp_proto_send(s->fd, RP_MSG_HELLO, me, RP_CTRL_TIMEOUT_MS);
	cJSON_Delete(me);
	return err;
}

/* --max-memory is shared by the tests at once: @s takes its buffers'
 * share before anything is allocated, or is told "busy" (it fits alone:
 * another time it will run); session_free() gives it back. */
static int take_memory(struct session *s, char *why, size_t len)
{
	struct rp_server *srv = s->srv;
	uint64_t need = rp_limits_memory(&s->spec);
	uint64_t max = srv->cfg->limits.max_memory;
	uint_fast64_t used = atomic_load(&srv->mem_used);
	char a[32], b[32], c[32];

	do {
		if (used + need > max) {
			snprintf(why, len,
				 "this test's %s of memory and the %s of the "
				 "tests running are over this server's "
				 "--max-memory %s; try again later",
				 rp_limits_size(need, a, sizeof(a)),
				 rp_limits_size(used, b, sizeof(b)),
				 rp_limits_size(max, c, sizeof(c)));
			return -EBUSY;
		}
	} while (!atomic_compare_exchange_weak(&srv->mem_used, &used,
					       used + need));
	s->reserved = need;
	return 0;
}

static int do_test(struct session *s)
{
	struct rp_err why = { "" };
	char err_text[200];
	cJSON *body = NULL;
	int err;

	err = session_expect(s, RP_MSG_TEST, RP_CTRL_TIMEOUT_MS, &body);
	if (err)
		return err;
	err = rp_proto_spec_decode(body, &s->spec, err_text, sizeof(err_text));
	cJSON_Delete(body);
	if (err)
		return session_refuse(s, err, "spec", err_text);
	if (rp_limits_check(&s->srv->cfg->limits, &s->spec, err_text,
			    sizeof(err_text)))
		return session_refuse(s, -EPERM, "limit", err_text);
	if (take_memory(s, err_text, sizeof(err_text)))
		return session_refuse(s, -EBUSY, "busy", err_text);
	s->ops = rp_xport_find(s->spec.transport);
	if (!s->ops || s->ops->local) { /* a client's file is its own */
		snprintf(err_text, sizeof(err_text),
			 "transport %s is not supported by this server%s",
			 s->spec.transport,
			 s->ops ? ": it runs on the client alone" : "");
		return session_refuse(s, -ENOENT, "transport", err_text);
	}
	err = rp_xport_check_op(s->ops, s->spec.op, &why);
	if (!err)
		err = s->ops->probe(s->ops, &why);
	if (err)
		return session_refuse(s, err,
				      err == -EOPNOTSUPP ? "op" : "transport",
				      rp_err_text(&why, err));
	session_log(s, "test: %s %s", s->spec.transport,
		    rp_op_name(s->spec.op));
	return 0;
}

/* The token that admits a data connection: unguessable, or no test. */
static int make_token(char *buf, size_t len)
{
	uint8_t raw[TOKEN_BYTES];
	size_t i;
	int err = rp_random_bytes(raw, sizeof(raw));

	if (err)
		return err;
	for (i = 0; i < sizeof(raw) && 2 * i + 2 < len; i++)
		snprintf(buf + 2 * i, 3, "%02x", raw[i]);
	return 0;
}

/* Log what the listener turned away since the last look (the latest one
 * with its reason, and how many more). */
static void log_drops(struct session *s, unsigned int *seen)
{
	unsigned int n = s->listener->dropped - *seen;

	if (!n)
		return;
	if (n == 1)
		session_log(s, "%s", s->listener->drop_note);
	else
		session_log(s, "%s (and %u more)", s->listener->drop_note,
			    n - 1);
	*seen = s->listener->dropped;
}

/* Accept data stream @i in short slices, watching the control connection
 * meanwhile: a client that failed to connect says so (or goes away), and
 * the server must not stay busy for the whole setup timeout. Each stream
 * presents a token of its own (rp_auth_stream_token: under --auth-key, a
 * MAC under the key), so it lands in its place whatever the order of the
 * connections, and one that is late is waited for, not replaced. */
static int accept_stream(struct session *s, const char *mine, unsigned int i,
			 uint64_t deadline, unsigned int *seen)
{
	struct pollfd pfd = { .fd = s->fd, .events = POLLIN };
	enum rp_role role =
		i < s->n_fwd ? RP_ROLE_RESPONDER : RP_ROLE_INITIATOR;
	int err = -ETIMEDOUT;

	while (err == -ETIMEDOUT && rp_ms_left(deadline) > 0) {
		err = s->ops->accept(s->listener, mine, role, SESSION_POLL_MS,
				     &s->streams[i]);
		log_drops(s, seen);
		if (err != -ETIMEDOUT || s->streams_msg ||
		    rp_poll(&pfd, 1, 0) <= 0)
			continue;
		/* ERROR or EOF: the client gave up. STREAMS: its side of
		 * every connection is up before ours; finish accepting. */
		err = session_expect(s, RP_MSG_STREAMS, RP_CTRL_TIMEOUT_MS,
				     &s->streams_msg);
		if (err)
			return err;
		err = -ETIMEDOUT;
	}
	return err;
}

static int accept_streams(struct session *s, const char *const *tokens)
{
	uint64_t t0 = rp_clock_ns(),
		 deadline = rp_deadline_ns(RP_SETUP_TIMEOUT_MS);
	unsigned int i, seen = 0;
	int err = 0;

	s->n_fwd = s->spec.streams;
	s->n_rev = s->spec.bidir ? s->spec.streams : 0;
	s->streams = calloc(s->n_fwd + s->n_rev, sizeof(*s->streams));
	s->rev = calloc(s->n_rev ? s->n_rev : 1, sizeof(*s->rev));
	if (!s->streams || !s->rev || rp_hist_create(&s->scratch))
		return -ENOMEM;
	for (i = 0; !err && i < s->n_fwd + s->n_rev; i++)
		err = accept_stream(s, tokens[i], i, deadline, &seen);
	if (!err)
		session_log(s, "%u data stream%s connected in %.2f s", i,
			    i == 1 ? "" : "s",
			    (double)(rp_clock_ns() - t0) / RP_NS_PER_SEC);
	for (i = 0; !err && i < s->n_rev; i++) {
		s->rev[i].s = s->streams[s->n_fwd + i];
		err = rp_hist_create(&s->rev[i].hist);
	}
	return err;
}

/* The @n streams' tokens (rp_auth_stream_token) from the test's @token,
 * into *@out (one allocation: the pointers, then the texts). */
static int stream_tokens(struct session *s, const char *token, unsigned int n,
			 char ***out)
{
	const struct rp_access *acc = &s->srv->cfg->access;
	unsigned int i;
	size_t len = RP_AUTH_STREAM_TOKEN_LEN + 1;
	char **t = malloc(n * (sizeof(*t) + len)), *text;
	int err = 0;

	if (!t)
		return -ENOMEM;
	text = (char *)(t + n);
	for (i = 0; !err && i < n; i++) {
		t[i] = text + i * len;
		err = rp_auth_stream_token(acc->key, acc->key_len, token, i,
					   t[i], len);
	}
	if (err) {
		free(t);
		return err;
	}
	*out = t;
	return 0;
}

/* --allow for the data connections, as for the control connection. */
static bool admit_data(const void *ctx, const struct sockaddr *peer)
{
	const struct rp_access *acc = ctx;

	return rp_cidr_admits(acc->allow, acc->n_allow, peer);
}

/* The data listener's parameters: it listens on the address the client
 * reached this server on (the control connection's own end), the one -a
 * names, and the one the client connects its data streams to; it admits
 * what --allow admits. */
static int data_params(struct session *s, struct rp_xport_params *p, char *addr,
		       size_t len)
{
	int err = rp_net_sock_addr(s->fd, false, addr, len);

	*p = *s->srv->cfg->test.params;
	p->admit = admit_data;
	p->admit_ctx = &s->srv->cfg->access;
	if (err)
		return session_refuse(s, err, "server",
				      "cannot tell the control connection's "
				      "local address");
	p->bind = addr;
	return 0;
}

/* --rails: the server's own rails (its --rails, else every active device)
 * for the test's count, in the reply; the listener then takes any address
 * of the family, so that each rail's is one. */
static int setup_rails(struct session *s, struct rp_xport_params *p,
		       cJSON *reply)
{
	const char *arg =
		s->srv->cfg->test.rails[0] ? s->srv->cfg->test.rails : "auto";
	int family = p->bind && strchr(p->bind, ':') ? AF_INET6 : AF_INET;
	char text[RP_ERR_LEN];
	struct rp_rails rails;
	cJSON *a;
	int err;

	if (!s->spec.rails)
		return 0;
	if (!s->ops->rails)
		return session_refuse(s, -EOPNOTSUPP, "unsupported",
				      "--rails: this transport cannot choose "
				      "the NIC a stream takes");
	err = rp_rails_resolve(arg, s->ops->qp_types, s->spec.rail_numa, &rails,
			       text, sizeof(text));
	if (!err)
		err = rp_rails_pick(&rails, s->spec.rails, family, "server",
				    text, sizeof(text));
	if (err)
		return session_refuse(s, -EOPNOTSUPP, "unsupported", text);
	a = rp_rails_json(&rails, family);
	if (!a || !cJSON_AddItemToObject(reply, "rails", a)) {
		cJSON_Delete(a);
		return session_refuse(s, -ENOMEM, "server", "out of memory");
	}
	p->bind = family == AF_INET6 ? "::" : "0.0.0.0";
	return 0;
}

static int do_setup(struct session *s)
{
	cJSON *reply = cJSON_CreateObject(), *ep = cJSON_CreateObject();
	char token[2 * TOKEN_BYTES + 1], text[RP_ERR_LEN + 64];
	char addr[RP_NET_ADDR_LEN], **tokens = NULL;
	unsigned int n = s->spec.streams * (s->spec.bidir ? 2u : 1u);
	struct rp_xport_params p;
	struct rp_err why = { "" };
	int err = -ENOMEM;

	if (!reply || !ep)
		goto out;
	err = make_token(token, sizeof(token));
	if (err) {
		session_refuse(s, err, "server",
			       "no random source for the data token");
		goto out;
	}
	err = stream_tokens(s, token, n, &tokens);
	if (err) {
		session_refuse(s, err, "server",
			       "cannot make the data streams' tokens");
		goto out;
	}
	err = data_params(s, &p, addr, sizeof(addr));
	if (!err)
		err = setup_rails(s, &p, reply);
	if (err)
		goto out;
	p.tokens = (const char *const *)tokens;
	p.n_tokens = n;
	err = s->ops->listen(s->ops, &s->spec, &p, ep, &s->listener, &why);
	if (err) {
		snprintf(text, sizeof(text), "%s: cannot listen: %s",
			 s->ops->name, rp_err_text(&why, err));
		session_refuse(s, err,
			       err == -EOPNOTSUPP ? "unsupported" : "transport",
			       text);
		goto out;
	}
	cJSON_AddStringToObject(reply, "token", token);
	cJSON_AddItemToObject(reply, "endpoint", ep);
	ep = NULL;
	err = rp_proto_send(s->fd, RP_MSG_SETUP, reply, RP_CTRL_TIMEOUT_MS);
	if (!err)
		err = accept_streams(s, (const char *const *)tokens);
	if (err && err != -EPIPE && err != -ECONNABORTED &&
	    err != -ECONNRESET) {
		snprintf(text, sizeof(text), "%s: no data connection: %s",
			 s->ops->name, rp_err_text(&s->listener->err, err));
		session_refuse(s, err, "transport", text);
	}
out:
	free(tokens);
	cJSON_Delete(ep);
	cJSON_Delete(reply);
	return err;
}

/* Every stream's peer information, in stream order, both ways. */
static int do_streams(struct session *s)
{
	unsigned int i, n = s->n_fwd + s->n_rev;
	cJSON *msg = s->streams_msg, *mine = NULL, *arr;
	const cJSON *peer;
	int err = 0;

	s->streams_msg = NULL;
	if (!msg && (err = session_expect(s, RP_MSG_STREAMS,
					  RP_SETUP_TIMEOUT_MS, &msg)))
		return err;
	peer = cJSON_GetObjectItemCaseSensitive(msg, "streams");
	if (!cJSON_IsArray(peer) || cJSON_GetArraySize(peer) != (int)n) {
		cJSON_Delete(msg);
		return session_refuse(s, -EBADMSG, "protocol",
				      "STREAMS does not describe every stream");
	}
	for (i = 0; !err && i < n; i++)
		err = s->ops->set_peer(s->streams[i],
				       cJSON_GetArrayItem(peer, (int)i));
	cJSON_Delete(msg);
	if (err)
		return session_refuse(
			s, err, "transport",
			rp_err_text(&s->streams[i - 1]->err, err));
	mine = cJSON_CreateObject();
	arr = mine ? cJSON_AddArrayToObject(mine, "streams") : NULL;
	for (i = 0, err = arr ? 0 : -ENOMEM; !err && i < n; i++) {
		cJSON *one = cJSON_CreateObject();

		if (!one || !cJSON_AddItemToArray(arr, one))
			err = -ENOMEM;
		else
			err = s->ops->local_info(s->streams[i], one);
		if (!err && !i) /* every stream runs on one link */
			err = rp_stream_add_link(s->ops, s->streams[i], one);
	}
	if (!err)
		err = rp_proto_send(s->fd, RP_MSG_STREAMS, mine,
				    RP_CTRL_TIMEOUT_MS);
	cJSON_Delete(mine);
	return err;
}

int session_run(struct session *s)
{
	int err;

	err = do_hello(s);
	if (!err)
		err = do_test(s);
	if (!err && s->spec.mcast[0]) { /* a receiver of the group */
		err = session_mcast(s);
		session_log(s, "%s",
			    err ? "test ended with an error" : "test done");
		return err;
	}
	if (!err)
		err = do_setup(s);
	if (s->listener) {
		s->ops->unlisten(s->listener);
		s->listener = NULL;
	}
	if (!err)
		err = do_streams(s);
	/* --once: a test is one whose streams connected; a TEST and a close
	 * (a probe, a stray) is none, and does not use the server up */
	if (!err) {
		atomic_fetch_add(&s->srv->tests, 1);
		s->counted = true;
	}
	if (!err)
		err = session_phases(s);
	if (s->streams && s->streams[0] && s->streams[0]->note[0])
		session_log(s, "note: %s", s->streams[0]->note);
	session_log(s, "%s", err ? "test ended with an error" : "test done");
	return err;
}

void session_free(struct session *s)
{
	unsigned int i;

	for (i = 0; s->streams && i < s->n_fwd + s->n_rev; i++)
		if (s->streams[i])
			s->ops->close(s->streams[i]);
	for (i = 0; s->rev && i < s->n_rev; i++) {
		rp_hist_destroy(s->rev[i].hist);
		rp_hist_destroy(s->rev[i].corr);
	}
	rp_hist_destroy(s->scratch);
	cJSON_Delete(s->streams_msg);
	atomic_fetch_sub(&s->srv->mem_used, s->reserved);
	free(s->streams);
	free(s->rev);
	free(s);
}
