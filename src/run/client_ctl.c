// SPDX-License-Identifier: MIT
/*
 * The client's control connection, below every other client_*.c file: a
 * result's failure (client_fail), a request and its reply (client_call),
 * and the ERROR that tells the server why the test failed (client_tell).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "platform/clock.h"
#include "platform/wait.h"
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
