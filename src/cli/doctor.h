/* SPDX-License-Identifier: MIT */
/*
 * rdmaperf doctor: a pre-flight check of this host, in a second or two,
 * before a test says something misleading. Each check gives ok, info, a
 * warning (a figure may suffer) or a problem (a test will fail or
 * mislead), and for each that is not ok, how to fix it. It reads sysfs and
 * /proc under $RP_SYSFS_ROOT (xport/sysfs.h), so recorded trees test it.
 *
 *   doctor.c         the command line and the exit status
 *   doctor_dev.c     the RDMA devices: ports, MTU, rate, PCIe, NUMA, GIDs
 *   doctor_host.c    the host: ulimit -l, the CPU governor, huge pages
 *   doctor_report.c  the bottom: the checks' list, text and JSON
 */
#ifndef RP_CLI_DOCTOR_H
#define RP_CLI_DOCTOR_H

#include <stdbool.h>
#include <stddef.h>

/** rp_doctor_main - run "rdmaperf doctor ARGS" (@argv[0] is "doctor").
 *  Return: the exit status: 0 nothing wrong, 1 a problem, 2 bad usage. */
int rp_doctor_main(int argc, char **argv);

/* What the files of the doctor share. */

#define RP_DOCTOR_MAX_CHECKS 96

enum rp_doctor_verdict { RP_DOC_OK, RP_DOC_INFO, RP_DOC_WARN, RP_DOC_PROBLEM };

struct rp_doctor_check {
	const char *name; /* port, mtu, pcie, numa, memlock, ... */
	enum rp_doctor_verdict v;
	char what[200];
	char hint[200];
};

struct rp_doctor {
	const char *dev;  /* -d, or NULL: every device */
	const char *addr; /* -a, or NULL */
	int cpus[64];
	size_t n_cpus;
	bool json;
	struct rp_doctor_check c[RP_DOCTOR_MAX_CHECKS];
	unsigned int n;
};

/* doctor_report.c: one more check's outcome (@hint: how to fix it, or
 * NULL); the checks printed, as text or JSON (Return: 0, or 1 when out of
 * memory); how many are problems, and warnings. */
__attribute__((format(printf, 5, 6))) void
rp_doctor_say(struct rp_doctor *d, const char *name, enum rp_doctor_verdict v,
	      const char *hint, const char *fmt, ...);
int rp_doctor_print(const struct rp_doctor *d);
unsigned int rp_doctor_count(const struct rp_doctor *d,
			     enum rp_doctor_verdict v);

/* doctor_dev.c, doctor_host.c: the checks */
void rp_doctor_devices(struct rp_doctor *d);
void rp_doctor_host(struct rp_doctor *d);

#endif
