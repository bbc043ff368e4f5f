// SPDX-License-Identifier: MIT
/*
 * rdmaperf doctor: a pre-flight check of this host, in a second or two,
 * before a test says something misleading. Each check gives ok, a warning
 * (a figure may suffer) or a problem (a test will fail or mislead), and
 * for each that is not ok, how to fix it. Reads sysfs and /proc under
 * $RP_SYSFS_ROOT (xport/link.h), so recorded trees test it.
 *
 *   rdmaperf doctor [-d DEV] [-a ADDR] [--cpu LIST] [--json]
 *
 * Exit status: 0 nothing wrong (warnings allowed), 1 a problem, 2 usage.
 */
#include "cli/doctor.h"

#ifndef _WIN32
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "core/cpulist.h"
#include "xport/link.h"

/* What a default test registers on each side: -S 64K -q 16, a buffer per
 * stream of depth * size, and the verbs transport's own rings beside. */
#define DOCTOR_DEFAULT_LOCK (2ull << 20)
#define DOCTOR_MAX_CHECKS   96
#define DOCTOR_MAX_DEVS	    16

enum verdict { DOC_OK, DOC_INFO, DOC_WARN, DOC_PROBLEM };

static const char *const verdict_names[] = { "ok", "info", "warning",
					     "problem" };

struct check {
	const char *name; /* port, mtu, pcie, numa, memlock, ... */
	enum verdict v;
	char what[200];
	char hint[200];
};

struct doctor {
	const char *dev;  /* -d, or NULL: every device */
	const char *addr; /* -a, or NULL */
	int cpus[64];
	size_t n_cpus;
	bool json;
	struct check c[DOCTOR_MAX_CHECKS];
	unsigned int n;
};

__attribute__((format(printf, 5, 6))) static void
say(struct doctor *d, const char *name, enum verdict v, const char *hint,
    const char *fmt, ...)
{
	struct check *c;
	va_list ap;

	if (d->n == DOCTOR_MAX_CHECKS)
		return;
	c = &d->c[d->n++];
	c->name = name;
	c->v = v;
	va_start(ap, fmt);
	vsnprintf(c->what, sizeof(c->what), fmt, ap);
	va_end(ap);
	snprintf(c->hint, sizeof(c->hint), "%s", hint ? hint : "");
}

/* A path (or a name) from @fmt into @buf; false when it does not fit. */
__attribute__((format(printf, 3, 4))) static bool fmt_in(char *buf, size_t len,
							 const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return n >= 0 && (size_t)n < len;
}

/* A one-line file under the root into @buf, its newline gone. */
static bool read_line(const char *path, char *buf, size_t len)
{
	char full[512];
	FILE *f;
	bool ok;

	fmt_in(full, sizeof(full), "%s%s", rp_sysfs_root(), path);
	f = fopen(full, "r");
	if (!f)
		return false;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

static bool exists(const char *path)
{
	char full[512];
	FILE *f;

	fmt_in(full, sizeof(full), "%s%s", rp_sysfs_root(), path);
	f = fopen(full, "r");
	if (f)
		fclose(f);
	return f != NULL || errno == EACCES || errno == EISDIR;
}

/* The entries of directory @path under the root (not . and ..), sorted. */
static unsigned int list_dir(const char *path, char names[][64],
			     unsigned int max)
{
	char full[512];
	struct dirent *e;
	unsigned int n = 0, i, k;
	DIR *dir;

	fmt_in(full, sizeof(full), "%s%s", rp_sysfs_root(), path);
	dir = opendir(full);
	if (!dir)
		return 0;
	while ((e = readdir(dir)) && n < max) {
		if (e->d_name[0] == '.' || strlen(e->d_name) >= 64)
			continue;
		fmt_in(names[n++], 64, "%s", e->d_name);
	}
	closedir(dir);
	for (i = 1; i < n; i++) /* insertion sort: a handful of names */
		for (k = i; k > 0 && strcmp(names[k - 1], names[k]) > 0; k--) {
			char t[64];

			memcpy(t, names[k], 64);
			memcpy(names[k], names[k - 1], 64);
			memcpy(names[k - 1], t, 64);
		}
	return n;
}

static const char *jstr(const cJSON *o, const char *key)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(j) ? j->valuestring : NULL;
}

