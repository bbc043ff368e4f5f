/* SPDX-License-Identifier: MIT */
/*
 * Reading sysfs and /proc under the root the tests can set
 * ($RP_SYSFS_ROOT): the bottom of xport/link.c, link_counters.c and
 * rdmaperf doctor. Every path is given as on the host ("/sys/class/...")
 * and read under the root; a file that is absent, unreadable, empty or too
 * long for its buffer reads as nothing. On Windows nothing reads.
 */
#ifndef RP_XPORT_SYSFS_H
#define RP_XPORT_SYSFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RP_SYSFS_LINE 256 /* an attribute's text */
#define RP_SYSFS_PATH 768
#define RP_SYSFS_NAME 64 /* a directory entry rp_sysfs_list keeps */

/** rp_sysfs_root - the root sysfs and /proc are read under: $RP_SYSFS_ROOT
 *  without a trailing '/', or "" (the real /). Read on every call. */
const char *rp_sysfs_root(void);

/** rp_sysfs_path - the root, then @fmt, into @buf; false if it does not
 *  fit. */
__attribute__((format(printf, 3, 4))) bool rp_sysfs_path(char *buf, size_t len,
							 const char *fmt, ...);

/** rp_sysfs_read - the first line of the file @fmt names, trimmed, into
 *  @buf; false when it cannot be read or is empty. */
__attribute__((format(printf, 3, 4))) bool rp_sysfs_read(char *buf, size_t len,
							 const char *fmt, ...);

/** rp_sysfs_exists - the file or directory @fmt names is there. */
__attribute__((format(printf, 1, 2))) bool rp_sysfs_exists(const char *fmt,
							   ...);

/** rp_sysfs_u64, rp_sysfs_i64 - @s as a whole decimal number and nothing
 *  else but blanks; false otherwise (out of range too). */
bool rp_sysfs_u64(const char *s, uint64_t *out);
bool rp_sysfs_i64(const char *s, int64_t *out);

/** rp_sysfs_link_name - the last component of the target of the symbolic
 *  link @fmt names (a device's driver: "mlx5_core"), into @buf. */
__attribute__((format(printf, 3, 4))) bool
rp_sysfs_link_name(char *buf, size_t len, const char *fmt, ...);

/** rp_sysfs_list - the entries of directory @fmt (not "." and "..", none
 *  longer than RP_SYSFS_NAME - 1), sorted, at most @max. Return: how
 *  many. */
__attribute__((format(printf, 3, 4))) unsigned int
rp_sysfs_list(char names[][RP_SYSFS_NAME], unsigned int max, const char *fmt,
	      ...);

/** rp_sysfs_provider - the provider of RDMA device @dev (rxe, siw, mlx5,
 *  ...): its PCI driver's name where it has one (mlx5_core: mlx5), else
 *  what its name says (rxe0, siw0: named by rdma link add); "" unknown. */
void rp_sysfs_provider(const char *dev, char *buf, size_t len);

/** rp_sysfs_port_netdev - the netdev an Ethernet port of @dev runs on: GID
 *  @idx's (-1: none given), else any GID's, rxe's parent, or for siw (no
 *  GID netdevs) the netdev whose MAC its GID 0 holds. */
bool rp_sysfs_port_netdev(const char *dev, unsigned port, int idx, char *buf,
			  size_t len);

#endif
