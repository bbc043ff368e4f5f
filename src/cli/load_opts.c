// SPDX-License-Identifier: MIT
/*
 * The offered load and the batching of a test: --rate, --load-curve,
 * --signal, --post-list, and what is checked of them once every option
 * has been read.
 */
#include <errno.h>

#include "cli/parse.h"
#include "core/rate.h"
#include "run/run.h"

int rp_cli_o_rate(struct parse *p, const char *arg)
{
	struct rp_config *c = p->cfg;

	return rp_rate_parse_list(arg, c->test.rates, RP_RATE_MAX_POINTS,
				  &c->test.n_rates, p->err, p->errlen);
}

int rp_cli_o_load_curve(struct parse *p, const char *arg)
{
	uint64_t v;
	int err = rp_cli_num_in(p, "--load-curve", arg, 1,
				RP_RATE_MAX_POINTS - 1, &v);

	p->cfg->test.load_curve = (unsigned int)v;
	return err;
}

int rp_cli_o_signal(struct parse *p, const char *arg)
{
	uint64_t v;
	int err = rp_cli_num_in(p, "--signal", arg, 1, RP_SPEC_MAX_DEPTH, &v);

	p->cfg->test.spec.signal = (uint32_t)v;
	return err;
}

int rp_cli_o_post_list(struct parse *p, const char *arg)
{
	uint64_t v;
	int err =
		rp_cli_num_in(p, "--post-list", arg, 1, RP_SPEC_MAX_DEPTH, &v);

	p->cfg->test.spec.post_list = (uint32_t)v;
	return err;
}

/* After the sweep is known: the rates make its innermost dimension. */
int rp_cli_finish_load(struct parse *p)
{
	struct rp_config *c = p->cfg;
	const struct rp_spec *s = &c->test.spec;
	uint32_t low = c->test.n_depths ? c->test.depths[0] : s->queue_depth;
	uint64_t big = c->test.n_sizes ? 0 : s->size_bytes; /* the largest -S */
	size_t i;

	if (c->test.load_curve && c->test.n_rates)
		return rp_cli_bad(p, "--rate and --load-curve are exclusive: "
				     "the curve chooses its own rates");
	if (c->test.load_curve) {
		rp_rate_curve(c->test.rates, c->test.load_curve);
		c->test.n_rates = c->test.load_curve + 1;
	}
	if (c->test.n_rates && !s->bandwidth)
		return rp_cli_bad(p,
				  "--%s needs the throughput phase: drop "
				  "--no-bandwidth",
				  c->test.load_curve ? "load-curve" : "rate");
	for (i = 0; i < c->test.n_sizes; i++)
		big = c->test.sizes[i] > big ? c->test.sizes[i] : big;
	for (i = 0; i < c->test.n_rates; i++)
		if (c->test.rates[i].kind == RP_RATE_BITS &&
		    c->test.rates[i].value < 8.0 * (double)big)
			return rp_cli_bad(p,
					  "--rate %.6gb is below 1 operation "
					  "per second at -S %llu (at least "
					  "%.6gb)",
					  c->test.rates[i].value,
					  (unsigned long long)big,
					  8.0 * (double)big);
	for (i = 1; i < c->test.n_depths; i++)
		low = c->test.depths[i] < low ? c->test.depths[i] : low;
	if (s->signal > low || s->post_list > low)
		return rp_cli_bad(p,
				  "--%s %u is more than the queue depth %u: "
				  "a window of operations must hold a "
				  "signaled one",
				  s->signal > low ? "signal" : "post-list",
				  s->signal > low ? s->signal : s->post_list,
				  low);
	if (rp_test_points(&c->test) > RP_MAX_POINTS)
		return rp_cli_bad(p,
				  "%zu points (sizes x depths x rates): at "
				  "most %d",
				  rp_test_points(&c->test), RP_MAX_POINTS);
	return 0;
}
