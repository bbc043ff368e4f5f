// SPDX-License-Identifier: MIT
/* rdmaperf: main(): parse, then serve, run the tests, or both (loopback). */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "cli/diff.h"
#include "cli/doctor.h"
#include "cli/live.h"
#include "cli/monitor.h"
#include "cli/options.h"
#include "cli/all.h"
#include "cli/output.h"
#include "cluster/matrix.h"
#include "platform/clock.h"
#include "platform/net.h"
#include "platform/os.h"
#include "report/matrix/matrix.h"
#include "report/report.h"
#include "run/repeat.h"
#include "run/slo.h"
#include "run/verdict.h"

/* Set by the signal handler, read by every thread: a lock-free atomic is
 * safe in a handler and, unlike volatile sig_atomic_t, across threads. */
static atomic_int interrupted;

/* The first signal asks every thread to stop and report; a second one
 * (the user insists) ends the process at once. */
static void on_signal(int sig)
{
	(void)sig;
	if (atomic_exchange(&interrupted, 1))
		_exit(130);
}

static void install_signals(void)
{
	rp_os_on_interrupt(on_signal);
}

static int open_server(const struct rp_config *cfg, struct rp_server **srv)
{
	struct rp_err why = { "" };
	struct addrinfo *ai = NULL;
	int err;

	/* a name that does not resolve says so, not "cannot listen" */
	if (cfg->test.host &&
	    rp_net_resolve(cfg->test.host, cfg->test.port, true, &ai, &why)) {
		fprintf(stderr, "rdmaperf: %s\n", why.msg);
		return -EADDRNOTAVAIL;
	}
	if (ai)
		freeaddrinfo(ai);
	err = rp_server_open(cfg, srv);
	if (err)
		fprintf(stderr, "rdmaperf: cannot listen on %s port %u: %s\n",
			cfg->test.host ? cfg->test.host : "any address",
			cfg->test.port, strerror(-err));
	return err;
}

static int serve(const struct rp_config *cfg)
{
	struct rp_server *srv;
	int err;

	err = open_server(cfg, &srv);
	if (err)
		return 1;
	if (!cfg->quiet)
		fprintf(stderr, "rdmaperf server: listening on %s port %u\n",
			cfg->test.host ? cfg->test.host : "any address",
			rp_server_port(srv));
	err = rp_server_serve(srv, cfg->once, &interrupted);
	rp_server_close(srv);
	return err ? 1 : 0;
}

/* The document on stdout, JSON modes only, when there are no results to
 * say it with: stdout carries JSON and nothing else, also on errors. */
static void json_error(const struct rp_config *cfg, const char *code,
		       const char *msg)
{
	cJSON *doc, *e;

	if (!cfg->json && !cfg->json_stream)
		return;
	doc = rp_report_json_skeleton(NULL, NULL, NULL);
	e = cJSON_AddObjectToObject(doc, "error");
	cJSON_AddStringToObject(e, "code", code);
	cJSON_AddStringToObject(e, "message", msg);
	if (cfg->json_stream) {
		rp_live_json_line(rp_live_typed("summary", doc));
		return;
	}
	rp_report_json_print(stdout, doc);
}

/* What went wrong, once per run of failed points, on stderr. */
static void tell_failures(const struct rp_config *cfg,
			  const struct rp_result *r, size_t points)
{
	size_t k;

	if (r->notes[0])
		fprintf(stderr, "rdmaperf: %s: note: %s\n", r->transport,
			r->notes);
	for (k = 0; k < points && !cfg->json && !cfg->json_stream; k++)
		if (r[k].failed && (k == 0 || !r[k - 1].failed))
			fprintf(stderr, "rdmaperf: %s\n", r[k].error);
}

/* A transport after an interrupt does not run. */
static void not_run(struct rp_result *r, const char *transport)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->transport, sizeof(r->transport), "%s", transport);
	r->failed = true;
	snprintf(r->error_code, sizeof(r->error_code), "interrupted");
	snprintf(r->error, sizeof(r->error), "not run: interrupted");
}

/* The transport cannot do the operation (the device's kind lacks it): a
 * usage error, exit status 2, when no other failure came with it. */