static bool jnum(const cJSON *o, const char *key, double *v)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!cJSON_IsNumber(j))
		return false;
	*v = j->valuedouble;
	return true;
}

/* The NUMA node CPU @cpu is on, from /sys/devices/system/node, or -1. */
static int cpu_node(int cpu)
{
	char names[64][64], path[128];
	unsigned int i, n = list_dir("/sys/devices/system/node", names, 64);

	for (i = 0; i < n; i++) {
		if (strncmp(names[i], "node", 4))
			continue;
		fmt_in(path, sizeof(path), "/sys/devices/system/node/%s/cpu%d",
		       names[i], cpu);
		if (exists(path))
			return atoi(names[i] + 4);
	}
	return -1;
}

static void check_numa(struct doctor *d, const char *dev, const cJSON *link)
{
	double node;
	size_t i;
	int off = -1;

	if (!jnum(link, "numa_node", &node) || node < 0) {
		say(d, "numa", DOC_INFO, NULL,
		    "%s: no NUMA node (one node, or a soft device)", dev);
		return;
	}
	if (!d->n_cpus) {
		say(d, "numa", DOC_INFO,
		    "pin the test near it: --cpu with CPUs of that node",
		    "%s is on NUMA node %.0f", dev, node);
		return;
	}
	for (i = 0; i < d->n_cpus && off < 0; i++) {
		if (cpu_node(d->cpus[i]) < 0) {
			say(d, "numa", DOC_INFO, NULL,
			    "%s is on NUMA node %.0f; which node CPU %d is on, "
			    "sysfs does not say",
			    dev, node, d->cpus[i]);
			return;
		}
		if (cpu_node(d->cpus[i]) != (int)node)
			off = d->cpus[i];
	}
	if (off >= 0)
		say(d, "numa", DOC_WARN,
		    "give --cpu CPUs of the device's node "
		    "(/sys/devices/system/node/nodeN/cpulist)",
		    "%s is on NUMA node %.0f, but --cpu %d is on node %d", dev,
		    node, off, cpu_node(off));
	else
		say(d, "numa", DOC_OK, NULL,
		    "%s is on NUMA node %.0f, as the --cpu CPUs are", dev,
		    node);
}

static void check_pcie(struct doctor *d, const char *dev, const cJSON *link)
{
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(link, "pcie");
	double s, w, ms, mw, g, mg;

	if (!cJSON_IsObject(p) || !jnum(p, "speed_gts", &s) ||
	    !jnum(p, "width", &w))
		return; /* a soft device: no slot */
	if (!jnum(p, "max_speed_gts", &ms))
		ms = s;
	if (!jnum(p, "max_width", &mw))
		mw = w;
	if (!jnum(p, "gbps", &g))
		g = 0;
	if (!jnum(p, "max_gbps", &mg))
		mg = g;
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "downtrained")))
		say(d, "pcie", DOC_PROBLEM,
		    "reseat the card or move it to a full slot; check the "
		    "BIOS's PCIe settings",
		    "%s: PCIe runs at %.3g GT/s x%.0f, below the %.3g GT/s "
		    "x%.0f it can do (%.0f of %.0f Gb/s)",
		    dev, s, w, ms, mw, g, mg);
	else
		say(d, "pcie", DOC_OK, NULL,
		    "%s: PCIe %.3g GT/s x%.0f, its most (%.0f Gb/s)", dev, s, w,
		    g);
}

