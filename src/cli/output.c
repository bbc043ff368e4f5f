// SPDX-License-Identifier: MIT
/*
 * The output dispatcher: a run's results and a matrix's document go
 * through the same steps (the plot, then stdout in one format, then a
 * check that stdout took it all), each kind naming its writers.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/live.h"
#include "cli/output.h"
#include "report/matrix/matrix.h"
#include "report/report.h"

/* What is printed, and how each format prints it; a NULL writer: that
 * format prints as text. */
struct out_kind {
	int (*plot)(const char *path, void *what, const struct rp_config *cfg,
		    struct rp_err *why);
	int (*json)(FILE *f, void *what, const struct rp_config *cfg);
	int (*json_line)(void *what, const struct rp_config *cfg);
	int (*csv)(FILE *f, void *what, const struct rp_config *cfg);
	int (*text)(FILE *f, void *what, const struct rp_config *cfg);
};

static bool told; /* stdout's loss said: not again at exit */

int rp_out_lost(const char *what, int err, int rc)
{
	if (!told)
		fprintf(stderr, "rdmaperf: writing %s to stdout: %s\n", what,
			strerror(-err));
	told = true;
	return rc ? rc : 1;
}

static const char *name_of(const struct out_kind *k,
			   const struct rp_config *cfg)
{
	if (cfg->json && k->json)
		return "the JSON";
	if (cfg->json_stream && k->json_line)
		return "the JSON lines";
	return cfg->csv && k->csv ? "the CSV" : "the text";
}

/* After a writer's @err (0 or -errno), what stdout itself says: its
 * reason is the better one for a failed write (-EIO). */
static int check(int err)
{
	int chk = rp_report_out_check(stdout);

	return !err || (err == -EIO && chk) ? chk : err;
}

int rp_out_close(const char *what, int rc)
{
	int err = check(0);

	errno = 0;
	if (fclose(stdout) == EOF && !err)
		err = errno ? -errno : -EIO;
	return err ? rp_out_lost(what, err, rc) : rc;
}

static int dispatch(const struct out_kind *k, const struct rp_config *cfg,
		    void *what)
{
	struct rp_err why = { "" };
	int rc = 0, err;

	if (cfg->plot && k->plot(cfg->plot, what, cfg, &why)) {
		fprintf(stderr, "rdmaperf: --plot: %s\n", why.msg);
		rc = 1;
	}
	errno = 0;
	if (cfg->json && k->json)
		err = k->json(stdout, what, cfg);
	else if (cfg->json_stream && k->json_line)
		err = k->json_line(what, cfg);
	else if (cfg->csv && k->csv)
		err = k->csv(stdout, what, cfg);
	else
		err = k->text(stdout, what, cfg);
	err = check(err);
	return err ? rp_out_lost(name_of(k, cfg), err, 1) : rc;
}

/* A run's results: @what is one of these. */
struct results {
	const struct rp_result *res;
	size_t n;
};

static int res_plot(const char *path, void *what, const struct rp_config *cfg,
		    struct rp_err *why)
{
	const struct results *r = what;

	return rp_report_plot(path, &cfg->test, r->res, r->n, why);
}

static int res_json(FILE *f, void *what, const struct rp_config *cfg)
{
	const struct results *r = what;

	return rp_report_json(f, &cfg->test, r->res, r->n);
}

static int res_json_line(void *what, const struct rp_config *cfg)
{
	const struct results *r = what;
	cJSON *doc = rp_report_json_doc(&cfg->test, r->res, r->n);

	return rp_live_json_line(rp_live_typed("summary", doc));
}

static int res_csv(FILE *f, void *what, const struct rp_config *cfg)
{
	const struct results *r = what;

	return rp_report_csv(f, &cfg->test, r->res, r->n);
}

static int res_text(FILE *f, void *what, const struct rp_config *cfg)
{
	const struct results *r = what;

	rp_report_text(f, &cfg->test, r->res, r->n);
	return 0;
}

static const struct out_kind results_kind = {
	.plot = res_plot,
	.json = res_json,
	.json_line = res_json_line,
	.csv = res_csv,
	.text = res_text,
};

const char *rp_out_name(const struct rp_config *cfg)
{
	return name_of(&results_kind, cfg);
}

int rp_out_results(const struct rp_config *cfg, const struct rp_result *res,
		   size_t n)
{
	struct results r = { res, n };

	return dispatch(&results_kind, cfg, &r);
}

/* A matrix document: @what points to its copy made safe to print (the
 * ranks' host names and errors come from the network). */
static int mx_plot(const char *path, void *what, const struct rp_config *cfg,
		   struct rp_err *why)
{
	cJSON *const *doc = what;

	(void)cfg;
	return rp_matrix_plot(path, *doc, why);
}

static int mx_json(FILE *f, void *what, const struct rp_config *cfg)
{
	cJSON **doc = what;
	cJSON *safe = *doc;

	(void)cfg;
	*doc = NULL; /* printing frees it */
	return rp_report_json_print(f, safe);
}

static int mx_csv(FILE *f, void *what, const struct rp_config *cfg)
{
	cJSON *const *doc = what;

	(void)cfg;
	return rp_matrix_csv(f, *doc);
}

static int mx_text(FILE *f, void *what, const struct rp_config *cfg)
{
	cJSON *const *doc = what;

	(void)cfg;
	return rp_matrix_text(f, *doc);
}

static const struct out_kind matrix_kind = {
	.plot = mx_plot,
	.json = mx_json,
	.csv = mx_csv,
	.text = mx_text,
};

int rp_out_matrix(const struct rp_config *cfg, const cJSON *doc)
{
	cJSON *safe = rp_report_safe_dup(doc);
	int rc;

	if (!safe)
		return rp_out_lost(name_of(&matrix_kind, cfg), -ENOMEM, 1);
	rc = dispatch(&matrix_kind, cfg, &safe);
	cJSON_Delete(safe);
	return rc;
}
