// SPDX-License-Identifier: MIT
/* --repeat and --confidence: how many times each point runs, and how
 * sure its figures must be before the rounds stop. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/parse.h"
#include "run/repeat.h"
#include "run/run.h"

int rp_cli_o_repeat(struct parse *p, const char *arg)
{
	uint64_t v;
	int err = rp_cli_num_in(p, "--repeat", arg, 1, RP_REPEAT_MAX, &v);

	p->cfg->test.repeat = (uint32_t)v;
	return err;
}

/* A percentage in (@lo, @hi): "99", "99.5". */
static int percent(struct parse *p, const char *what, const char *s, double lo,
		   double hi, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end || errno || !isfinite(v) || !(v > lo) || !(v < hi))
		return rp_cli_bad(p,
				  "--confidence: %s %s is not a percentage "
				  "between %g and %g (exclusive), as in "
				  "--confidence 95,2",
				  what, s, lo, hi);
	*out = v / 100;
	return 0;
}

/* LEVEL,WIDTH as netperf's -I: 99,5 is a 99% interval at most 5% of the
 * mean wide either way; LEVEL alone sets the level only. */
int rp_cli_o_confidence(struct parse *p, const char *arg)
{
	char buf[64], *comma;

	if (strlen(arg) >= sizeof(buf))
		return rp_cli_bad(p, "--confidence: %.20s... is too long", arg);
	snprintf(buf, sizeof(buf), "%s", arg);
	comma = strchr(buf, ',');
	if (comma)
		*comma++ = '\0';
	if (percent(p, "level", buf, 50, 100, &p->cfg->test.confidence))
		return -EINVAL;
	p->cfg->test.confidence_width = 0;
	if (comma &&
	    percent(p, "width", comma, 0, 100, &p->cfg->test.confidence_width))
		return -EINVAL;
	return 0;
}

int rp_cli_finish_repeat(struct parse *p)
{
	struct rp_config *c = p->cfg;

	if ((c->test.repeat > 1 || c->test.confidence > 0) &&
	    c->mode == RP_MODE_MATRIX)
		return rp_cli_bad(p, "--repeat and --confidence do not work "
				     "with --matrix yet: its rounds are its "
				     "own");
	if ((c->test.repeat > 1 || c->test.confidence > 0) &&
	    c->mode != RP_MODE_CLIENT && c->mode != RP_MODE_LOOPBACK)
		return rp_cli_bad(p, "--repeat and --confidence are the "
				     "client's: they repeat a test it runs");
	if (c->test.confidence_width > 0 && c->test.repeat == 0)
		c->test.repeat = 10; /* the most rounds --confidence waits */
	if (c->test.confidence_width > 0 && c->test.repeat < RP_REPEAT_MIN_AUTO)
		return rp_cli_bad(p,
				  "--confidence with a width needs --repeat "
				  "%d or more (the most rounds it may run)",
				  RP_REPEAT_MIN_AUTO);
	if (c->test.confidence > 0 && c->test.repeat < 2)
		return rp_cli_bad(p, "--confidence needs --repeat 2 or more: "
				     "one run has no interval");
	return 0;
}

int rp_cli_check_repeat_size(struct parse *p)
{
	const struct rp_config *c = p->cfg;
	size_t runs = (size_t)c->test.repeat * rp_test_points(&c->test) *
		      c->test.n_transports;

	if (c->test.repeat > 1 && runs > RP_REPEAT_MAX_RUNS)
		return rp_cli_bad(p,
				  "--repeat %u x %zu points x %zu transports "
				  "is %zu runs of a point, at most %d (each "
				  "is kept until the median is known)",
				  c->test.repeat, rp_test_points(&c->test),
				  c->test.n_transports, runs,
				  RP_REPEAT_MAX_RUNS);
	return 0;
}
