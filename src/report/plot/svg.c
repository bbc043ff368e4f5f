// SPDX-License-Identifier: MIT
/*
 * SVG drawing primitives for the plots (svg.h): text safe to put in XML
 * whatever it holds, panels, series, error bars and a legend; the scales
 * and their ticks are svg_axis.c's.
 * A panel's tick labels and axis titles lie outside its frame: the y ones
 * within 70 px to its left, the x ones within 50 px below.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "report/plot/svg.h"

#define FONT_W	   0.6 /* average glyph width, in em, for layout */
#define LEGEND_ROW 20
#define SWATCH_W   28
#define INSET_X	   12 /* data never touches the frame */
#define INSET_Y	   8

static const char *const palette[] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
	"#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22",
};

static const uint32_t utf8_min[] = { 0, 0, 0x80, 0x800, 0x10000 };

static const char style_sheet[] =
	"<style>\n"
	"text { font-family: 'DejaVu Sans', Helvetica, Arial, sans-serif;"
	" fill: #222; }\n"
	".title { font-size: 16px; font-weight: bold; }\n"
	".subtitle { font-size: 13px; fill: #555; }\n"
	".tick { font-size: 12px; fill: #444; }\n"
	".axis { font-size: 13px; }\n"
	".legend { font-size: 12px; }\n"
	".nodata { font-size: 20px; fill: #999; }\n"
	".why { font-size: 13px; fill: #777; }\n"
	".grid { stroke: #d9d9d9; stroke-width: 1; }\n"
	".grid-minor { stroke: #f0f0f0; stroke-width: 1; }\n"
	".frame { fill: none; stroke: #777; stroke-width: 1; }\n"
	".line { fill: none; stroke-width: 2; stroke-linejoin: round; }\n"
	".point, .mark { stroke: #fff; stroke-width: 0.8; }\n"
	"</style>\n";

/* Bytes of the character at @s when it is valid UTF-8 that XML allows,
 * else 0. */
static size_t xml_char(const unsigned char *s)
{
	uint32_t c;
	size_t n, i;

	if (s[0] < 0x80)
		return s[0] >= 0x20 || s[0] == '\t' || s[0] == '\n' ||
		       s[0] == '\r';
	if ((s[0] & 0xe0) == 0xc0)
		n = 2, c = s[0] & 0x1f;
	else if ((s[0] & 0xf0) == 0xe0)
		n = 3, c = s[0] & 0x0f;
	else if ((s[0] & 0xf8) == 0xf0)
		n = 4, c = s[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if (c < utf8_min[n] || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff) ||
	    c == 0xfffe || c == 0xffff)
		return 0;
	return n;
}

static void put_char(FILE *f, const unsigned char *s, size_t n)
{
	static const char *const ent[] = {
		['&'] = "&amp;",  ['<'] = "&lt;",    ['>'] = "&gt;",
		['"'] = "&quot;", ['\''] = "&apos;",
	};

	if (n == 0)
		fputc('?', f);
	else if (n == 1 && s[0] < sizeof(ent) / sizeof(*ent) && ent[s[0]])
		fputs(ent[s[0]], f);
	else
		fwrite(s, 1, n, f);
}

void rp_svg_escape(FILE *f, const char *s, size_t max_chars)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n, chars = 0;

	while (p && *p) {
		n = xml_char(p);
		if (max_chars && ++chars == max_chars && p[n ? n : 1]) {
			fputs("\u2026", f);
			return;
		}
		put_char(f, p, n);
		p += n ? n : 1;
	}
}

/* Characters (not bytes) of @s, as rp_svg_escape counts them. */
static size_t text_chars(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n, chars = 0;

	for (; p && *p; chars++) {
		n = xml_char(p);
		p += n ? n : 1;
	}
	return chars;
}

double rp_svg_text_width(const char *s, double font_px)
{
	return (double)text_chars(s) * font_px * FONT_W;
}

void rp_svg_begin(FILE *f, double w, double h, const char *title,
		  const char *subtitle)
{
	fprintf(f,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
		"width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n"
		"<title>",
		w, h, w, h);
	rp_svg_escape(f, title, 0);
	if (subtitle && *subtitle) {
		fputs(" \u2014 ", f);
		rp_svg_escape(f, subtitle, 0);
	}
	fprintf(f, "</title>\n%s", style_sheet);
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n");
}

void rp_svg_end(FILE *f)
{
	fputs("</svg>\n", f);
}

