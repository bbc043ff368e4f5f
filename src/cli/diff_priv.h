/* SPDX-License-Identifier: MIT */
/*
 * What rdmaperf diff's files share: diff.c reads the command line and the
 * two documents, pairs their points and judges each figure; diff_out.c
 * writes the judgement as text, JSON and SVG.
 */
#ifndef RP_CLI_DIFF_PRIV_H
#define RP_CLI_DIFF_PRIV_H

#include <stdbool.h>
#include <stdio.h>

#include "core/stats.h"
#include "report/report.h"
#include "run/repeat.h"

#define RP_DIFF_SCHEMA	  "rdmaperf-diff/1"
#define RP_DIFF_THRESHOLD 5.0 /* %, unless --threshold */

/* What a figure's change means, for the gate. */
enum rp_diff_verdict {
	RP_DV_SAME,	 /* the interval holds no change */
	RP_DV_BETTER,	 /* significant, for the better */
	RP_DV_WORSE,	 /* significant, worse, within the threshold */
	RP_DV_REGRESSED, /* worse beyond the threshold */
	RP_DV_UNJUDGED,	 /* one run on a side: no interval */
};

struct rp_diff_fig {
	bool present;		/* measured on both sides */
	double old_v, new_v;	/* geometric means of the repetitions
				 * (one run: its value), document units */
	size_t n_old, n_new;	/* repetitions with the figure */
	struct rp_stat_ratio r; /* new against old, unpaired */
	enum rp_diff_verdict v;
};

/* A point found in both documents (or in one: the other NULL). */
struct rp_diff_point {
	const struct rp_result *old, *new;
	char label[96]; /* "tcp write 64 KiB q16" */
	struct rp_diff_fig fig[RP_FIG__COUNT];
};

struct rp_diff {
	const char *old_path, *new_path;
	double threshold;	  /* %, a regression beyond it fails the gate */
	double level;		  /* the intervals', 0.95 */
	bool want[RP_FIG__COUNT]; /* --figures */
	bool json;
	const char *plot;	   /* --plot FILE.svg */
	struct rp_report_doc a, b; /* old, new */
	struct rp_diff_point *p;
	size_t n;
	size_t regressed, unjudged_regressed, judged, unjudged;
};

/** rp_diff_verdict_name - "regressed", "no significant difference"... */
const char *rp_diff_verdict_name(enum rp_diff_verdict v);

/** rp_diff_text - the table, the points in one document only, and the
 *  gate's line. */
void rp_diff_text(FILE *f, const struct rp_diff *d);

/** rp_diff_json - the same as a document (schema/rdmaperf-diff-1). */
int rp_diff_json(FILE *f, const struct rp_diff *d);

/** rp_diff_svg - each judged change with its interval, better to the
 *  right, the threshold marked. Return: 0, or -errno. */
int rp_diff_svg(const char *path, const struct rp_diff *d);

#endif
