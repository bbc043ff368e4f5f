// SPDX-License-Identifier: MIT
/* Reading sysfs and /proc under $RP_SYSFS_ROOT (xport/sysfs.h). */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef _WIN32
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

#include "xport/sysfs.h"

const char *rp_sysfs_root(void)
{
	static char root[RP_SYSFS_PATH];
	const char *r = getenv("RP_SYSFS_ROOT");
	size_t n;

	if (!r || !*r)
		return "";
	n = strlen(r);
	while (n > 1 && r[n - 1] == '/')
		n--;
	if (n == 1 && r[0] == '/')
		return "";
	if (n >= sizeof(root) - 256)
		return r; /* too long to be a tree: reads fail, facts missing */
	memcpy(root, r, n);
	root[n] = '\0';
	return root;
}

__attribute__((format(printf, 3, 0))) static bool
vpath(char *buf, size_t len, const char *fmt, va_list ap)
{
	int n, r = snprintf(buf, len, "%s", rp_sysfs_root());

	if (r < 0 || (size_t)r >= len)
		return false;
	n = vsnprintf(buf + r, len - (size_t)r, fmt, ap);
	return n >= 0 && (size_t)n < len - (size_t)r;
}

bool rp_sysfs_path(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	bool ok;

	va_start(ap, fmt);
	ok = vpath(buf, len, fmt, ap);
	va_end(ap);
	return ok;
}

/* The start of the file at @path into @buf (at most @len - 1 bytes, then
 * terminated). Without stdio: no FILE and no buffer on the heap for an
 * attribute of a few bytes (a point reads a hundred of them; under ASan
 * every freed buffer would stay resident in its quarantine). */
static bool read_start(const char *path, char *buf, size_t len)
{
#ifndef _WIN32
	ssize_t got;
	int fd;

	if (len < 2)
		return false;
	do
		fd = open(path, O_RDONLY | O_CLOEXEC);
	while (fd < 0 && errno == EINTR);
	if (fd < 0)
		return false;
	do
		got = read(fd, buf, len - 1);
	while (got < 0 && errno == EINTR);
	close(fd);
	if (got <= 0)
		return false;
	buf[got] = '\0';
	return true;
#else
	FILE *f = fopen(path, "r");
	bool ok;

	if (!f || len < 2)
		return f ? (fclose(f), false) : false;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	return ok;
#endif
}

