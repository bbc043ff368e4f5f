// SPDX-License-Identifier: MIT
/*
 * The monitor's HTTP side in a build without libmicrohttpd (CMake said
 * so): listen is refused with the reason; --textfile still works.
 */
#include <errno.h>
#include <stdio.h>

#include "cli/monitor.h"

int rp_mon_http_start(const char *listen, struct rp_mon_shared *sh,
		      struct rp_mon_http **out, char *err, size_t len)
{
	(void)sh;
	(void)out;
	snprintf(err, len,
		 "cannot serve %s: this rdmaperf was built without "
		 "libmicrohttpd (Debian: libmicrohttpd-dev); use listen = "
		 "none and --textfile",
		 listen);
	return -ENOTSUP;
}

uint16_t rp_mon_http_port(const struct rp_mon_http *h)
{
	(void)h;
	return 0;
}

void rp_mon_http_stop(struct rp_mon_http *h)
{
	(void)h;
}