void rp_svg_text_open(FILE *f, double x, double y, const char *attrs)
{
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" %s>", x, y, attrs);
}

void rp_svg_text_close(FILE *f)
{
	fputs("</text>\n", f);
}

void rp_svg_text(FILE *f, double x, double y, const char *attrs, const char *s)
{
	rp_svg_text_open(f, x, y, attrs);
	rp_svg_escape(f, s, 0);
	rp_svg_text_close(f);
}

void rp_svg_line(FILE *f, double x1, double y1, double x2, double y2,
		 const char *cls)
{
	fprintf(f,
		"<line class=\"%s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
		"y2=\"%.1f\"/>\n",
		cls, x1, y1, x2, y2);
}

void rp_svg_group_open(FILE *f, const char *cls, const char *name)
{
	fprintf(f, "<g class=\"%s\"", cls);
	if (name) {
		fputs(" data-name=\"", f);
		rp_svg_escape(f, name, 0);
		fputc('"', f);
	}
	fputs(">\n", f);
}

void rp_svg_group_close(FILE *f)
{
	fputs("</g>\n", f);
}

const char *rp_svg_colour(size_t i)
{
	return palette[i % (sizeof(palette) / sizeof(*palette))];
}

/* Panels and series */

void rp_svg_panel_place(struct rp_svg_panel *p)
{
	p->ax.sc.px_lo = p->x + INSET_X;
	p->ax.sc.px_hi = p->x + p->w - INSET_X;
	p->ay.sc.px_lo = p->y + p->h - INSET_Y;
	p->ay.sc.px_hi = p->y + INSET_Y;
}

static void grid(FILE *f, const struct rp_svg_panel *p, bool major)
{
	const char *cls = major ? "grid" : "grid-minor";
	double px;
	size_t i;

	for (i = 0; i < p->ax.n; i++) {
		if (p->ax.t[i].major != major)
			continue;
		px = rp_svg_scale_px(&p->ax.sc, p->ax.t[i].v);
		rp_svg_line(f, px, p->y, px, p->y + p->h, cls);
	}
	for (i = 0; i < p->ay.n; i++) {
		if (p->ay.t[i].major != major)
			continue;
		px = rp_svg_scale_px(&p->ay.sc, p->ay.t[i].v);
		rp_svg_line(f, p->x, px, p->x + p->w, px, cls);
	}
}

/* Tick labels, each only where it does not run into the one before. */
static void tick_labels(FILE *f, const struct rp_svg_panel *p)
{
	double px, w, last = -INFINITY;
	size_t i;

	for (i = 0; i < p->ax.n; i++) {
		px = rp_svg_scale_px(&p->ax.sc, p->ax.t[i].v);
		w = rp_svg_text_width(p->ax.t[i].label, 12);
		if (!p->ax.t[i].label[0] || px - w / 2 < last + 8)
			continue;
		rp_svg_text(f, px, p->y + p->h + 18,
			    "class=\"tick\" text-anchor=\"middle\"",
			    p->ax.t[i].label);
		last = px + w / 2;
	}
	last = INFINITY;
	for (i = 0; i < p->ay.n; i++) {
		px = rp_svg_scale_px(&p->ay.sc, p->ay.t[i].v);
		if (!p->ay.t[i].label[0] || last - px < 16)
			continue;
		rp_svg_text(f, p->x - 8, px + 4,
			    "class=\"tick\" text-anchor=\"end\"",
			    p->ay.t[i].label);
		last = px;
	}
}

static void axis_titles(FILE *f, const struct rp_svg_panel *p, bool x_title)
{
	double x = p->x - 62, y = p->y + p->h / 2;
	char attrs[128];

	if (x_title && p->ax.title)
		rp_svg_text(f, p->x + p->w / 2, p->y + p->h + 42,
			    "class=\"axis\" text-anchor=\"middle\"",
			    p->ax.title);
	if (!p->ay.title)
		return;
	snprintf(attrs, sizeof(attrs),
		 "class=\"axis\" text-anchor=\"middle\" "
		 "transform=\"rotate(-90 %.1f %.1f)\"",
		 x, y);
	rp_svg_text(f, x, y, attrs, p->ay.title);
}

