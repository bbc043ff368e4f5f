// SPDX-License-Identifier: MIT
/* The doctor's checks of the host: ulimit -l, the CPU frequency governor,
 * huge pages (cli/doctor.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifndef _WIN32
#include <sys/resource.h>
#endif

#include "cli/doctor.h"
#include "xport/sysfs.h"

/* What a default test registers on each side: -S 64K -q 16, a buffer per
 * stream of depth * size, and the verbs transport's own rings beside. */
#define DOCTOR_DEFAULT_LOCK (2ull << 20)

static void check_memlock(struct rp_doctor *d)
{
#ifndef _WIN32
	struct rlimit rl;

	if (getrlimit(RLIMIT_MEMLOCK, &rl))
		return;
	if (rl.rlim_cur == RLIM_INFINITY)
		rp_doctor_say(d, "memlock", RP_DOC_OK, NULL,
			      "ulimit -l: unlimited");
	else if (rl.rlim_cur < DOCTOR_DEFAULT_LOCK)
		rp_doctor_say(d, "memlock", RP_DOC_PROBLEM,
			      "ulimit -l unlimited, or memlock in "
			      "/etc/security/limits.conf (LimitMEMLOCK= for a "
			      "service)",
			      "ulimit -l is %" PRIu64
			      " KiB: a default test registers "
			      "%llu KiB on each side",
			      (uint64_t)rl.rlim_cur / 1024,
			      (unsigned long long)(DOCTOR_DEFAULT_LOCK / 1024));
	else
		rp_doctor_say(d, "memlock", RP_DOC_OK, NULL,
			      "ulimit -l: %" PRIu64
			      " KiB (a large -S -q needs more)",
			      (uint64_t)rl.rlim_cur / 1024);
#else
	(void)d;
#endif
}

static void check_governor(struct rp_doctor *d)
{
	char(*cpus)[RP_SYSFS_NAME] = malloc(1024 * sizeof(*cpus));
	unsigned int i, n, slow = 0, read = 0;
	char gov[64], first[64] = "";

	n = cpus ? rp_sysfs_list(cpus, 1024, "/sys/devices/system/cpu") : 0;
	for (i = 0; i < n; i++) {
		if (strncmp(cpus[i], "cpu", 3) || cpus[i][3] < '0' ||
		    cpus[i][3] > '9' ||
		    !rp_sysfs_read(gov, sizeof(gov),
				   "/sys/devices/system/cpu/%s/cpufreq/"
				   "scaling_governor",
				   cpus[i]))
			continue;
		read++;
		if (strcmp(gov, "performance") && !slow++)
			snprintf(first, sizeof(first), "%s", gov);
	}
	free(cpus);
	if (!read)
		rp_doctor_say(
			d, "governor", RP_DOC_INFO, NULL,
			"no CPU frequency scaling to check (a VM, or a fixed "
			"clock)");
	else if (slow)
		rp_doctor_say(
			d, "governor", RP_DOC_WARN,
			"cpupower frequency-set -g performance",
			"%u of %u CPUs run the '%s' governor, not performance: "
			"latency varies with the clock",
			slow, read, first);
	else
		rp_doctor_say(d, "governor", RP_DOC_OK, NULL,
			      "every CPU runs the performance governor");
}

static void check_hugepages(struct rp_doctor *d)
{
	char full[512], line[128];
	unsigned long total = 0, freep = 0, size = 0;
	FILE *f;

	f = rp_sysfs_path(full, sizeof(full), "/proc/meminfo")
		    ? fopen(full, "r")
		    : NULL;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "HugePages_Total: %lu", &total);
		sscanf(line, "HugePages_Free: %lu", &freep);
		sscanf(line, "Hugepagesize: %lu", &size);
	}
	fclose(f);
	if (total && !freep)
		rp_doctor_say(
			d, "hugepages", RP_DOC_WARN,
			"raise vm.nr_hugepages, or stop what holds them",
			"all %lu huge pages of %lu KiB are in use: a test that "
			"maps them (RDMAV_HUGEPAGES_SAFE, libraries) cannot",
			total, size);
	else
		rp_doctor_say(d, "hugepages", RP_DOC_INFO, NULL,
			      "%lu of %lu huge pages of %lu KiB free", freep,
			      total, size);
}

void rp_doctor_host(struct rp_doctor *d)
{
	check_memlock(d);
	check_governor(d);
	check_hugepages(d);
}
