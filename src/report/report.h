/* SPDX-License-Identifier: MIT */
/* Reporters: format results for people and for machines; never measure. */
#ifndef RP_REPORT_REPORT_H
#define RP_REPORT_REPORT_H

#include <stdio.h>

#include "run/run.h"

#define RP_JSON_SCHEMA "rdmaperf/1"

/**
 * rp_report_json_doc - the whole JSON document (DESIGN.md, "Outputs"):
 * schema, version, config, hosts, results and error (the first failed
 * result's, or null). Return: the document, NULL on no memory.
 */
cJSON *rp_report_json_doc(const struct rp_config *cfg,
			  const struct rp_result *res, size_t n);

/** rp_report_json - print rp_report_json_doc to @f. Return: 0 or -errno. */
int rp_report_json(FILE *f, const struct rp_config *cfg,
		   const struct rp_result *res, size_t n);

/** rp_report_text - the summary block of each result, for people. */
void rp_report_text(FILE *f, const struct rp_config *cfg,
		    const struct rp_result *res, size_t n);

#endif
