// SPDX-License-Identifier: MIT
/* --matrix's options (--serial, --outlier, --round-timeout, --no-retest)
 * and rules. */
#include <errno.h>
#include <stdlib.h>

#include "cli/parse.h"
#include "xport/xport.h"

#define OUTLIER_DEFAULT	      0.8
#define ROUND_TIMEOUT_DEFAULT 600
#define ROUND_TIMEOUT_MAX     86400

int rp_cli_o_serial(struct parse *p, const char *arg)
{
	(void)arg;
	p->cfg->matrix.serial = true;
	p->matrix_flag = "--serial";
	return 0;
}

int rp_cli_o_pattern(struct parse *p, const char *arg)
{
	char why[RP_PATTERN_PATH_LEN + 128];

	p->matrix_flag = "--pattern";
	if (rp_pattern_parse(arg, &p->cfg->matrix.pattern, why, sizeof(why)))
		return rp_cli_bad(p, "%s", why);
	return 0;
}

int rp_cli_o_no_retest(struct parse *p, const char *arg)
{
	(void)arg;
	p->cfg->matrix.no_retest = true;
	p->matrix_flag = "--no-retest";
	return 0;
}

int rp_cli_o_outlier(struct parse *p, const char *arg)
{
	char *end;
	double v = strtod(arg, &end);

	p->matrix_flag = "--outlier";
	if (end == arg || *end || !(v > 0 && v <= 1))
		return rp_cli_bad(p,
				  "--outlier: '%s': a fraction of the "
				  "median, above 0 and at most 1 (0.8)",
				  arg);
	p->cfg->matrix.outlier = v;
	return 0;
}

int rp_cli_o_round_timeout(struct parse *p, const char *arg)
{
	uint64_t v;

	p->matrix_flag = "--round-timeout";
	if (rp_cli_num_in(p, "--round-timeout", arg, 1, ROUND_TIMEOUT_MAX, &v))
		return -EINVAL;
	p->cfg->matrix.round_timeout_s = (unsigned int)v;
	return 0;
}

void rp_cli_matrix_defaults(struct rp_config *cfg)
{
	cfg->matrix.outlier = OUTLIER_DEFAULT;
	cfg->matrix.round_timeout_s = ROUND_TIMEOUT_DEFAULT;
}

int rp_cli_finish_matrix(struct parse *p)
{
	struct rp_config *c = p->cfg;
	const struct rp_xport_ops *x;
	size_t i;

	if (c->mode != RP_MODE_MATRIX) {
		if (p->matrix_flag)
			return rp_cli_bad(p, "%s: only with --matrix",
					  p->matrix_flag);
		return 0;
	}
	if (c->json_stream)
		return rp_cli_bad(p, "--json-stream: a matrix prints its "
				     "document at the end; give --json");
	if (c->once)
		return rp_cli_bad(p, "--once: every --matrix rank serves "
				     "until the matrix is done");
	for (i = 0; i < c->test.n_transports; i++) {
		x = rp_xport_find(c->test.transports[i]);
		if (x && x->local)
			return rp_cli_bad(p,
					  "-x %s: a local transport; "
					  "--matrix measures pairs of nodes",
					  c->test.transports[i]);
	}
	if (!p->set_port)
		c->test.port =
			0; /* an ephemeral port per rank: several a host */
	return 0;
}