void rp_svg_panel_draw(FILE *f, const struct rp_svg_panel *p, bool x_title,
		       bool empty)
{
	fprintf(f,
		"<defs><clipPath id=\"rp-clip%d\"><rect x=\"%.1f\" "
		"y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/></clipPath>"
		"</defs>\n",
		p->id, p->x, p->y, p->w, p->h);
	rp_svg_group_open(f, "axes", NULL);
	grid(f, p, false);
	grid(f, p, true);
	fprintf(f,
		"<rect class=\"frame\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
		"height=\"%.1f\"/>\n",
		p->x, p->y, p->w, p->h);
	tick_labels(f, p);
	axis_titles(f, p, x_title);
	if (empty)
		rp_svg_text(f, p->x + p->w / 2, p->y + p->h / 2,
			    "class=\"nodata\" text-anchor=\"middle\"",
			    "no data");
	rp_svg_group_close(f);
}

static bool drawable(const struct rp_svg_panel *p, double x, double y)
{
	return rp_svg_scale_ok(&p->ax.sc, x) && rp_svg_scale_ok(&p->ay.sc, y);
}

static void polyline(FILE *f, const struct rp_svg_panel *p, const double *x,
		     const double *y, size_t n, const struct rp_svg_style *st)
{
	size_t i;

	fprintf(f,
		"<polyline class=\"line\" clip-path=\"url(#rp-clip%d)\" "
		"stroke=\"%s\"%s points=\"",
		p->id, st->colour,
		st->dashed ? " stroke-dasharray=\"7 4\"" : "");
	for (i = 0; i < n; i++)
		fprintf(f, "%s%.1f,%.1f", i ? " " : "",
			rp_svg_scale_px(&p->ax.sc, x[i]),
			rp_svg_scale_px(&p->ay.sc, y[i]));
	fputs("\"/>\n", f);
}

size_t rp_svg_series(FILE *f, const struct rp_svg_panel *p, const double *x,
		     const double *y, size_t n, const struct rp_svg_style *st)
{
	size_t i, run = 0, drawn = 0;

	for (i = 0; i <= n; i++) {
		if (i < n && drawable(p, x[i], y[i])) {
			run++;
			continue;
		}
		if (run > 1)
			polyline(f, p, x + i - run, y + i - run, run, st);
		run = 0;
	}
	for (i = 0; i < n; i++) {
		if (!drawable(p, x[i], y[i]))
			continue;
		drawn++;
		if (st->marker)
			fprintf(f,
				"<circle class=\"%s\" cx=\"%.1f\" cy=\"%.1f\" "
				"r=\"%.1f\" fill=\"%s\"/>\n",
				st->marker, rp_svg_scale_px(&p->ax.sc, x[i]),
				rp_svg_scale_px(&p->ay.sc, y[i]), st->radius,
				st->colour);
	}
	return drawn;
}

/* Error bars */

#define CAP_HALF_W 4 /* px either side of a bar's end */

/* Where @v lies against the frame's edges @edge_lo and @edge_hi (the
 * pixels of the spanned axis' low and high ends): below it (-1, or not
 * drawable there, such as 0 on a logarithmic scale), on it (0) or above
 * it (1). The frame, not the scale's domain: the scale is inset from the
 * frame, and an end in that inset is drawn where it is, with its cap. */
static int frame_side(const struct rp_svg_scale *sc, double v, double edge_lo,
		      double edge_hi)
{
	double t;

	if (isnan(v))
		return -1;
	if (!rp_svg_scale_ok(sc, v))
		return v < sc->lo ? -1 : 1;
	t = (rp_svg_scale_px(sc, v) - edge_lo) / (edge_hi - edge_lo);
	return t < -1e-9 ? -1 : t > 1 + 1e-9 ? 1 : 0;
}

static void bar_line(FILE *f, const struct rp_svg_panel *p, const char *cls,
		     double x1, double y1, double x2, double y2,
		     const char *colour)
{
	fprintf(f,
		"<line class=\"%s\" clip-path=\"url(#rp-clip%d)\" "
		"stroke=\"%s\" stroke-width=\"1.4\" x1=\"%.1f\" y1=\"%.1f\" "
		"x2=\"%.1f\" y2=\"%.1f\"/>\n",
		cls, p->id, colour, x1, y1, x2, y2);
}

/* A cap across the bar at @c (the fixed axis) and @v (the spanned one). */
static void bar_cap(FILE *f, const struct rp_svg_panel *p, bool horizontal,
		    double c, double v, const char *colour)
{
	if (horizontal)
		bar_line(f, p, "errcap", v, c - CAP_HALF_W, v, c + CAP_HALF_W,
			 colour);
	else
		bar_line(f, p, "errcap", c - CAP_HALF_W, v, c + CAP_HALF_W, v,
			 colour);
}

