/* SPDX-License-Identifier: MIT */
/*
 * Drawing primitives for the SVG plots: a document, escaped text, lines,
 * series (a polyline broken where a value is missing, and a marker per
 * point), error bars, axes on linear and logarithmic scales with readable
 * ticks, a legend. They write to a FILE; the caller checks ferror() once
 * at the end.
 * The kinds of plot of a set of results are report/plot/plot.h's.
 */
#ifndef RP_REPORT_SVG_H
#define RP_REPORT_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define RP_SVG_WIDTH	 900
#define RP_SVG_MAX_TICKS 48
#define RP_SVG_LABEL_LEN 24

/** rp_svg_begin - the XML declaration, the <svg> root of @w x @h px, its
 *  <title> (@title and @subtitle, escaped), the style sheet and a white
 *  background. */
void rp_svg_begin(FILE *f, double w, double h, const char *title,
		  const char *subtitle);

/** rp_svg_end - close the document. */
void rp_svg_end(FILE *f);

/**
 * rp_svg_escape - write @s as XML character data or attribute value: markup
 * characters as entities, invalid UTF-8 and characters XML forbids (control
 * characters) as '?'.
 * @max_chars: at most this many characters, the last an ellipsis when @s is
 * longer; 0: no limit.
 */
void rp_svg_escape(FILE *f, const char *s, size_t max_chars);

/** rp_svg_text_open - start a <text> at (@x, @y) with the attributes
 *  @attrs (trusted markup: class, text-anchor...); rp_svg_escape the
 *  content, then rp_svg_text_close. */
void rp_svg_text_open(FILE *f, double x, double y, const char *attrs);

/** rp_svg_text_close - end the <text>. */
void rp_svg_text_close(FILE *f);

/** rp_svg_text_width - about how wide @s is in a font of @font_px. */
double rp_svg_text_width(const char *s, double font_px);

/** rp_svg_text - a whole <text> element holding @s, escaped. */
void rp_svg_text(FILE *f, double x, double y, const char *attrs, const char *s);

/** rp_svg_line - a line of the style class @cls. */
void rp_svg_line(FILE *f, double x1, double y1, double x2, double y2,
		 const char *cls);

/** rp_svg_group_open - <g class="@cls" data-name="@name"> (@name escaped,
 *  NULL: no data-name). */
void rp_svg_group_open(FILE *f, const char *cls, const char *name);

/** rp_svg_group_close - </g>. */
void rp_svg_group_close(FILE *f);

/** rp_svg_colour - the @i-th colour of a palette that tells series apart
 *  (it repeats after ten). */
const char *rp_svg_colour(size_t i);

/* Scales and ticks */

/** A mapping from data values [lo, hi] to pixels [px_lo, px_hi]. */
struct rp_svg_scale {
	double lo, hi;
	double px_lo, px_hi;
	bool log;
};

/** rp_svg_scale_ok - whether @v can be drawn on @s: finite and, on a
 *  logarithmic scale, above 0. */
bool rp_svg_scale_ok(const struct rp_svg_scale *s, double v);

/** rp_svg_scale_px - the pixel of @v (rp_svg_scale_ok) on @s. */
double rp_svg_scale_px(const struct rp_svg_scale *s, double v);

/** A tick: a grid line and, when labelled, its label. */
struct rp_svg_tick {
	double v;
	bool major; /* labelled, stronger grid line */
	char label[RP_SVG_LABEL_LEN];
};

/** One axis of a panel: its scale, title (with the unit) and ticks. */
struct rp_svg_axis {
	struct rp_svg_scale sc;
	const char *title;
	size_t n;
	struct rp_svg_tick t[RP_SVG_MAX_TICKS];
};

/** Formats a tick value as its label. */
typedef void rp_svg_fmt(double v, char *buf, size_t len);

/** rp_svg_ticks_linear - a linear scale from @lo to @hi widened to whole
 *  steps of 1, 2, 2.5 or 5 x 10^k, about @target ticks. */
void rp_svg_ticks_linear(struct rp_svg_axis *a, double lo, double hi,
			 int target);

