// SPDX-License-Identifier: MIT
/*
 * A --matrix cell (cluster/cell.h): one pair's record, as its client makes
 * it and rank 0 keeps it.
 */
#include <stdlib.h>

#include "cluster/cell.h"

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

/* Rank 0, printing text: each result's figures are all the tables use;
 * the distributions, intervals and per-stream figures go. */
void rp_slim(cJSON *cell)
{
	static const char *const heavy[] = { "intervals", "per_stream",
					     "directions", "client_streams",
					     "server_streams" };
	cJSON *r, *doc = cJSON_GetObjectItemCaseSensitive(cell, "document");
	size_t i;

	cJSON_DeleteItemFromObjectCaseSensitive(doc, "hosts");
	cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(doc, "results"))
	{
		for (i = 0; i < sizeof(heavy) / sizeof(heavy[0]); i++)
			cJSON_DeleteItemFromObjectCaseSensitive(r, heavy[i]);
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
