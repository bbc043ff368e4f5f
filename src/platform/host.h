/* SPDX-License-Identifier: MIT */
/* What the operating system says about this host, for a result's "hosts". */
#ifndef RP_PLATFORM_HOST_H
#define RP_PLATFORM_HOST_H

#define RP_HOST_FIELD_LEN 256

struct rp_host {
	char hostname[RP_HOST_FIELD_LEN];
	char os[RP_HOST_FIELD_LEN];	 /* "" when unknown */
	char kernel[RP_HOST_FIELD_LEN];	 /* the kernel's release */
	char machine[RP_HOST_FIELD_LEN]; /* "x86_64", "aarch64", ... */
	long cpus;			 /* online CPUs */
};

/** rp_host_read - fill @h; a field the system does not tell stays "". */
void rp_host_read(struct rp_host *h);

#endif
