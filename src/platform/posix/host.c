// SPDX-License-Identifier: MIT
/* POSIX side of platform/host.h. */
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "platform/host.h"

void rp_host_read(struct rp_host *h)
{
	struct utsname u;

	memset(h, 0, sizeof(*h));
	if (gethostname(h->hostname, sizeof(h->hostname) - 1))
		h->hostname[0] = '\0';
	if (uname(&u) == 0) {
		snprintf(h->os, sizeof(h->os), "%s", u.sysname);
		snprintf(h->kernel, sizeof(h->kernel), "%s", u.release);
		snprintf(h->machine, sizeof(h->machine), "%s", u.machine);
	}
	h->cpus = sysconf(_SC_NPROCESSORS_ONLN);
}
