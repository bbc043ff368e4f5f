// SPDX-License-Identifier: MIT
/*
 * Reading a result document back (--report FILE.json): the file, its
 * schema, the config as the user asked for it and the hosts; each result
 * is read by read/result.c. The document is the one rp_report_json_doc()
 * writes, and what is read gives that document back when written again.
 * Anything else is refused with a one-line reason or, where a member is
 * missing or of the wrong type, read as 0: a hostile file never crashes
 * the reader nor overflows one of its arrays.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fields.h"
#include "core/json.h"
#include "core/safe.h"
#include "report/priv.h"
#include "report/read/read.h"

/* ---- the file ---------------------------------------------------------- */

/* All of @f, NUL-terminated, into a new *@out of *@len bytes (the NUL
 * not counted); at most RP_READ_MAX_BYTES. */
static int read_all(FILE *f, char **out, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	char *buf = NULL, *p;

	for (;;) {
		p = realloc(buf, cap + 1);
		if (!p) {
			free(buf);
			return -ENOMEM;
		}
		buf = p;
		n += fread(buf + n, 1, cap - n, f);
		if (n < cap || ferror(f))
			break;
		if (cap > RP_READ_MAX_BYTES) {
			free(buf);
			return -EFBIG;
		}
		cap = cap * 2 > RP_READ_MAX_BYTES ? RP_READ_MAX_BYTES + 1
						  : cap * 2;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

static int read_file(const struct rp_reader *l, char **out, size_t *len)
{
	FILE *f = fopen(l->path, "rb");
	int err = -errno;

	if (!f)
		return rp_errf(l->why, err, "cannot read %s: %s", l->path,
			       strerror(-err));
	errno = 0;
	err = read_all(f, out, len);
	if (!err && ferror(f)) {
		err = errno ? -errno : -EIO;
		free(*out);
	}
	fclose(f);
	if (err == -EFBIG)
		return rp_errf(l->why, err,
			       "cannot read %s: larger than %u MiB", l->path,
			       RP_READ_MAX_BYTES >> 20);
	if (err)
		return rp_errf(l->why, err, "cannot read %s: %s", l->path,
			       strerror(-err));
	return 0;
}

/* cJSON's allocations, watched: its parser says NULL for a syntax error
 * and for want of memory alike, and only one of them is the file's fault. */
static _Thread_local bool parse_starved;

static void *watched_malloc(size_t n)
{
	void *p = malloc(n);

	parse_starved |= !p;
	return p;
}

static int parse_text(const struct rp_reader *l, const char *text, size_t len,
		      cJSON **out)
{
	static cJSON_Hooks hooks = { watched_malloc, free };
	const char *end = NULL;

	cJSON_InitHooks(&hooks);
	parse_starved = false;
	/* the NUL is part of the buffer: nothing may follow the document */
	*out = cJSON_ParseWithLengthOpts(text, len + 1, &end, 1);
	cJSON_InitHooks(NULL); /* cJSON's own again (realloc for printing) */
	if (*out && rp_safe_json(*out)) {
		cJSON_Delete(*out);
		*out = NULL;
		parse_starved = true;
	}
	if (*out)
		return 0;
	if (parse_starved)
		return rp_errf(l->why, -ENOMEM,
			       "%s: out of memory reading its %zu bytes",
			       l->path, len);
	return rp_errf(l->why, -EINVAL, "%s is not JSON (at byte %zu)", l->path,
		       end && end >= text ? (size_t)(end - text) : len);
}

int rp_read_parse(const struct rp_reader *l, cJSON **out)
{
	size_t len = 0;
	char *text = NULL;
	int err = read_file(l, &text, &len);

	if (err)
		return err;
	err = parse_text(l, text, len, out);
	free(text);
	if (l->records)
		*l->records = len / RP_READ_RECORD_BYTES + RP_READ_RECORDS_MIN;
	if (l->bytes)
		*l->bytes = len;
	return err;
}

static int check_doc(const struct rp_reader *l, const cJSON *root)
{
	const cJSON *schema = rp_read_get(root, "schema");

	if (!cJSON_IsObject(root))
		return rp_errf(l->why, -EINVAL,
			       "%s is not a result document (not an object)",
			       l->path);
	if (!cJSON_IsString(schema))
		return rp_errf(l->why, -EINVAL,
			       "%s has no schema; this rdmaperf reads %s",
			       l->path, RP_JSON_SCHEMA);
	if (strcmp(schema->valuestring, RP_JSON_SCHEMA))
		return rp_errf(
			l->why, -EINVAL,
			"%s has schema \"%.64s\"; this rdmaperf reads %s",
			l->path, schema->valuestring, RP_JSON_SCHEMA);
	if (!cJSON_IsArray(rp_read_get(root, "results")))
		return rp_errf(l->why, -EINVAL, "%s has no \"results\" array",
			       l->path);
	return 0;
}

/* ---- the config -------------------------------------------------------- */

/* The array @key of @c into *@out when it has at most @max elements;
 * *@out NULL when it is absent or not an array. */
static int list_get(const struct rp_reader *l, const cJSON *c, const char *key,
		    size_t max, const cJSON **out)
{
	const cJSON *a = rp_read_get(c, key);
	int n;

	*out = NULL;
	if (!cJSON_IsArray(a))
		return 0;
	n = cJSON_GetArraySize(a);
	if ((size_t)n > max)
		return rp_errf(l->why, -EINVAL,
			       "%s: config.%s has %d entries; at most %zu",
			       l->path, key, n, max);
	*out = a;
	return 0;
}

/* "transport": one name, or an array of them. */
static int transports_read(const struct rp_reader *l, const cJSON *c,
			   struct rp_test *test)
{
	const cJSON *t = rp_read_get(c, "transport"), *a, *e;
	char(*names)[RP_SPEC_NAME_LEN] = test->transports;
	int err;

	if (cJSON_IsString(t)) {
		snprintf(names[0], sizeof(names[0]), "%s", t->valuestring);
		test->n_transports = 1;
		return 0;
	}
	err = list_get(l, c, "transport", RP_MAX_TRANSPORTS, &a);
	cJSON_ArrayForEach(e, a)
	{
		snprintf(names[test->n_transports++], sizeof(names[0]), "%s",
			 cJSON_IsString(e) ? e->valuestring : "");
	}
	return err;
}

/* The sweep's sizes and depths, and the pinned CPUs. */
static int lists_read(const struct rp_reader *l, const cJSON *c,
		      struct rp_test *test)
{
	const cJSON *a, *e;
	int err;

	err = list_get(l, c, "sizes", RP_MAX_SIZES, &a);
	cJSON_ArrayForEach(e, a)
	{
		test->sizes[test->n_sizes++] =
			rp_read_item_u64(e, RP_SPEC_MAX_SIZE);
	}
	if (!err)
		err = list_get(l, c, "queue_depths", RP_MAX_DEPTHS, &a);
	cJSON_ArrayForEach(e, a)
	{
		test->depths[test->n_depths++] =
			(uint32_t)rp_read_item_u64(e, RP_SPEC_MAX_DEPTH);
	}
	if (!err)
		err = list_get(l, c, "cpus", RP_MAX_CPUS, &a);
	cJSON_ArrayForEach(e, a)
	{
		test->cpus[test->n_cpus++] = (int)rp_read_item_u64(e, INT_MAX);
	}
	return err;
}

/* --slo's target and tolerance, as json/doc.c wrote them. */
static int slo_read(const struct rp_reader *l, const cJSON *c,
		    struct rp_test *test)
{
	const cJSON *t = rp_read_get(c, "slo");
	double tol = rp_read_num(c, "slo_tolerance_pct");
	char err[400];

	if (!t)
		return 0;
	if (!cJSON_IsString(t) ||
	    rp_expect_parse(t->valuestring, &test->slo, err, sizeof(err)) ||
	    test->slo.n != 1)
		return rp_errf(l->why, -EINVAL,
			       "%s: config.slo is not one latency target",
			       l->path);
	if (tol > 0 && tol <= 100)
		test->slo_tolerance = tol / 100;
	return 0;
}

static int config_read(const struct rp_reader *l, const cJSON *c,
		       struct rp_report_doc *doc)
{
	struct rp_test *test = &doc->test;
	struct rp_spec *sp = &test->spec;
	int err;

	rp_fields_read(c, test, rp_report_config_fields,
		       rp_report_config_n_fields, RP_FIELD_DOC);
	rp_read_str(c, "server", doc->host, sizeof(doc->host));
	test->port = (uint16_t)rp_read_u64(c, "port", UINT16_MAX);
	err = transports_read(l, c, test);
	if (!err)
		err = lists_read(l, c, test);
	if (!err)
		err = rp_read_rates(l, c, test);
	if (!err)
		err = slo_read(l, c, test);
	snprintf(sp->transport, sizeof(sp->transport), "%s",
		 test->transports[0]);
	return err;
}

/* ---- the results ------------------------------------------------------- */

/* A copy of the host object @h (absent or null: none). */
static int host_dup(const cJSON *h, cJSON **out)
{
	if (!h || cJSON_IsNull(h))
		return 0;
	*out = cJSON_Duplicate(h, 1);
	return *out ? 0 : -ENOMEM;
}

/*
 * The hosts, once: the document has one of each, and every result points
 * at the first result's copies (a copy per result would cost results x
 * hosts, 4096 x whatever a hand-made "hosts" holds); only the first owns
 * them (rp_report_doc_free).
 */
static int hosts_read(const cJSON *hosts, struct rp_report_doc *doc)
{
	struct rp_result *r0 = &doc->res[0];
	size_t i;
	int err;

	err = host_dup(rp_read_get(hosts, "client"), &r0->client_host);
	if (!err)
		err = host_dup(rp_read_get(hosts, "server"), &r0->server_host);
	for (i = 1; !err && i < doc->n; i++) {
		doc->res[i].client_host = r0->client_host;
		doc->res[i].server_host = r0->server_host;
	}
	return err;
}

static int results_read(struct rp_reader *l, const cJSON *root,
			struct rp_report_doc *doc)
{
	const cJSON *a = rp_read_get(root, "results"), *e;
	size_t n = (size_t)cJSON_GetArraySize(a);
	int err = 0;

	if (n > RP_MAX_TRANSPORTS * RP_MAX_POINTS)
		return rp_errf(l->why, -EINVAL,
			       "%s has %zu results; at most %d", l->path, n,
			       RP_MAX_TRANSPORTS * RP_MAX_POINTS);
	doc->res = calloc(n ? n : 1, sizeof(*doc->res));
	if (!doc->res)
		return rp_errf(l->why, -ENOMEM, "%s: out of memory", l->path);
	cJSON_ArrayForEach(e, a)
	{
		struct rp_result *r = &doc->res[doc->n++];

		l->index = doc->n - 1;
		err = rp_read_result(l, e, &doc->test, r);
		if (err) /* its reason is in l->why */
			return err;
	}
	if (doc->n && hosts_read(rp_read_get(root, "hosts"), doc))
		return rp_errf(l->why, -ENOMEM, "%s: out of memory", l->path);
	return 0;
}

/* The run's error, for a document whose results say nothing. */
static void error_read(const cJSON *root, struct rp_report_doc *doc)
{
	const cJSON *m = rp_read_get(rp_read_get(root, "error"), "message");

	if (cJSON_IsString(m))
		snprintf(doc->error, sizeof(doc->error), "%s", m->valuestring);
}

int rp_report_load(const char *path, struct rp_report_doc *doc,
		   struct rp_err *why)
{
	size_t records = 0;
	struct rp_reader l = { .path = path, .why = why, .records = &records };
	cJSON *root = NULL;
	int err;

	memset(doc, 0, sizeof(*doc));
	doc->test.host = doc->host;
	err = rp_read_parse(&l, &root);
	if (!err)
		err = check_doc(&l, root);
	if (!err)
		err = config_read(&l, rp_read_get(root, "config"), doc);
	if (!err)
		err = results_read(&l, root, doc);
	if (!err)
		error_read(root, doc);
	cJSON_Delete(root);
	if (err)
		rp_report_doc_free(doc);
	return err;
}

void rp_report_doc_free(struct rp_report_doc *doc)
{
	size_t i;

	if (!doc)
		return;
	for (i = doc->n; doc->res && i-- > 0;) {
		if (i) { /* the first result's hosts, shared (hosts_read) */
			doc->res[i].client_host = NULL;
			doc->res[i].server_host = NULL;
		}
		rp_result_fini(&doc->res[i]);
	}
	free(doc->res);
	doc->res = NULL;
	doc->n = 0;
}