static void check_port(struct doctor *d, const char *dev, unsigned int port)
{
	struct rp_link_known k = { .gid_index = -1 };
	const char *st, *ph, *ll;
	double mtu, nmtu;
	cJSON *link;

#ifdef RP_HAVE_RDMA
	if (!getenv("RP_SYSFS_ROOT")) /* verbs sees the real device only */
		rp_link_active_mtu(dev, port, &k.active_mtu);
#endif
	link = rp_link_rdma(dev, port, &k);
	if (!link) {
		say(d, "port", DOC_PROBLEM, NULL, "out of memory");
		return;
	}
	st = jstr(link, "state");
	ph = jstr(link, "phys_state");
	ll = jstr(link, "link_layer");
	if (!st || strcmp(st, "ACTIVE"))
		say(d, "port", DOC_PROBLEM,
		    ll && !strcmp(ll, "InfiniBand")
			    ? "is a subnet manager running (opensm, or the "
			      "switch's)? is the cable in?"
			    : "bring the netdev up (ip link set IF up) and "
			      "check the cable",
		    "%s port %u is %s (%s), not ACTIVE: no test can run on it",
		    dev, port, st ? st : "in an unknown state",
		    ph ? ph : "physical state unknown");
	else
		say(d, "port", DOC_OK, NULL, "%s port %u: ACTIVE, %s, %s", dev,
		    port, ph ? ph : "physical state unknown",
		    ll ? ll : "link layer unknown");
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
		    link, "mtu_below_netdev")) &&
	    jnum(link, "active_mtu", &mtu) && jnum(link, "netdev_mtu", &nmtu))
		say(d, "mtu", DOC_WARN,
		    "raise the port's MTU to match the netdev (mlxconfig, or "
		    "the switch's), or lower the netdev's",
		    "%s port %u: RoCE's active MTU is %.0f, but netdev %s's "
		    "MTU %.0f allows more: large messages pay more headers",
		    dev, port, mtu,
		    jstr(link, "netdev") ? jstr(link, "netdev") : "?", nmtu);
	if (cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(link, "rate_gbps")))
		say(d, "rate", DOC_INFO,
		    "a virtual NIC can say one: qemu's virtio-net speed=",
		    "%s port %u: %s, so there is no rated rate to judge a "
		    "test by (--expect bw>=N%%)",
		    dev, port,
		    jstr(link, "rate_note") ? jstr(link, "rate_note")
					    : "no rate");
	else if (jnum(link, "rate_gbps", &mtu))
		say(d, "rate", DOC_OK, NULL, "%s port %u: rated %.4g Gb/s", dev,
		    port, mtu);
	check_pcie(d, dev, link);
	check_numa(d, dev, link);
	cJSON_Delete(link);
}

/* GID @gid (sysfs's full form) is address @want (IPv6 text). */
static bool gid_is(const char *gid, const char *want)
{
	unsigned char a[16], b[16];

	return inet_pton(AF_INET6, gid, a) == 1 &&
	       inet_pton(AF_INET6, want, b) == 1 && !memcmp(a, b, 16);
}

/* -a: does a port carry a GID for @addr, and which kind? */
static void check_gid(struct doctor *d, char devs[][64], unsigned int n)
{
	char ports[8][64], gids[256][64], path[256], gid[64], type[32];
	char want[64], ifname[64];
	unsigned int i, p, g, np, ng;
	bool v1 = false;

	if (!d->addr)
		return;
	if (rp_link_ifname_of(d->addr, ifname, sizeof(ifname)))
		say(d, "address", DOC_PROBLEM,
		    "give -a an address of this host (ip -br addr)",
		    "%s is no address of this host", d->addr);
	else
		say(d, "address", DOC_OK, NULL, "%s is on %s", d->addr, ifname);
	if (strchr(d->addr, ':'))
		fmt_in(want, sizeof(want), "%s", d->addr);
	else
		fmt_in(want, sizeof(want), "::ffff:%s", d->addr);
	for (i = 0; i < n; i++) {
		fmt_in(path, sizeof(path), "/sys/class/infiniband/%s/ports",
		       devs[i]);
		np = list_dir(path, ports, 8);
		for (p = 0; p < np; p++) {
			fmt_in(path, sizeof(path),
			       "/sys/class/infiniband/%s/ports/%s/gids",
			       devs[i], ports[p]);
			ng = list_dir(path, gids, 256);
			for (g = 0; g < ng; g++) {
				fmt_in(path, sizeof(path),
				       "/sys/class/infiniband/%s/ports/%s/"
				       "gids/%s",
				       devs[i], ports[p], gids[g]);
				if (!read_line(path, gid, sizeof(gid)) ||
				    !gid_is(gid, want))
					continue;
				fmt_in(path, sizeof(path),
				       "/sys/class/infiniband/%s/ports/%s/"
				       "gid_attrs/types/%s",
				       devs[i], ports[p], gids[g]);
				if (!read_line(path, type, sizeof(type)) ||
				    strstr(type, "v2")) {
					say(d, "gid", DOC_OK, NULL,
					    "%s port %s GID %s is %s: %s",
					    devs[i], ports[p], gids[g], d->addr,
					    type[0] ? type : "type unknown");
					return;
				}
				v1 = true;
			}
		}
	}
	if (v1)
		say(d, "gid", DOC_WARN,
		    "enable RoCE v2 (rdma_cm picks v1 otherwise: "
		    "cma_roce_mode in configfs)",
		    "%s has only a RoCE v1 GID: it does not route", d->addr);
	else
		say(d, "gid", DOC_PROBLEM,
		    "rdma_cm cannot bind there: add a device on its netdev "
		    "(rdma link add rxe0 type rxe netdev IF) or check the "
		    "address",
		    "no RDMA port has a GID for %s", d->addr);
}

