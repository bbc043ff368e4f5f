// SPDX-License-Identifier: MIT
/*
 * FI_EP_MSG's connections, as libfabric's connection management makes
 * them (fi_cm(3)):
 *
 *   Server                                     Client
 *   listen: fi_passive_ep on any address,
 *     fi_listen; its port in the endpoint ~~>  fi_getinfo(host, port)
 *   accept: FI_CONNREQ on the listener's EQ <- fi_connect(token)
 *     token and --allow checked, else fi_reject
 *     a stream on the request's info, fi_accept
 *   FI_CONNECTED on the stream's EQ             FI_CONNECTED
 *
 * Each stream has an EQ of its own (on its own fabric, as its CQ); the
 * listener's EQ sees connection requests alone. A request with the wrong
 * token is rejected at once: streams connect one after the other.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "platform/clock.h"
#include "platform/net.h"
#include "xport/ofi/ofi.h"

int ofi_eq_open(struct fid_fabric *fabric, struct fid_eq **eq,
		struct rp_err *why)
{
	struct fi_eq_attr attr = { .size = 16, .wait_obj = FI_WAIT_UNSPEC };
	int ret = fi_eq_open(fabric, &attr, eq, NULL);

	return ret ? rp_errf(why, ret, "fi_eq_open: %s", fi_strerror(-ret)) : 0;
}

/* The port of a socket address @a (@len bytes), or 0. */
static uint16_t ofi_port_of(const void *a, size_t len)
{
	const struct sockaddr *sa = a;

	if (len >= sizeof(struct sockaddr_in) && sa->sa_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)a)->sin_port);
	if (len >= sizeof(struct sockaddr_in6) && sa->sa_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)a)->sin6_port);
	return 0;
}

int ofi_pep_open(struct ofi_listener *l, struct fi_info *info,
		 struct rp_err *why)
{
	uint8_t name[OFI_ADDR_MAX];
	size_t len = sizeof(name);
	int ret = ofi_fabric_open(&l->fab, info, why);

	if (!ret)
		ret = ofi_eq_open(l->fab.fabric, &l->eq, why);
	if (ret)
		return ret;
	ret = fi_passive_ep(l->fab.fabric, info, &l->pep, NULL);
	if (ret)
		return rp_errf(why, ret, "fi_passive_ep: %s",
			       fi_strerror(-ret));
	ret = fi_pep_bind(l->pep, &l->eq->fid, 0);
	if (!ret)
		ret = fi_listen(l->pep);
	if (!ret)
		ret = fi_getname(&l->pep->fid, name, &len);
	if (ret)
		return rp_errf(why, ret, "fi_listen: %s", fi_strerror(-ret));
	l->port = ofi_port_of(name, len);
	if (!l->port)
		return rp_errf(why, -EAFNOSUPPORT,
			       "provider %s listens on an address that is "
			       "not IP (%zu bytes): rdmaperf cannot name its "
			       "port",
			       info->fabric_attr->prov_name, len);
	return 0;
}

void ofi_pep_close(struct ofi_listener *l)
{
	if (l->pep)
		fi_close(&l->pep->fid);
	if (l->eq)
		fi_close(&l->eq->fid);
	ofi_fabric_close(&l->fab);
	l->pep = NULL;
	l->eq = NULL;
}

/* The next event on @eq into @entry (@len bytes), waiting until
 * @deadline_ns: its size, -ETIMEDOUT, or another negative errno with the
 * provider's reason in @why. */
static ssize_t ofi_eq_wait(struct fid_eq *eq, uint32_t *event, void *entry,
			   size_t len, uint64_t deadline_ns, struct rp_err *why)
{
	struct fi_eq_err_entry err = { 0 };
	const char *prov;
	ssize_t n =
		fi_eq_sread(eq, event, entry, len, rp_ms_left(deadline_ns), 0);

	if (n >= 0)
		return n;
	if (n == -FI_EAGAIN || n == -FI_ETIMEDOUT)
		return -ETIMEDOUT;
	if (n != -FI_EAVAIL)
		return rp_errf(why, (int)n, "fi_eq_sread: %s",
			       fi_strerror((int)-n));
	if (fi_eq_readerr(eq, &err, 0) < 0)
		return rp_errf(why, -EIO, "fi_eq_readerr failed");
	prov = fi_eq_strerror(eq, err.prov_errno, err.err_data, NULL, 0);
	if (err.err == ECONNREFUSED)
		return rp_errf(why, -ECONNREFUSED,
			       "the server rejected the connection");
	return rp_errf(why, err.err ? -err.err : -EIO, "%s%s%s%s",
		       fi_strerror(err.err), prov ? " (" : "", prov ? prov : "",
		       prov ? ")" : "");
}

