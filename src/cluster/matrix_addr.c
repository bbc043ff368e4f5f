// SPDX-License-Identifier: MIT
/* Where a --matrix rank's server listens (matrix.h, rp_matrix_local_addr). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <unistd.h>

#include "cluster/matrix.h"
#include "core/cidr.h"
#include "xport/xport.h"

/* Which of a host's addresses a search takes. */
struct want {
	const struct rp_cidr *prefix; /* in it, or NULL */
	const char *ifname;	      /* on it, or NULL */
	const struct sockaddr *same;  /* equal to it, or NULL */
	int family;		      /* AF_INET, AF_INET6 */
};

static bool loopback(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return ((const struct sockaddr_in *)sa)->sin_addr.s_addr ==
		       htonl(INADDR_LOOPBACK);
	return IN6_IS_ADDR_LOOPBACK(
		&((const struct sockaddr_in6 *)sa)->sin6_addr);
}

static bool same_addr(const struct sockaddr *a, const struct sockaddr *b)
{
	if (a->sa_family != b->sa_family)
		return false;
	if (a->sa_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
		       &((const struct sockaddr_in6 *)b)->sin6_addr, 16);
}

static bool wanted(const struct ifaddrs *i, const struct want *w)
{
	const struct sockaddr *sa = i->ifa_addr;

	if (!sa || sa->sa_family != w->family || !(i->ifa_flags & IFF_UP))
		return false;
	if (w->family == AF_INET6 &&
	    IN6_IS_ADDR_LINKLOCAL(
		    &((const struct sockaddr_in6 *)sa)->sin6_addr))
		return false; /* needs a scope the peer does not have */
	if (w->prefix)
		return rp_cidr_match(w->prefix, sa);
	if (w->ifname)
		return !strcmp(i->ifa_name, w->ifname);
	if (w->same)
		return same_addr(sa, w->same);
	return !loopback(sa);
}

/* The first address of the host's interfaces that @w wants, IPv4 first. */
static int find_local(struct want *w, char *out, size_t len)
{
	static const int families[] = { AF_INET, AF_INET6 };
	struct ifaddrs *ifs, *i;
	size_t f;
	int err = -EADDRNOTAVAIL;

	if (getifaddrs(&ifs))
		return -errno;
	for (f = 0; f < 2 && err; f++) {
		w->family = families[f];
		for (i = ifs; i && err; i = i->ifa_next)
			if (wanted(i, w) &&
			    !getnameinfo(i->ifa_addr,
					 f ? sizeof(struct sockaddr_in6)
					   : sizeof(struct sockaddr_in),
					 out, (socklen_t)len, NULL, 0,
					 NI_NUMERICHOST))
				err = 0;
	}
	freeifaddrs(ifs);
	return err;
}

/* The host name's addresses, the first one that is local, not loopback. */
static int by_hostname(char *out, size_t len)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai, *a;
	struct want w = { 0 };
	char name[256] = "";
	int err = -EADDRNOTAVAIL;

	if (gethostname(name, sizeof(name) - 1) ||
	    getaddrinfo(name, NULL, &hints, &ai))
		return err;
	for (a = ai; a && err; a = a->ai_next) {
		if (loopback(a->ai_addr))
			continue;
		w.same = a->ai_addr;
		err = find_local(&w, out, len);
	}
	freeaddrinfo(ai);
	return err;
}

/* What the first transport that has an opinion asks for (rdma_cm needs
 * its device's address), as --loopback does. */
static int by_transport(const struct rp_config *cfg, char *out, size_t len)
{
	const struct rp_xport_ops *ops;
	size_t i;

	for (i = 0; i < cfg->test.n_transports; i++) {
		ops = rp_xport_find(cfg->test.transports[i]);
		if (ops && ops->loopback_addr &&
		    ops->loopback_addr(cfg->test.params, out, len) == 0)
			return 0;
	}
	return -EADDRNOTAVAIL;
}

static int by_flag(const char *a, char *out, size_t len, struct rp_err *why)
{
	struct rp_cidr prefix;
	struct want w = { 0 };

	if (strchr(a, '/')) {
		if (rp_cidr_parse(a, &prefix))
			return rp_errf(why, -EINVAL, "-a %s: not a prefix", a);
		w.prefix = &prefix;
		if (find_local(&w, out, len))
			return rp_errf(why, -EADDRNOTAVAIL,
				       "-a %s: no address of this host is in "
				       "it",
				       a);
		return 0;
	}
	if (if_nametoindex(a)) {
		w.ifname = a;
		if (find_local(&w, out, len))
			return rp_errf(why, -EADDRNOTAVAIL,
				       "-a %s: the interface has no address",
				       a);
		return 0;
	}
	snprintf(out, len, "%s", a);
	return 0;
}

int rp_matrix_local_addr(const struct rp_config *cfg, char *out, size_t len,
			 struct rp_err *why)
{
	struct want w = { 0 };

	if (cfg->test.host)
		return by_flag(cfg->test.host, out, len, why);
	if (!by_transport(cfg, out, len) || !by_hostname(out, len) ||
	    !find_local(&w, out, len))
		return 0;
	snprintf(out, len, "127.0.0.1");
	return 0;
}
