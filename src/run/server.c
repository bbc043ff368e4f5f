// SPDX-License-Identifier: MIT
/*
 * Server driver. The main thread accepts control connections; one session
 * thread runs the current test; a client that arrives meanwhile is told
 * ERROR "busy" and closed. During a phase a responder thread runs the
 * transport's serve() while the session thread watches the control
 * connection for STOP, ERROR or the client's disappearance.
 *
 * Session states:
 *   HELLO -> TEST -> (listen, SETUP, accept) -> STREAMS
 *         -> { START -> serving -> STOP -> DONE }* -> BYE
 * Any error: ERROR to the client where possible, release, next client.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/clock.h"
#include "platform/net.h"
#include "platform/wait.h"
#include "proto/proto.h"
#include "run/run.h"

#define SESSION_POLL_MS 200
#define TOKEN_BYTES	12

struct rp_server {
	const struct rp_config *cfg;
	int fd;
	uint16_t port;
	atomic_int busy;
	atomic_int tests;  /* sessions that got as far as a TEST */
	atomic_int failed; /* of those, how many failed */
	atomic_int stop;   /* rp_server_stop() */
	pthread_t thread;
	bool joinable;
};

struct session {
	struct rp_server *srv;
	int fd;
	char peer[64];
	struct rp_spec spec;
	const struct rp_xport_ops *ops;
	struct rp_listener *listener;
	struct rp_stream *stream;
	cJSON *streams; /* STREAMS that arrived while accepting */
};

struct responder {
	struct rp_stream *stream;
	enum rp_phase phase;
	atomic_int stop;
	atomic_int finished;
	int rc;
	struct rp_side_stats st;
	bool thread_cpu; /* loopback: count this thread, not the process */
	struct rp_cpu_sample cpu_a, cpu_b;
};

