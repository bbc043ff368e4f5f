// SPDX-License-Identifier: MIT
/*
 * Client driver: one test on one transport, as the control protocol in
 * proto/proto.h draws it: HELLO, TEST, SETUP, connect, STREAMS, then
 * START/READY ... STOP/DONE for each phase, BYE.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/json.h"
#include "platform/net.h"
#include "proto/proto.h"
#include "run/run.h"

struct client {
	const struct rp_config *cfg;
	const struct rp_xport_ops *ops;
	struct rp_spec spec;
	struct rp_result *res;
	int fd;
	struct rp_stream *stream;
};

__attribute__((format(printf, 4, 5))) static int
fail(struct rp_result *res, int err, const char *code, const char *fmt, ...)
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

void rp_result_fini(struct rp_result *r)
{
	cJSON_Delete(r->client_info);
	cJSON_Delete(r->server_info);
	cJSON_Delete(r->server_host);
	cJSON_Delete(r->client_host);
	r->client_info = r->server_info = r->server_host = NULL;
	r->client_host = NULL;
}

/* The control connection: every address of @host in turn, each within
 * the control timeout. */
static int ctl_connect(const char *host, uint16_t port, int *out)
{
	int fd = -1, err, one = 1;

	err = rp_net_dial(&rp_sock_kernel, host, port,
			  rp_deadline_ns(RP_CTRL_TIMEOUT_MS), &fd);
	if (err)
		return err;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
	*out = fd;
	return 0;
}

