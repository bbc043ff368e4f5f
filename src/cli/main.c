// SPDX-License-Identifier: MIT
/* rdmaperf: main(): parse, then serve, run the tests, or both (loopback). */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/options.h"
#include "report/report.h"

/* Set by the signal handler, read by every thread: a lock-free atomic is
 * safe in a handler and, unlike volatile sig_atomic_t, across threads. */
static atomic_int interrupted;

static void on_signal(int sig)
{
	(void)sig;
	atomic_store(&interrupted, 1);
}

static void install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static int open_server(const struct rp_config *cfg, struct rp_server **srv)
{
	int err = rp_server_open(cfg, srv);

	if (err)
		fprintf(stderr, "rdmaperf: cannot listen on %s port %u: %s\n",
			cfg->host ? cfg->host : "any address", cfg->port,
			strerror(-err));
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
			cfg->host ? cfg->host : "any address",
			rp_server_port(srv));
	err = rp_server_serve(srv, cfg->once, &interrupted);
	rp_server_close(srv);
	return err ? 1 : 0;
}

/* -x all: every built-in transport whose probe passes on this host. */
static void expand_all(struct rp_config *cfg)
{
	const struct rp_xport_ops *ops;
	struct rp_err why;
	size_t i;

	if (cfg->n_transports != 1 || strcmp(cfg->transports[0], "all"))
		return;
	cfg->n_transports = 0;
	for (i = 0; i < rp_xport_count(); i++) {
		ops = rp_xport_at(i);
		if (ops->probe(ops, &why) == 0)
			snprintf(cfg->transports[cfg->n_transports++],
				 RP_SPEC_NAME_LEN, "%s", ops->name);
	}
}

/* Every transport, each over the whole sweep: results transport-major. */
static int run_client(const struct rp_config *cfg)
{
	size_t points = cfg->n_sizes * cfg->n_depths;
	size_t i, k, n = cfg->n_transports * points;
	struct rp_result *res = calloc(n, sizeof(*res));
	int failed = 0;

	if (!res) {
		fprintf(stderr, "rdmaperf: out of memory\n");
		return 1;
	}
	for (i = 0; i < cfg->n_transports; i++) {
		struct rp_result *r = &res[i * points];

		if (rp_client_run_test(cfg, cfg->transports[i], r))
			failed = 1;
		if (r->notes[0])
			fprintf(stderr, "rdmaperf: %s: note: %s\n",
				r->transport, r->notes);
		for (k = 0; k < points && !cfg->json; k++)
			if (r[k].failed && (k == 0 || !r[k - 1].failed))
				fprintf(stderr, "rdmaperf: %s\n", r[k].error);
	}
	if (cfg->json)
		rp_report_json(stdout, cfg, res, n);
	else
		rp_report_text(stdout, cfg, res, n);
	for (i = 0; i < n; i++)
		rp_result_fini(&res[i]);
	free(res);
	return failed;
}

static void *loop_server_main(void *arg)
{
	rp_server_serve(arg, false, NULL);
	return NULL;
}

/* --loopback without -x: RDMA where a device exists, else TCP. */
static void loopback_transport(struct rp_config *cfg)
{
	const struct rp_xport_ops *ops = rp_xport_find(cfg->transports[0]);
	struct rp_err why;

	if (!cfg->transport_defaulted || !ops || !ops->probe(ops, &why))
		return;
	fprintf(stderr, "rdmaperf: %s cannot run here, --loopback uses tcp\n",
		cfg->transports[0]);
	snprintf(cfg->transports[0], RP_SPEC_NAME_LEN, "tcp");
	snprintf(cfg->spec.transport, RP_SPEC_NAME_LEN, "tcp");
}

/* Unless told otherwise, a loopback test runs on the address the first
 * transport that has an opinion asks for (rdma_cm cannot reach a device
 * through 127.0.0.1); the others are content with any local address. */
static void loopback_address(struct rp_config *cfg, char *buf, size_t len)
{
	const struct rp_xport_ops *ops;
	size_t i;

	if (!cfg->host_defaulted)
		return;
	for (i = 0; i < cfg->n_transports; i++) {
		ops = rp_xport_find(cfg->transports[i]);
		if (ops && ops->loopback_addr &&
		    ops->loopback_addr(&cfg->params, buf, len) == 0) {
			cfg->host = buf;
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
	scfg.port = 0;
	scfg.quiet = true;
	if (open_server(&scfg, &srv))
		return 1;
	if (pthread_create(&t, NULL, loop_server_main, srv)) {
		rp_server_close(srv);
		return 1;
	}
	cfg->port = rp_server_port(srv);
	rc = run_client(cfg);
	rp_server_stop(srv);
	pthread_join(t, NULL);
	rp_server_close(srv);
	return rc;
}

int main(int argc, char **argv)
{
	struct rp_config cfg;
	enum rp_cli_action act;
	char err[256];

	if (rp_cli_parse(argc, argv, &cfg, &act, err, sizeof(err))) {
		fprintf(stderr, "rdmaperf: %s\nTry 'rdmaperf --help'.\n", err);
		return 2;
	}
	if (act == RP_CLI_HELP) {
		rp_cli_usage(stdout);
		return 0;
	}
	if (act == RP_CLI_VERSION) {
		printf("rdmaperf %s\n", RP_VERSION);
		return 0;
	}
	install_signals();
	cfg.interrupted = &interrupted;
	if (cfg.mode == RP_MODE_SERVER)
		return serve(&cfg);
	expand_all(&cfg);
	return cfg.mode == RP_MODE_LOOPBACK ? loopback(&cfg) : run_client(&cfg);
}