bool rp_sysfs_read(char *buf, size_t len, const char *fmt, ...)
{
	char path[RP_SYSFS_PATH];
	va_list ap;
	size_t n;
	bool ok;

	va_start(ap, fmt);
	ok = vpath(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (!ok || !read_start(path, buf, len))
		return false;
	n = strcspn(buf, "\r\n"); /* the first line */
	buf[n] = '\0';
	while (n && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	return n > 0;
}

bool rp_sysfs_exists(const char *fmt, ...)
{
	char path[RP_SYSFS_PATH];
	va_list ap;
	bool ok;

	va_start(ap, fmt);
	ok = vpath(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (!ok)
		return false;
#ifndef _WIN32
	{
		struct stat st;

		return stat(path, &st) == 0;
	}
#else
	{
		FILE *f = fopen(path, "r");

		if (f)
			fclose(f);
		return f != NULL || errno == EACCES || errno == EISDIR;
	}
#endif
}

bool rp_sysfs_u64(const char *s, uint64_t *out)
{
	unsigned long long v;
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return false;
	while (isspace((unsigned char)*end))
		end++;
	if (*end)
		return false;
	*out = v;
	return true;
}

bool rp_sysfs_i64(const char *s, int64_t *out)
{
	bool neg;
	uint64_t v;

	while (isspace((unsigned char)*s))
		s++;
	neg = *s == '-';
	if (!rp_sysfs_u64(s + neg, &v) || v > (uint64_t)INT64_MAX)
		return false;
	*out = neg ? -(int64_t)v : (int64_t)v;
	return true;
}

bool rp_sysfs_link_name(char *buf, size_t len, const char *fmt, ...)
{
#ifndef _WIN32
	char path[RP_SYSFS_PATH], t[RP_SYSFS_PATH];
	const char *b;
	va_list ap;
	ssize_t n;
	bool ok;

	va_start(ap, fmt);
	ok = vpath(path, sizeof(path), fmt, ap);
	va_end(ap);
	n = ok ? readlink(path, t, sizeof(t) - 1) : -1;
	if (n <= 0)
		return false;
	t[n] = '\0';
	b = strrchr(t, '/');
	b = b ? b + 1 : t;
	if (!*b || strlen(b) >= len)
		return false;
	memcpy(buf, b, strlen(b) + 1);
	return true;
#else
	(void)buf;
	(void)len;
	(void)fmt;
	return false;
#endif
}

#ifndef _WIN32
static int by_name(const void *a, const void *b)
{
	return strcmp(a, b);
}
#endif

unsigned int rp_sysfs_list(char names[][RP_SYSFS_NAME], unsigned int max,
			   const char *fmt, ...)
{
	unsigned int n = 0;
#ifndef _WIN32
	char path[RP_SYSFS_PATH];
	struct dirent *e;
	va_list ap;
	DIR *d;
	bool ok;

	va_start(ap, fmt);
	ok = vpath(path, sizeof(path), fmt, ap);
	va_end(ap);
	d = ok ? opendir(path) : NULL;
	if (!d)
		return 0;
	while ((e = readdir(d)) && n < max) {
		size_t l = strlen(e->d_name);

		if (e->d_name[0] == '.' || l >= RP_SYSFS_NAME)
			continue;
		memcpy(names[n++], e->d_name, l + 1);
	}
	closedir(d);
	qsort(names, n, RP_SYSFS_NAME, by_name);
#else
	(void)names;
	(void)max;
	(void)fmt;
#endif
	return n;
}

/* The providers a driver's or a device's name starts with. */
static const char *known_provider(const char *name)
{
	static const char *const known[] = { "mlx5",	"mlx4", "irdma",
					     "bnxt_re", "efa",	"rxe",
					     "siw",	"hfi1", "qedr",
					     "erdma",	"hns",	"cxgb4" };
	size_t i;

	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strncmp(name, known[i], strlen(known[i])))
			return known[i];
	return NULL;
}

void rp_sysfs_provider(const char *dev, char *buf, size_t len)
{
	char drv[RP_SYSFS_LINE];
	const char *k;

	buf[0] = '\0';
	if (rp_sysfs_link_name(drv, sizeof(drv),
			       "/sys/class/infiniband/%s/device/driver", dev)) {
		k = known_provider(drv);
		if (!k && strlen(drv) < len) /* an unknown driver: its name */
			memcpy(buf, drv, strlen(drv) + 1);
	} else {
		k = known_provider(dev);
	}
	if (k)
		snprintf(buf, len, "%s", k);
}

/* iWARP (siw): GID 0 is the netdev's MAC, padded with zeros; the netdev
 * whose address that is, into @buf. */
static bool netdev_of_mac_gid(const char *dev, unsigned port, char *buf,
			      size_t len)
{
	char nets[256][RP_SYSFS_NAME];
	char gid[RP_SYSFS_LINE], mac[32], addr[RP_SYSFS_LINE];
	unsigned int b[6], i, n;

	if (!rp_sysfs_read(gid, sizeof(gid),
			   "/sys/class/infiniband/%s/ports/%u/gids/0", dev,
			   port) ||
	    sscanf(gid, "%2x%2x:%2x%2x:%2x%2x:", &b[0], &b[1], &b[2], &b[3],
		   &b[4], &b[5]) != 6)
		return false;
	snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x", b[0], b[1],
		 b[2], b[3], b[4], b[5]);
	if (!strcmp(mac, "00:00:00:00:00:00"))
		return false;
	n = rp_sysfs_list(nets, 256, "/sys/class/net");
	for (i = 0; i < n; i++)
		if (strlen(nets[i]) < len &&
		    rp_sysfs_read(addr, sizeof(addr),
				  "/sys/class/net/%s/address", nets[i]) &&
		    !strcmp(addr, mac)) {
			memcpy(buf, nets[i], strlen(nets[i]) + 1);
			return true;
		}
	return false;
}

bool rp_sysfs_port_netdev(const char *dev, unsigned port, int idx, char *buf,
			  size_t len)
{
	int i;

	if (idx >= 0 &&
	    rp_sysfs_read(buf, len,
			  "/sys/class/infiniband/%s/ports/%u/gid_attrs/ndevs/"
			  "%d",
			  dev, port, idx))
		return true;
	for (i = 0; i < 16; i++)
		if (rp_sysfs_read(buf, len,
				  "/sys/class/infiniband/%s/ports/%u/gid_attrs/"
				  "ndevs/%d",
				  dev, port, i))
			return true;
	/* rxe: its parent; siw has neither, but its GID is its MAC */
	return rp_sysfs_read(buf, len, "/sys/class/infiniband/%s/parent",
			     dev) ||
	       netdev_of_mac_gid(dev, port, buf, len);
}
