// SPDX-License-Identifier: MIT
/*
 * --matrix under MPI: each rank starts its server on its own address, the
 * ranks exchange where they listen, then run the plan's rounds (each
 * rank in at most one pair a round; an MPI barrier between rounds). The
 * client of a pair runs the test exactly as `rdmaperf -c` would and sends
 * its cell (the pair and the one-pair JSON document) to rank 0, which
 * builds the matrix document and prints it. A round that does not end
 * within --round-timeout ends the job with the ranks not heard from.
 * Then the pairs that came out outliers run again, one at a time with
 * nothing else on the fabric (report/matrix/retest.c judges them).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "cluster/cell.h"
#include "cluster/matrix_priv.h"
#include "cluster/comm.h"
#include "cluster/matrix.h"
#include "core/plan.h"
#include "core/safe.h"
#include "platform/clock.h"
#include "report/matrix/matrix.h"
#include "report/report.h"

#define NS_PER_S 1000000000ULL

/* FNV-1a of the test's config as JSON, less where this rank listens. */
static uint64_t test_signature(const struct rp_config *cfg)
{
	cJSON *c = rp_report_config_json(&cfg->test);
	uint64_t h = 1469598103934665603ULL;
	char *s, *p;

	cJSON_DeleteItemFromObjectCaseSensitive(c, "server");
	cJSON_DeleteItemFromObjectCaseSensitive(c, "port");
	s = c ? cJSON_PrintUnformatted(c) : NULL;
	for (p = s; p && *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	free(s);
	cJSON_Delete(c);
	return h;
}

static void *server_main(void *arg)
{
	rp_server_serve(arg, false, NULL);
	return NULL;
}

/* This rank's server on its address; a failure is recorded, not fatal:
 * its cells will say FAILED with the reason. */
static void start_server(struct matrix *m)
{
	struct rp_config *scfg = &m->scfg;
	struct rp_err why = { "" };
	int err;

	gethostname(m->me.host, sizeof(m->me.host) - 1);
	m->me.test_sig = test_signature(m->cfg);
	if (rp_matrix_local_addr(m->cfg, m->me.addr, sizeof(m->me.addr),
				 &why)) {
		snprintf(m->me.error, sizeof(m->me.error), "%.*s",
			 (int)sizeof(m->me.error) - 1, why.msg);
		return;
	}
	*scfg = *m->cfg;
	scfg->mode = RP_MODE_SERVER;
	scfg->test.host = m->me.addr;
	scfg->quiet = true;
	/* a pattern's flows into one rank at once: as many tests */
	scfg->limits.max_tests = m->plan.n ? rp_plan_most_served(&m->plan) : 1;
	err = rp_server_open(scfg, &m->srv);
	if (err) {
		snprintf(m->me.error, sizeof(m->me.error),
			 "cannot listen on %s port %u: %s", m->me.addr,
			 scfg->test.port, strerror(-err));
		return;
	}
	m->me.port = rp_server_port(m->srv);
	m->serving = !pthread_create(&m->thread, NULL, server_main, m->srv);
	if (!m->serving)
		snprintf(m->me.error, sizeof(m->me.error),
			 "cannot start the server thread");
}

static void stop_server(struct matrix *m)
{
	if (m->serving) {
		rp_server_stop(m->srv);
		pthread_join(m->thread, NULL);
	}
	rp_server_close(m->srv);
	m->srv = NULL;
}

/* Rank 0: keep @cell, slimmed unless the output prints documents. */
static void keep_cell(struct matrix *m, cJSON *cell)
{
	m->failed +=
		!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(cell, "ok"));
	if (!m->cfg->json && !m->cfg->csv)
		rp_slim(cell);
	cJSON_AddItemToArray(m->cells, cell);
}

