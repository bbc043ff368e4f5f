// SPDX-License-Identifier: MIT
/*
 * The file transport's options: -x file:PATH entries, --file-size,
 * --buffered, --random, --fsync-every, and what is checked of them once
 * every option has been read. They shape the run on this side only
 * (struct rp_xport_params), never the server's.
 */
#include <errno.h>
#include <string.h>

#include "cli/parse.h"
#include "core/units.h"
#include "run/run.h"

#define FILE_PREFIX	     "file:"
#define FILE_SIZE_DEFAULT    (1ULL << 30) /* --file-size: 1 GiB */
#define FILE_SIZE_MAX	     (1ULL << 50) /* 1 PiB */
#define FILE_FSYNC_EVERY_MAX (1ULL << 40)

void rp_cli_file_defaults(struct rp_config *cfg)
{
	cfg->params->file_size = FILE_SIZE_DEFAULT;
}

int rp_cli_file_entry(struct parse *p, const char *name, size_t len,
		      size_t *name_len)
{
	size_t pre = strlen(FILE_PREFIX);
	const struct rp_xport_ops *x = rp_xport_find("file");

	if (len == 4 && !strncmp(name, "file", 4))
		return rp_cli_bad(p, "-x/--transport: file needs a path: "
				     "file:PATH");
	if (len < pre || strncmp(name, FILE_PREFIX, pre))
		return 0;
	if (!x)
		return rp_cli_bad(p,
				  "-x/--transport: %.*s: this rdmaperf was "
				  "built without liburing: no file "
				  "transport",
				  (int)len, name);
	if (len == pre)
		return rp_cli_bad(p, "-x/--transport: file: needs a path: "
				     "file:PATH");
	if (len - pre >= RP_PATH_LEN)
		return rp_cli_bad(p,
				  "-x/--transport: file:PATH: at most %d "
				  "bytes of PATH",
				  RP_PATH_LEN - 1);
	memcpy(p->cfg->paths[p->cfg->n_transports], name + pre, len - pre);
	p->cfg->paths[p->cfg->n_transports][len - pre] = '\0';
	*name_len = pre - 1; /* "file" */
	return 0;
}

int rp_cli_o_file_size(struct parse *p, const char *arg)
{
	uint64_t v;
	int err = rp_units_parse_size(arg, &v);

	p->set_file = "--file-size";
	if (err || !v || v > FILE_SIZE_MAX)
		return rp_cli_bad(p,
				  "--file-size: '%s' is not a size from 1 to "
				  "1024T (K, M, G, T suffixes)",
				  arg);
	p->cfg->params->file_size = v;
	return 0;
}

int rp_cli_o_buffered(struct parse *p, const char *arg)
{
	(void)arg;
	p->set_file = "--buffered";
	p->cfg->params->buffered = true;
	return 0;
}

int rp_cli_o_random(struct parse *p, const char *arg)
{
	(void)arg;
	p->set_file = "--random";
	p->cfg->params->random = true;
	return 0;
}

int rp_cli_o_fsync_every(struct parse *p, const char *arg)
{
	p->set_file = "--fsync-every";
	return rp_cli_num_in(p, "--fsync-every", arg, 1, FILE_FSYNC_EVERY_MAX,
			     &p->cfg->params->fsync_every);
}

/* After the sweep is known: the file options need a file to act on, and
 * a file can do only what makes sense for one. */
int rp_cli_finish_file(struct parse *p)
{
	const struct rp_config *c = p->cfg;
	const struct rp_spec *s = &c->spec;
	bool any = false;
	size_t i;

	for (i = 0; i < c->n_transports; i++)
		any |= c->paths[i][0] != '\0';
	if (!any)
		return p->set_file ? rp_cli_bad(p,
						"%s applies to -x file:PATH "
						"only",
						p->set_file)
				   : 0;
	if (s->bidir)
		return rp_cli_bad(p, "--bidir: a file (-x file:PATH) has no "
				     "other end to send back");
	if (c->params->fsync_every && s->op != RP_OP_WRITE)
		return rp_cli_bad(p, "--fsync-every makes writes durable: "
				     "give -o write");
	if (c->params->file_size < s->size_bytes)
		return rp_cli_bad(p,
				  "--file-size %llu is smaller than the "
				  "largest -S/--size %llu",
				  (unsigned long long)c->params->file_size,
				  (unsigned long long)s->size_bytes);
	return 0;
}