static void check_devices(struct doctor *d)
{
	char devs[DOCTOR_MAX_DEVS][64], ports[8][64], path[256];
	unsigned int i, p, n, np;

	n = list_dir("/sys/class/infiniband", devs, DOCTOR_MAX_DEVS);
	if (d->dev) {
		for (i = 0; i < n && strcmp(devs[i], d->dev); i++)
			;
		if (i == n) {
			say(d, "device", DOC_PROBLEM,
			    "list them: rdma link show (or ibv_devices)",
			    "no RDMA device %s", d->dev);
			n = 0;
		} else {
			snprintf(devs[0], 64, "%s", d->dev);
			n = 1;
		}
	} else if (!n) {
		say(d, "device", DOC_PROBLEM,
		    "load the NIC's driver, or for Soft-RoCE: modprobe "
		    "rdma_rxe && rdma link add rxe0 type rxe netdev IF",
		    "no RDMA device: only -x tcp can run");
	}
	if (n && !exists("/dev/infiniband/rdma_cm"))
		say(d, "rdma_cm", DOC_PROBLEM, "modprobe rdma_ucm",
		    "no /dev/infiniband/rdma_cm: rdma_cm cannot connect");
	for (i = 0; i < n; i++) {
		fmt_in(path, sizeof(path), "/sys/class/infiniband/%s/ports",
		       devs[i]);
		np = list_dir(path, ports, 8);
		for (p = 0; p < np; p++)
			check_port(d, devs[i], (unsigned int)atoi(ports[p]));
	}
	check_gid(d, devs, n);
}

static void check_memlock(struct doctor *d)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_MEMLOCK, &rl))
		return;
	if (rl.rlim_cur == RLIM_INFINITY)
		say(d, "memlock", DOC_OK, NULL, "ulimit -l: unlimited");
	else if (rl.rlim_cur < DOCTOR_DEFAULT_LOCK)
		say(d, "memlock", DOC_PROBLEM,
		    "ulimit -l unlimited, or memlock in "
		    "/etc/security/limits.conf (LimitMEMLOCK= for a service)",
		    "ulimit -l is %" PRIu64 " KiB: a default test registers "
		    "%llu KiB on each side",
		    (uint64_t)rl.rlim_cur / 1024,
		    (unsigned long long)(DOCTOR_DEFAULT_LOCK / 1024));
	else
		say(d, "memlock", DOC_OK, NULL,
		    "ulimit -l: %" PRIu64 " KiB (a large -S -q needs more)",
		    (uint64_t)rl.rlim_cur / 1024);
}

static void check_governor(struct doctor *d)
{
	char cpus[1024][64], path[128], gov[64];
	unsigned int i, n, slow = 0, read = 0;
	char first[64] = "";

	n = list_dir("/sys/devices/system/cpu", cpus, 1024);
	for (i = 0; i < n; i++) {
		if (strncmp(cpus[i], "cpu", 3) || cpus[i][3] < '0' ||
		    cpus[i][3] > '9')
			continue;
		fmt_in(path, sizeof(path),
		       "/sys/devices/system/cpu/%s/cpufreq/scaling_governor",
		       cpus[i]);
		if (!read_line(path, gov, sizeof(gov)))
			continue;
		read++;
		if (strcmp(gov, "performance") && !slow++)
			fmt_in(first, sizeof(first), "%s", gov);
	}
	if (!read)
		say(d, "governor", DOC_INFO, NULL,
		    "no CPU frequency scaling to check (a VM, or a fixed "
		    "clock)");
	else if (slow)
		say(d, "governor", DOC_WARN,
		    "cpupower frequency-set -g performance",
		    "%u of %u CPUs run the '%s' governor, not performance: "
		    "latency varies with the clock",
		    slow, read, first);
	else
		say(d, "governor", DOC_OK, NULL,
		    "every CPU runs the performance governor");
}

