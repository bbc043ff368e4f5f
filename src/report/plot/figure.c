// SPDX-License-Identifier: MIT
/*
 * What the kinds of plot share (plot.h), below plot/plot.c, plot/kinds.c and
 * plot/rates.c: a figure's layout (the title lines, the legend, the panels
 * stacked), a series' results, and the figure that says there is no data.
 */
#include <stdio.h>
#include <string.h>

#include "report/plot/plot.h"

/* The layout of a figure, top to bottom:
 *
 *	title (centred: the test's parameters)
 *	subtitle (the hosts)
 *	legend (rows of entries wrapped to the panels' width)
 *	panel 1 (its y ticks and title in the left margin, x ticks below)
 *	[panel 2]
 */
#define MARGIN_L   84
#define MARGIN_R   30
#define TITLE_Y	   30
#define SUBTITLE_Y 52
#define LEGEND_Y   66
#define PANEL_H1   440 /* one panel */
#define PANEL_H2   320 /* each of two */
#define PANEL_GAP  58
#define BOTTOM	   62

const struct rp_result *rp_plot_result(const struct rp_plot *p,
				       const struct rp_plot_group *g, size_t k)
{
	return &p->res[p->order[g->first + k]];
}

/* A centred line of @cls at @y, its font shrunk from @px to fit. */
static void fit_line(FILE *f, double y, const char *cls, double px,
		     const char *s)
{
	double w = rp_svg_text_width(s, 1);
	double fit = w > 0 ? (RP_SVG_WIDTH - 40) / w : px;
	char attrs[128];

	snprintf(attrs, sizeof(attrs),
		 "class=\"%s\" text-anchor=\"middle\" "
		 "style=\"font-size:%.1fpx\"",
		 cls, fit < px ? (fit < 10 ? 10 : fit) : px);
	rp_svg_text_open(f, RP_SVG_WIDTH / 2.0, y, attrs);
	rp_svg_escape(f, s, 160);
	rp_svg_text_close(f);
}

void rp_plot_figure_open(const struct rp_plot *p, struct rp_plot_figure *fig,
			 size_t n_panels, const struct rp_svg_legend_entry *e,
			 size_t n)
{
	FILE *f = p->f;
	double pw = RP_SVG_WIDTH - MARGIN_L - MARGIN_R;
	double ph = n_panels > 1 ? PANEL_H2 : PANEL_H1;
	double top = LEGEND_Y + rp_svg_legend_height(e, n, pw) + 14;
	size_t i;

	memset(fig, 0, sizeof(*fig));
	fig->n_panels = n_panels > 1 ? 2 : 1;
	fig->w = RP_SVG_WIDTH;
	for (i = 0; i < fig->n_panels; i++)
		fig->p[i] =
			(struct rp_svg_panel){ .x = MARGIN_L,
					       .y = top + i * (ph + PANEL_GAP),
					       .w = pw,
					       .h = ph,
					       .id = (int)i };
	fig->h = top + fig->n_panels * ph + (fig->n_panels - 1) * PANEL_GAP +
		 BOTTOM;
	rp_svg_begin(f, fig->w, fig->h, p->title, p->subtitle);
	fit_line(f, TITLE_Y, "title", 16, p->title);
	if (p->subtitle[0])
		fit_line(f, SUBTITLE_Y, "subtitle", 13, p->subtitle);
	rp_svg_legend(f, MARGIN_L, LEGEND_Y, pw, e, n);
}

void rp_plot_no_data(struct rp_plot *p)
{
	struct rp_plot_figure fig;
	const struct rp_svg_panel *pa = &fig.p[0];
	size_t i, failed = 0, first = p->n;
	char why[300];

	for (i = 0; i < p->n; i++)
		if (p->res[i].failed && !failed++)
			first = i;
	rp_plot_figure_open(p, &fig, 1, NULL, 0);
	rp_svg_text(p->f, pa->x + pa->w / 2, pa->y + pa->h / 2,
		    "class=\"nodata\" text-anchor=\"middle\"", "no data");
	if (first < p->n) {
		snprintf(why, sizeof(why), "%zu of %zu tests failed: %s",
			 failed, p->n, p->res[first].error);
		rp_svg_text_open(p->f, pa->x + pa->w / 2,
				 pa->y + pa->h / 2 + 28,
				 "class=\"why\" text-anchor=\"middle\"");
		rp_svg_escape(p->f, why, 110);
		rp_svg_text_close(p->f);
	}
	rp_svg_end(p->f);
}
