/* SPDX-License-Identifier: BSD-3-Clause */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>

#include "plot.h"

static const char *const colour[] = {"#1f77b4", "#2ca02c", "#d62728", "#7f7f7f", "#9467bd"};

static bool has(const struct plot_line *l, int i)
{
	return !l->have || l->have[i];
}

/* the greatest value (at least 1) and the least above 0 of every line's
 * points and spreads */
static void y_range(const struct plot_line *l, int nl, int n, double *ymin, double *ymax)
{
	*ymax = 1;
	for (int k = 0; k < nl; k++)
		for (int i = 0; i < n; i++)
			if (has(&l[k], i) && (l[k].hi ? l[k].hi[i] : l[k].y[i]) > *ymax)
				*ymax = l[k].hi ? l[k].hi[i] : l[k].y[i];
	*ymin = *ymax;
	for (int k = 0; k < nl; k++)
		for (int i = 0; i < n; i++) {
			double v = l[k].lo ? l[k].lo[i] : l[k].y[i];
			if (has(&l[k], i) && v > 0 && v < *ymin)
				*ymin = v;
		}
}

int plot_svg(const char *path, const char *xlabel, const char *ylabel, int decades, const double *x,
	     int n, const struct plot_line *l, int nl)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		return -1;
	}
	const double W = 640, H = 360, L = 60, R = 150, T = 20, B = 40;
	double ymin, ymax;
	y_range(l, nl, n, &ymin, &ymax);
	/* values over more than two decades: a log scale from the power of ten
	 * below the least to the one above the greatest */
	bool lg = ymax > 100 * ymin;
	double y0 = lg ? floor(log10(ymin)) : 0, y1 = lg ? ceil(log10(ymax)) : 0;
	ymax *= 1.1;
#define X(c) (L + (W - L - R) * (log10(c) - 1) / (decades - 1))
#define Y(v)                                                                       \
	(lg ? H - B - (H - T - B) * (log10((v) > 0 ? (v) : ymin) - y0) / (y1 - y0) \
	    : H - B - (H - T - B) * (v) / ymax)
	fprintf(f,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		"font-family=\"sans-serif\" font-size=\"11\">\n"
		"<path d=\"M%.0f %.0fV%.0fH%.0f\" fill=\"none\" stroke=\"black\"/>\n",
		W, H, L, T, H - B, W - R);
	for (int e = 1; e <= decades; e++)
		fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">10^%d</text>\n",
			X(pow(10, e)), H - B + 15, e);
	for (int k = 0; !lg && k <= 4; k++)
		fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%.0f</text>\n", L - 4,
			Y(ymax * k / 4) + 4, ymax * k / 4);
	for (double e = y0; lg && e <= y1; e++)
		fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n", L - 4,
			Y(pow(10, e)) + 4, pow(10, e));
	fprintf(f,
		"<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">%s</text>\n"
		"<text x=\"12\" y=\"%.0f\" transform=\"rotate(-90 12 %.0f)\" "
		"text-anchor=\"middle\">%s</text>\n",
		(L + W - R) / 2, H - 8, xlabel, (T + H - B) / 2, (T + H - B) / 2, ylabel);
	for (int k = 0; k < nl; k++) {
		const char *c = colour[k % 5];
		fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", c);
		for (int i = 0; i < n; i++)
			if (has(&l[k], i))
				fprintf(f, "%.1f,%.1f ", X(x[i]), Y(l[k].y[i]));
		fprintf(f, "\"/>\n");
		for (int i = 0; l[k].lo && i < n; i++)
			if (has(&l[k], i))
				fprintf(f,
					"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
					"stroke=\"%s\"/>\n",
					X(x[i]), Y(l[k].lo[i]), X(x[i]), Y(l[k].hi[i]), c);
		fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" fill=\"%s\">%s</text>\n", W - R + 10,
			T + 16.0 * (k + 1), c, l[k].name);
	}
#undef X
#undef Y
	fputs("</svg>\n", f);
	return fclose(f) == 0 ? 0 : -1;
}
