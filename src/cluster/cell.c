// SPDX-License-Identifier: MIT
/*
 * A --matrix cell (cluster/cell.h): one pair's record, as its client makes
 * it and rank 0 keeps it.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/cell.h"
#include "cluster/matrix_priv.h"
#include "platform/clock.h"
#include "report/report.h"

/* The first failed result's reason in @doc, or NULL when all are ok. */
const char *rp_doc_failure(const cJSON *doc)
{
	const cJSON *r, *e;

	cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(doc, "results"))
	{
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "ok")))
			continue;
		e = cJSON_GetObjectItemCaseSensitive(r, "error");
		e = cJSON_GetObjectItemCaseSensitive(e, "message");
		return cJSON_IsString(e) ? e->valuestring : "failed";
	}
	return NULL;
}

cJSON *rp_cell_new(const struct rp_pair *pr)
{
	cJSON *cell = cJSON_CreateObject();

	cJSON_AddNumberToObject(cell, "client", pr->client);
	cJSON_AddNumberToObject(cell, "server", pr->server);
	cJSON_AddNumberToObject(cell, "round", pr->round);
	return cell;
}

/* Of each interval, what a pattern's rounds read (bytes over seconds):
 * its latency and counters go. */
static void slim_intervals(cJSON *iv)
{
	static const char *const keep[] = { "index", "start", "bytes",
					    "seconds" };
	cJSON *x, *k, *next;
	size_t i;
	bool kept;

	cJSON_ArrayForEach(x, iv)
	{
		for (k = x->child; k; k = next) {
			next = k->next;
			for (kept = false, i = 0; i < 4 && !kept; i++)
				kept = k->string && !strcmp(k->string, keep[i]);
			if (!kept)
				cJSON_Delete(cJSON_DetachItemViaPointer(x, k));
		}
	}
}

/* Rank 0, printing text: each result's figures are all the tables use;
 * the distributions and per-stream figures go, and of the intervals all
 * but their bytes and seconds. */
void rp_slim(cJSON *cell)
{
	static const char *const heavy[] = { "per_stream", "directions",
					     "client_streams",
					     "server_streams" };
	cJSON *r, *doc = cJSON_GetObjectItemCaseSensitive(cell, "document");
	size_t i;

	cJSON_DeleteItemFromObjectCaseSensitive(doc, "hosts");
	cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(doc, "results"))
	{
		for (i = 0; i < sizeof(heavy) / sizeof(heavy[0]); i++)
			cJSON_DeleteItemFromObjectCaseSensitive(r, heavy[i]);
		slim_intervals(
			cJSON_GetObjectItemCaseSensitive(r, "intervals"));
		cJSON_DeleteItemFromObjectCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(r, "latency"),
			"spectrum");
		cJSON_DeleteItemFromObjectCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(r, "latency_unloaded"),
			"spectrum");
	}
}

/* Rank 0's own cell as the others' come: through its text. cJSON writes
 * 15 digits of a double when they read back nearly equal, so a table
 * derived from the in-memory values could differ in its last digits from
 * the same table derived from the document (--report). */
cJSON *rp_as_written(cJSON *cell)
{
	char *text = cJSON_PrintUnformatted(cell);
	cJSON *again = text ? cJSON_Parse(text) : NULL;

	free(text);
	if (!again)
		return cell;
	cJSON_Delete(cell);
	return again;
}

/* Every transport against the peer, as `rdmaperf -c` runs them. */
static cJSON *run_tests(const struct matrix *m, const struct rank_info *peer)
{
	struct rp_config c = *m->cfg;
	size_t points = rp_test_points(&c.test),
	       n = c.test.n_transports * points, i;
	struct rp_result *res = calloc(n, sizeof(*res));
	cJSON *doc;

	if (!res)
		return NULL;
	c.mode = RP_MODE_CLIENT;
	c.test.host = peer->addr;
	c.test.port = peer->port;
	c.progress = false;
	c.obs = NULL;
	for (i = 0; i < c.test.n_transports; i++)
		rp_client_run_test(&c, i, &res[i * points]);
	for (i = 0; i < n; i++)
		rp_host_clock_end(res[i].client_host);
	doc = rp_report_json_doc(&c.test, res, n);
	for (i = 0; i < n; i++)
		rp_result_fini(&res[i]);
	free(res);
	return doc;
}

cJSON *rp_matrix_run_pair(const struct matrix *m, const struct rp_pair *pr)
{
	const struct rank_info *peer = &m->all[pr->server];
	const struct rank_info *bad = m->me.error[0] ? &m->me : peer;
	uint64_t t0 = rp_clock_ns();
	cJSON *cell = rp_cell_new(pr), *doc = NULL;
	char why[320];
	const char *fail = why;

	if (bad->error[0])
		snprintf(why, sizeof(why), "rank %u (%s): %s",
			 bad == peer ? pr->server : pr->client, bad->host,
			 bad->error);
	else if (!(doc = run_tests(m, peer)))
		snprintf(why, sizeof(why), "out of memory");
	else
		fail = rp_doc_failure(doc);
	cJSON_AddBoolToObject(cell, "ok", !fail);
	if (fail)
		cJSON_AddStringToObject(cell, "error", fail);
	else
		cJSON_AddNullToObject(cell, "error");
	cJSON_AddNumberToObject(cell, "seconds",
				(double)(rp_clock_ns() - t0) / 1e9);
	if (doc)
		cJSON_AddItemToObject(cell, "document", doc);
	else
		cJSON_AddNullToObject(cell, "document");
	return cell;
}

struct flow {
	const struct matrix *m;
	const struct rp_pair *pr;
	cJSON *cell;
	pthread_t thread;
	bool started;
};

static void *flow_main(void *arg)
{
	struct flow *f = arg;

	f->cell = rp_matrix_run_pair(f->m, f->pr);
	return NULL;
}

long rp_matrix_run_flows(const struct matrix *m, uint32_t round, cJSON ***cells)
{
	size_t first, n = rp_plan_round(&m->plan, round, &first), i, k = 0;
	uint32_t me = (uint32_t)m->comm.rank;
	struct flow *f;

	*cells = NULL;
	for (i = first; i < first + n; i++)
		k += m->plan.pairs[i].client == me;
	if (!k)
		return 0;
	f = calloc(k, sizeof(*f));
	*cells = calloc(k, sizeof(**cells));
	if (!f || !*cells) {
		free(f);
		free(*cells);
		*cells = NULL;
		return -ENOMEM;
	}
	for (k = 0, i = first; i < first + n; i++)
		if (m->plan.pairs[i].client == me)
			f[k++] = (struct flow){ .m = m,
						.pr = &m->plan.pairs[i] };
	/* one flow runs here; several at once, a thread each (one that
	 * cannot start runs here, after the others started) */
	for (i = 0; k > 1 && i < k; i++)
		f[i].started =
			!pthread_create(&f[i].thread, NULL, flow_main, &f[i]);
	for (i = 0; i < k; i++) {
		if (f[i].started)
			pthread_join(f[i].thread, NULL);
		else
			flow_main(&f[i]);
		(*cells)[i] = f[i].cell;
	}
	free(f);
	return (long)k;
}