__attribute__((format(printf, 2, 3))) static void
logmsg(const struct session *s, const char *fmt, ...)
{
	va_list ap;

	if (s->srv->cfg->quiet)
		return;
	fprintf(stderr, "rdmaperf server: %s: ", s->peer);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Log, tell the client, and return @err. */
static int refuse(struct session *s, int err, const char *code, const char *msg)
{
	logmsg(s, "%s: %s", code, msg);
	rp_proto_send_error(s->fd, code, msg);
	return err;
}

static int expect(struct session *s, uint16_t want, int timeout_ms,
		  cJSON **body)
{
	char text[200];
	uint16_t type;
	int err;

	err = rp_proto_recv(s->fd, timeout_ms, &type, body);
	if (err)
		return refuse(s, err, "protocol", rp_proto_strerror(err));
	if (type == RP_MSG_ERROR) {
		rp_proto_error_text(*body, text, sizeof(text));
		logmsg(s, "client error: %s", text);
		cJSON_Delete(*body);
		*body = NULL;
		return -ECONNABORTED;
	}
	if (type != want) {
		snprintf(text, sizeof(text), "expected %s, got %s",
			 rp_proto_type_name(want), rp_proto_type_name(type));
		cJSON_Delete(*body);
		*body = NULL;
		return refuse(s, -EPROTO, "protocol", text);
	}
	return 0;
}

static int do_hello(struct session *s)
{
	cJSON *body = NULL, *me;
	int err;

	err = expect(s, RP_MSG_HELLO, RP_CTRL_TIMEOUT_MS, &body);
	if (err)
		return err;
	cJSON_Delete(body);
	me = rp_host_info();
	if (!me)
		return -ENOMEM;
	cJSON_AddNumberToObject(me, "proto", RP_PROTO_VERSION);
	err = rp_proto_send(s->fd, RP_MSG_HELLO, me, RP_CTRL_TIMEOUT_MS);
	cJSON_Delete(me);
	return err;
}

static int do_test(struct session *s)
{
	struct rp_err why = { "" };
	char err_text[200];
	cJSON *body = NULL;
	int err;

	err = expect(s, RP_MSG_TEST, RP_CTRL_TIMEOUT_MS, &body);
	if (err)
		return err;
	err = rp_proto_spec_decode(body, &s->spec, err_text, sizeof(err_text));
	cJSON_Delete(body);
	if (err)
		return refuse(s, err, "spec", err_text);
	s->ops = rp_xport_find(s->spec.transport);
	if (!s->ops) {
		snprintf(err_text, sizeof(err_text),
			 "transport %s is not supported by this server",
			 s->spec.transport);
		return refuse(s, -ENOENT, "transport", err_text);
	}
	err = s->ops->probe(s->ops, &why);
	if (err)
		return refuse(s, err, "transport", rp_err_text(&why, err));
	logmsg(s, "test: %s %s", s->spec.transport, rp_op_name(s->spec.op));
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

/* Accept the data stream in short slices, watching the control connection
 * meanwhile: a client that failed to connect says so (or goes away), and
 * the server must not stay busy for the whole setup timeout. */
static int accept_stream(struct session *s, const char *token)
{
	struct pollfd pfd = { .fd = s->fd, .events = POLLIN };
	int waited, err = -ETIMEDOUT;

	for (waited = 0; waited < RP_SETUP_TIMEOUT_MS && err == -ETIMEDOUT;
	     waited += SESSION_POLL_MS) {
		err = s->ops->accept(s->listener, token, SESSION_POLL_MS,
				     &s->stream);
		if (err != -ETIMEDOUT || poll(&pfd, 1, 0) <= 0)
			continue;
		/* ERROR or EOF: the client gave up. STREAMS: its side of
		 * the connection is up before ours; finish accepting. */
		err = expect(s, RP_MSG_STREAMS, RP_CTRL_TIMEOUT_MS,
			     &s->streams);
		if (err)
			return err;
		return s->ops->accept(s->listener, token,
				      RP_SETUP_TIMEOUT_MS - waited, &s->stream);
	}
	return err;
}

static int do_setup(struct session *s)
{
	cJSON *reply = cJSON_CreateObject(), *ep = cJSON_CreateObject();
	char token[2 * TOKEN_BYTES + 1], text[RP_ERR_LEN + 64];
	struct rp_err why = { "" };
	int err = -ENOMEM;

	if (!reply || !ep)
		goto out;
	err = make_token(token, sizeof(token));
	if (err) {
		refuse(s, err, "server", "no random source for the data token");
		goto out;
	}
	err = s->ops->listen(s->ops, &s->spec, &s->srv->cfg->params, ep,
			     &s->listener, &why);
	if (err) {
		snprintf(text, sizeof(text), "%s: cannot listen: %s",
			 s->ops->name, rp_err_text(&why, err));
		refuse(s, err, "transport", text);
		goto out;
	}
	cJSON_AddStringToObject(reply, "token", token);
	cJSON_AddItemToObject(reply, "endpoint", ep);
	ep = NULL;
	err = rp_proto_send(s->fd, RP_MSG_SETUP, reply, RP_CTRL_TIMEOUT_MS);
	if (!err)
		err = accept_stream(s, token);
	if (err && err != -EPIPE && err != -ECONNABORTED &&
	    err != -ECONNRESET) {
		snprintf(text, sizeof(text), "%s: no data connection: %s",
			 s->ops->name, rp_err_text(&s->listener->err, err));
		refuse(s, err, "transport", text);
	}
out:
	cJSON_Delete(ep);
	cJSON_Delete(reply);
	return err;
}

static int do_streams(struct session *s)
{
	cJSON *peer = NULL, *mine;
	int err;

	if (s->streams) {
		peer = s->streams;
		s->streams = NULL;
	} else {
		err = expect(s, RP_MSG_STREAMS, RP_SETUP_TIMEOUT_MS, &peer);
		if (err)
			return err;
	}
	err = s->stream->ops->set_peer(s->stream, peer);
	cJSON_Delete(peer);
	if (err)
		return refuse(s, err, "transport",
			      rp_err_text(&s->stream->err, err));
	mine = cJSON_CreateObject();
	if (!mine)
		return -ENOMEM;
	err = s->stream->ops->local_info(s->stream, mine);
	if (!err)
		err = rp_proto_send(s->fd, RP_MSG_STREAMS, mine,
				    RP_CTRL_TIMEOUT_MS);
	cJSON_Delete(mine);
	return err;
}

static void *responder_main(void *arg)
{
	struct responder *r = arg;

	if (r->thread_cpu)
		rp_cpu_sample(&r->cpu_a, true);
	r->rc = r->stream->ops->serve(r->stream, r->phase, &r->stop, &r->st);
	if (r->thread_cpu)
		rp_cpu_sample(&r->cpu_b, true);
	atomic_store(&r->finished, 1);
	return NULL;
}

/* Wait for the client's STOP while the responder runs. */
static int await_stop(struct session *s, struct responder *r,
		      enum rp_phase phase, cJSON **body)
{
	struct pollfd pfd = { .fd = s->fd, .events = POLLIN };
	char text[RP_ERR_LEN + 32];
	int n;

	for (;;) {
		if (atomic_load(&r->finished) && r->rc) {
			snprintf(text, sizeof(text), "%s phase: %s",
				 rp_phase_name(phase),
				 rp_err_text(&r->stream->err, r->rc));
			return refuse(s, r->rc, "transport", text);
		}
		n = poll(&pfd, 1, SESSION_POLL_MS);
		if (n < 0 && errno != EINTR)
			return -errno;
		if (n > 0)
			return expect(s, RP_MSG_STOP, RP_CTRL_TIMEOUT_MS, body);
	}
}

static cJSON *done_body(const struct responder *r,
			const struct rp_cpu_usage *cpu)
{
	cJSON *d = cJSON_CreateObject(), *c;

	if (!d)
		return NULL;
	cJSON_AddNumberToObject(d, "messages", (double)r->st.messages);
	cJSON_AddNumberToObject(d, "bytes", (double)r->st.bytes);
	cJSON_AddNumberToObject(d, "verify_errors",
				(double)r->st.verify_errors);
	c = cJSON_AddObjectToObject(d, "cpu");
	if (c) {
		cJSON_AddNumberToObject(c, "user_s", cpu->user_s);
		cJSON_AddNumberToObject(c, "sys_s", cpu->sys_s);
		cJSON_AddNumberToObject(c, "host_busy_s", cpu->host_busy_s);
		cJSON_AddNumberToObject(c, "host_util", cpu->host_util);
	}
	return d;
}

static int run_phase(struct session *s, enum rp_phase phase)
{
	struct responder r = {
		.stream = s->stream,
		.phase = phase,
		.thread_cpu = s->srv->cfg->mode == RP_MODE_LOOPBACK,
	};
	struct rp_cpu_usage cpu;
	cJSON *body = NULL;
	pthread_t t;
	int err;

	rp_cpu_sample(&r.cpu_a, false);
	err = pthread_create(&t, NULL, responder_main, &r);
	if (err)
		return refuse(s, -err, "server", "cannot start a thread");
	err = rp_proto_send(s->fd, RP_MSG_READY, NULL, RP_CTRL_TIMEOUT_MS);
	if (!err)
		err = await_stop(s, &r, phase, &body);
	atomic_store(&r.stop, 1);
	pthread_join(t, NULL);
	cJSON_Delete(body);
	if (err)
		return err;
	if (!r.thread_cpu)
		rp_cpu_sample(&r.cpu_b, false);
	rp_cpu_usage(&r.cpu_a, &r.cpu_b, r.st.bytes, &cpu);
	body = done_body(&r, &cpu);
	err = body ? rp_proto_send(s->fd, RP_MSG_DONE, body, RP_CTRL_TIMEOUT_MS)
		   : -ENOMEM;
	cJSON_Delete(body);
	return err;
}

static int phase_of(struct session *s, const cJSON *body, enum rp_phase *p)
{
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(body, "phase");

	if (!cJSON_IsString(name) || rp_phase_parse(name->valuestring, p))
		return refuse(s, -EBADMSG, "protocol", "START without a phase");
	return 0;
}

/* START/STOP pairs until BYE. */
static int do_phases(struct session *s)
{
	enum rp_phase phase;
	cJSON *body = NULL;
	uint16_t type;
	int err;

	for (;;) {
		err = rp_proto_recv(s->fd, RP_SETUP_TIMEOUT_MS, &type, &body);
		if (err)
			return refuse(s, err, "protocol",
				      rp_proto_strerror(err));
		if (type == RP_MSG_BYE) {
			cJSON_Delete(body);
			return 0;
		}
		err = type == RP_MSG_START ? phase_of(s, body, &phase)
					   : refuse(s, -EPROTO, "protocol",
						    "expected START or BYE");
		cJSON_Delete(body);
		if (err)
			return err;
		err = run_phase(s, phase);
		if (err)
			return err;
	}
}

static int session_run(struct session *s)
{
	int err;

	err = do_hello(s);
	if (!err)
		err = do_test(s);
	if (!err)
		atomic_fetch_add(&s->srv->tests, 1);
	if (!err)
		err = do_setup(s);
	if (s->listener) {
		s->ops->unlisten(s->listener);
		s->listener = NULL;
	}
	if (!err)
		err = do_streams(s);
	if (!err)
		err = do_phases(s);
	if (s->stream && s->stream->note[0])
		logmsg(s, "note: %s", s->stream->note);
	if (s->stream)
		s->stream->ops->close(s->stream);
	logmsg(s, "%s", err ? "test ended with an error" : "test done");
	return err;
}

static void *session_main(void *arg)
{
	struct session *s = arg;
	struct rp_server *srv = s->srv;

	int fd = s->fd, err = session_run(s);

	cJSON_Delete(s->streams);
	if (err && err != -ECONNABORTED)
		atomic_fetch_add(&srv->failed, 1);
	free(s);
	/* Free before the client sees the close: it may come back at once
	 * (the next transport of -x a,b) and must not be told "busy". */
	atomic_store(&srv->busy, 0);
	close(fd);
	return NULL;
}

static void peer_name(int fd, char *buf, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char host[NI_MAXHOST] = "?", serv[NI_MAXSERV] = "?";

	if (getpeername(fd, (struct sockaddr *)&ss, &sl) == 0)
		getnameinfo((struct sockaddr *)&ss, sl, host, sizeof(host),
			    serv, sizeof(serv),
			    NI_NUMERICHOST | NI_NUMERICSERV);
	snprintf(buf, len, "%s:%s", host, serv);
}

static void turn_away(struct rp_server *srv, int fd)
{
	char who[64];

	peer_name(fd, who, sizeof(who));
	if (!srv->cfg->quiet)
		fprintf(stderr, "rdmaperf server: %s: busy, turned away\n",
			who);
	rp_proto_send_error(fd, "busy",
			    "server is running another test; try again later");
	close(fd);
}

static int start_session(struct rp_server *srv, int fd)
{
	struct session *s = calloc(1, sizeof(*s));
	int one = 1, err;

	if (!s) {
		close(fd);
		return -ENOMEM;
	}
	s->srv = srv;
	s->fd = fd;
	peer_name(fd, s->peer, sizeof(s->peer));
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
	if (srv->joinable)
		pthread_join(srv->thread, NULL);
	atomic_store(&srv->busy, 1);
	err = pthread_create(&srv->thread, NULL, session_main, s);
	srv->joinable = err == 0;
	if (err) {
		atomic_store(&srv->busy, 0);
		close(fd);
		free(s);
		return -err;
	}
	return 0;
}

static bool stopping(struct rp_server *srv, const atomic_int *stop)
{
	return atomic_load(&srv->stop) || (stop && atomic_load(stop));
}

void rp_server_stop(struct rp_server *srv)
{
	atomic_store(&srv->stop, 1);
}

int rp_server_serve(struct rp_server *srv, bool once, const atomic_int *stop)
{
	struct pollfd pfd = { .fd = srv->fd, .events = POLLIN };
	int fd, n, err = 0;

	while (!stopping(srv, stop)) {
		/* --once: one test, not one connection (a port probe is none)
		 */
		if (once && atomic_load(&srv->tests) &&
		    !atomic_load(&srv->busy))
			break;
		n = poll(&pfd, 1, SESSION_POLL_MS);
		if (n <= 0)
			continue;
		fd = accept(srv->fd, NULL, NULL);
		if (fd < 0) {
			rp_net_accept_failed(errno, RP_NO_DEADLINE);
			continue;
		}
		if (atomic_load(&srv->busy))
			turn_away(srv, fd);
		else
			err = start_session(srv, fd);
		if (err)
			break;
	}
	if (srv->joinable)
		pthread_join(srv->thread, NULL);
	srv->joinable = false;
	if (!err && once && atomic_load(&srv->failed))
		err = -ECANCELED;
	return err;
}

int rp_server_open(const struct rp_config *cfg, struct rp_server **out)
{
	struct rp_server *srv = calloc(1, sizeof(*srv));
	int err;

	if (!srv)
		return -ENOMEM;
	srv->cfg = cfg;
	err = rp_net_listen(&rp_sock_kernel, cfg->host, cfg->port, 16,
			    &srv->fd);
	if (err) {
		free(srv);
		return err;
	}
	srv->port = (uint16_t)rp_net_local_port(&rp_sock_kernel, srv->fd);
	*out = srv;
	return 0;
}

uint16_t rp_server_port(const struct rp_server *srv)
{
	return srv->port;
}

void rp_server_close(struct rp_server *srv)
{
	if (!srv)
		return;
	if (srv->joinable)
		pthread_join(srv->thread, NULL);
	close(srv->fd);
	free(srv);
}
