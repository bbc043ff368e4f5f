// SPDX-License-Identifier: MIT
/*
 * The monitor's config file (doc/monitor.md, dist/monitor.conf): lines of
 * "KEY = VALUE" in sections, '#' or ';' starting a comment line:
 *
 *   [monitor]               interval, listen, textfile, source,
 *                           max_duty_cycle, backoff_max, and the probe's
 *                           defaults (burst, lat_iterations, warmup,
 *                           stall_timeout)
 *   [peer NAME]             address, port, transport, op, size,
 *                           queue_depth, device, wait, expect, auth_key,
 *                           and the probe's keys above
 *
 * A peer's keys are the client's options: each becomes its flag, and the
 * command line's own parser (cli/options.c) validates the peer's test, so
 * a value means what it means after the flag. Every error names the file
 * and the line that gave the value.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <netdb.h>

#include "cli/monitor.h"
#include "cli/options.h"
#include "core/units.h"
#include "platform/host.h"
#include "platform/net.h"

#define LINE_MAX_LEN 4096

/* A peer's key: the client's flag it stands for. */
static const struct {
	const char *key;
	const char *flag;
} peer_keys[] = {
	{ "address", "--address" },
	{ "port", "--port" },
	{ "transport", "--transport" },
	{ "op", "--op" },
	{ "size", "--size" },
	{ "queue_depth", "--queue-depth" },
	{ "device", "--device" },
	{ "wait", "--wait" },
	{ "tos", "--tos" },
	{ "expect", "--expect" },
	{ "auth_key", "--auth-key" },
	{ "burst", "--time" },
	{ "lat_iterations", "--lat-iterations" },
	{ "warmup", "--warmup" },
	{ "stall_timeout", "--stall-timeout" },
};
#define N_PEER_KEYS (sizeof(peer_keys) / sizeof(peer_keys[0]))

struct reader {
	struct rp_mon_conf *c;
	unsigned int line;
	struct rp_mon_peer_conf *peer;	/* the section's, NULL: [monitor] */
	unsigned int seen[N_PEER_KEYS]; /* a peer's keys: the line */
	unsigned int gseen[16];		/* [monitor]'s keys: the line */
	char *err;
	size_t len;
};

__attribute__((format(printf, 3, 4))) static int
bad(struct reader *r, unsigned int line, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = line ? snprintf(r->err, r->len, "%s:%u: ", r->c->path, line)
		 : snprintf(r->err, r->len, "%s: ", r->c->path);
	if (n < 0 || (size_t)n >= r->len)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(r->err + n, r->len - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' ||
			 e[-1] == '\r'))
		*--e = '\0';
	return s;
}

int rp_mon_listen_split(const char *s, char *host, size_t len, uint16_t *port)
{
	const char *colon = strrchr(s, ':');
	unsigned long v;
	char *end;
	size_t n;

	if (!colon || !colon[1])
		return -EINVAL;
	n = (size_t)(colon - s);
	if (n && s[0] == '[') { /* [::1]:9520 */
		if (s[n - 1] != ']' || n < 3)
			return -EINVAL;
		s++;
		n -= 2;
	} else if (memchr(s, ':', n)) { /* a bare IPv6 address */
		return -EINVAL;
	}
	if (n >= len)
		return -EINVAL;
	memcpy(host, s, n);
	host[n] = '\0';
	errno = 0;
	v = strtoul(colon + 1, &end, 10);
	if (*end || errno || v > 65535 || colon[1] == '-' || colon[1] == '+')
		return -EINVAL;
	*port = (uint16_t)v;
	return 0;
}

static int seconds(struct reader *r, const char *key, const char *v, double lo,
		   double hi, double *out)
{
	uint64_t ns;

	if (rp_units_parse_seconds(v, &ns) || (double)ns / 1e9 < lo ||
	    (double)ns / 1e9 > hi)
		return bad(r, r->line,
			   "%s: '%s' is not a duration from %g to %g seconds "
			   "(a number, or with ms or s)",
			   key, v, lo, hi);
	*out = (double)ns / 1e9;
	return 0;
}