/* Rank 0: a cell from rank @from, checked to be the pair it should be. */
static int take_cell(struct matrix *m, const char *text, int from,
		     const struct rp_pair *flows, size_t n,
		     unsigned char *heard)
{
	cJSON *cell = cJSON_Parse(text);
	double c = cJSON_GetNumberValue(
		cJSON_GetObjectItemCaseSensitive(cell, "client"));
	double s = cJSON_GetNumberValue(
		cJSON_GetObjectItemCaseSensitive(cell, "server"));
	size_t i;

	/* one of the round's flows from @from, not heard before */
	for (i = 0; cell && c == from && i < n; i++)
		if (flows[i].client == c && flows[i].server == s && !heard[i])
			break;
	if (!cell || c != from || i >= n) {
		cJSON_Delete(cell);
		fprintf(stderr,
			"rdmaperf: --matrix: rank %d sent a cell that "
			"is not its own\n",
			from);
		return -EPROTO;
	}
	heard[i] = 1;
	m->failed +=
		!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(cell, "ok"));
	cJSON_AddItemToArray(m->cells, cell);
	return 0;
}

/* Rank 0: the pairs of the round whose cell has not come (either end may
 * be the one stuck). */
static void tell_late(const struct matrix *m, uint32_t round, size_t first,
		      size_t n, const unsigned char *heard)
{
	const struct rp_pair *pr;
	size_t i;

	fprintf(stderr,
		"rdmaperf: --matrix: %s %u of %u: no result within "
		"--round-timeout %u s from pair",
		m->stage, round + 1, m->plan.rounds,
		m->cfg->matrix.round_timeout_s);
	for (i = first; i < first + n; i++) {
		pr = &m->plan.pairs[i];
		if (pr->client && !heard[i - first])
			fprintf(stderr, " %u -> %u (%s -> %s)", pr->client,
				pr->server, m->all[pr->client].host,
				m->all[pr->server].host);
	}
	fprintf(stderr, "; ending the job\n");
}

/* Rank 0: the round's other clients' cells, or the job ends naming the
 * ranks not heard from by @deadline. */
static void collect(struct matrix *m, uint32_t round, uint64_t deadline)
{
	size_t first, n = rp_plan_round(&m->plan, round, &first), i, got = 0;
	unsigned char *heard = calloc(n ? n : 1, 1);
	size_t want = 0, len;
	char *text;
	int from, err = heard ? 0 : -ENOMEM;

	for (i = first; i < first + n; i++)
		want += m->plan.pairs[i].client != 0;
	while (!err && got < want) {
		err = rp_comm_recv(RP_MATRIX_TAG_CELL, &text, &len, &from,
				   deadline);
		if (!err) {
			err = take_cell(m, text, from, &m->plan.pairs[first], n,
					heard);
			free(text);
			got++;
		}
	}
	if (err == -ETIMEDOUT)
		tell_late(m, round, first, n, heard);
	free(heard);
	if (err)
		rp_comm_abort(1);
}

static void progress(const struct matrix *m, uint32_t round, uint64_t t0)
{
	size_t first, n = rp_plan_round(&m->plan, round, &first);

	if (m->cfg->quiet)
		return;
	fprintf(stderr,
		"rdmaperf: matrix: %s %u of %u: %zu %s%s, "
		"%u failed so far (%.1f s)\n",
		m->stage, round + 1, m->plan.rounds, n,
		m->cfg->matrix.pattern.kind ? "flow" : "pair",
		n == 1 ? "" : "s", m->failed,
		(double)(rp_clock_ns() - t0) / 1e9);
}

/* One round: this rank's pairs (or a pattern's flows) of which it is the
 * client, all at once, their cells to rank 0, the barrier. */
