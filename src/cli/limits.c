// SPDX-License-Identifier: MIT
/*
 * What a server grants (--max-tests at once; for each, --max-streams,
 * --max-size, --max-time; --max-memory across them): each within what the
 * protocol itself allows, so a server can only be made stricter than the spec's
 * own bounds. And how long either side waits for a sign of life
 * (--stall-timeout).
 */
#include <errno.h>
#include <stdio.h>

#include "cli/parse.h"
#include "core/units.h"

static int size_in(struct parse *p, const char *flag, const char *arg,
		   uint64_t lo, uint64_t hi, uint64_t *out)
{
	int err = rp_units_parse_size(arg, out);

	if (err || *out < lo || *out > hi)
		return rp_cli_bad(p,
				  "%s: '%s' is not a size from %llu bytes to "
				  "%llu MiB",
				  flag, arg, (unsigned long long)lo,
				  (unsigned long long)(hi >> 20));
	return 0;
}

int rp_cli_o_max_memory(struct parse *p, const char *arg)
{
	p->set_server_only = "--max-memory";
	return size_in(p, "--max-memory", arg, 4096, RP_SPEC_MAX_MEM,
		       &p->cfg->limits.max_memory);
}

int rp_cli_o_max_size(struct parse *p, const char *arg)
{
	p->set_server_only = "--max-size";
	return size_in(p, "--max-size", arg, 1, RP_SPEC_MAX_SIZE,
		       &p->cfg->limits.max_size);
}

int rp_cli_o_max_tests(struct parse *p, const char *arg)
{
	uint64_t v;
	int err = rp_cli_num_in(p, "--max-tests", arg, 1, RP_MAX_TESTS, &v);

	p->set_server_only = "--max-tests";
	p->cfg->limits.max_tests = (uint32_t)v;
	return err;
}

int rp_cli_o_max_streams(struct parse *p, const char *arg)
{
	uint64_t v;
	int err = rp_cli_num_in(p, "--max-streams", arg, 1, RP_SPEC_MAX_STREAMS,
				&v);

	p->set_server_only = "--max-streams";
	p->cfg->limits.max_streams = (uint32_t)v;
	return err;
}

/* A duration of 1 s to RP_SPEC_MAX_SECONDS, in ns. */
static int seconds_in(struct parse *p, const char *flag, const char *arg,
		      uint64_t *out)
{
	int err = rp_units_parse_seconds(arg, out);

	if (err || *out < 1000000000ULL ||
	    *out > RP_SPEC_MAX_SECONDS * 1000000000ULL)
		return rp_cli_bad(p,
				  "%s: '%s' is not a duration from 1 to %llu "
				  "seconds",
				  flag, arg,
				  (unsigned long long)RP_SPEC_MAX_SECONDS);
	return 0;
}

int rp_cli_o_max_time(struct parse *p, const char *arg)
{
	p->set_server_only = "--max-time";
	return seconds_in(p, "--max-time", arg, &p->cfg->limits.max_time_ns);
}

/* Both sides: a ping unanswered, an operation not completing, a server's
 * client silent this long ends the phase. 1 s at least: a healthy phase on
 * a loaded emulated device has paused for a few hundred milliseconds. */
int rp_cli_o_stall_timeout(struct parse *p, const char *arg)
{
	return seconds_in(p, "--stall-timeout", arg, &p->cfg->stall_ns);
}