/* Is the request in @e (@n bytes read) from a peer --allow admits, with
 * @token? NULL, or why not. An address that is not IP (verbs may give an
 * InfiniBand one) is admitted only where --allow admits any (it has no
 * list); the token still guards it. */
static const char *ofi_refused(const struct ofi_listener *l,
			       const struct fi_eq_cm_entry *e, size_t n,
			       const char *token, char *peer, size_t plen)
{
	const struct fi_info *i = e->info;
	size_t dlen = n - sizeof(*e), tlen = strlen(token);
	const struct sockaddr *sa = i->dest_addr;
	struct sockaddr none = { .sa_family = AF_UNSPEC };
	bool ip = sa && ((sa->sa_family == AF_INET &&
			  i->dest_addrlen >= sizeof(struct sockaddr_in)) ||
			 (sa->sa_family == AF_INET6 &&
			  i->dest_addrlen >= sizeof(struct sockaddr_in6)));

	if (!ip || rp_net_addr_text(sa, (socklen_t)i->dest_addrlen, peer, plen))
		snprintf(peer, plen, "%s",
			 ip ? "?" : "an address that is not IP");
	if (l->admit && !l->admit(l->admit_ctx, ip ? sa : &none))
		return ip ? "not in --allow" : "not IP, so not in --allow";
	if (n < sizeof(*e) || dlen < tlen || memcmp(e->data, token, tlen) ||
	    (dlen > tlen && e->data[tlen] != '\0'))
		return "not the stream's token";
	return NULL;
}

/* The connection request that presents @token, in @out (the caller's to
 * free); others are rejected and counted. -ETIMEDOUT past @deadline_ns. */
int ofi_cm_request(struct ofi_listener *l, const char *token,
		   uint64_t deadline_ns, struct fi_info **out)
{
	union {
		struct fi_eq_cm_entry e;
		uint8_t bytes[sizeof(struct fi_eq_cm_entry) + OFI_CM_DATA];
	} u;
	char peer[RP_NET_ADDR_LEN];
	const char *why;
	uint32_t event;
	ssize_t n;

	for (;;) {
		n = ofi_eq_wait(l->eq, &event, &u, sizeof(u), deadline_ns,
				&l->base.err);
		if (n == -ETIMEDOUT)
			return (int)n;
		if (n < 0)
			return (int)n;
		if (event != FI_CONNREQ || (size_t)n < sizeof(u.e)) {
			if (event == FI_CONNREQ)
				fi_freeinfo(u.e.info);
			continue;
		}
		why = ofi_refused(l, &u.e, (size_t)n, token, peer,
				  sizeof(peer));
		if (!why) {
			*out = u.e.info;
			return 0;
		}
		rp_listener_drop(&l->base,
				 "data connection from %s rejected: %s", peer,
				 why);
		fi_reject(l->pep, u.e.info->handle, NULL, 0);
		fi_freeinfo(u.e.info);
	}
}

/* Wait for FI_CONNECTED on @s's EQ until @deadline_ns. */
static int ofi_connected(struct ofi_stream *s, uint64_t deadline_ns,
			 const char *what)
{
	struct fi_eq_cm_entry e;
	uint32_t event;
	ssize_t n;

	for (;;) {
		n = ofi_eq_wait(s->eq, &event, &e, sizeof(e), deadline_ns,
				&s->base.err);
		if (n == -ETIMEDOUT)
			return rp_stream_fail(&s->base, -ETIMEDOUT,
					      "%s: no FI_CONNECTED in time",
					      what);
		if (n < 0)
			return rp_stream_fail(
				&s->base, (int)n, "%s: %s", what,
				rp_err_text(&s->base.err, (int)n));
		if (event == FI_CONNECTED)
			return 0;
		if (event == FI_SHUTDOWN)
			return rp_stream_fail(&s->base, -ECONNRESET,
					      "%s: the peer shut the "
					      "connection",
					      what);
	}
}

int ofi_cm_accept(struct ofi_stream *s)
{
	int ret = fi_accept(s->ep, NULL, 0);

	if (ret)
		return ofi_fail(s, "fi_accept", ret);
	return ofi_connected(s, rp_deadline_ns(OFI_HANDSHAKE_MS), "fi_accept");
}

int ofi_cm_connect(struct ofi_stream *s, const char *token, int timeout_ms)
{
	size_t len = token ? strlen(token) : 0;
	int ret;

	if (len > OFI_CM_DATA)
		return rp_stream_fail(&s->base, -EINVAL, "a token of %zu bytes",
				      len);
	ret = fi_connect(s->ep, s->fab.info->dest_addr, token, len);
	if (ret)
		return ofi_fail(s, "fi_connect", ret);
	return ofi_connected(s, rp_deadline_ns(timeout_ms), "fi_connect");
}
