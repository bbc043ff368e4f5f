// SPDX-License-Identifier: MIT
/* --expect and --retry: what each point must show, and how often a point
 * that fails it runs again before its verdict stands. */
#include <errno.h>
#include <string.h>

#include "cli/parse.h"
#include "run/run.h"

int rp_cli_o_expect(struct parse *p, const char *arg)
{
	struct rp_expect *e = &p->cfg->test.expect, more;
	char why[400];
	unsigned int i;

	if (rp_expect_parse(arg, &more, why, sizeof(why)))
		return rp_cli_bad(p, "%s", why);
	if (e->n + more.n > RP_EXPECT_MAX)
		return rp_cli_bad(p,
				  "--expect: %u expectations in all, at most "
				  "%d",
				  e->n + more.n, RP_EXPECT_MAX);
	for (i = 0; i < more.n; i++) /* a second --expect adds to the first */
		e->t[e->n++] = more.t[i];
	return 0;
}

int rp_cli_o_retry(struct parse *p, const char *arg)
{
	uint64_t v;
	int err = rp_cli_num_in(p, "--retry", arg, 0, 100, &v);

	p->cfg->test.retry = (uint32_t)v;
	return err;
}

int rp_cli_finish_expect(struct parse *p)
{
	const struct rp_config *c = p->cfg;

	if (c->test.expect.n && c->mode == RP_MODE_SERVER)
		return rp_cli_bad(p, "--expect is the client's: the server "
				     "judges nothing");
	if (c->test.retry && !c->test.expect.n)
		return rp_cli_bad(p, "--retry re-runs a point that fails its "
				     "--expect: give --expect too");
	if (c->test.retry && c->mode == RP_MODE_REPORT)
		return rp_cli_bad(p, "--retry cannot re-run a saved result "
				     "(--report)");
	return 0;
}
