// SPDX-License-Identifier: MIT
/*
 * The options that say what the user sees: the format on stdout, the
 * intervals, a plot, a saved result to re-render, and the rules between
 * them (checked once every option has been read).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/parse.h"
#include "core/units.h"

#define INTERVAL_MIN_NS 100000000ULL /* 0.1 s */
#define INTERVAL_MAX_S	3600

/* The one stdout format asked for; two of them are an error. */
static int set_format(struct parse *p, const char *flag, bool *which)
{
	if (p->format && strcmp(p->format, flag))
		return rp_cli_bad(p,
				  "%s and %s are exclusive: stdout takes "
				  "one format",
				  p->format, flag);
	p->format = flag;
	*which = true;
	return 0;
}

int rp_cli_o_json(struct parse *p, const char *arg)
{
	(void)arg;
	return set_format(p, "--json", &p->cfg->json);
}

int rp_cli_o_json_stream(struct parse *p, const char *arg)
{
	(void)arg;
	return set_format(p, "--json-stream", &p->cfg->json_stream);
}

int rp_cli_o_csv(struct parse *p, const char *arg)
{
	(void)arg;
	return set_format(p, "--csv", &p->cfg->csv);
}

int rp_cli_o_plot(struct parse *p, const char *arg)
{
	if (!arg[0])
		return rp_cli_bad(p, "--plot: empty file name");
	p->cfg->plot = arg;
	return 0;
}

int rp_cli_o_report(struct parse *p, const char *arg)
{
	if (!arg[0])
		return rp_cli_bad(p, "--report: empty file name");
	if (p->cfg->mode != RP_MODE_NONE && p->cfg->mode != RP_MODE_REPORT)
		return rp_cli_bad(p, "--report re-renders a saved result: "
				     "no -s, -c or --loopback with it");
	p->cfg->mode = RP_MODE_REPORT;
	p->cfg->report = arg;
	return 0;
}

int rp_cli_o_interval(struct parse *p, const char *arg)
{
	uint64_t ns;
	int err = rp_units_parse_seconds(arg, &ns);

	if (err || ns < INTERVAL_MIN_NS || ns > INTERVAL_MAX_S * 1000000000ULL)
		return rp_cli_bad(p,
				  "-i/--interval: '%s' is not a duration from "
				  "0.1 to %d seconds",
				  arg, INTERVAL_MAX_S);
	p->cfg->test.interval_s = (double)ns / 1e9;
	return 0;
}

/* Options that mean something to --report, and to a server: the rest
 * describe a test. */
void rp_cli_note_flag(struct parse *p, const char *name, bool report_ok,
		      bool server_ok)
{
	if (!report_ok && !p->test_flag)
		p->test_flag = name;
	if (!server_ok && !p->client_flag)
		p->client_flag = name;
}

int rp_cli_check_outputs(struct parse *p)
{
	const struct rp_config *c = p->cfg;

	if (c->mode == RP_MODE_REPORT) {
		if (p->test_flag)
			return rp_cli_bad(p,
					  "--%s describes a test: --report "
					  "re-renders a saved one (give "
					  "--json, --csv or --plot)",
					  p->test_flag);
		if (c->json_stream)
			return rp_cli_bad(p, "--json-stream: a saved result "
					     "has no live lines; give --json");
		return 0;
	}
	if (c->mode == RP_MODE_SERVER && p->client_flag)
		return rp_cli_bad(p,
				  "--%s is the client's: the client sends the "
				  "test, the server takes only -a, -p, --once, "
				  "--quiet, --cpu, --max-*, --allow, "
				  "--auth-key and the rdma device options",
				  p->client_flag);
	if (c->mode != RP_MODE_SERVER && p->set_server_only)
		return rp_cli_bad(p,
				  "%s is the server's: it limits what "
				  "clients may ask",
				  p->set_server_only);
	if (c->test.interval_s && !c->test.spec.bandwidth)
		return rp_cli_bad(p, "-i/--interval reports the throughput "
				     "phase: not with --no-bandwidth");
	return 0;
}
