// SPDX-License-Identifier: MIT
/*
 * Who may use a server (--allow CIDR[,CIDR...], repeatable) and the key
 * both sides prove they hold (--auth-key FILE). The key file is read here,
 * once: like ssh with a private key, a file that others may read or write
 * is refused, and so is one that is empty or longer than RP_AUTH_KEY_MAX
 * bytes (a trailing newline is not part of the key).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/parse.h"
#include "platform/crypto.h"
#include "platform/os.h"
#include "platform/sock.h"

#define ALLOW_ITEM_MAX 64 /* longer than any address with its prefix */

/* @one failed to parse: say so, and whether only its host bits are set. */
static int bad_prefix(struct parse *p, const char *one)
{
	char addr[ALLOW_ITEM_MAX], text[INET6_ADDRSTRLEN], *end;
	const char *slash = strchr(one, '/');
	struct rp_cidr c, net;
	unsigned long bits;
	unsigned int i;

	if (!slash || (size_t)(slash - one) >= sizeof(addr) ||
	    !isdigit((unsigned char)slash[1]))
		goto garbage;
	memcpy(addr, one, (size_t)(slash - one));
	addr[slash - one] = '\0';
	bits = strtoul(slash + 1, &end, 10);
	if (rp_cidr_parse(addr, &c) || *end)
		goto garbage;
	if (bits > c.prefix)
		return rp_cli_bad(p,
				  "--allow: '%s': the prefix /%lu is too long "
				  "for an %s address (at most /%u)",
				  one, bits,
				  c.family == AF_INET ? "IPv4" : "IPv6",
				  c.prefix);
	net = c;
	for (i = (unsigned int)bits; i < c.prefix; i++)
		net.addr[i / 8] &= (uint8_t) ~(0x80u >> (i % 8));
	if (!memcmp(net.addr, c.addr, sizeof(c.addr)) ||
	    !inet_ntop(c.family, net.addr, text, sizeof(text)))
		goto garbage;
	return rp_cli_bad(p,
			  "--allow: '%s' has bits set beyond its /%lu prefix "
			  "(the network is %s/%lu)",
			  one, bits, text, bits);
garbage:
	return rp_cli_bad(p,
			  "--allow: '%s' is not an IPv4 or IPv6 address or "
			  "prefix (such as 10.0.0.0/8, fd00::/8 or ::1)",
			  one);
}

static int allow_one(struct parse *p, const char *one)
{
	struct rp_access *a = &p->cfg->access;

	if (!*one)
		return rp_cli_bad(p, "--allow: an empty prefix in the list");
	if (a->n_allow == RP_MAX_ALLOW)
		return rp_cli_bad(p,
				  "--allow: at most %d prefixes ('%s' is "
				  "one too many)",
				  RP_MAX_ALLOW, one);
	if (rp_cidr_parse(one, &a->allow[a->n_allow]))
		return bad_prefix(p, one);
	a->n_allow++;
	return 0;
}

int rp_cli_o_allow(struct parse *p, const char *arg)
{
	char one[ALLOW_ITEM_MAX];
	const char *s = arg, *comma;
	size_t len;
	int err = 0;

	p->set_server_only = "--allow";
	do {
		comma = strchr(s, ',');
		len = comma ? (size_t)(comma - s) : strlen(s);
		if (len >= sizeof(one))
			return rp_cli_bad(p, "--allow: '%.*s...' is too long",
					  ALLOW_ITEM_MAX / 2, s);
		memcpy(one, s, len);
		one[len] = '\0';
		err = allow_one(p, one);
		s = comma ? comma + 1 : s + len;
	} while (!err && comma);
	return err;
}

/* Open @path for its key: a regular file only its owner may touch. */
static int open_key(struct parse *p, const char *path, int *out)
{
	unsigned int perm = 0;
	int fd = rp_os_open_read(path);

	if (fd < 0)
		return rp_cli_bad(p, "--auth-key: cannot open '%s': %s", path,
				  strerror(-fd));
	if (rp_os_file_perm(fd, &perm)) {
		close(fd);
		return rp_cli_bad(p, "--auth-key: '%s' is not a regular file",
				  path);
	}
	if (perm & 077) {
		close(fd);
		return rp_cli_bad(p,
				  "--auth-key: permissions %04o for '%s' are "
				  "too open: a key must be private to its "
				  "owner (chmod 600 '%s')",
				  perm, path, path);
	}
	*out = fd;
	return 0;
}

/* Up to @len bytes of @fd into @buf: the count, or -errno. */
static ssize_t read_all(int fd, uint8_t *buf, size_t len)
{
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		n = read(fd, buf + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

int rp_cli_o_auth_key(struct parse *p, const char *arg)
{
	struct rp_access *a = &p->cfg->access;
	uint8_t buf[RP_AUTH_KEY_MAX + 3]; /* the key, "\r\n", one more */
	ssize_t n;
	int fd = -1, err = open_key(p, arg, &fd);

	if (err)
		return err;
	n = read_all(fd, buf, sizeof(buf));
	close(fd);
	if (n < 0)
		return rp_cli_bad(p, "--auth-key: cannot read '%s': %s", arg,
				  strerror((int)-n));
	if (n > 0 && buf[n - 1] == '\n')
		n -= 1 + (n > 1 && buf[n - 2] == '\r');
	if (n == 0)
		err = rp_cli_bad(p, "--auth-key: '%s' is empty", arg);
	else if (n > RP_AUTH_KEY_MAX)
		err = rp_cli_bad(p, "--auth-key: '%s' holds more than %d bytes",
				 arg, RP_AUTH_KEY_MAX);
	else
		memcpy(a->key, buf, (size_t)n);
	a->key_len = err ? 0 : (size_t)n;
	rp_crypto_wipe(buf, sizeof(buf));
	return err;
}
