// SPDX-License-Identifier: MIT
/*
 * --mcast GROUP: this side sends UD datagrams to an IP multicast group,
 * every server that -a lists (HOST[,HOST...]) joins it and counts what
 * arrived (run/session_mcast.c). Each receiver's control connection:
 *
 *   HELLO, TEST -> SETUP (joined)    every receiver, before the sender joins
 *   TIME x RP_MCAST_PROBES           its clock against ours, NTP-style: the
 *                                    probe of least round trip gives the
 *                                    offset (its clock minus ours at the
 *                                    round trip's middle), +- half that trip
 *   START {clock_offset_ns} -> READY
 *   ... the sender posts -C datagrams (or for -t), each stamped with its
 *       sequence number and our clock, at --rate if given ...
 *   STOP -> DONE                     after RP_MCAST_DRAIN_MS of quiet
 *   BYE
 *
 * One-way latency is the receiver's arrival clock minus the offset minus
 * the sender's stamp: good to the offset's uncertainty, which the result
 * carries beside it. Loss is what we sent minus what each one received.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "core/safe.h"
#include "platform/clock.h"
#include "platform/net.h"
#include "proto/proto.h"
#include "run/client.h"
#include "run/flow.h"
#include "xport/mcast.h"

#define RP_MCAST_MAX_RECEIVERS 16
#define RP_MCAST_PROBES	       16
#define RP_MCAST_DRAIN_MS      200

#define fail client_fail

struct receiver {
	struct client c;
	char host[RP_NET_ADDR_LEN * 2]; /* as -a gave it */
	char name[RP_NET_ADDR_LEN * 2]; /* without its :PORT */
	uint16_t port;
	cJSON *setup;	  /* SETUP's "mcast" */
	cJSON *done;	  /* DONE */
	cJSON *host_info; /* HELLO's */
	int64_t offset_ns;
	uint64_t rtt_ns;
};

struct sender {
	uint64_t posted, completed, first_ns, last_ns;
	struct rp_cpu_sample a, b; /* this process, around the sending */
};

/* @r's HOST, HOST:PORT, [IPV6] or [IPV6]:PORT (without one, @dflt). */
static bool split_port(struct receiver *r, uint16_t dflt)
{
	const char *h = r->host, *colon = strrchr(h, ':'), *close;
	char *end;
	unsigned long v;

	snprintf(r->name, sizeof(r->name), "%s", h);
	r->port = dflt;
	if (h[0] == '[') {
		close = strchr(h, ']');
		if (!close || (close[1] && close[1] != ':'))
			return false;
		snprintf(r->name, sizeof(r->name), "%.*s", (int)(close - h - 1),
			 h + 1);
		colon = close[1] ? close + 1 : NULL;
	} else if (!colon || strchr(h, ':') != colon) {
		return true; /* a name, IPv4, or a bare IPv6 address */
	} else {
		snprintf(r->name, sizeof(r->name), "%.*s", (int)(colon - h), h);
	}
	if (!colon)
		return true;
	v = strtoul(colon + 1, &end, 10);
	if (*end || end == colon + 1 || !v || v > 65535)
		return false;
	r->port = (uint16_t)v;
	return true;
}

/* The receivers of -a's list into @r; their count, or -EINVAL said. */
static int split_hosts(struct client *c, struct receiver *r)
{
	const char *p = c->cfg->test.host, *comma;
	size_t len;
	int n = 0;

	while (p && *p) {
		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		if (!len || len >= sizeof(r[0].host) ||
		    n == RP_MCAST_MAX_RECEIVERS)
			return fail(c->res, -EINVAL, "usage",
				    "--mcast: -a lists 1 to %d receivers, "
				    "HOST[:PORT][,HOST[:PORT]...]",
				    RP_MCAST_MAX_RECEIVERS);
		r[n].c = *c;
		r[n].c.fd = RP_SOCK_INVALID;
		memcpy(r[n].host, p, len);
		r[n].host[len] = 0;
		if (!split_port(&r[n], c->cfg->test.port))
			return fail(c->res, -EINVAL, "usage",
				    "--mcast: receiver %s: HOST:PORT, "
				    "[IPV6]:PORT, a port 1 to 65535",
				    r[n].host);
		n++;
		p = comma ? comma + 1 : NULL;
	}
	return n;
}