static bool refused(const struct rp_result *r)
{
	return !strcmp(r->error_code, "unsupported");
}

/* --expect: a point whose verdict is FAIL (exit status 3). */
static bool expectation_failed(const struct rp_result *res, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (res[i].verdict &&
		    !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
			    res[i].verdict, "pass")))
			return true;
	return false;
}

/* Every transport, each over the whole sweep, into @res (transport-
 * major); @backwards: the last transport first. Return: 0, 1 (a test
 * failed) or 2 (a transport refused the test). */
static int run_transports(struct rp_config *cfg, struct rp_result *res,
			  size_t points, struct rp_live *live, bool backwards)
{
	size_t j, i, k, nt = cfg->test.n_transports;
	int failed = 0;

	for (j = 0; j < nt; j++) {
		struct rp_result *r;

		i = backwards ? nt - 1 - j : j;
		r = &res[i * points];
		for (k = 0; atomic_load(&interrupted) && k < points; k++)
			not_run(&r[k], cfg->test.transports[i]);
		if (k)
			continue;
		rp_live_transport(live, i);
		if (rp_client_run_test(cfg, i, r))
			failed = refused(r) && failed != 1 ? 2 : 1;
		rp_live_clear(live);
		tell_failures(cfg, r, points);
	}
	return failed;
}

/* --repeat: rounds of run_transports(), each transport's order the other
 * way from the last round's (A B, B A: drift cancels), until --repeat
 * rounds, --confidence's width, a failure or an interrupt. Each point's
 * result is then its repetition at the median, with the repetitions'
 * figures (run/repeat.h) in res->repeat. */
static int run_repeated(struct rp_config *cfg, struct rp_result *res,
			size_t points, struct rp_live *live)
{
	size_t n = cfg->test.n_transports * points, j;
	uint32_t rounds = cfg->test.repeat, r, done = 0, row;
	double level = cfg->test.confidence > 0 ? cfg->test.confidence
						: RP_REPEAT_LEVEL;
	struct rp_result *all = calloc((size_t)rounds * n, sizeof(*all));
	struct rp_repeat *rep = calloc(n, sizeof(*rep));
	const char *stopped = "count";
	struct rp_round cond; /* the round's CPU speed and clock */
	bool narrow;
	int failed = 0;

	if (!all || !rep) {
		free(all);
		free(rep);
		fprintf(stderr, "rdmaperf: out of memory\n");
		return 1;
	}
	live->rounds = rounds;
	/* the first round always: an interrupt before it fills it with
	 * not-run results, as a single run would */
	for (r = 0; r < rounds && !failed && (!r || !atomic_load(&interrupted));
	     r++) {
		live->round = r;
		rp_repeat_round_begin(&cond);
		failed = run_transports(cfg, &all[r * n], points, live, r % 2);
		rp_repeat_round_end(&cond);
		for (j = 0, narrow = true; j < n; j++) {
			rp_repeat_add(&rep[j], &all[r * n + j], &cond);
			narrow = narrow &&
				 rp_repeat_narrow(&rep[j], level,
						  cfg->test.confidence_width);
		}
		done = r + 1;
		if (cfg->test.confidence_width > 0 &&
		    done >= RP_REPEAT_MIN_AUTO && narrow) {
			stopped = "confidence";
			break;
		}
	}
	for (j = 0; j < n; j++) {
		row = rp_repeat_median_row(&rep[j]);
		res[j] = all[row * n + j];
		memset(&all[row * n + j], 0, sizeof(all[0]));
		for (r = 0; r < done; r++)
			rp_result_fini(&all[r * n + j]);
		res[j].repeat = rp_repeat_json(
			&rep[j], level, cfg->test.confidence_width, stopped,
			j >= points ? &rep[j % points] : NULL,
			j >= points ? cfg->test.transports[0] : NULL);
	}
	free(all);
	free(rep);
	return failed;
}

/* --slo's runs: every step's result, until the search says which one
 * stands for the rate found. */
struct slo_runs {
	const struct rp_config *cfg;
	struct rp_live *live;
	struct rp_result *runs; /* RP_SLO_MAX_WALK */
	size_t n;
};