/* A share in (0, 1]: "0.1" or "10%". */
static int share(struct reader *r, const char *key, const char *v, double *out)
{
	char *end;
	double x;

	errno = 0;
	x = strtod(v, &end);
	if (end != v && *end == '%') {
		x /= 100;
		end++;
	}
	if (end == v || *end || errno || !isfinite(x) || x <= 0 || x > 1)
		return bad(r, r->line,
			   "%s: '%s' is not a share in (0, 1] (0.1 or 10%%)",
			   key, v);
	*out = x;
	return 0;
}

static int textfile(struct reader *r, const char *v)
{
	char dir[RP_MON_PATH_LEN];
	char *slash;
	struct stat st;

	if (strlen(v) >= sizeof(dir) - 8)
		return bad(r, r->line, "textfile: the path is too long");
	snprintf(dir, sizeof(dir), "%s", v);
	slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	if (stat(dir, &st) || !S_ISDIR(st.st_mode) || access(dir, W_OK))
		return bad(
			r, r->line,
			"textfile: '%s' is not a directory this user can "
			"write to (the file is written beside it and renamed)",
			dir);
	snprintf(r->c->textfile, sizeof(r->c->textfile), "%s", v);
	return 0;
}

/* The probe's defaults, as text for the peers' flags. */
static int probe_default(struct reader *r, char *dst, size_t dlen,
			 unsigned int *line, const char *v)
{
	if (strlen(v) >= dlen)
		return bad(r, r->line, "'%s' is too long", v);
	snprintf(dst, dlen, "%s", v);
	*line = r->line;
	return 0;
}

static const char *const global_keys[] = {
	"interval",    "listen", "textfile",	   "source", "max_duty_cycle",
	"backoff_max", "burst",	 "lat_iterations", "warmup", "stall_timeout",
};
#define N_GLOBAL_KEYS (sizeof(global_keys) / sizeof(global_keys[0]))

static int global_key(struct reader *r, size_t k, const char *v)
{
	struct rp_mon_conf *c = r->c;
	char host[RP_MON_LISTEN_LEN];
	uint16_t port;

	switch (k) {
	case 0:
		c->interval_line = r->line;
		return seconds(r, "interval", v, 0.5, 86400, &c->interval_s);
	case 1:
		c->listen_line = r->line;
		if (!strcmp(v, "none")) {
			c->listen[0] = '\0';
			return 0;
		}
		if (strlen(v) >= sizeof(c->listen) ||
		    rp_mon_listen_split(v, host, sizeof(host), &port))
			return bad(r, r->line,
				   "listen: '%s' is not ADDR:PORT "
				   "(127.0.0.1:9520, [::1]:9520, :9520 for "
				   "every address, or none)",
				   v);
		snprintf(c->listen, sizeof(c->listen), "%s", v);
		return 0;
	case 2:
		return textfile(r, v);
	case 3:
		if (strlen(v) >= sizeof(c->source))
			return bad(r, r->line, "source: longer than %zu bytes",
				   sizeof(c->source) - 1);
		snprintf(c->source, sizeof(c->source), "%s", v);
		return 0;
	case 4:
		c->max_duty_line = r->line;
		return share(r, "max_duty_cycle", v, &c->max_duty);
	case 5:
		c->has_backoff_max = true;
		return seconds(r, "backoff_max", v, 0.5, 7 * 86400,
			       &c->backoff_max_s);
	case 6:
		return probe_default(r, c->burst, sizeof(c->burst),
				     &c->burst_line, v);
	case 7:
		return probe_default(r, c->lat_iterations,
				     sizeof(c->lat_iterations), &c->lat_line,
				     v);
	case 8:
		return probe_default(r, c->warmup, sizeof(c->warmup),
				     &c->warmup_line, v);
	default:
		return probe_default(r, c->stall_timeout,
				     sizeof(c->stall_timeout), &c->stall_line,
				     v);
	}
}

