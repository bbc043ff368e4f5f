// SPDX-License-Identifier: MIT
/* Helpers of the fuzz targets (common.h). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/proto.h"
#include "report/report.h"
#include "common.h"

void fuzz_fail(const char *file, int line, const char *what)
{
	fprintf(stderr, "%s:%d: invariant broken: %s\n", file, line, what);
	abort();
}

char *fuzz_copy(const uint8_t *data, size_t len)
{
	char *p = malloc(len ? len : 1);

	if (p && len)
		memcpy(p, data, len);
	return p;
}

static bool same_name(const cJSON *a, const cJSON *b)
{
	if (!a->string || !b->string)
		return a->string == b->string;
	return !strcmp(a->string, b->string);
}

/* cJSON prints a double with 15 significant digits when they read back
 * within an epsilon of it, not always to the same bits. */
static bool same_number(double a, double b, bool exact)
{
	double mag = fabs(a) > fabs(b) ? fabs(a) : fabs(b);

	return a == b || (!exact && fabs(a - b) <= mag * DBL_EPSILON);
}

static bool same_value(const cJSON *a, const cJSON *b, bool exact)
{
	if ((a->type & 0xff) != (b->type & 0xff))
		return false;
	if (cJSON_IsNumber(a))
		return same_number(a->valuedouble, b->valuedouble, exact);
	if (cJSON_IsString(a) || cJSON_IsRaw(a))
		return !strcmp(a->valuestring, b->valuestring);
	return true;
}

bool fuzz_json_same(const cJSON *a, const cJSON *b, bool exact)
{
	const cJSON *x, *y;

	if (!a || !b)
		return a == b;
	if (!same_value(a, b, exact))
		return false;
	for (x = a->child, y = b->child; x && y; x = x->next, y = y->next)
		if (!same_name(x, y) || !fuzz_json_same(x, y, exact))
			return false;
	return !x && !y;
}

bool fuzz_json_finite(const cJSON *j)
{
	const cJSON *c;

	if (cJSON_IsNumber(j) && !isfinite(j->valuedouble))
		return false;
	for (c = j ? j->child : NULL; c; c = c->next)
		if (!fuzz_json_finite(c))
			return false;
	return true;
}

bool fuzz_spec_equal(const struct rp_spec *a, const struct rp_spec *b)
{
	return !strncmp(a->transport, b->transport, RP_SPEC_NAME_LEN) &&
	       a->op == b->op && a->size_bytes == b->size_bytes &&
	       a->queue_depth == b->queue_depth &&
	       a->iterations == b->iterations &&
	       a->duration_ns == b->duration_ns && a->warmup == b->warmup &&
	       a->lat_iterations == b->lat_iterations &&
	       a->latency == b->latency && a->bandwidth == b->bandwidth &&
	       a->verify == b->verify && a->streams == b->streams &&
	       a->threads == b->threads && a->bidir == b->bidir &&
	       a->wait == b->wait;
}

static FILE *devnull(void)
{
	static FILE *f;

	if (!f)
		f = fopen("/dev/null", "w");
	if (!f)
		fuzz_fail(__FILE__, __LINE__, "cannot open /dev/null");
	return f;
}

char *fuzz_render(const struct rp_test *cfg, const struct rp_result *res,
		  size_t n)
{
	cJSON *doc = rp_report_json_doc(cfg, res, n);
	char *text = doc ? cJSON_Print(doc) : NULL;

	cJSON_Delete(doc);
	rp_report_text(devnull(), cfg, res, n);
	rp_report_csv(devnull(), cfg, res, n);
	fflush(devnull());
	return text;
}

void fuzz_config(struct rp_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->mode = RP_MODE_CLIENT;
	cfg->test.host = "127.0.0.1";
	cfg->test.port = RP_PROTO_DEFAULT_PORT;
	rp_spec_defaults(&cfg->test.spec);
	snprintf(cfg->test.transports[0], sizeof(cfg->test.transports[0]),
		 "tcp");
	cfg->test.n_transports = 1;
	cfg->test.sizes[0] = cfg->test.spec.size_bytes;
	cfg->test.n_sizes = 1;
	cfg->test.depths[0] = cfg->test.spec.queue_depth;
	cfg->test.n_depths = 1;
}