static void run_round(struct matrix *m, uint32_t round)
{
	uint64_t t0 = rp_clock_ns();
	uint64_t limit = (uint64_t)m->cfg->matrix.round_timeout_s * NS_PER_S;
	cJSON **cells;
	long k = rp_matrix_run_flows(m, round, &cells), i;
	char *text;
	int err = k < 0 ? (int)k : 0;

	for (i = 0; i < k; i++) {
		if (m->comm.rank == 0) {
			keep_cell(m, rp_as_written(cells[i]));
			continue;
		}
		text = err ? NULL : cJSON_PrintUnformatted(cells[i]);
		if (!err)
			err = text ? rp_comm_send(0, RP_MATRIX_TAG_CELL, text,
						  strlen(text))
				   : -ENOMEM;
		free(text);
		cJSON_Delete(cells[i]);
	}
	free(cells);
	if (m->comm.rank == 0) {
		collect(m, round, t0 + limit);
		progress(m, round, t0);
	}
	/* rank 0 names the late ranks first; the others give it time to */
	if (!err)
		err = rp_comm_barrier(t0 + limit +
				      (m->comm.rank ? 30 : 5) * NS_PER_S);
	if (err) {
		fprintf(stderr,
			"rdmaperf: --matrix: rank %d: %s %u of %u "
			"did not end: %s; ending the job\n",
			m->comm.rank, m->stage, round + 1, m->plan.rounds,
			strerror(-err));
		rp_comm_abort(1);
	}
}

/* Rank 0: the ranks as the document lists them. */
static void add_ranks(struct matrix *m)
{
	int i;

	for (i = 0; i < m->comm.size; i++)
		rp_matrix_add_rank(m->doc, (unsigned int)i, m->all[i].host,
				   m->all[i].addr, m->all[i].port,
				   m->all[i].error[0] ? m->all[i].error : NULL);
}

/* One field of a rank's info, as it came: ended with a NUL, and safe to
 * print (another rank's host name reaches this rank's terminal). */
static void clean_field(char *f, size_t len)
{
	char buf[256]; /* the longest field, and its NUL */

	f[len - 1] = '\0';
	if (!rp_safe_is_clean(f) && len <= sizeof(buf)) {
		rp_safe_text(buf, len, f); /* whole characters that fit */
		memcpy(f, buf, strlen(buf) + 1);
	}
}

static void clean_ranks(struct matrix *m)
{
	int i;

	for (i = 0; i < m->comm.size; i++) {
		clean_field(m->all[i].host, sizeof(m->all[i].host));
		clean_field(m->all[i].addr, sizeof(m->all[i].addr));
		clean_field(m->all[i].error, sizeof(m->all[i].error));
	}
}

/* What every rank can tell from the all-gather alone: enough ranks, and
 * all of them asked for the same test. Return: 0, or 2 (bad usage; rank
 * 0 says why). */
static int check_ranks(const struct matrix *m)
{
	int i;

	if (m->comm.size < 2) {
		fprintf(stderr, "rdmaperf: --matrix needs at least 2 ranks "
				"(mpirun -np N, N >= 2)\n");
		return 2;
	}
	if (m->comm.size > RP_PLAN_MAX_RANKS) {
		if (m->comm.rank == 0)
			fprintf(stderr,
				"rdmaperf: --matrix: %d ranks, at "
				"most %d\n",
				m->comm.size, RP_PLAN_MAX_RANKS);
		return 2;
	}
	for (i = 1; i < m->comm.size; i++) {
		if (m->all[i].test_sig == m->all[0].test_sig)
			continue;
		if (m->comm.rank == 0)
			fprintf(stderr,
				"rdmaperf: --matrix: rank %d (%s) was "
				"given another test than rank 0 (%s): every "
				"rank needs the same -x, -o, -S, -q...\n",
				i, m->all[i].host, m->all[0].host);
		return 2;
	}
	return 0;
}

/* Rank 0: the outlier pairs to retest, at most RP_MATRIX_RETEST_MAX, of
 * the tables of the rounds so far (a copy's: the document's own come at
 * the end, with the retests). */
static int outlier_pairs(struct matrix *m, uint32_t (*pairs)[2])
{
	cJSON *copy = cJSON_Duplicate(m->doc, 1);
	size_t n, found;

	if (!copy || rp_matrix_analyse(copy)) {
		fprintf(stderr, "rdmaperf: --matrix: out of memory\n");
		rp_comm_abort(1);
	}
	n = rp_matrix_retest_pairs(copy, pairs, RP_MATRIX_RETEST_MAX, &found);
	cJSON_Delete(copy);
	if (found > n && !m->cfg->quiet)
		fprintf(stderr,
			"rdmaperf: matrix: %zu outlier pairs; retesting the "
			"first %zu\n",
			found, n);
	return (int)n;
}

