// SPDX-License-Identifier: MIT
/* --slo and --slo-tolerance: the latency target whose highest offered
 * rate the client searches for (run/slo.h), and what the search needs. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/parse.h"
#include "run/run.h"
#include "run/slo.h"

#define SLO_METRICS "p50, p90, p99, p999, max or mean"

/* What offered load moves: the latency under load; not the unloaded
 * phase (a ping-pong that no rate touches), not throughput. */
static bool under_load(enum rp_expect_metric m)
{
	return m >= RP_EM_P50 && m <= RP_EM_MEAN;
}

/* One line naming --slo and what it takes, from --expect's reason
 * "--expect: ..." (its list of metrics is --expect's, not ours). */
static int bad_slo(struct parse *p, const char *why)
{
	const char *list = strstr(why, " (metrics: ");
	int len = list ? (int)(list - why) : (int)strlen(why);

	if (!strncmp(why, "--expect: ", 10)) {
		why += 10;
		len -= 10;
	}
	if (!list && strstr(why, " (units: "))
		return rp_cli_bad(p, "--slo: %s", why);
	return rp_cli_bad(
		p,
		"--slo: %.*s (it takes the latency under load: " SLO_METRICS
		", with <= or <, as in p99<=20us)",
		len, why);
}

int rp_cli_o_slo(struct parse *p, const char *arg)
{
	struct rp_expect *e = &p->cfg->test.slo;
	char why[400];

	if (!arg[0])
		return rp_cli_bad(p, "--slo: give a latency target, as in "
				     "p99<=20us");
	if (strchr(arg, ','))
		return rp_cli_bad(p,
				  "--slo: \"%s\": one target, not a list "
				  "(as in p99<=20us)",
				  arg);
	if (rp_expect_parse(arg, e, why, sizeof(why)))
		return bad_slo(p, why);
	if (!under_load(e->t[0].metric)) {
		snprintf(why, sizeof(why),
			 "\"%s\": %s is not a latency under load", e->t[0].text,
			 rp_expect_metric_name(e->t[0].metric));
		e->n = 0;
		return bad_slo(p, why);
	}
	if (e->t[0].op != RP_EO_LE && e->t[0].op != RP_EO_LT) {
		snprintf(why, sizeof(why), "\"%s\": a target is an upper bound",
			 e->t[0].text);
		e->n = 0;
		return bad_slo(p, why);
	}
	return 0;
}

/* A percentage of the rate found, "5" or "2.5". */
int rp_cli_o_slo_tolerance(struct parse *p, const char *arg)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (end == arg || *end || errno || !isfinite(v) ||
	    !(v >= 100 * RP_SLO_TOLERANCE_MIN) ||
	    !(v <= 100 * RP_SLO_TOLERANCE_MAX))
		return rp_cli_bad(p,
				  "--slo-tolerance: %s is not a percentage "
				  "from %g to %g, as in --slo-tolerance 5",
				  arg, 100 * RP_SLO_TOLERANCE_MIN,
				  100 * RP_SLO_TOLERANCE_MAX);
	p->cfg->test.slo_tolerance = v / 100;
	return 0;
}

/* The search runs one point on one transport, at rates it chooses. */
static int check_scope(struct parse *p)
{
	const struct rp_config *c = p->cfg;

	if (c->test.n_sizes > 1 || c->test.n_depths > 1)
		return rp_cli_bad(p, "--slo searches one point: give one -S "
				     "and one -q, not a sweep");
	if (c->test.n_transports > 1 ||
	    (c->test.n_transports && !strcmp(c->test.transports[0], "all")))
		return rp_cli_bad(p, "--slo searches one transport: give one "
				     "with -x");
	if (c->test.n_rates || c->test.load_curve)
		return rp_cli_bad(p,
				  "--slo chooses the offered rates itself: "
				  "drop --%s",
				  c->test.load_curve ? "load-curve" : "rate");
	if (!c->test.spec.bandwidth)
		return rp_cli_bad(p, "--slo judges the latency under load: "
				     "drop --no-bandwidth");
	return 0;
}

/* Before the repetitions' rules (rp_cli_finish_repeat) and the sweep's:
 * --repeat counts an edge's runs here. */
int rp_cli_finish_slo(struct parse *p)
{
	const struct rp_config *c = p->cfg;

	if (c->test.slo_tolerance > 0 && !c->test.slo.n)
		return rp_cli_bad(p, "--slo-tolerance is --slo's: give --slo "
				     "too");
	if (!c->test.slo.n || c->mode == RP_MODE_SERVER ||
	    c->mode == RP_MODE_REPORT) /* refused with the others' options */
		return 0;
	if (c->mode == RP_MODE_MATRIX)
		return rp_cli_bad(p, "--slo searches one pair's point: not "
				     "with --matrix");
	if (c->test.confidence > 0)
		return rp_cli_bad(p, "--confidence does not apply to --slo: "
				     "its edges are judged on the median of "
				     "--repeat runs");
	if (c->test.repeat > RP_SLO_MAX_REPS)
		return rp_cli_bad(p,
				  "--slo: --repeat %u: an edge runs at most "
				  "%d times",
				  c->test.repeat, RP_SLO_MAX_REPS);
	if (c->test.retry)
		return rp_cli_bad(p, "--retry with --slo would run the "
				     "search's steps again until --expect "
				     "passes: give one of them");
	return check_scope(p);
}