bool rp_svg_errbar(FILE *f, const struct rp_svg_panel *p,
		   const struct rp_svg_bar *b, const char *colour)
{
	const struct rp_svg_scale *at = b->horizontal ? &p->ay.sc : &p->ax.sc;
	const struct rp_svg_scale *sp = b->horizontal ? &p->ax.sc : &p->ay.sc;
	/* the frame's edges where the spanned axis' low and high values go */
	double edge_lo = b->horizontal ? p->x : p->y + p->h;
	double edge_hi = b->horizontal ? p->x + p->w : p->y;
	int lo_side = frame_side(sp, b->lo, edge_lo, edge_hi);
	int hi_side = frame_side(sp, b->hi, edge_lo, edge_hi);
	double c, lo, hi;

	if (!rp_svg_scale_ok(at, b->at) || isnan(b->lo) || isnan(b->hi) ||
	    b->lo > b->hi || hi_side < 0 || lo_side > 0)
		return false;
	c = rp_svg_scale_px(at, b->at);
	lo = lo_side ? edge_lo : rp_svg_scale_px(sp, b->lo);
	hi = hi_side ? edge_hi : rp_svg_scale_px(sp, b->hi);
	if (b->horizontal)
		bar_line(f, p, "errbar", lo, c, hi, c, colour);
	else
		bar_line(f, p, "errbar", c, lo, c, hi, colour);
	if (!lo_side)
		bar_cap(f, p, b->horizontal, c, lo, colour);
	if (!hi_side)
		bar_cap(f, p, b->horizontal, c, hi, colour);
	return true;
}

/* Legend and layout */

static double entry_w(const struct rp_svg_legend_entry *e)
{
	return SWATCH_W + 6 + rp_svg_text_width(e->name, 12) + 22;
}

/* Start a new row at (*@x, *@y) when an entry @w wide does not fit. */
static void legend_place(double *x, double *y, double w, double width)
{
	if (*x > 0 && *x + w > width) {
		*x = 0;
		*y += LEGEND_ROW;
	}
}

double rp_svg_legend_height(const struct rp_svg_legend_entry *e, size_t n,
			    double width)
{
	double x = 0, y = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		legend_place(&x, &y, entry_w(&e[i]), width);
		x += entry_w(&e[i]);
	}
	return n ? y + LEGEND_ROW : 0;
}

/* An error bar's swatch: the bar upright in the middle, capped. */
static void bar_swatch(FILE *f, double x, double y, const char *colour)
{
	static const double half_h = 7;

	fprintf(f,
		"<path d=\"M%.1f,%.1fV%.1fM%.1f,%.1fh%dM%.1f,%.1fh%d\" "
		"stroke=\"%s\" stroke-width=\"1.4\" fill=\"none\"/>\n",
		x, y - half_h, y + half_h, x - CAP_HALF_W, y - half_h,
		2 * CAP_HALF_W, x - CAP_HALF_W, y + half_h, 2 * CAP_HALF_W,
		colour);
}

static void swatch(FILE *f, double x, double y, const struct rp_svg_style *st)
{
	if (st->bar)
		bar_swatch(f, x + SWATCH_W / 2.0, y, st->colour);
	else
		fprintf(f,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			"stroke=\"%s\" stroke-width=\"2\"%s/>\n",
			x, y, x + SWATCH_W, y, st->colour,
			st->dashed ? " stroke-dasharray=\"7 4\"" : "");
	if (st->marker)
		fprintf(f,
			"<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" "
			"fill=\"%s\" stroke=\"#fff\" stroke-width=\"0.8\"/>\n",
			x + SWATCH_W / 2.0, y, st->radius, st->colour);
}

void rp_svg_legend(FILE *f, double x0, double y0, double width,
		   const struct rp_svg_legend_entry *e, size_t n)
{
	double x = 0, y = 0;
	size_t i;

	rp_svg_group_open(f, "legend", NULL);
	for (i = 0; i < n; i++) {
		legend_place(&x, &y, entry_w(&e[i]), width);
		swatch(f, x0 + x, y0 + y + 10, &e[i].style);
		rp_svg_text(f, x0 + x + SWATCH_W + 6, y0 + y + 14,
			    "class=\"legend\"", e[i].name);
		x += entry_w(&e[i]);
	}
	rp_svg_group_close(f);
}