/* Send @type, wait for @want; an ERROR or anything else fails the test. */
static int ctl_call(struct client *c, uint16_t type, const cJSON *body,
		    uint16_t want, int timeout_ms, cJSON **reply)
{
	uint16_t got;
	cJSON *r = NULL;
	char text[200];
	int err;

	err = rp_proto_send(c->fd, type, body, RP_CTRL_TIMEOUT_MS);
	if (err)
		return fail(c->res, err, "control", "sending %s: %s",
			    rp_proto_type_name(type), rp_proto_strerror(err));
	err = rp_proto_recv(c->fd, timeout_ms, &got, &r);
	if (err)
		return fail(c->res, err, "control", "waiting for %s: %s",
			    rp_proto_type_name(want), rp_proto_strerror(err));
	if (got == RP_MSG_ERROR) {
		const cJSON *code = cJSON_GetObjectItemCaseSensitive(r, "code");

		rp_proto_error_text(r, text, sizeof(text));
		err = fail(c->res, -EREMOTEIO,
			   cJSON_IsString(code) ? code->valuestring : "server",
			   "server: %s", text);
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

static int hello(struct client *c)
{
	cJSON *body = cJSON_Duplicate(c->res->client_host, 1), *reply = NULL;
	int err;

	if (!body)
		return fail(c->res, -ENOMEM, "internal", "out of memory");
	cJSON_AddNumberToObject(body, "proto", RP_PROTO_VERSION);
	err = ctl_call(c, RP_MSG_HELLO, body, RP_MSG_HELLO, RP_CTRL_TIMEOUT_MS,
		       &reply);
	cJSON_Delete(body);
	if (!err) {
		cJSON_DeleteItemFromObjectCaseSensitive(reply, "proto");
		c->res->server_host = reply;
	}
	return err;
}

static int setup(struct client *c)
{
	cJSON *body = rp_proto_spec_encode(&c->spec), *reply = NULL;
	const cJSON *token, *endpoint;
	struct rp_err why = { "" };
	int err;

	if (!body)
		return fail(c->res, -ENOMEM, "internal", "out of memory");
	err = ctl_call(c, RP_MSG_TEST, body, RP_MSG_SETUP, RP_SETUP_TIMEOUT_MS,
		       &reply);
	cJSON_Delete(body);
	if (err)
		return err;
	token = cJSON_GetObjectItemCaseSensitive(reply, "token");
	endpoint = cJSON_GetObjectItemCaseSensitive(reply, "endpoint");
	if (!cJSON_IsString(token) || !cJSON_IsObject(endpoint)) {
		cJSON_Delete(reply);
		return fail(c->res, -EPROTO, "protocol",
			    "SETUP without token or endpoint");
	}
	err = c->ops->connect(c->ops, &c->spec, &c->cfg->params, c->cfg->host,
			      endpoint, token->valuestring, RP_SETUP_TIMEOUT_MS,
			      &c->stream, &why);
	cJSON_Delete(reply);
	if (err) {
		fail(c->res, err, "transport",
		     "%s: connecting the data stream: %s", c->ops->name,
		     rp_err_text(&why, err));
		rp_proto_send_error(c->fd, "transport", c->res->error);
		return err;
	}
	snprintf(c->res->notes, sizeof(c->res->notes), "%s", c->stream->note);
	return 0;
}

/* Swap the transports' local information (addresses, keys, device). */
static int exchange(struct client *c)
{
	cJSON *info = cJSON_CreateObject(), *reply = NULL;
	int err;

	if (!info)
		return fail(c->res, -ENOMEM, "internal", "out of memory");
	err = c->ops->local_info(c->stream, info);
	if (err) {
		cJSON_Delete(info);
		return fail(c->res, err, "transport", "%s: local info: %s",
			    c->ops->name, rp_err_text(&c->stream->err, err));
	}
	c->res->client_info = info;
	err = ctl_call(c, RP_MSG_STREAMS, info, RP_MSG_STREAMS,
		       RP_SETUP_TIMEOUT_MS, &reply);
	if (err)
		return err;
	c->res->server_info = reply;
	err = c->ops->set_peer(c->stream, reply);
	if (err)
		return fail(c->res, err, "transport", "%s: peer info: %s",
			    c->ops->name, rp_err_text(&c->stream->err, err));
	return 0;
}

static void server_side(const cJSON *done, struct rp_side *side)
{
	const cJSON *cpu = cJSON_GetObjectItemCaseSensitive(done, "cpu");

	side->present = true;
	side->messages = rp_json_u64_or(done, "messages", 0);
	side->bytes = rp_json_u64_or(done, "bytes", 0);
	side->verify_errors = rp_json_u64_or(done, "verify_errors", 0);
	side->cpu.user_s = rp_json_double_or(cpu, "user_s", 0);
	side->cpu.sys_s = rp_json_double_or(cpu, "sys_s", 0);
	side->cpu.host_busy_s = rp_json_double_or(cpu, "host_busy_s", 0);
	side->cpu.host_util = rp_json_double_or(cpu, "host_util", 0);
}

/* START/READY or STOP/DONE for phase @p. */
static int phase_call(struct client *c, enum rp_phase p, uint16_t type,
		      uint16_t want, cJSON **reply)
{
	cJSON *body = cJSON_CreateObject();
	int err;

	if (!body || !cJSON_AddStringToObject(body, "phase", rp_phase_name(p)))
		err = fail(c->res, -ENOMEM, "internal", "out of memory");
	else
		err = ctl_call(c, type, body, want, RP_SETUP_TIMEOUT_MS, reply);
	cJSON_Delete(body);
	return err;
}

static int phase_begin(struct client *c, enum rp_phase p)
{
	return phase_call(c, p, RP_MSG_START, RP_MSG_READY, NULL);
}

static int phase_end(struct client *c, enum rp_phase p, cJSON **done)
{
	return phase_call(c, p, RP_MSG_STOP, RP_MSG_DONE, done);
}

/* A failure inside a phase: tell the server, name what failed. */
static int phase_failed(struct client *c, enum rp_phase p, int err)
{
	char msg[RP_ERR_LEN + 32];

	snprintf(msg, sizeof(msg), "%s phase: %s", rp_phase_name(p),
		 rp_err_text(&c->stream->err, err));
	rp_proto_send_error(c->fd, "client", msg);
	return fail(c->res, err, err == -ETIMEDOUT ? "timeout" : "transport",
		    "%s: %s", c->ops->name, msg);
}

static int run_warmup(struct client *c)
{
	struct rp_engine_opts o = { .iterations = c->spec.warmup,
				    .intr = c->cfg->interrupted };
	struct rp_phase_out out;
	cJSON *done = NULL;
	int err;

	err = phase_begin(c, RP_PHASE_WARMUP);
	if (err)
		return err;
	err = rp_engine_bandwidth(c->stream, &o, &out);
	if (err)
		return phase_failed(c, RP_PHASE_WARMUP, err);
	c->res->warmup_messages = out.messages;
	err = phase_end(c, RP_PHASE_WARMUP, &done);
	cJSON_Delete(done);
	return err;
}

/* Ping-pong phase: the statistics of rtt/2 for the ops that go there and
 * back (perftest's "latency"), of the whole op for read and atomics. */
static int run_latency(struct client *c, struct rp_hist *h)
{
	struct rp_engine_opts o = { .iterations = c->spec.lat_iterations,
				    .hist = h,
				    .intr = c->cfg->interrupted };
	struct rp_result *r = c->res;
	struct rp_phase_out out;
	cJSON *done = NULL;
	int err;

	rp_hist_reset(h);
	err = phase_begin(c, RP_PHASE_LATENCY);
	if (err)
		return err;
	err = rp_engine_latency(c->stream, &o, &out);
	if (err)
		return phase_failed(c, RP_PHASE_LATENCY, err);
	err = phase_end(c, RP_PHASE_LATENCY, &done);
	cJSON_Delete(done);
	if (err)
		return err;
	rp_hist_summarize(h, &r->rtt);
	r->unloaded_halved = rp_op_info(c->spec.op)->rtt_halved;
	r->unloaded = r->rtt;
	rp_hist_summary_scale(&r->unloaded, r->unloaded_halved ? 0.5 : 1.0);
	r->has_unloaded = true;
	return 0;
}

static void bandwidth_figures(struct rp_result *r,
			      const struct rp_phase_out *out)
{
	uint64_t ns = out->last_done_ns - out->first_post_ns;

	r->messages = out->messages;
	r->bytes = out->messages * r->spec.size_bytes;
	r->seconds = (double)ns / 1e9;
	if (ns) {
		r->bits_per_second = (double)r->bytes * 8 / r->seconds;
		r->mib_per_second = (double)r->bytes / 1048576.0 / r->seconds;
		r->messages_per_second = (double)r->messages / r->seconds;
	}
	r->has_bandwidth = true;
}

static int run_bandwidth(struct client *c, struct rp_hist *h)
{
	struct rp_engine_opts o = { .iterations = c->spec.iterations,
				    .duration_ns = c->spec.duration_ns,
				    .hist = h,
				    .intr = c->cfg->interrupted };
	struct rp_result *r = c->res;
	bool loop = c->cfg->mode == RP_MODE_LOOPBACK;
	struct rp_cpu_sample a, b;
	struct rp_phase_out out;
	cJSON *done = NULL;
	int err;

	rp_hist_reset(h);
	err = phase_begin(c, RP_PHASE_BANDWIDTH);
	if (err)
		return err;
	rp_cpu_sample(&a, loop);
	err = rp_engine_bandwidth(c->stream, &o, &out);
	rp_cpu_sample(&b, loop);
	if (err)
		return phase_failed(c, RP_PHASE_BANDWIDTH, err);
	bandwidth_figures(r, &out);
	rp_cpu_usage(&a, &b, r->bytes, &r->client.cpu);
	r->client.present = true;
	r->client.messages = out.messages;
	r->client.bytes = r->bytes;
	rp_hist_summarize(h, &r->latency);
	r->has_latency = true;
	err = phase_end(c, RP_PHASE_BANDWIDTH, &done);
	if (err)
		return err;
	server_side(done, &r->server);
	r->server.cpu.us_per_kib = rp_cpu_service_demand(
		r->server.cpu.user_s, r->server.cpu.sys_s, r->bytes);
	cJSON_Delete(done);
	return 0;
}

static int check_verify(struct client *c)
{
	struct rp_result *r = c->res;

	r->client.verify_errors = c->ops->verify_errors(c->stream);
	if (!c->spec.verify)
		return 0;
	if (r->client.verify_errors || r->server.verify_errors)
		return fail(r, -EIO, "verify",
			    "payload check failed: %llu bad messages on the "
			    "client, %llu on the server",
			    (unsigned long long)r->client.verify_errors,
			    (unsigned long long)r->server.verify_errors);
	return 0;
}

static int run_phases(struct client *c)
{
	struct rp_hist *h;
	int err = 0;

	if (rp_hist_create(&h))
		return fail(c->res, -ENOMEM, "internal", "out of memory");
	if (c->spec.warmup)
		err = run_warmup(c);
	if (!err && c->spec.latency)
		err = run_latency(c, h);
	if (!err && c->spec.bandwidth)
		err = run_bandwidth(c, h);
	if (!err)
		err = check_verify(c);
	rp_hist_destroy(h);
	return err;
}

static void init_result(struct client *c, const char *transport)
{
	memset(c->res, 0, sizeof(*c->res));
	snprintf(c->res->transport, sizeof(c->res->transport), "%s", transport);
	c->spec = c->cfg->spec;
	snprintf(c->spec.transport, sizeof(c->spec.transport), "%s", transport);
	c->res->spec = c->spec;
	c->res->client_host = rp_host_info();
}

/* BYE after a test that went well, ERROR after one that failed (best
 * effort: the server may have ended the test already), then wait, bounded,
 * for the server to close: once it has, it is ready for the next test, so
 * a list of transports never finds it busy, even after one that failed. */
static void part(int fd, const struct rp_result *res)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char buf[256];

	if (res->failed)
		rp_proto_send_error(fd, "client", res->error);
	else if (rp_proto_send(fd, RP_MSG_BYE, NULL, RP_CTRL_TIMEOUT_MS))
		return;
	while (poll(&pfd, 1, 2000) > 0 && recv(fd, buf, sizeof(buf), 0) > 0)
		;
}

int rp_client_run_test(const struct rp_config *cfg, const char *transport,
		       struct rp_result *res)
{
	struct client c = { .cfg = cfg, .res = res, .fd = -1 };
	struct rp_err why = { "" };
	int err;

	init_result(&c, transport);
	c.ops = rp_xport_find(transport);
	if (!c.ops)
		return fail(res, -ENOENT, "transport",
			    "transport %s is not built in", transport);
	err = c.ops->probe(c.ops, &why);
	if (err)
		return fail(res, err, "transport", "%s: %s", transport,
			    rp_err_text(&why, err));
	err = ctl_connect(cfg->host, cfg->port, &c.fd);
	if (err)
		return fail(res, err, "connect", "cannot reach %s port %u: %s",
			    cfg->host, cfg->port, strerror(-err));
	err = hello(&c);
	if (!err)
		err = setup(&c);
	if (!err)
		err = exchange(&c);
	if (!err)
		err = run_phases(&c);
	/* Data stream first: an rdma peer then sees the disconnect at once
	 * instead of waiting for it while the server waits for BYE. */
	if (c.stream)
		c.ops->close(c.stream);
	part(c.fd, res);
	close(c.fd);
	return err;
}
