/* SPDX-License-Identifier: MIT */
/*
 * Client and server drivers: the phases of a test (DESIGN.md, "The shape of
 * a run") over any transport, and the result they produce for report/.
 */
#ifndef RP_RUN_RUN_H
#define RP_RUN_RUN_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "run/config.h"
#include "run/result.h"
#include "xport/xport.h"

/**
 * rp_client_run_test - run the test of @cfg, every point of its sweep, on
 * transport @t of cfg->test.transports against the server at
 * cfg->test.host:port, over one control connection and one transport
 * setup (a local transport, -x file:PATH, runs here on cfg->test.paths[@t],
 * without a server), filling @res[i] for point i
 * of rp_sweep_points() (also on failure: failed, error_code, error and
 * whatever phases completed; points after a failure are failed too).
 * @res: cfg->test.n_sizes * n_depths results.
 * Return: 0, or a negative errno when the test failed.
 */
/* --mcast: whether -a's list @hosts is 1 to 16 receivers, HOST[:PORT]
 * each; 0, or -EINVAL with the one-line reason in @err. */
int rp_mcast_check_receivers(const char *hosts, char *err, size_t errlen);

int rp_client_run_test(const struct rp_config *cfg, size_t t,
		       struct rp_result *res);

/** rp_host_info - this host as a JSON object (hostname, kernel, cpus...). */
cJSON *rp_host_info(void);

/** rp_host_clock_end - at the end of a run, this side's clock drift from
 *  CLOCK_MONOTONIC since calibration into @host's "clock" (drift_ppm). */
void rp_host_clock_end(cJSON *host);

struct rp_server;

/**
 * rp_server_open - listen for clients on cfg->test.host (NULL: any) and port
 * (0: an ephemeral port, see rp_server_port).
 * Return: 0, or -errno (the reason is printed).
 */
int rp_server_open(const struct rp_config *cfg, struct rp_server **out);

/** rp_server_port - the port the server listens on. */
uint16_t rp_server_port(const struct rp_server *srv);

/**
 * rp_server_serve - serve tests, one at a time, until *@stop is set,
 * rp_server_stop() is called, or after one test with @once. A second
 * client meanwhile is told "busy".
 * Return: 0; -errno on a fatal error of the listener itself; with @once,
 * -ECANCELED when that test failed.
 */
int rp_server_serve(struct rp_server *srv, bool once, const atomic_int *stop);

/** rp_server_stop - make rp_server_serve() return soon; any thread. */
void rp_server_stop(struct rp_server *srv);

/** rp_server_close - stop listening and free; NULL is accepted. */
void rp_server_close(struct rp_server *srv);

#endif