/* One step of the search (run/slo.h): the point at @offered ops/s, or
 * the closed loop at 0; what it measured of the target's metric. */
static int slo_step(void *ctx, double offered, struct rp_slo_step *st)
{
	struct slo_runs *x = ctx;
	struct rp_config c = *x->cfg;
	struct rp_result *r = &x->runs[x->n];
	enum rp_expect_metric m = c.test.slo.t[0].metric;
	struct rp_expect_values v;

	if (atomic_load(&interrupted))
		return -EINTR;
	c.test.n_rates = offered > 0;
	c.test.rates[0] = (struct rp_rate){ RP_RATE_OPS, offered };
	x->n++;
	rp_live_transport(x->live, 0);
	rp_client_run_test(&c, 0, r);
	rp_live_clear(x->live);
	if (x->n == 1 || r->failed) /* the notes once, not every step's */
		tell_failures(&c, r, 1);
	if (r->failed || r->interrupted)
		return r->interrupted ? -EINTR : -EIO;
	rp_result_expect_values(r, &v);
	st->achieved = r->dir[RP_DIR_C2S].flow.messages_per_second;
	st->measured = v.has[m] ? v.v[m] : NAN;
	st->saturated = rp_result_saturated(r);
	return 0;
}

/* The search's end as an exit status: 3 when not even the lowest rate
 * tried meets the target (as a failed --expect), 1 when a step failed. */
static int slo_status(const struct rp_config *cfg, const struct rp_slo *s,
		      struct rp_result *r)
{
	if (s->status == RP_SLO_NOT_MET)
		return 3;
	if (s->status != RP_SLO_FAILED)
		return 0;
	if (s->err == -ENODATA) { /* the run went well and moved nothing */
		r->failed = true;
		snprintf(r->error_code, sizeof(r->error_code), "slo");
		snprintf(r->error, sizeof(r->error),
			 "--slo: the closed loop moved nothing: no maximum "
			 "to search below");
		if (!cfg->json && !cfg->json_stream)
			fprintf(stderr, "rdmaperf: %s\n", r->error);
	}
	return 1;
}

/* --slo: the search, each step a run of the one point; @res[0] is then
 * the run that stands for the rate found (the median one of its edge),
 * with the search in res->slo. */
static int run_slo(struct rp_config *cfg, struct rp_result *res,
		   struct rp_live *live)
{
	struct slo_runs x = { cfg, live, NULL, 0 };
	struct rp_slo *s = malloc(sizeof(*s));
	struct rp_slo_params p;
	size_t i;
	int rc;

	x.runs = calloc(RP_SLO_MAX_WALK, sizeof(*x.runs));
	if (!x.runs || !s) {
		free(x.runs);
		free(s);
		fprintf(stderr, "rdmaperf: out of memory\n");
		return 1;
	}
	rp_slo_defaults(&p, &cfg->test.slo.t[0]);
	p.reps = cfg->test.repeat ? cfg->test.repeat : p.reps;
	if (cfg->test.slo_tolerance > 0)
		p.tolerance = cfg->test.slo_tolerance;
	rp_slo_search(s, &p, slo_step, &x);
	if (x.n) {
		res[0] = x.runs[s->kept];
		memset(&x.runs[s->kept], 0, sizeof(x.runs[0]));
	} else { /* interrupted before the first step */
		not_run(&res[0], cfg->test.transports[0]);
	}
	for (i = 0; i < x.n; i++)
		rp_result_fini(&x.runs[i]);
	res[0].slo = rp_slo_json(s, res[0].spec.size_bytes);
	rc = slo_status(cfg, s, &res[0]);
	free(x.runs);
	free(s);
	return rc;
}

/* Every transport, each over the whole sweep (--repeat: in rounds;
 * --slo: the search's steps): results transport-major. */