/* A failure that one receiver's exchange wrote: say which. */
static int whose(struct receiver *r, int err)
{
	char text[sizeof(r->c.res->error) + sizeof(r->host) + 16];

	if (err && r->c.res->failed &&
	    strncmp(r->c.res->error, "receiver ", 9)) {
		snprintf(text, sizeof(text), "receiver %s: %s", r->host,
			 r->c.res->error);
		snprintf(r->c.res->error, sizeof(r->c.res->error), "%.*s",
			 (int)sizeof(r->c.res->error) - 1, text);
	}
	return err;
}

static int join_receiver(struct receiver *r)
{
	cJSON *body = rp_proto_spec_encode(&r->c.res->spec), *reply = NULL;
	int err;

	if (!body)
		return fail(r->c.res, -ENOMEM, "internal", "out of memory");
	err = client_connect(&r->c, r->name, r->port);
	if (!err)
		err = client_hello(&r->c);
	if (!err) { /* HELLO's into the result's server_host: each its own */
		r->host_info = r->c.res->server_host;
		r->c.res->server_host = NULL;
	}
	if (!err)
		err = client_call(&r->c, RP_MSG_TEST, body, RP_MSG_SETUP,
				  RP_SETUP_TIMEOUT_MS, &reply);
	cJSON_Delete(body);
	if (!err) {
		r->setup =
			cJSON_DetachItemFromObjectCaseSensitive(reply, "mcast");
		if (!cJSON_IsObject(r->setup))
			err = fail(r->c.res, -EPROTO, "protocol",
				   "SETUP without mcast");
	}
	cJSON_Delete(reply);
	return whose(r, err);
}

/* The receiver's clock against ours: the probe of least round trip. */
static int clock_probe(struct receiver *r)
{
	cJSON *reply = NULL;
	const cJSON *ns;
	uint64_t t0, t1, theirs;
	int i, err = 0;

	r->rtt_ns = UINT64_MAX;
	for (i = 0; !err && i < RP_MCAST_PROBES; i++) {
		t0 = rp_clock_ns();
		err = client_call(&r->c, RP_MSG_TIME, NULL, RP_MSG_TIME,
				  RP_CTRL_TIMEOUT_MS, &reply);
		t1 = rp_clock_ns();
		ns = cJSON_GetObjectItemCaseSensitive(reply, "ns");
		if (!err && (!cJSON_IsString(ns) ||
			     sscanf(ns->valuestring, "%llu",
				    (unsigned long long *)&theirs) != 1))
			err = fail(r->c.res, -EPROTO, "protocol",
				   "TIME without its ns");
		if (!err && t1 - t0 < r->rtt_ns) {
			r->rtt_ns = t1 - t0;
			r->offset_ns = (int64_t)(theirs - (t0 + (t1 - t0) / 2));
		}
		cJSON_Delete(reply);
		reply = NULL;
	}
	return whose(r, err);
}

static int start_receiver(struct receiver *r)
{
	cJSON *body = cJSON_CreateObject(), *reply = NULL;
	int err;

	if (!body || !cJSON_AddNumberToObject(body, "clock_offset_ns",
					      (double)r->offset_ns))
		err = fail(r->c.res, -ENOMEM, "internal", "out of memory");
	else
		err = client_call(&r->c, RP_MSG_START, body, RP_MSG_READY,
				  RP_CTRL_TIMEOUT_MS, &reply);
	cJSON_Delete(body);
	cJSON_Delete(reply);
	return whose(r, err);
}