/* After the rounds, every rank: the outlier pairs rank 0 names, each in
 * a round of its own, their cells into the document's retests. */
static void retest(struct matrix *m)
{
	uint32_t(*pairs)[2] = calloc(RP_MATRIX_RETEST_MAX, sizeof(*pairs));
	struct rp_plan rounds = m->plan, alone = { .ranks = rounds.ranks };
	unsigned int failed = m->failed;
	int n = 0, v[2];
	uint32_t r;

	if (!pairs)
		rp_comm_abort(1);
	if (m->comm.rank == 0)
		n = outlier_pairs(m, pairs);
	if (rp_comm_bcast_int(&n))
		rp_comm_abort(1);
	alone.pairs = calloc((size_t)n + 1, sizeof(*alone.pairs));
	if (!alone.pairs)
		rp_comm_abort(1);
	for (r = 0; r < (uint32_t)n; r++) {
		v[0] = (int)pairs[r][0];
		v[1] = (int)pairs[r][1];
		if (rp_comm_bcast_int(&v[0]) || rp_comm_bcast_int(&v[1]))
			rp_comm_abort(1);
		alone.pairs[r] =
			(struct rp_pair){ (uint32_t)v[0], (uint32_t)v[1], r };
	}
	alone.rounds = (uint32_t)n;
	alone.n = (size_t)n;
	m->plan = alone;
	m->stage = "retest";
	if (m->comm.rank == 0)
		m->cells = rp_matrix_retests(m->doc);
	for (r = 0; r < alone.rounds; r++)
		run_round(m, r);
	/* what failed alone is judged bad, not counted as a failed cell */
	m->failed = failed;
	m->plan = rounds;
	m->stage = "round";
	free(alone.pairs);
	free(pairs);
}

/* A pattern file's text: rank 0 reads it and sends it to every rank, so
 * that it need be on rank 0's node alone. */
static int pattern_text(const struct matrix *m, char **text, char *why,
			size_t len)
{
	const char *path = m->cfg->matrix.pattern.path;
	uint64_t deadline = rp_clock_ns() +
			    (uint64_t)m->cfg->matrix.round_timeout_s * NS_PER_S;
	int err = 0, r, from;
	size_t n = 0;
	FILE *f;

	if (m->comm.rank == 0) {
		f = fopen(path, "r");
		*text = f ? calloc(RP_PATTERN_FILE_MAX + 1, 1) : NULL;
		n = *text ? fread(*text, 1, RP_PATTERN_FILE_MAX + 1, f) : 0;
		err = !f ? -errno : !*text ? -ENOMEM : ferror(f) ? -EIO : 0;
		if (!err && n > RP_PATTERN_FILE_MAX)
			err = -EFBIG;
		if (f)
			fclose(f);
		snprintf(why, len, "%s: %s", path, strerror(-err));
	}
	if (rp_comm_bcast_int(&err) || err) {
		free(*text);
		*text = NULL;
		return err ? err : -EIO;
	}
	for (r = 1; m->comm.rank == 0 && r < m->comm.size && !err; r++)
		err = rp_comm_send(r, RP_MATRIX_TAG_PATTERN, *text, n);
	if (m->comm.rank)
		err = rp_comm_recv(RP_MATRIX_TAG_PATTERN, text, &n, &from,
				   deadline);
	if (err)
		snprintf(why, len, "%s: not passed on to every rank: %s", path,
			 strerror(-err));
	return err;
}

/* The rounds, the same on every rank: the pattern's, or every ordered
 * pair's. Return: 0, or the exit status with rank 0 saying why. */
