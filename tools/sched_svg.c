/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The cycle as a picture: frames across, one lane per port, each column a
 * stacked bar of the frame's reserved wire time by flow (as a share of TF),
 * the guard band hatched at the top, overbooked frames marked red. When k is
 * larger than the columns available, a column is the average of its frames and
 * a black tick shows the busiest of them.
 */
#include <stdlib.h>
#include <string.h>

#include "tdpctl.h"

static const char *const palette[] = {
	"#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#edc948", "#76b7b2",
	"#ff9da7", "#9c755f", "#e15759", "#bab0ac", "#86bcb6", "#d37295",
};
#define NPAL (sizeof(palette) / sizeof(palette[0]))

static void xml_text(FILE *out, const char *s)
{
	static const char *const ent[256] = {
		['&'] = "&amp;", ['<'] = "&lt;", ['>'] = "&gt;", ['"'] = "&quot;"};
	for (; *s; s++)
		if (ent[(unsigned char)*s])
			fputs(ent[(unsigned char)*s], out);
		else
			fputc(*s, out);
}

/* 1, 2, 5, 10, 20, 50, ... */
static uint64_t next_125(uint64_t s)
{
	uint64_t m = 1;
	while (s >= 10 * m)
		m *= 10;
	return s == m ? 2 * m : s == 2 * m ? 5 * m : 10 * m;
}

/* the picture's layout */
struct svg_geom {
	double ml, mt, lane_h, gap, plot_w, cw;
	uint32_t cols;
};

/* one port's lane: its top and bottom, the usable share of TF, the share
 * its height stands for and the pixels of a whole TF */
struct svg_lane {
	double y0, ybot, usable, scale, lh;
};

/* Column c of port p's lane: each flow's share of the frames it averages,
 * stacked in table order, the busiest frame's tick, an overbooked mark. acc
 * and touched: per flow, zero on entry and on return. */
static void svg_column(FILE *out, const struct sched_table *t, uint32_t p, uint32_t c,
		       const struct svg_geom *g, const struct svg_lane *ln, double *acc,
		       uint32_t *touched)
{
	const struct sched_port *pt = &t->ports[p];
	const double ml = g->ml, cw = g->cw, y0 = ln->y0, ybot = ln->ybot, usable = ln->usable,
		     scale = ln->scale, lh = ln->lh;
	const uint32_t cols = g->cols;
	uint32_t f0 = (uint32_t)((uint64_t)c * t->k / cols);
	uint32_t f1 = (uint32_t)((uint64_t)(c + 1) * t->k / cols);
	uint32_t nt = 0;
	double maxu = 0;
	for (uint32_t f = f0; f < f1; f++) {
		uint32_t n;
		const struct sched_entry *e = sched_row(t, f, &n);
		double u = 0;
		for (uint32_t i = 0; i < n; i++) {
			if (t->flows[e[i].flow].port != p)
				continue;
			double s = (double)sched_wire_bits(t, e[i].flow) * e[i].n * 1e9 /
				   (double)pt->rate_bps / (double)t->tf_ns;
			if (acc[e[i].flow] == 0)
				touched[nt++] = e[i].flow;
			acc[e[i].flow] += s;
			u += s;
		}
		if (u > maxu)
			maxu = u;
	}
	double x = ml + c * cw, y = ybot, nf = f1 - f0;
	/* flows in table order, so colours stack the same way in every column */
	for (uint32_t i = 1; i < nt; i++)
		for (uint32_t j = i; j > 0 && touched[j - 1] > touched[j]; j--) {
			uint32_t tmp = touched[j];
			touched[j] = touched[j - 1];
			touched[j - 1] = tmp;
		}
	for (uint32_t i = 0; i < nt; i++) {
		uint32_t fl = touched[i];
		double h = acc[fl] / nf * lh;
		if (y - h < y0 - 0.001)
			h = y - y0;
		fprintf(out,
			"<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
			"height=\"%.2f\" fill=\"%s\">"
			"<title>frame%s %u%s%.0u: %s %.1f%%</title></rect>\n",
			x, y - h, cw, h, palette[fl % NPAL], nf > 1 ? "s" : "", f0,
			nf > 1 ? "-" : "", nf > 1 ? f1 - 1 : 0, t->flows[fl].name,
			acc[fl] / nf * 100);
		y -= h;
		acc[fl] = 0;
	}
	if (nf > 1 && maxu > 0) {
		double ym = ybot - (maxu > scale ? scale : maxu) * lh;
		fprintf(out,
			"<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" "
			"stroke=\"black\" "
			"stroke-width=\"1\"/>\n",
			x, ym, x + cw, ym);
	}
	if (maxu > usable + 1e-12)
		fprintf(out,
			"<rect class=\"overbooked\" x=\"%.2f\" y=\"%.1f\" "
			"width=\"%.2f\" height=\"6\" "
			"fill=\"#d62728\"><title>overbooked</title></rect>\n",
			x, y0 - 8, cw < 2 ? 2 : cw);
}

