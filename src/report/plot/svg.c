// SPDX-License-Identifier: MIT
/*
 * SVG drawing primitives for the plots (svg.h): text safe to put in XML
 * whatever it holds, scales and their ticks, panels, series and a legend.
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

/* Scales and ticks */

bool rp_svg_scale_ok(const struct rp_svg_scale *s, double v)
{
	return isfinite(v) && (!s->log || v > 0);
}

double rp_svg_scale_px(const struct rp_svg_scale *s, double v)
{
	double t;

	if (s->log)
		t = log(v / s->lo) / log(s->hi / s->lo);
	else
		t = (v - s->lo) / (s->hi - s->lo);
	return s->px_lo + t * (s->px_hi - s->px_lo);
}

static void fmt_num(double v, char *buf, size_t len)
{
	snprintf(buf, len, "%.6g", v);
}

static void add_tick(struct rp_svg_axis *a, double v, bool major,
		     rp_svg_fmt *fmt)
{
	struct rp_svg_tick *t;

	if (a->n >= RP_SVG_MAX_TICKS)
		return;
	t = &a->t[a->n++];
	t->v = v;
	t->major = major;
	t->label[0] = '\0';
	if (major)
		fmt(v, t->label, sizeof(t->label));
}

static double nice_step(double raw)
{
	double mag = pow(10, floor(log10(raw))), m = raw / mag;

	if (m <= 1)
		return mag;
	if (m <= 2)
		return 2 * mag;
	if (m <= 2.5)
		return 2.5 * mag;
	return (m <= 5 ? 5 : 10) * mag;
}

void rp_svg_ticks_linear(struct rp_svg_axis *a, double lo, double hi,
			 int target)
{
	double step, k, k0, k1, v;

	if (!isfinite(lo) || !isfinite(hi) || hi < lo)
		lo = 0, hi = 1;
	if (hi == lo)
		hi = lo + (lo != 0 ? fabs(lo) : 1);
	step = nice_step((hi - lo) / (target > 0 ? target : 5));
	k0 = floor(lo / step + 0.02); /* a hair over a step: the margin */
	k1 = ceil(hi / step - 0.02);
	a->sc.lo = k0 * step;
	a->sc.hi = k1 * step;
	a->sc.log = false;
	a->n = 0;
	for (k = k0; k <= k1; k++) {
		v = fabs(k) < 0.5 ? 0 : k * step;
		add_tick(a, v, true, fmt_num);
	}
}

/* @v moved down (@up: up) to 1, 2 or 5 x 10^k. */
static double snap_125(double v, bool up)
{
	double mag = pow(10, floor(log10(v) + 1e-9)), m = v / mag;

	if (up)
		m = m <= 1 + 1e-9   ? 1
		    : m <= 2 + 1e-9 ? 2
		    : m <= 5 + 1e-9 ? 5
				    : 10;
	else
		m = m >= 5 - 1e-9 ? 5 : m >= 2 - 1e-9 ? 2 : 1;
	return m * mag;
}

void rp_svg_ticks_log(struct rp_svg_axis *a, double lo, double hi)
{
	static const double mant[] = { 1, 2, 5 };
	double decades, v;
	int e, e0, e1, every;
	size_t i;

	if (!(lo > 0) || !isfinite(lo) || !isfinite(hi) || hi < lo)
		lo = 1, hi = 10;
	if (hi == lo)
		lo /= 2, hi *= 2;
	lo = snap_125(lo, false);
	hi = snap_125(hi, true);
	decades = log10(hi / lo);
	every = decades <= 3.1 ? 0 : (int)ceil(decades / 8);
	a->sc = (struct rp_svg_scale){ .lo = lo, .hi = hi, .log = true };
	a->n = 0;
	e0 = (int)floor(log10(lo) + 1e-9);
	e1 = (int)ceil(log10(hi) - 1e-9);
	for (e = e0; e <= e1; e++) {
		for (i = 0; i < 3; i++) {
			v = mant[i] * pow(10, e);
			if (v < lo * (1 - 1e-9) || v > hi * (1 + 1e-9) ||
			    (i && decades > 14))
				continue;
			add_tick(a, v,
				 !every || (i == 0 &&
					    (e % every + every) % every == 0),
				 fmt_num);
		}
	}
}

/* Labels from the @s-th powers between 2^@e0 and 2^@e1. */
static int pow2_labels(int e0, int e1, int s)
{
	return (int)(floor((double)e1 / s) - ceil((double)e0 / s)) + 1;
}

void rp_svg_ticks_pow2(struct rp_svg_axis *a, double lo, double hi,
		       int max_labels, rp_svg_fmt *fmt)
{
	static const int steps[] = { 1, 2, 3, 4, 5, 10 };
	int e0, e1, e, s;
	size_t i;

	if (!(lo > 0) || !isfinite(lo) || !isfinite(hi) || hi < lo)
		lo = 1, hi = 1024;
	e0 = (int)floor(log2(lo) + 1e-9);
	e1 = (int)ceil(log2(hi) - 1e-9);
	if (e1 <= e0)
		e0--, e1++;
	for (i = 0; i + 1 < sizeof(steps) / sizeof(*steps) &&
		    pow2_labels(e0, e1, steps[i]) > max_labels;
	     i++)
		;
	s = steps[i];
	a->sc = (struct rp_svg_scale){ .lo = ldexp(1, e0),
				       .hi = ldexp(1, e1),
				       .log = true };
	a->n = 0;
	for (e = e0; e <= e1; e++)
		add_tick(a, ldexp(1, e), (e % s + s) % s == 0, fmt);
}

static void fmt_percentile(double x, char *buf, size_t len)
{
	int k = (int)lround(log10(x));

	if (x < 1.5)
		snprintf(buf, len, "0%%");
	else if (fabs(x - 2) < 1e-9)
		snprintf(buf, len, "50%%");
	else
		snprintf(buf, len, "%.*f%%", k > 2 ? k - 2 : 0,
			 100 - pow(10, 2 - k));
}

void rp_svg_ticks_percentile(struct rp_svg_axis *a, double hi)
{
	double d;

	if (!(hi >= 10) || !isfinite(hi))
		hi = 10;
	a->sc = (struct rp_svg_scale){ .lo = 1, .hi = hi, .log = true };
	a->n = 0;
	for (d = 1; d <= hi * (1 + 1e-9); d *= 10) {
		add_tick(a, d, true, fmt_percentile);
		if (2 * d <= hi)
			add_tick(a, 2 * d, d == 1, fmt_percentile);
		if (5 * d <= hi)
			add_tick(a, 5 * d, false, fmt_percentile);
	}
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

/* Where @v lies on @sc: below its domain (-1: not drawable there, such as
 * 0 on a logarithmic scale), in it (0) or above it (1). */
static int domain_side(const struct rp_svg_scale *sc, double v)
{
	double tol = 1e-9 * fabs(sc->hi - sc->lo);

	if (!rp_svg_scale_ok(sc, v) || v < sc->lo - tol)
		return isnan(v) || v < sc->lo ? -1 : 1;
	return v > sc->hi + tol ? 1 : 0;
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
	int lo_side = domain_side(sp, b->lo), hi_side = domain_side(sp, b->hi);
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