static int stop_receiver(struct receiver *r)
{
	int err = client_call(&r->c, RP_MSG_STOP, NULL, RP_MSG_DONE,
			      RP_CTRL_TIMEOUT_MS, &r->done);

	return whose(r, err);
}

int client_mcast_first(const struct rp_config *cfg, char *name, size_t len)
{
	struct receiver *r = calloc(1, sizeof(*r));
	const char *h = cfg->test.host ? cfg->test.host : "";
	size_t n = strcspn(h, ",");
	bool ok = r && n && n < sizeof(r->host);

	if (ok) {
		memcpy(r->host, h, n);
		ok = split_port(r, 0);
	}
	if (ok)
		snprintf(name, len, "%s", r->name);
	free(r);
	return ok ? 0 : -EINVAL;
}

int rp_mcast_check_receivers(const char *hosts, char *err, size_t errlen)
{
	struct rp_config cfg = { .test = { .host = hosts } };
	struct rp_result res = { 0 };
	struct client c = { .cfg = &cfg, .res = &res };
	struct receiver *r = calloc(RP_MCAST_MAX_RECEIVERS, sizeof(*r));
	int n = r ? split_hosts(&c, r) : -ENOMEM;

	free(r);
	if (n >= 0)
		return 0;
	snprintf(err, errlen, "%s", res.error);
	return -EINVAL;
}

static bool sender_done(const struct rp_spec *sp, const struct sender *s,
			uint64_t now)
{
	if (sp->duration_ns)
		return now - s->first_ns >= sp->duration_ns;
	return s->posted >= sp->iterations;
}

/* Every datagram of the test, then every completion. */
static int send_all(struct client *c, struct rp_mcast *m, struct sender *s)
{
	const struct rp_spec *sp = &c->res->spec;
	const atomic_int *intr = c->cfg->interrupted;
	uint64_t now, gap = sp->rate ? 1000000000ull / sp->rate : 0;
	bool loop = c->cfg->mode == RP_MODE_LOOPBACK || c->cfg->own_threads;
	int err;

	rp_cpu_sample(&s->a, loop, c->cfg->test.cpus,
		      (unsigned int)c->cfg->test.n_cpus);
	s->first_ns = rp_clock_ns();
	for (now = s->first_ns; !sender_done(sp, s, now); now = rp_clock_ns()) {
		if (intr && atomic_load(intr))
			return fail(c->res, -EINTR, "interrupted",
				    "interrupted while sending");
		if (gap && now < s->first_ns + s->posted * gap)
			continue; /* --rate: not yet */
		err = rp_mcast_post(m, s->posted, now);
		if (err == -EAGAIN) {
			err = rp_mcast_reap(m, 0);
			if (err < 0)
				return fail(c->res, err, "transport",
					    "--mcast: a send failed");
			s->completed += (uint64_t)err;
			continue;
		}
		if (err)
			return fail(c->res, err, "transport",
				    "--mcast: ibv_post_send failed: %s",
				    strerror(-err));
		s->posted++;
	}
	while (s->completed < s->posted) {
		err = rp_mcast_reap(m, 1000);
		if (err <= 0)
			return fail(c->res, err ? err : -ETIMEDOUT, "transport",
				    "--mcast: a send did not complete");
		s->completed += (uint64_t)err;
	}
	s->last_ns = rp_clock_ns();
	rp_cpu_sample(&s->b, loop, c->cfg->test.cpus,
		      (unsigned int)c->cfg->test.n_cpus);
	return 0;
}

/* A receiver's figure @key of @o, a server's own story: finite, 0 to
 * @max, else 0 or @max. */
static double figure(const cJSON *o, const char *key, double max)
{
	double v = rp_json_double_or(o, key, 0);

	if (!(v >= 0)) /* negative, or NaN */
		return 0;
	return v > max ? max : v;
}

/* SETUP's description of the join, typed and bounded as the schema has
 * it (its strings from the network, made safe to print). */