static int make_plan(struct matrix *m)
{
	const struct rp_pattern *pt = &m->cfg->matrix.pattern;
	char why[RP_PATTERN_PATH_LEN + 256] = "";
	char *text = NULL;
	int err = 0;

	if (m->comm.size < 2)
		return 0; /* check_ranks() says so */
	if (pt->kind == RP_PATTERN_NONE)
		return rp_plan_make(&m->plan, (uint32_t)m->comm.size,
				    m->cfg->matrix.serial)
			       ? 1
			       : 0;
	if (pt->kind == RP_PATTERN_FILE)
		err = pattern_text(m, &text, why, sizeof(why));
	if (!err)
		err = rp_pattern_plan(pt, (uint32_t)m->comm.size, text,
				      &m->plan, why, sizeof(why));
	free(text);
	if (!err && rp_plan_most_served(&m->plan) > RP_MAX_TESTS) {
		snprintf(why, sizeof(why),
			 "a rank would serve %u flows at once; a server runs "
			 "%d tests at most",
			 rp_plan_most_served(&m->plan), RP_MAX_TESTS);
		err = -EINVAL;
	}
	if (err && m->comm.rank == 0)
		fprintf(stderr, "rdmaperf: --matrix --pattern: %s\n", why);
	/* a pattern's flows are counted each on its own threads: a rank's
	 * process runs several of them, and its server, at once */
	m->cfg->own_threads = true;
	return err == -ENOMEM ? 1 : err ? 2 : 0;
}

static int run_rounds(struct matrix *m)
{
	uint32_t r;

	if (m->comm.rank == 0) {
		m->doc = rp_matrix_doc(&m->cfg->test, &m->cfg->matrix,
				       m->plan.rounds);
		m->cells = rp_matrix_cells(m->doc);
		if (!m->cells)
			rp_comm_abort(1);
		add_ranks(m);
	}
	for (r = 0; r < m->plan.rounds; r++)
		run_round(m, r);
	if (!m->cfg->matrix.no_retest &&
	    m->cfg->matrix.pattern.kind == RP_PATTERN_NONE)
		retest(m);
	return 0;
}

/* Rank 0: the tables, the output; 1 when a cell failed. */
static int finish(struct matrix *m)
{
	int rc;

	if (rp_matrix_analyse(m->doc)) {
		fprintf(stderr, "rdmaperf: --matrix: out of memory\n");
		return 1;
	}
	rc = m->out(m->cfg, m->doc);
	if (!rc && !m->failed && rp_matrix_expect_failed(m->doc))
		return 3; /* a pair failed its --expect */
	return rc ? rc : m->failed ? 1 : 0;
}

int rp_matrix_main(struct rp_config *cfg, rp_matrix_out_fn out)
{
	struct matrix m = { .cfg = cfg, .out = out, .stage = "round" };
	struct rp_err why = { "" };
	int rc;

	if (rp_comm_load(&why)) {
		fprintf(stderr, "rdmaperf: --matrix: %s\n", why.msg);
		return 2;
	}
	if (rp_comm_init(&m.comm, &why)) {
		fprintf(stderr, "rdmaperf: --matrix: %s\n", why.msg);
		return 1;
	}
	rc = make_plan(&m);
	if (rc) {
		rp_comm_fini();
		return rc;
	}
	start_server(&m);
	m.all = calloc((size_t)m.comm.size, sizeof(*m.all));
	rc = m.all ? rp_comm_allgather(
			     &m.me, sizeof(m.me), m.all,
			     rp_clock_ns() +
				     (uint64_t)cfg->matrix.round_timeout_s *
					     NS_PER_S)
		   : -ENOMEM;
	if (rc) {
		fprintf(stderr,
			"rdmaperf: --matrix: rank %d: the ranks did "
			"not all tell where they listen within --round-timeout "
			"%u s: %s; ending the job\n",
			m.comm.rank, cfg->matrix.round_timeout_s,
			strerror(-rc));
		rp_comm_abort(1);
	}
	clean_ranks(&m);
	rc = check_ranks(&m);
	if (!rc)
		rc = run_rounds(&m);
	stop_server(&m);
	if (!rc && m.comm.rank == 0)
		rc = finish(&m);
	/* every rank ends with rank 0's status: one that ends non-zero
	 * first has the launcher abort the others, which may still be
	 * tearing down (a sanitizer's leak check), and report their kill */
	rp_comm_bcast_int(&rc);
	cJSON_Delete(m.doc);
	rp_plan_free(&m.plan);
	free(m.all);
	rp_comm_fini();
	return rc;
}