/** rp_svg_ticks_log - a logarithmic scale from @lo to @hi (> 0) widened
 *  to 1, 2 or 5 x 10^k; labels at 1, 2, 5 over up to three decades, at
 *  powers of ten over more. */
void rp_svg_ticks_log(struct rp_svg_axis *a, double lo, double hi);

/** rp_svg_ticks_pow2 - a logarithmic scale from @lo to @hi (> 0) widened
 *  to powers of two, a grid line at each and at most @max_labels labels
 *  (every 1, 2, 3, 4, 5 or 10th power) formatted by @fmt. */
void rp_svg_ticks_pow2(struct rp_svg_axis *a, double lo, double hi,
		       int max_labels, rp_svg_fmt *fmt);

/** rp_svg_ticks_percentile - a percentile axis: x = 1 / (1 - p) on a
 *  logarithmic scale from 1 to @hi, labelled "0%", "90%", "99%",
 *  "99.9%"... at the powers of ten. */
void rp_svg_ticks_percentile(struct rp_svg_axis *a, double hi);

/* Panels and series */

/** A plot area at (@x, @y), @w x @h px, and its axes. */
struct rp_svg_panel {
	double x, y, w, h;
	int id; /* unique in the document: names its clip path */
	struct rp_svg_axis ax, ay;
};

/** rp_svg_panel_place - map the axes' scales onto the panel's pixels
 *  (after the ticks set their domains). */
void rp_svg_panel_place(struct rp_svg_panel *p);

/** rp_svg_panel_draw - grid, frame, tick labels, the axis titles (the x
 *  one when @x_title) and a clip path for the series; @empty: "no data"
 *  in the middle. */
void rp_svg_panel_draw(FILE *f, const struct rp_svg_panel *p, bool x_title,
		       bool empty);

/** How a series is drawn. */
struct rp_svg_style {
	const char *colour;
	bool dashed;
	const char *marker; /* class of the circle at each point, or NULL */
	double radius;
	bool bar; /* a legend swatch: an error bar (and the marker), no line */
};

/**
 * rp_svg_series - the points (@x[i], @y[i]) on panel @p: a polyline through
 * each run of consecutive drawable points (a value that is not, such as NaN
 * for a failed point, breaks the line) and a circle at each drawable point.
 * Return: the number of points drawn.
 */
size_t rp_svg_series(FILE *f, const struct rp_svg_panel *p, const double *x,
		     const double *y, size_t n, const struct rp_svg_style *st);

/** An error bar: where it stands on one axis, what it spans on the
 *  other. */
struct rp_svg_bar {
	double at;	 /* an x value; a y value when @horizontal */
	double lo, hi;	 /* on the other axis */
	bool horizontal; /* the bar spans x at height @at */
};

/**
 * rp_svg_errbar - an error bar of @colour on panel @p: a line from @b's
 * lo to its hi, <line class="errbar"> from (x1, y1) at lo to (x2, y2) at
 * hi, and a cap at each end, <line class="errcap">. An end beyond what the
 * axis shows (a bound <= 0 on a logarithmic axis, or outside its domain)
 * runs to the panel's frame and has no cap: the interval goes on there.
 * Return: whether it was drawn (not when @b->at cannot be drawn, the bounds
 * are not ordered, or the whole bar lies outside the axis).
 */
bool rp_svg_errbar(FILE *f, const struct rp_svg_panel *p,
		   const struct rp_svg_bar *b, const char *colour);

/* Legend and layout */

/** An entry of the legend: a swatch of the series' style and its name. */
struct rp_svg_legend_entry {
	const char *name;
	struct rp_svg_style style;
};

/** rp_svg_legend_height - the height of the legend of @n entries laid out
 *  in rows of @width px. */
double rp_svg_legend_height(const struct rp_svg_legend_entry *e, size_t n,
			    double width);

/** rp_svg_legend - draw the legend with its top left corner at (@x, @y). */
void rp_svg_legend(FILE *f, double x, double y, double width,
		   const struct rp_svg_legend_entry *e, size_t n);

#endif
