// SPDX-License-Identifier: MIT
/*
 * The client's control connection, below every other client_*.c file: a
 * result's failure (client_fail), a request and its reply (client_call),
 * the ERROR that tells the server why the test failed (client_tell), and
 * the connection's opening (client_connect, client_hello).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/safe.h"
#include "platform/clock.h"
#include "platform/net.h"
#include "platform/wait.h"
#include "proto/auth.h"
#include "proto/proto.h"
#include "run/client.h"

#define fail client_fail

int client_fail(struct rp_result *res, int err, const char *code,
		const char *fmt, ...)
{
	va_list ap;

	if (res->failed)
		return err; /* keep the first reason */
	res->failed = true;
	snprintf(res->error_code, sizeof(res->error_code), "%s", code);
	va_start(ap, fmt);
	vsnprintf(res->error, sizeof(res->error), fmt, ap);
	va_end(ap);
	return err;
}

/* Until the reply to @type begins to arrive, in steps of a tenth of a
 * second, so that SIGINT ends a wait in setup at once (*@timeout_ms: what
 * is left of it after). The reply to STOP is awaited whatever happens:
 * it carries the figures of the phase the interrupt cut short.
 * Return: 0, or -EINTR. */
static int await_reply(struct client *c, uint16_t type, int *timeout_ms)
{
	struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
	uint64_t deadline = rp_deadline_ns(*timeout_ms);
	const atomic_int *intr = c->cfg->interrupted;
	int step;

	if (!intr || type == RP_MSG_STOP)
		return 0;
	while (!atomic_load(intr)) {
		*timeout_ms = rp_ms_left(deadline); /* -1: no deadline */
		step = *timeout_ms < 0 || *timeout_ms > 100 ? 100 : *timeout_ms;
		if (!*timeout_ms || rp_poll(&pfd, 1, step) > 0)
			return 0; /* poll's -1 is EINTR, the signal: look */
	}
	return -EINTR;
}

/* Send @type, wait for @want; an ERROR or anything else fails the test. */
int client_call(struct client *c, uint16_t type, const cJSON *body,
		uint16_t want, int timeout_ms, cJSON **reply)
{
	uint16_t got;
	cJSON *r = NULL;
	char text[200], code[sizeof(c->res->error_code)];
	int err;

	err = rp_proto_send(c->fd, type, body, RP_CTRL_TIMEOUT_MS);
	if (err)
		return fail(c->res, err, "control", "sending %s: %s",
			    rp_proto_type_name(type), rp_proto_strerror(err));
	err = await_reply(c, type, &timeout_ms);
	if (err)
		return fail(c->res, err, "interrupted",
			    "interrupted waiting for %s",
			    rp_proto_type_name(want));
	err = rp_proto_recv(c->fd, timeout_ms, &got, &r);
	if (err)
		return fail(c->res, err, "control", "waiting for %s: %s",
			    rp_proto_type_name(want), rp_proto_strerror(err));
	if (got == RP_MSG_ERROR) {
		rp_proto_error_code(r, code, sizeof(code));
		rp_proto_error_text(r, text, sizeof(text));
		err = fail(c->res, -EREMOTEIO, code, "server: %s", text);
		cJSON_Delete(r);
		return err;
	}
	if (got != want) {
		cJSON_Delete(r);
		return fail(c->res, -EPROTO, "protocol", "expected %s, got %s",
			    rp_proto_type_name(want), rp_proto_type_name(got));
	}
	if (reply)
		*reply = r;
	else
		cJSON_Delete(r);
	return 0;
}

/* The server is told why the test failed, once (best effort: it may have
 * ended the test already). */
void client_tell(struct client *c, const char *code, const char *message)
{
	if (c->told)
		return;
	c->told = true;
	rp_proto_send_error(c->fd, code, message);
}

/* The control connection: every address of the server in turn, each
 * within the control timeout. 0, or -errno with the reason in the result:
 * code "resolve" for a name that does not resolve, else "connect". */
int client_connect(struct client *c, const char *host, uint16_t port)
{
	struct rp_err why = { "" };
	struct addrinfo *res;
	rp_sock_t fd = RP_SOCK_INVALID;
	int err, one = 1;

	err = rp_net_resolve(host, port, false, &res, &why);
	if (err)
		return fail(c->res, err, "resolve", "%s", why.msg);
	err = rp_net_dial_addrs(&rp_sock_kernel, res, 0,
				rp_deadline_ns(RP_CTRL_TIMEOUT_MS), &fd);
	freeaddrinfo(res);
	if (err)
		return fail(c->res, err, "connect",
			    "cannot reach %s port %u: %s", host, port,
			    strerror(-err));
	rp_net_setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	rp_net_setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
	c->fd = fd;
	return 0;
}

/* --auth-key: HELLO with a nonce, the server's proof checked, this side's
 * into *@proof (proto/auth.h). Refused: told already, and closed. */
static int authenticate(struct client *c, cJSON **proof)
{
	const struct rp_access *acc = &c->cfg->access;
	struct rp_err why = { "" };
	cJSON *error = NULL;
	char text[200], code[sizeof(c->res->error_code)];
	int err = rp_auth_client(c->fd, acc->key, acc->key_len,
				 RP_CTRL_TIMEOUT_MS, proof, &error, &why);

	if (err == -EREMOTEIO) {
		rp_proto_error_code(error, code, sizeof(code));
		rp_proto_error_text(error, text, sizeof(text));
		fail(c->res, err, code, "server: %s", text);
	} else if (err == -EACCES) {
		fail(c->res, err, "auth", "%s: %s", RP_AUTH_FAILED, why.msg);
		rp_net_close(c->fd);
		c->fd = RP_SOCK_INVALID;
	} else if (err) {
		fail(c->res, err, "control", "%s", rp_err_text(&why, err));
	}
	cJSON_Delete(error);
	return err;
}

int client_hello(struct client *c)
{
	bool keyed = c->cfg->access.key_len > 0;
	cJSON *body = NULL, *reply = NULL;
	int err = 0;

	if (keyed) /* nothing about this host before the server's proof */
		err = authenticate(c, &body);
	else if ((body = cJSON_Duplicate(c->res->client_host, 1)))
		cJSON_AddNumberToObject(body, "proto", RP_PROTO_VERSION);
	if (!err && !body)
		err = fail(c->res, -ENOMEM, "internal", "out of memory");
	if (!err)
		err = client_call(c, keyed ? RP_MSG_AUTH : RP_MSG_HELLO, body,
				  RP_MSG_HELLO, RP_CTRL_TIMEOUT_MS, &reply);
	cJSON_Delete(body);
	if (!err && rp_safe_json(reply)) { /* its hostname reaches a terminal */
		cJSON_Delete(reply);
		err = fail(c->res, -ENOMEM, "internal", "out of memory");
	}
	if (!err) {
		cJSON_DeleteItemFromObjectCaseSensitive(reply, "proto");
		c->res->server_host = reply;
	} else if (err == -ECONNRESET || err == -EPIPE) {
		snprintf(c->res->error, sizeof(c->res->error),
			 "the server closed the connection before HELLO: is "
			 "this address outside its --allow?");
	}
	return err;
}