static cJSON *joined_json(const cJSON *setup)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(setup, "address"),
		    *d = cJSON_GetObjectItemCaseSensitive(setup, "device");
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "address",
				cJSON_IsString(a) ? a->valuestring : "");
	cJSON_AddStringToObject(o, "device",
				cJSON_IsString(d) ? d->valuestring : "");
	cJSON_AddNumberToObject(o, "mtu", floor(figure(setup, "mtu", 65536)));
	cJSON_AddNumberToObject(o, "receives",
				floor(figure(setup, "receives", 1 << 20)));
	if (rp_safe_json(o)) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

/* One receiver's figures for the result (per_receiver). */
static cJSON *receiver_json(const struct receiver *r, const struct sender *s,
			    double seconds, uint64_t size)
{
	cJSON *o = cJSON_CreateObject(), *clk, *lat;
	const cJSON *name =
		cJSON_GetObjectItemCaseSensitive(r->host_info, "hostname");
	const cJSON *l =
		cJSON_GetObjectItemCaseSensitive(r->done, "latency_ns");
	/* what arrived: at most what was sent, and so its duplicates... */
	double sent = (double)s->posted, big = 1e18;
	double got = floor(figure(r->done, "received", sent));
	double lost = sent - got;
	static const char *const keys[] = { "min", "mean", "p50", "p99",
					    "max" };
	size_t i;

	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "host", r->host);
	if (cJSON_IsString(name))
		cJSON_AddStringToObject(o, "hostname", name->valuestring);
	cJSON_AddItemToObject(o, "joined", joined_json(r->setup));
	cJSON_AddNumberToObject(o, "received", got);
	cJSON_AddNumberToObject(o, "lost", lost);
	cJSON_AddNumberToObject(o, "loss", sent > 0 ? lost / sent : 0);
	cJSON_AddNumberToObject(o, "duplicates",
				floor(figure(r->done, "duplicates", big)));
	cJSON_AddNumberToObject(o, "reordered",
				floor(figure(r->done, "reordered", got)));
	cJSON_AddNumberToObject(o, "foreign",
				floor(figure(r->done, "foreign", big)));
	cJSON_AddNumberToObject(o, "bits_per_second",
				seconds > 0 ? got * (double)size * 8 / seconds
					    : 0);
	cJSON_AddNumberToObject(o, "arrival_seconds",
				figure(r->done, "seconds", big));
	lat = cJSON_AddObjectToObject(o, "latency_us");
	for (i = 0; lat && cJSON_IsObject(l) && i < 5; i++)
		if (cJSON_GetObjectItemCaseSensitive(l, keys[i]))
			cJSON_AddNumberToObject(lat, keys[i],
						figure(l, keys[i], big) / 1e3);
	cJSON_AddNumberToObject(o, "latency_below_offset",
				floor(figure(r->done, "below_offset", got)));
	clk = cJSON_AddObjectToObject(o, "clock");
	if (clk) {
		cJSON_AddNumberToObject(clk, "offset_ns", (double)r->offset_ns);
		cJSON_AddNumberToObject(clk, "uncertainty_ns",
					(double)(r->rtt_ns / 2));
	}
	return o;
}

static int collect(struct client *c, struct receiver *r, int n,
		   const struct sender *s)
{
	struct rp_result *res = c->res;
	uint64_t size = res->spec.size_bytes, fewest = s->posted;
	double secs = (double)(s->last_ns - s->first_ns) / 1e9;
	cJSON *arr = cJSON_CreateArray(), *one;
	int i;

	for (i = 0; arr && i < n; i++) {
		one = receiver_json(&r[i], s, secs, size);
		if (!one || !cJSON_AddItemToArray(arr, one)) {
			cJSON_Delete(one);
			break;
		}
		if (rp_json_double_or(one, "received", 0) < (double)fewest)
			fewest =
				(uint64_t)rp_json_double_or(one, "received", 0);
	}
	if (!arr || i < n) {
		cJSON_Delete(arr);
		return fail(res, -ENOMEM, "internal", "out of memory");
	}
	res->mcast = arr;
	res->has_bandwidth = true;
	res->flow.messages = s->posted;
	res->flow.bytes = s->posted * size;
	res->flow.seconds = secs;
	rp_flow_rates(&res->flow);
	res->dir[RP_DIR_C2S].present = true;
	res->dir[RP_DIR_C2S].flow = res->flow;
	res->client.present = true;
	res->client.messages = s->posted;
	res->client.bytes = s->posted * size;
	rp_cpu_usage(&s->a, &s->b, res->client.bytes, &res->client.cpu);
	res->has_loss = res->has_loss_sent = true; /* the worst receiver */
	res->loss_sent = s->posted;
	res->loss_arrived = fewest;
	return 0;
}