static void check_hugepages(struct doctor *d)
{
	char full[512], line[128];
	unsigned long total = 0, freep = 0, size = 0;
	FILE *f;

	fmt_in(full, sizeof(full), "%s/proc/meminfo", rp_sysfs_root());
	f = fopen(full, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "HugePages_Total: %lu", &total);
		sscanf(line, "HugePages_Free: %lu", &freep);
		sscanf(line, "Hugepagesize: %lu", &size);
	}
	fclose(f);
	if (total && !freep)
		say(d, "hugepages", DOC_WARN,
		    "raise vm.nr_hugepages, or stop what holds them",
		    "all %lu huge pages of %lu KiB are in use: a test that "
		    "maps them (RDMAV_HUGEPAGES_SAFE, libraries) cannot",
		    total, size);
	else
		say(d, "hugepages", DOC_INFO, NULL,
		    "%lu of %lu huge pages of %lu KiB free", freep, total,
		    size);
}

static int usage(const char *what, const char *arg)
{
	fprintf(stderr, "rdmaperf doctor: %s%s\n", what, arg);
	fprintf(stderr, "usage: rdmaperf doctor [-d DEV] [-a ADDR] "
			"[--cpu LIST] [--json]\n");
	return 2;
}

static int parse(struct doctor *d, int argc, char **argv)
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

static void print_text(const struct doctor *d, unsigned int problems,
		       unsigned int warnings)
{
	static const char *const tags[] = { "ok", "info", "WARNING",
					    "PROBLEM" };
	unsigned int i;

	printf("rdmaperf doctor: %u problem%s, %u warning%s\n", problems,
	       problems == 1 ? "" : "s", warnings, warnings == 1 ? "" : "s");
	for (i = 0; i < d->n; i++) {
		printf("  %-8s %-9s %s\n", tags[d->c[i].v], d->c[i].name,
		       d->c[i].what);
		if (d->c[i].v >= DOC_WARN && d->c[i].hint[0])
			printf("  %-8s %-9s fix: %s\n", "", "", d->c[i].hint);
	}
}

static int print_json(const struct doctor *d, unsigned int problems,
		      unsigned int warnings)
{
	cJSON *o = cJSON_CreateObject(), *a;
	unsigned int i;
	char *s;

	a = o ? cJSON_AddArrayToObject(o, "checks") : NULL;
	for (i = 0; a && i < d->n; i++) {
		cJSON *c = cJSON_CreateObject();

		if (!c || !cJSON_AddItemToArray(a, c))
			break;
		cJSON_AddStringToObject(c, "check", d->c[i].name);
		cJSON_AddStringToObject(c, "status", verdict_names[d->c[i].v]);
		cJSON_AddStringToObject(c, "what", d->c[i].what);
		if (d->c[i].hint[0])
			cJSON_AddStringToObject(c, "hint", d->c[i].hint);
	}
	if (o) {
		cJSON_AddBoolToObject(o, "ok", !problems);
		cJSON_AddNumberToObject(o, "problems", problems);
		cJSON_AddNumberToObject(o, "warnings", warnings);
	}
	s = o ? cJSON_Print(o) : NULL;
	cJSON_Delete(o);
	if (!s) {
		fprintf(stderr, "rdmaperf doctor: out of memory\n");
		return 1;
	}
	printf("%s\n", s);
	free(s);
	return 0;
}

int rp_doctor_main(int argc, char **argv)
{
	struct doctor *d = calloc(1, sizeof(*d));
	unsigned int i, problems = 0, warnings = 0;
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
	check_devices(d);
	check_memlock(d);
	check_governor(d);
	check_hugepages(d);
	for (i = 0; i < d->n; i++) {
		problems += d->c[i].v == DOC_PROBLEM;
		warnings += d->c[i].v == DOC_WARN;
	}
	if (d->json)
		rc = print_json(d, problems, warnings);
	else
		print_text(d, problems, warnings);
	free(d);
	return rc ? rc : problems ? 1 : 0;
}
#else /* _WIN32: no RDMA, no sysfs */
#include <stdio.h>

int rp_doctor_main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "rdmaperf doctor: checks Linux hosts (sysfs); this "
			"build has no RDMA\n");
	return 2;
}
#endif
