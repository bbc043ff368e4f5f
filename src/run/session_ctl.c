// SPDX-License-Identifier: MIT
/*
 * A server session's control connection, below server.c, session.c and
 * server_phase.c: its log line, the ERROR that refuses the client, the
 * next message awaited, and whether the server is stopping.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "proto/proto.h"
#include "run/server.h"

/* One line, in one stdio call: the gate's threads log at the same time,
 * and a call is atomic on its stream where several would interleave. */
void session_log(const struct session *s, const char *fmt, ...)
{
	char line[RP_ERR_LEN + 256];
	va_list ap;

	if (s->srv->cfg->quiet)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(stderr, "rdmaperf server: %s: %s\n", s->peer, line);
}

/* Log, tell the client, and return @err. */
int session_refuse(struct session *s, int err, const char *code,
		   const char *msg)
{
	/* whatever failed, it failed because the server is going away */
	if (session_stopping(s)) {
		code = "shutdown";
		msg = "the server is shutting down";
		err = -ESHUTDOWN;
	}
	session_log(s, "%s: %s", code, msg);
	/* one ERROR per session: the first failure is the cause, what
	 * follows from it is consequence (logged only) */
	if (!s->told)
		rp_proto_send_error(s->fd, code, msg);
	s->told = true;
	return err;
}

int session_expect(struct session *s, uint16_t want, int timeout_ms,
		   cJSON **body)
{
	char text[200];
	uint16_t type;
	int err;

	err = rp_proto_recv(s->fd, timeout_ms, &type, body);
	if (err)
		return session_refuse(s, err, "protocol",
				      rp_proto_strerror(err));
	if (type == RP_MSG_ERROR) {
		rp_proto_error_text(*body, text, sizeof(text));
		session_log(s, "client error: %s", text);
		cJSON_Delete(*body);
		*body = NULL;
		return -ECONNABORTED;
	}
	if (type != want) {
		snprintf(text, sizeof(text), "expected %s, got %s",
			 rp_proto_type_name(want), rp_proto_type_name(type));
		cJSON_Delete(*body);
		*body = NULL;
		return session_refuse(s, -EPROTO, "protocol", text);
	}
	return 0;
}

/* The server is stopping: rp_server_stop(), a shutdown, or the stop flag
 * rp_server_serve() was given (SIGINT, SIGTERM). */
bool server_stopping(const struct rp_server *srv)
{
	return atomic_load(&srv->stop) ||
	       (srv->ext_stop && atomic_load(srv->ext_stop));
}

bool session_stopping(const struct session *s)
{
	return server_stopping(s->srv);
}