/* BYE (or the failure's ERROR), then the server's close, bounded. */
static void part_all(struct receiver *r, int n, bool failed)
{
	struct pollfd pfd = { .events = POLLIN };
	char buf[256];
	int i;

	for (i = 0; i < n; i++) {
		if (!rp_sock_valid(r[i].c.fd))
			continue;
		if (failed)
			client_tell(&r[i].c, "client", r[i].c.res->error);
		else
			rp_proto_send(r[i].c.fd, RP_MSG_BYE, NULL,
				      RP_CTRL_TIMEOUT_MS);
		pfd.fd = r[i].c.fd;
		while (rp_poll(&pfd, 1, 2000) > 0 &&
		       rp_net_recv(r[i].c.fd, buf, sizeof(buf), 0) > 0)
			;
		rp_net_close(r[i].c.fd);
		r[i].c.fd = RP_SOCK_INVALID;
	}
}

int client_run_mcast(struct client *c, struct rp_result *res)
{
	struct receiver *r = calloc(RP_MCAST_MAX_RECEIVERS, sizeof(*r));
	char local[RP_NET_ADDR_LEN] = "";
	struct rp_err why = { "" };
	struct rp_mcast *m = NULL;
	struct sender s = { 0 };
	int n, i, err;

	if (!r)
		return fail(res, -ENOMEM, "internal", "out of memory");
	c->res = res;
	n = err = split_hosts(c, r);
	for (i = 0; err >= 0 && i < n; i++)
		err = join_receiver(&r[i]);
	if (err >= 0 && n > 0) {
		/* the first receiver's */
		res->server_host = cJSON_Duplicate(r[0].host_info, 1);
		err = rp_net_sock_addr(r[0].c.fd, false, local, sizeof(local));
		if (err)
			fail(res, err, "connect",
			     "cannot tell this side's address");
	}
	if (err >= 0)
		err = rp_mcast_open(local, res->spec.mcast, true,
				    res->spec.queue_depth,
				    (uint32_t)res->spec.size_bytes, &m, &why);
	if (err < 0 && !res->failed)
		fail(res, err, err == -EOPNOTSUPP ? "unsupported" : "transport",
		     "%s", rp_err_text(&why, err));
	for (i = 0; err >= 0 && i < n; i++)
		err = clock_probe(&r[i]);
	for (i = 0; err >= 0 && i < n; i++)
		err = start_receiver(&r[i]);
	if (err >= 0)
		err = send_all(c, m, &s);
	if (err >= 0)
		rp_poll(NULL, 0,
			RP_MCAST_DRAIN_MS); /* the last datagrams land */
	for (i = 0; err >= 0 && i < n; i++)
		err = stop_receiver(&r[i]);
	if (err >= 0)
		err = collect(c, r, n, &s);
	part_all(r, n, err < 0);
	rp_mcast_close(m);
	for (i = 0; i < RP_MCAST_MAX_RECEIVERS; i++) {
		cJSON_Delete(r[i].setup);
		cJSON_Delete(r[i].done);
		cJSON_Delete(r[i].host_info);
	}
	free(r);
	return err < 0 ? err : 0;
}