static void svg_lane(FILE *out, const struct sched_table *t, uint32_t p, const struct svg_geom *g,
		     const struct sched_port_summary *ps, const char *gs, double *acc,
		     uint32_t *touched)
{
	const double ml = g->ml, mt = g->mt, lane_h = g->lane_h, gap = g->gap, plot_w = g->plot_w;
	char rate[32];
	const struct sched_port *pt = &t->ports[p];
	double y0 = mt + p * (lane_h + gap), ybot = y0 + lane_h;
	double usable = (double)(t->tf_ns - t->guard_ns) / (double)t->tf_ns;
	/* A lightly loaded port is drawn to its peak, in steps of 10% of TF,
	 * so that it is visible; the label says so. */
	double peak = ps[p].util_max * usable, scale = 1; /* as a share of TF */
	if (peak > 0 && peak <= 0.5)
		scale = (double)(unsigned)(peak * 10 + 0.999999) / 10;
	double lh = lane_h / scale; /* pixels for a whole TF */
	struct svg_lane ln = {.y0 = y0, .ybot = ybot, .usable = usable, .scale = scale, .lh = lh};
	sched_fmt_rate(pt->rate_bps, rate, sizeof(rate));
	fprintf(out, "<g class=\"port\" id=\"port-%s\">\n", pt->name);
	fprintf(out, "<text x=\"12\" y=\"%.1f\" font-weight=\"bold\">%s</text>\n", y0 + 16,
		pt->name);
	fprintf(out, "<text x=\"12\" y=\"%.1f\">%s</text>\n", y0 + 32, rate);
	fprintf(out,
		"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
		"fill=\"#f7f7f7\" "
		"stroke=\"#cccccc\"/>\n",
		ml, y0, plot_w, lane_h);
	if (t->guard_ns && scale == 1)
		fprintf(out,
			"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.2f\" "
			"fill=\"url(#guard)\">"
			"<title>guard band %s</title></rect>\n",
			ml, y0, plot_w, lane_h * (1 - usable), gs);
	if (scale == 1)
		fprintf(out,
			"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" "
			"font-size=\"10\">TF</text>\n",
			ml - 4, y0 + 9);
	else
		fprintf(out,
			"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" "
			"font-size=\"10\">%.0f%% TF</text>\n",
			ml - 4, y0 + 9, scale * 100);
	fprintf(out,
		"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" "
		"font-size=\"10\">0</text>\n",
		ml - 4, ybot);
	for (uint32_t c = 0; c < g->cols; c++)
		svg_column(out, t, p, c, g, &ln, acc, touched);
	/* frame axis */
	/* ticks every 1, 2 or 5 x 10^n frames, at most seven of them */
	uint64_t step = 1;
	while (t->k / step > 6)
		step = next_125(step);
	for (uint64_t f = 0; f < t->k; f += step) {
		double x = ml + ((double)f + 0.5) * plot_w / t->k;
		fprintf(out,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			"stroke=\"#666666\"/>"
			"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
			"font-size=\"10\">%u</text>\n",
			x, ybot, x, ybot + 4, x, ybot + 15, (uint32_t)f);
	}
	fputs("</g>\n", out);
}