static int run_client(struct rp_config *cfg)
{
	size_t points = rp_test_points(&cfg->test);
	size_t i, n = cfg->test.n_transports * points;
	struct rp_result *res = calloc(n, sizeof(*res));
	struct rp_live live;
	int failed;

	if (!res) {
		fprintf(stderr, "rdmaperf: out of memory\n");
		return 1;
	}
	rp_live_init(&live, cfg, &interrupted);
	rp_live_begin(&live);
	if (cfg->test.slo.n)
		failed = run_slo(cfg, res, &live);
	else if (cfg->test.repeat > 1)
		failed = run_repeated(cfg, res, points, &live);
	else
		failed = run_transports(cfg, res, points, &live, false);
	for (i = 0; i < n; i++)
		rp_host_clock_end(res[i].client_host);
	if (live.lost) /* it stopped the run: that is no interrupt */
		failed = rp_out_lost(cfg->json_stream ? "the JSON lines"
						      : "the interval lines",
				     live.lost, 1);
	if (rp_out_results(cfg, res, n))
		failed = 1;
	if (!failed && expectation_failed(res, n))
		failed = 3;
	cfg->obs = NULL;
	for (i = 0; i < n; i++)
		rp_result_fini(&res[i]);
	free(res);
	return atomic_load(&interrupted) && !live.lost ? 130 : failed;
}

/* --report: a saved result, re-rendered in the format asked for. */
static int report(const struct rp_config *cfg)
{
	struct rp_report_doc doc;
	struct rp_err why = { "" };
	char empty[PATH_MAX + RP_ERR_LEN + 64];
	struct rp_config out = { 0 };
	cJSON *matrix;
	size_t i;
	int rc = rp_matrix_load(cfg->report, &matrix, &why);

	if (!rc) { /* a --matrix document */
		rc = rp_out_matrix(cfg, matrix);
		cJSON_Delete(matrix);
		return rc;
	}
	if (rc != -EMEDIUMTYPE || rp_report_load(cfg->report, &doc, &why)) {
		fprintf(stderr, "rdmaperf: --report: %s\n", why.msg);
		json_error(cfg, "usage", why.msg);
		return 2;
	}
	if (!doc.n) { /* it would print nothing: say so instead */
		snprintf(empty, sizeof(empty), "%s holds no result%s%s",
			 cfg->report, doc.error[0] ? ": its run failed: " : "",
			 doc.error);
		fprintf(stderr, "rdmaperf: --report: %s\n", empty);
		json_error(cfg, "usage", empty);
		rp_report_doc_free(&doc);
		return 2;
	}
	/* the saved test, rendered as this command line asks */
	out.test = doc.test;
	out.mode = RP_MODE_CLIENT;
	out.json = cfg->json;
	out.csv = cfg->csv;
	out.plot = cfg->plot;
	/* --expect: judge the saved figures anew (its own verdict goes) */
	for (i = 0; cfg->test.expect.n && i < doc.n; i++)
		rp_result_judge(&doc.res[i], &cfg->test.expect);
	rc = rp_out_results(&out, doc.res, doc.n);
	if (!rc && expectation_failed(doc.res, doc.n))
		rc = 3;
	rp_report_doc_free(&doc);
	return rc;
}

static void *loop_server_main(void *arg)
{
	rp_server_serve(arg, false, NULL);
	return NULL;
}

/* --loopback without -x: RDMA where a device exists, else TCP. */
static void loopback_transport(struct rp_config *cfg)
{
	const struct rp_xport_ops *ops = rp_xport_find(cfg->test.transports[0]);
	struct rp_err why;

	if (!cfg->test.transport_defaulted || !ops || !ops->probe(ops, &why))
		return;
	fprintf(stderr, "rdmaperf: %s cannot run here, --loopback uses tcp\n",
		cfg->test.transports[0]);
	snprintf(cfg->test.transports[0], RP_SPEC_NAME_LEN, "tcp");
	snprintf(cfg->test.spec.transport, RP_SPEC_NAME_LEN, "tcp");
}

/* Unless told otherwise, a loopback test runs on the address the first
 * transport that has an opinion asks for (rdma_cm cannot reach a device
 * through 127.0.0.1); the others are content with any local address. */
