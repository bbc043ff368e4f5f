// SPDX-License-Identifier: MIT
/*
 * rdmaperf doctor's command line (cli/doctor.h says what it checks):
 *
 *   rdmaperf doctor [-d DEV] [-a ADDR] [--cpu LIST] [--json]
 *
 * Exit status: 0 nothing wrong (warnings allowed), 1 a problem, 2 usage.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/doctor.h"
#include "core/cpulist.h"

static int usage(const char *what, const char *arg)
{
	fprintf(stderr, "rdmaperf doctor: %s%s\n", what, arg);
	fprintf(stderr, "usage: rdmaperf doctor [-d DEV] [-a ADDR] "
			"[--cpu LIST] [--json]\n");
	return 2;
}

static int parse(struct rp_doctor *d, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "address", required_argument, NULL, 'a' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char err[160];
	int c;

	optind = 0; /* glibc: 0 resets it */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":d:a:h", lo, NULL)) != -1) {
		switch (c) {
		case 'd':
			d->dev = optarg;
			break;
		case 'a':
			d->addr = optarg;
			break;
		case 'C':
			if (rp_cpulist_parse(optarg, d->cpus, 64, &d->n_cpus,
					     err, sizeof(err)))
				return usage(err, "");
			break;
		case 'j':
			d->json = true;
			break;
		case 'h':
			printf("usage: rdmaperf doctor [-d DEV] [-a ADDR] "
			       "[--cpu LIST] [--json]\n"
			       "Checks this host before a test: the RDMA "
			       "ports, MTU, PCIe, NUMA, ulimit -l, the CPU\n"
			       "governor, huge pages, and with -a the GID "
			       "for the address. Exit status 0: nothing\n"
			       "wrong; 1: a problem was found; 2: bad "
			       "usage.\n");
			return -1;
		case ':':
			return usage("an option needs an argument: ",
				     argv[optind - 1]);
		default:
			return usage("unknown option ", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return usage("unexpected argument ", argv[optind]);
	return 0;
}

int rp_doctor_main(int argc, char **argv)
{
	struct rp_doctor *d = calloc(1, sizeof(*d));
	int rc;

	if (!d) {
		fprintf(stderr, "rdmaperf doctor: out of memory\n");
		return 1;
	}
	rc = parse(d, argc, argv);
	if (rc) {
		free(d);
		return rc < 0 ? 0 : rc;
	}
	rp_doctor_devices(d);
	rp_doctor_host(d);
	rc = rp_doctor_print(d);
	if (!rc && rp_doctor_count(d, RP_DOC_PROBLEM))
		rc = 1;
	free(d);
	return rc;
}
