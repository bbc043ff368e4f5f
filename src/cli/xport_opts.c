// SPDX-License-Identifier: MIT
/*
 * The transports' own options (struct rp_xport_options, from the
 * registry): their getopt rows and codes, --help's section for each, the
 * man page's, a local transport's -x entries (NAME:PATH), and the rule
 * that an option of a transport needs that transport in -x.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/parse.h"
#include "xport/xport.h"

/* getopt's code of option @i of set @set without a short flag */
#define XOPT_CODE(set, i) (RP_CLI_XOPT_BASE + 32 * (int)(set) + (int)(i))

static int code_of(size_t set, size_t i)
{
	const struct rp_xport_opt *o = &rp_xport_options_at(set)->opts[i];

	return o->flag ? o->flag : XOPT_CODE(set, i);
}

/* The set and option of getopt's code @val, or false. */
static bool find(int val, size_t *set, size_t *i)
{
	size_t s, k;

	for (s = 0; s < rp_xport_options_count(); s++)
		for (k = 0; k < rp_xport_options_at(s)->n_opts; k++)
			if (code_of(s, k) == val) {
				*set = s;
				*i = k;
				return true;
			}
	return false;
}

size_t rp_cli_xopts_add(struct option *lo, char *shorts, size_t *k)
{
	size_t s, i, n = 0;

	for (s = 0; s < rp_xport_options_count(); s++) {
		const struct rp_xport_options *x = rp_xport_options_at(s);

		for (i = 0; i < x->n_opts; i++) {
			const struct rp_xport_opt *o = &x->opts[i];

			lo[n++] = (struct option){ o->name, o->has_arg, NULL,
						   code_of(s, i) };
			if (o->flag) {
				shorts[(*k)++] = (char)o->flag;
				if (o->has_arg)
					shorts[(*k)++] = ':';
			}
		}
	}
	return n;
}

const char *rp_cli_xopt_flag(int val, char *buf, size_t len)
{
	const struct rp_xport_opt *o;
	size_t s, i;

	if (!find(val, &s, &i))
		return NULL;
	o = &rp_xport_options_at(s)->opts[i];
	if (o->flag)
		snprintf(buf, len, "-%c/--%s", o->flag, o->name);
	else
		snprintf(buf, len, "--%s", o->name);
	return buf;
}

int rp_cli_xopt(struct parse *p, int val, const char *arg, bool *found)
{
	const struct rp_xport_options *x;
	const struct rp_xport_opt *o;
	char flag[sizeof(p->xopt_flag[0])];
	size_t s, i;

	*found = find(val, &s, &i);
	if (!*found)
		return 0;
	x = rp_xport_options_at(s);
	o = &x->opts[i];
	/* -d A,B: the rails (perftest's -d names one device) */
	if (o->flag == 'd' && arg && strchr(arg, ','))
		return rp_cli_o_rails(p, arg);
	rp_cli_xopt_flag(val, flag, sizeof(flag));
	if (!p->xopt_flag[s][0]) /* the rules name the first one given */
		memcpy(p->xopt_flag[s], flag, sizeof(flag));
	rp_cli_note_flag(p, o->name, false, o->server);
	return o->parse(rp_xport_own(p->cfg->test.params, x), flag, arg, p->err,
			p->errlen);
}

/* The option set whose transport is @name (of @len bytes), or NULL. */
static const struct rp_xport_options *set_named(const char *name, size_t len)
{
	size_t s;

	for (s = 0; s < rp_xport_options_count(); s++) {
		const struct rp_xport_options *x = rp_xport_options_at(s);

		if (strlen(x->transport) == len &&
		    !strncmp(x->transport, name, len))
			return x;
	}
	return NULL;
}

int rp_cli_local_entry(struct parse *p, const char *name, size_t len,
		       size_t *name_len)
{
	const char *colon = memchr(name, ':', len);
	size_t n = colon ? (size_t)(colon - name) : len;
	const struct rp_xport_options *x = set_named(name, n);
	const struct rp_xport_ops *ops;

	if (!x || !x->local)
		return 0;
	if (!colon)
		return rp_cli_bad(p, "-x/--transport: %s needs a path: %s:PATH",
				  x->transport, x->transport);
	ops = rp_xport_find(x->transport);
	if (!ops || !ops->local)
		return rp_cli_bad(p,
				  "-x/--transport: %.*s: this rdmaperf was "
				  "built without %s: no %s transport",
				  (int)len, name, x->absent, x->transport);
	if (len == n + 1)
		return rp_cli_bad(p,
				  "-x/--transport: %s: needs a path: %s:PATH",
				  x->transport, x->transport);
	if (len - n - 1 >= RP_PATH_LEN)
		return rp_cli_bad(p,
				  "-x/--transport: %s:PATH: at most %d bytes "
				  "of PATH",
				  x->transport, RP_PATH_LEN - 1);
	memcpy(p->cfg->test.paths[p->cfg->test.n_transports], colon + 1,
	       len - n - 1);
	p->cfg->test.paths[p->cfg->test.n_transports][len - n - 1] = '\0';
	*name_len = n;
	return 0;
}