int sched_svg(const struct sched_table *t, const struct sched_svg_opts *o, FILE *out)
{
	const double ml = 120, mr = 20, mt = 64, lane_h = 110, gap = 34;
	unsigned W = o->width ? o->width : 1200;
	uint32_t cols = t->k < o->max_columns ? t->k : o->max_columns;
	unsigned nleg = t->nflows < 24 ? t->nflows : 24;
	double plot_w = W - ml - mr, cw = plot_w / cols;
	double legend_y = mt + t->nports * (lane_h + gap) + 22;
	double H = legend_y + ((nleg + 3) / 4) * 20 + 30;
	double *acc = calloc(t->nflows + 1, sizeof(double));
	uint32_t *touched = malloc(sizeof(uint32_t) * (t->nflows + 1));
	struct sched_port_summary *ps = calloc(t->nports + 1, sizeof(*ps));
	struct sched_flow_summary *fs = calloc(t->nflows + 1, sizeof(*fs));
	char tf[32], cyc[32], g[32];
	int rc = -1;

	if (!acc || !touched || !ps || !fs)
		goto out;
	sched_summarize(t, ps, fs);
	sched_fmt_time(t->tf_ns, tf, sizeof(tf));
	sched_fmt_time(t->tf_ns * t->k, cyc, sizeof(cyc));
	sched_fmt_time(t->guard_ns, g, sizeof(g));
	fprintf(out,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%.0f\" "
		"viewBox=\"0 0 %u %.0f\" "
		"font-family=\"sans-serif\" font-size=\"12\">\n",
		W, H, W, H);
	fputs("<defs><pattern id=\"guard\" width=\"6\" height=\"6\" "
	      "patternUnits=\"userSpaceOnUse\" "
	      "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#eeeeee\"/>"
	      "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#999999\" "
	      "stroke-width=\"2\"/></pattern></defs>\n",
	      out);
	fprintf(out, "<rect width=\"%u\" height=\"%.0f\" fill=\"white\"/>\n", W, H);
	fputs("<text x=\"12\" y=\"24\" font-size=\"16\" font-weight=\"bold\">", out);
	xml_text(out, o->title ? o->title : "reservation table");
	fprintf(out,
		"</text>\n<text x=\"12\" y=\"44\">TF %s, k %u (cycle %s), guard %s; height: "
		"reserved wire "
		"time as a share of TF%s</text>\n",
		tf, t->k, cyc, g,
		cols < t->k ? "; columns average their frames, black ticks show the busiest" : "");

	struct svg_geom geo = {.ml = ml,
			       .mt = mt,
			       .lane_h = lane_h,
			       .gap = gap,
			       .plot_w = plot_w,
			       .cw = cw,
			       .cols = cols};
	for (uint32_t p = 0; p < t->nports; p++)
		svg_lane(out, t, p, &geo, ps, g, acc, touched);
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\">frame (tfc)</text>\n", ml,
		legend_y - 6);
	for (unsigned i = 0; i < nleg; i++) {
		double x = 12 + (i % 4) * (W - 24) / 4.0, y = legend_y + (i / 4) * 20;
		fprintf(out,
			"<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>"
			"<text x=\"%.1f\" y=\"%.1f\">%s (%s)</text>\n",
			x, y, palette[i % NPAL], x + 18, y + 11, t->flows[i].name,
			t->ports[t->flows[i].port].name);
	}
	if (t->nflows > nleg)
		fprintf(out, "<text x=\"12\" y=\"%.1f\">and %u more flows</text>\n",
			legend_y + ((nleg + 3) / 4) * 20 + 12, t->nflows - nleg);
	fputs("</svg>\n", out);
	rc = ferror(out) ? -1 : 0;
out:
	free(acc);
	free(touched);
	free(ps);
	free(fs);
	return rc;
}
