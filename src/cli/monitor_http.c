// SPDX-License-Identifier: MIT
/*
 * /metrics over HTTP, served by libmicrohttpd on its own thread, so that
 * a scrape is answered while a probe runs. Each request renders a copy
 * of the figures taken under the lock (the probe holds it only to store
 * its figures, never across a probe).
 *
 *   GET /metrics   the figures: OpenMetrics when Accept asks for it
 *                  (Prometheus does), else the Prometheus text 0.0.4
 *   GET /          a line pointing to /metrics
 *   anything else  404; a method other than GET or HEAD: 405
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <microhttpd.h>

#include "cli/monitor.h"
#include "platform/net.h"

struct rp_mon_http {
	struct MHD_Daemon *d;
	uint16_t port;
};

static int copy_snapshot(struct rp_mon_shared *sh, struct rp_mon_snapshot *s)
{
	struct rp_mon_peer *p;

	pthread_mutex_lock(&sh->lock);
	*s = sh->snap;
	p = malloc(s->n * sizeof(*p) + 1);
	if (p)
		memcpy(p, sh->snap.p, s->n * sizeof(*p));
	pthread_mutex_unlock(&sh->lock);
	s->p = p;
	return p ? 0 : -ENOMEM;
}

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned int code,
			     const char *type, char *body, size_t len,
			     enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *r =
		MHD_create_response_from_buffer(len, body, mode);
	enum MHD_Result ret;

	if (!r) {
		if (mode == MHD_RESPMEM_MUST_FREE)
			free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	ret = MHD_queue_response(conn, code, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result text(struct MHD_Connection *conn, unsigned int code,
			    const char *msg)
{
	return reply(conn, code, "text/plain; charset=utf-8", (char *)msg,
		     strlen(msg), MHD_RESPMEM_PERSISTENT);
}

static enum MHD_Result metrics(struct rp_mon_shared *sh,
			       struct MHD_Connection *conn)
{
	const char *accept = MHD_lookup_connection_value(
		conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
	enum rp_mon_format f = rp_mon_format_of(accept);
	struct rp_mon_buf b = { 0 };
	struct rp_mon_snapshot s;
	int err = copy_snapshot(sh, &s);

	if (!err)
		err = rp_mon_render(&s, f, &b);
	free(s.p);
	if (err) {
		free(b.s);
		return text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR,
			    "out of memory\n");
	}
	return reply(conn, MHD_HTTP_OK,
		     f == RP_MON_OPENMETRICS ? RP_MON_CT_OPENMETRICS
					     : RP_MON_CT_PROMETHEUS,
		     b.s, b.len, MHD_RESPMEM_MUST_FREE);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn,
			      const char *url, const char *method,
			      const char *version, const char *upload,
			      size_t *upload_size, void **state)
{
	(void)version;
	(void)upload;
	(void)upload_size;
	(void)state;
	if (strcmp(method, MHD_HTTP_METHOD_GET) &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD))
		return text(conn, MHD_HTTP_METHOD_NOT_ALLOWED,
			    "only GET and HEAD\n");
	if (!strcmp(url, "/metrics"))
		return metrics(cls, conn);
	if (!strcmp(url, "/"))
		return text(conn, MHD_HTTP_OK,
			    "rdmaperf monitor: the figures are at /metrics\n");
	return text(conn, MHD_HTTP_NOT_FOUND, "not found: try /metrics\n");
}

int rp_mon_http_start(const char *listen, struct rp_mon_shared *sh,
		      struct rp_mon_http **out, char *err, size_t len)
{
	char host[RP_MON_LISTEN_LEN];
	struct rp_mon_http *h;
	uint16_t port;
	rp_sock_t fd;
	int rc;

	if (rp_mon_listen_split(listen, host, sizeof(host), &port)) {
		snprintf(err, len, "'%s' is not ADDR:PORT", listen);
		return -EINVAL;
	}
	/* our own socket: a port in use says so, with the reason */
	rc = rp_net_listen(&rp_sock_kernel, host[0] ? host : NULL, port, 64,
			   &fd);
	if (rc) {
		snprintf(err, len, "cannot listen on %s: %s", listen,
			 strerror(-rc));
		return rc;
	}
	h = calloc(1, sizeof(*h));
	rc = rp_net_local_port(&rp_sock_kernel, fd);
	if (h && rc > 0) {
		h->port = (uint16_t)rc;
		h->d = MHD_start_daemon(
			MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL, 0, NULL,
			NULL, handle, sh, MHD_OPTION_LISTEN_SOCKET, fd,
			MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)10,
			MHD_OPTION_CONNECTION_LIMIT, (unsigned int)64,
			MHD_OPTION_END);
	}
	if (!h || !h->d) {
		snprintf(err, len, "cannot serve HTTP on %s: %s", listen,
			 h ? "libmicrohttpd did not start" : "out of memory");
		rp_sock_kernel.close(fd);
		free(h);
		return -EIO;
	}
	*out = h;
	return 0;
}

uint16_t rp_mon_http_port(const struct rp_mon_http *h)
{
	return h->port;
}

void rp_mon_http_stop(struct rp_mon_http *h)
{
	if (!h)
		return;
	MHD_stop_daemon(h->d); /* closes the listening socket */
	free(h);
}