static int add_arg(struct reader *r, struct rp_mon_peer_conf *p, const char *s,
		   unsigned int line)
{
	if (p->argc >= RP_MON_MAX_ARGS - 1)
		return bad(r, line, "peer %s: too many keys", p->name);
	p->argv[p->argc] = strdup(s);
	if (!p->argv[p->argc])
		return bad(r, line, "out of memory");
	p->argl[p->argc++] = line;
	return 0;
}

static int peer_key(struct reader *r, size_t k, const char *v)
{
	struct rp_mon_peer_conf *p = r->peer;
	struct rp_expect e;
	char why[400];
	int err;

	if (!strcmp(peer_keys[k].key, "transport") &&
	    (strchr(v, ',') || !strcmp(v, "all") || strchr(v, ':')))
		return bad(r, r->line,
			   "peer %s: transport: '%s': one network transport "
			   "per peer (another [peer] section for another)",
			   p->name, v);
	/* --expect's own parser, here for the line of its error */
	if (!strcmp(peer_keys[k].key, "expect") &&
	    rp_expect_parse(v, &e, why, sizeof(why)))
		return bad(r, r->line, "peer %s: %s", p->name, why);
	if (!strcmp(peer_keys[k].key, "address"))
		p->addr_line = r->line;
	p->has_burst |= !strcmp(peer_keys[k].key, "burst");
	p->has_lat |= !strcmp(peer_keys[k].key, "lat_iterations");
	p->has_warmup |= !strcmp(peer_keys[k].key, "warmup");
	p->has_stall |= !strcmp(peer_keys[k].key, "stall_timeout");
	err = add_arg(r, p, peer_keys[k].flag, r->line);
	return err ? err : add_arg(r, p, v, r->line);
}

static int key_line(struct reader *r, char *s)
{
	char *eq = strchr(s, '='), *key, *v;
	size_t k;

	if (!eq)
		return bad(r, r->line, "'%s' is not KEY = VALUE", s);
	*eq = '\0';
	key = trim(s);
	v = trim(eq + 1);
	if (!*v)
		return bad(r, r->line, "%s: no value", key);
	for (k = 0; r->peer && k < N_PEER_KEYS; k++) {
		if (strcmp(key, peer_keys[k].key))
			continue;
		if (r->seen[k])
			return bad(r, r->line,
				   "%s: given twice (first on line "
				   "%u)",
				   key, r->seen[k]);
		r->seen[k] = r->line;
		return peer_key(r, k, v);
	}
	for (k = 0; !r->peer && k < N_GLOBAL_KEYS; k++) {
		if (strcmp(key, global_keys[k]))
			continue;
		if (r->gseen[k])
			return bad(r, r->line,
				   "%s: given twice (first on line "
				   "%u)",
				   key, r->gseen[k]);
		r->gseen[k] = r->line;
		return global_key(r, k, v);
	}
	return bad(r, r->line,
		   "unknown key '%s' in %s (doc/monitor.md lists the keys)",
		   key, r->peer ? "a [peer] section" : "[monitor]");
}

static bool name_ok(const char *s)
{
	size_t n = strlen(s);

	return n && n < RP_MON_NAME_LEN &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_.:-"
			 "ABCDEFGHIJKLMNOPQRSTUVWXYZ") == n;
}

static int section(struct reader *r, char *s)
{
	struct rp_mon_conf *c = r->c;
	struct rp_mon_peer_conf *p;
	char *name;
	size_t i;

	if (s[strlen(s) - 1] != ']')
		return bad(r, r->line, "'%s': a section ends with ']'", s);
	s[strlen(s) - 1] = '\0';
	s = trim(s + 1);
	memset(r->seen, 0, sizeof(r->seen));
	if (!strcmp(s, "monitor")) {
		r->peer = NULL;
		return 0;
	}
	if (strncmp(s, "peer", 4) || (s[4] != ' ' && s[4] != '\t'))
		return bad(r, r->line,
			   "unknown section [%s]: [monitor] or [peer NAME]", s);
	name = trim(s + 4);
	if (!name_ok(name))
		return bad(r, r->line,
			   "[peer %s]: a name is 1 to %d letters, digits and "
			   "_.:-",
			   name, RP_MON_NAME_LEN - 1);
	for (i = 0; i < c->n_peers; i++)
		if (!strcmp(c->peers[i].name, name))
			return bad(r, r->line,
				   "[peer %s] twice (first on line "
				   "%u)",
				   name, c->peers[i].line);
	if (c->n_peers == RP_MON_MAX_PEERS)
		return bad(r, r->line, "more than %d peers", RP_MON_MAX_PEERS);
	p = &c->peers[c->n_peers++];
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->line = r->line;
	r->peer = p;
	if (add_arg(r, p, "rdmaperf", r->line) ||
	    add_arg(r, p, "--client", r->line))
		return -EINVAL;
	return add_arg(r, p, "--quiet", r->line);
}