static void loopback_address(struct rp_config *cfg, char *buf, size_t len)
{
	const struct rp_xport_ops *ops;
	size_t i;

	if (!cfg->test.host_defaulted)
		return;
	for (i = 0; i < cfg->test.n_transports; i++) {
		ops = rp_xport_find(cfg->test.transports[i]);
		if (ops && ops->loopback_addr &&
		    ops->loopback_addr(cfg->test.params, buf, len) == 0) {
			cfg->test.host = buf;
			return;
		}
	}
}

/* Server and client in one process: the server on an ephemeral port. */
static int loopback(struct rp_config *cfg)
{
	struct rp_server *srv;
	struct rp_config scfg;
	char addr[64];
	pthread_t t;
	int rc;

	loopback_transport(cfg);
	loopback_address(cfg, addr, sizeof(addr));
	scfg = *cfg;
	scfg.test.port = 0;
	scfg.quiet = true;
	if (open_server(&scfg, &srv)) {
		json_error(cfg, "listen", "cannot listen on a local port");
		return 1;
	}
	if (pthread_create(&t, NULL, loop_server_main, srv)) {
		rp_server_close(srv);
		return 1;
	}
	cfg->test.port = rp_server_port(srv);
	rc = run_client(cfg);
	rp_server_stop(srv);
	pthread_join(t, NULL);
	rp_server_close(srv);
	return rc;
}

/* Bad usage under --json or --json-stream: the error as JSON too. */
static void usage_json(int argc, char **argv, const char *err)
{
	struct rp_config cfg = { 0 };
	int i;

	for (i = 1; i < argc; i++) {
		cfg.json |= !strcmp(argv[i], "--json");
		cfg.json_stream |= !strcmp(argv[i], "--json-stream");
	}
	if (cfg.json && cfg.json_stream)
		cfg.json_stream = false;
	json_error(&cfg, "usage", err);
}

/* What the options asked for, once parsed. Return: the exit status. */
static int run_mode(struct rp_config *cfg)
{
	char err[256];

	install_signals();
	cfg->interrupted = &interrupted;
	/* --report times nothing; the rest rates the TSC first (20 ms) */
	if (cfg->mode == RP_MODE_REPORT)
		return report(cfg);
	rp_clock_init();
	if (cfg->mode == RP_MODE_SERVER)
		return serve(cfg);
	cfg->progress = !cfg->quiet && isatty(STDERR_FILENO);
	if (rp_cli_expand_all(cfg, err, sizeof(err))) {
		fprintf(stderr, "rdmaperf: %s\n", err);
		json_error(cfg, "transport", err);
		return 1;
	}
	if (cfg->mode == RP_MODE_MATRIX)
		return rp_matrix_main(cfg, rp_out_matrix);
	return cfg->mode == RP_MODE_LOOPBACK ? loopback(cfg) : run_client(cfg);
}

int main(int argc, char **argv)
{
	struct rp_xport_params params;
	struct rp_config cfg = { .test.params = &params };
	enum rp_cli_action act;
	char err[256];

	if (rp_os_init()) {
		fprintf(stderr, "rdmaperf: cannot start the network stack\n");
		return 1;
	}
	if (argc > 1 && !strcmp(argv[1], "doctor"))
		return rp_out_close("the doctor's report",
				    rp_doctor_main(argc - 1, argv + 1));
	if (argc > 1 && !strcmp(argv[1], "diff"))
		return rp_out_close("the diff",
				    rp_diff_main(argc - 1, argv + 1));
	if (argc > 1 && !strcmp(argv[1], "monitor"))
		return rp_out_close("the monitor's help",
				    rp_monitor_main(argc - 1, argv + 1));
	if (rp_cli_parse(argc, argv, &cfg, &act, err, sizeof(err))) {
		fprintf(stderr, "rdmaperf: %s\nTry 'rdmaperf --help'.\n", err);
		usage_json(argc, argv, err);
		return rp_out_close("the JSON", 2);
	}
	if (act == RP_CLI_HELP) {
		rp_cli_usage(stdout);
		return rp_out_close("the help", 0);
	}
	if (act == RP_CLI_VERSION) {
		printf("rdmaperf %s\n", RP_VERSION);
		return rp_out_close("the version", 0);
	}
	return rp_out_close(rp_out_name(&cfg), run_mode(&cfg));
}