/* Does -x name @x's transport? "all" stands for every one but a local
 * one and one whose entries name a variant (ofi:PROVIDER). */
static bool listed(const struct rp_config *c, const struct rp_xport_options *x)
{
	const struct rp_xport_ops *ops = rp_xport_find(x->transport);
	bool in_all = !x->local && !(ops && ops->variant);
	size_t i;

	for (i = 0; i < c->test.n_transports; i++)
		if (rp_xport_entry_is(c->test.transports[i], x->transport) ||
		    (in_all && !strcmp(c->test.transports[i], "all")))
			return true;
	return false;
}

int rp_cli_finish_xopts(struct parse *p)
{
	const struct rp_config *c = p->cfg;
	size_t s;

	for (s = 0; s < rp_xport_options_count(); s++) {
		const struct rp_xport_options *x = rp_xport_options_at(s);
		const char *flag = p->xopt_flag[s];

		if (flag[0] && !rp_xport_find(x->transport))
			return rp_cli_bad(p,
					  "%s is an option of the %s "
					  "transport, which this build does "
					  "not have (no %s)",
					  flag, x->transport, x->absent);
		if (!listed(c, x)) {
			if (flag[0])
				return rp_cli_bad(
					p,
					"%s applies to the %s transport only, "
					"and -x gives none: add %s%s to -x",
					flag, x->transport, x->transport,
					x->local ? ":PATH" : "");
			continue;
		}
		if (x->check && x->check(rp_xport_own_c(c->test.params, x),
					 &c->test.spec, p->err, p->errlen))
			return -EINVAL;
	}
	return 0;
}

void rp_cli_usage_row(FILE *f, int flag, const char *name, const char *meta,
		      const char *help)
{
	char left[40];

	if (flag)
		snprintf(left, sizeof(left), "-%c, --%s%s%s", flag, name,
			 meta ? " " : "", meta ? meta : "");
	else
		snprintf(left, sizeof(left), "    --%s%s%s", name,
			 meta ? " " : "", meta ? meta : "");
	fprintf(f, "  %-26s %s\n", left, help);
}

void rp_cli_xopts_usage(FILE *f)
{
	size_t s, i;

	for (s = 0; s < rp_xport_options_count(); s++) {
		const struct rp_xport_options *x = rp_xport_options_at(s);

		fprintf(f, "\nThe %s transport%s:\n", x->transport,
			rp_xport_find(x->transport) ? ""
						    : " (not in this build)");
		for (i = 0; i < x->n_opts; i++)
			rp_cli_usage_row(f, x->opts[i].flag, x->opts[i].name,
					 x->opts[i].meta, x->opts[i].help);
	}
}

/* @s with every '-' as roff's \-. */
static void roff_dashes(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '-')
			fputc('\\', f);
		fputc(*s, f);
	}
}

void rp_cli_xopts_man(FILE *f)
{
	size_t s, i;

	for (s = 0; s < rp_xport_options_count(); s++) {
		const struct rp_xport_options *x = rp_xport_options_at(s);

		fprintf(f, ".SS %s transport\n", x->transport);
		fprintf(f,
			"A client,\n.B \\-\\-loopback\nor\n.B \\-\\-matrix\n"
			"that gives one of these while\n.B \\-x\nnames no %s%s"
			"\nis refused with exit status 2: the option would "
			"change nothing.\n",
			x->transport,
			x->local ? ":PATH entry"
				 : " transport (nor\n.BR all )");
		for (i = 0; i < x->n_opts; i++) {
			const struct rp_xport_opt *o = &x->opts[i];

			fputs(".TP\n", f);
			if (o->flag)
				fprintf(f, ".BR \\-%c \", \" ", o->flag);
			else
				fputs(o->meta ? ".BI " : ".B ", f);
			fputs("\\-\\-", f);
			roff_dashes(f, o->name);
			if (o->flag && o->meta)
				fprintf(f, " \" \\fI%s\\fR\"", o->meta);
			else if (o->meta)
				fprintf(f, " \" %s\"", o->meta);
			fprintf(f, "\n%s: %s\n", x->transport, o->man);
		}
	}
}