static int one_line(struct reader *r, char *buf, size_t n)
{
	char *s;

	if (strlen(buf) != n)
		return bad(r, r->line, "a NUL byte in the line");
	if (n >= LINE_MAX_LEN)
		return bad(r, r->line, "a line longer than %d bytes",
			   LINE_MAX_LEN - 1);
	s = trim(buf);
	if (!*s || *s == '#' || *s == ';')
		return 0;
	return *s == '[' ? section(r, s) : key_line(r, s);
}

static int read_file(struct reader *r, FILE *f)
{
	char *buf = NULL;
	size_t cap = 0;
	ssize_t n;
	int err = 0;

	while (!err && (n = getline(&buf, &cap, f)) >= 0) {
		r->line++;
		err = one_line(r, buf, (size_t)n);
	}
	if (!err && ferror(f))
		err = bad(r, 0, "cannot read: %s", strerror(errno));
	free(buf);
	return err;
}

/* The key of @p whose flag the parser's message @msg names first: its
 * line, or the section's. */
static unsigned int line_of(const struct rp_mon_peer_conf *p, const char *msg)
{
	const char *at, *best = NULL;
	unsigned int line = p->line;
	size_t n;
	int i;

	for (i = 1; i < p->argc; i++) {
		if (strncmp(p->argv[i], "--", 2))
			continue;
		n = strlen(p->argv[i]);
		for (at = strstr(msg, p->argv[i]); at;
		     at = strstr(at + 1, p->argv[i]))
			if (!at[n] ||
			    !strchr("abcdefghijklmnopqrstuvwxyz-", at[n]))
				break;
		if (at && (!best || at < best)) {
			best = at;
			line = p->argl[i];
		}
	}
	return line;
}

/* The probe's defaults where the peer set none. */
static int add_defaults(struct reader *r, struct rp_mon_peer_conf *p)
{
	const struct rp_mon_conf *c = r->c;
	const struct {
		bool given;
		const char *flag, *v, *dflt;
		unsigned int line;
	} d[] = {
		{ p->has_burst, "--time", c->burst, "0.2", c->burst_line },
		{ p->has_lat, "--lat-iterations", c->lat_iterations, "1000",
		  c->lat_line },
		{ p->has_warmup, "--warmup", c->warmup, "100", c->warmup_line },
		{ p->has_stall, "--stall-timeout", c->stall_timeout, "5",
		  c->stall_line },
	};
	size_t i;
	int err = 0;

	for (i = 0; !err && i < sizeof(d) / sizeof(d[0]); i++) {
		if (d[i].given)
			continue;
		err = add_arg(r, p, d[i].flag, d[i].line ? d[i].line : p->line);
		if (!err)
			err = add_arg(r, p, d[i].v[0] ? d[i].v : d[i].dflt,
				      d[i].line ? d[i].line : p->line);
	}
	return err;
}

static int check_peer(struct reader *r, struct rp_mon_peer_conf *p)
{
	struct rp_config *cfg = &p->cfg;
	enum rp_cli_action act;
	struct addrinfo *ai = NULL;
	struct rp_err why = { "" };
	char msg[400];
	int err;

	if (!p->addr_line)
		return bad(r, p->line, "peer %s: no address", p->name);
	err = add_defaults(r, p);
	if (err)
		return err;
	memset(cfg, 0, sizeof(*cfg));
	cfg->test.params = &p->params;
	if (rp_cli_parse(p->argc, p->argv, cfg, &act, msg, sizeof(msg)))
		return bad(r, line_of(p, msg), "peer %s: %s", p->name, msg);
	if (rp_test_points(&cfg->test) != 1)
		return bad(r, p->line,
			   "peer %s: a probe is one point: one size, one "
			   "queue depth",
			   p->name);
	if (rp_net_resolve(cfg->test.host, cfg->test.port, false, &ai, &why))
		return bad(r, p->addr_line, "peer %s: %s", p->name, why.msg);
	freeaddrinfo(ai);
	p->burst_s = (double)cfg->test.spec.duration_ns / 1e9;
	return 0;
}

/* The bursts of one round against the interval and the duty cycle. */
static int check_duty(struct reader *r)
{
	struct rp_mon_conf *c = r->c;
	double sum = 0;
	size_t i;

	for (i = 0; i < c->n_peers; i++)
		sum += c->peers[i].burst_s;
	if (sum >= c->interval_s)
		return bad(r, c->interval_line,
			   "interval %g s is shorter than the probes' own "
			   "time: %zu peer(s)' bursts take %g s",
			   c->interval_s, c->n_peers, sum);
	if (sum > c->max_duty * c->interval_s)
		return bad(r,
			   c->max_duty_line ? c->max_duty_line
					    : c->interval_line,
			   "the probes would send %.1f%% of each %g s "
			   "interval (%zu burst(s), %g s in all), above "
			   "max_duty_cycle %g%%: lengthen the interval, "
			   "shorten burst or raise max_duty_cycle",
			   100 * sum / c->interval_s, c->interval_s, c->n_peers,
			   sum, 100 * c->max_duty);
	if (c->has_backoff_max && c->backoff_max_s < c->interval_s)
		return bad(r, r->gseen[5],
			   "backoff_max %g s is shorter than the interval "
			   "(%g s)",
			   c->backoff_max_s, c->interval_s);
	if (!c->has_backoff_max)
		c->backoff_max_s = 8 * c->interval_s;
	return 0;
}

static void defaults(struct rp_mon_conf *c)
{
	struct rp_host h;

	c->interval_s = 60;
	c->max_duty = 0.1;
	snprintf(c->listen, sizeof(c->listen), "127.0.0.1:%d",
		 RP_MON_PORT_DEFAULT);
	rp_host_read(&h);
	snprintf(c->source, sizeof(c->source), "%.*s",
		 (int)sizeof(c->source) - 1,
		 h.hostname[0] ? h.hostname : "localhost");
}

int rp_mon_conf_load(const char *path, struct rp_mon_conf *c, char *err,
		     size_t len)
{
	struct reader r = { .c = c, .err = err, .len = len };
	FILE *f;
	size_t i;
	int rc;

	memset(c, 0, sizeof(*c));
	snprintf(c->path, sizeof(c->path), "%s", path);
	defaults(c);
	c->peers = calloc(RP_MON_MAX_PEERS, sizeof(*c->peers));
	if (!c->peers)
		return bad(&r, 0, "out of memory");
	f = fopen(path, "r");
	if (!f)
		return bad(&r, 0, "cannot open: %s", strerror(errno));
	rc = read_file(&r, f);
	fclose(f);
	if (!rc && !c->n_peers)
		rc = bad(&r, 0, "no [peer NAME] section: nothing to probe");
	for (i = 0; !rc && i < c->n_peers; i++)
		rc = check_peer(&r, &c->peers[i]);
	return rc ? rc : check_duty(&r);
}

void rp_mon_conf_free(struct rp_mon_conf *c)
{
	size_t i;
	int k;

	for (i = 0; c->peers && i < c->n_peers; i++)
		for (k = 0; k < c->peers[i].argc; k++)
			free(c->peers[i].argv[k]);
	free(c->peers);
	c->peers = NULL;
	c->n_peers = 0;
}
