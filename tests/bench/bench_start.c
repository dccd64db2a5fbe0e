/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The frame-start error, fairly (bench_fair.h: the same PM QoS, blocks in
 * rotated order, every period counted as cyclictest counts it).
 *
 *  - Methods: the engine with ClockFix's rule (max of 8, 32, 128 oversleeps)
 *    and with the quantile (miss targets 1e-2, 1e-3, 1e-4); always polling
 *    the clock (spin); clock_nanosleep to each boundary; cyclictest.
 *  - Per method the median over blocks and the range; the engine's ratio to
 *    cyclictest per percentile, per block, as median [min, max]; the CPU
 *    each method costs against its p99.9 (the frontier; --svg draws it).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench_fair.h"

static struct method methods[] = {
	{.name = "engine, max of 8", .kind = K_ENGINE, .window = 8, .miss_ppb = 0},
	{.name = "engine, max of 32", .kind = K_ENGINE, .window = 32, .miss_ppb = 0},
	{.name = "engine, max of 128", .kind = K_ENGINE, .window = 128, .miss_ppb = 0},
	{.name = "engine, quantile 1e-2", .kind = K_ENGINE, .window = 32, .miss_ppb = 10000000},
	{.name = "engine, quantile 1e-3", .kind = K_ENGINE, .window = 32, .miss_ppb = 1000000},
	{.name = "engine, quantile 1e-4", .kind = K_ENGINE, .window = 32, .miss_ppb = 100000},
	{.name = "spin", .kind = K_SPIN, .window = 0, .miss_ppb = 0},
	{.name = "clock_nanosleep", .kind = K_NANOSLEEP, .window = 0, .miss_ppb = 0},
	{.name = "cyclictest", .kind = K_CYCLICTEST, .window = 0, .miss_ppb = 0},
};
#define NM (sizeof(methods) / sizeof(methods[0]))

struct point {
	const char *name;
	double cpu, p999;
};

/* x: CPU on a log scale from 0.5 % to 100 %; y: p99.9 on a log scale */
static double sx(double cpu_share, double L, double span)
{
	double c = cpu_share < 0.005 ? 0.005 : cpu_share > 1 ? 1 : cpu_share;
	return L + span * (log10(c) - log10(0.005)) / (0 - log10(0.005));
}

static double sy(double ns, double lo, double hi, double bottom, double span)
{
	double v = ns < lo ? lo : ns;
	return bottom - span * (log10(v) - log10(lo)) / (log10(hi) - log10(lo));
}

static void svg_frontier(const char *path, int64_t tf, const struct point *pt, int n)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		return;
	}
	const double W = 720, H = 420, L = 70, R = 150, T = 30, B = 50;
	double ymax = 1000, lo = 10, hi = 1000;
	for (int i = 0; i < n; i++)
		ymax = pt[i].p999 > ymax ? pt[i].p999 : ymax;
	while (hi < ymax)
		hi *= 10;
	double xs = W - L - R, ys = H - B - T;
	fprintf(f,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		"font-family=\"sans-serif\" "
		"font-size=\"11\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
		W, H);
	fprintf(f,
		"<text x=\"%.0f\" y=\"18\" font-size=\"13\">CPU against p99.9 of the frame-start "
		"error, TF %" PRId64 " us (all blocks' periods)</text>\n",
		L, tf / 1000);
	fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"black\"/>\n", L,
		H - B, L + xs, H - B);
	fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"black\"/>\n", L,
		T, L, H - B);
	static const double ticks[] = {0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1};
	for (size_t i = 0; i < sizeof(ticks) / sizeof(ticks[0]); i++)
		fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">%g%%</text>\n",
			sx(ticks[i], L, xs), H - B + 15, 100 * ticks[i]);
	fprintf(f,
		"<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">CPU of the waiting thread "
		"(log)</text>\n",
		L + xs / 2, H - 12);
	for (double d = lo; d <= hi; d *= 10) {
		double y = sy(d, lo, hi, H - B, ys);
		fprintf(f,
			"<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
			L, y, L + xs, y);
		if (d < 1000)
			fprintf(f,
				"<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%.0f ns</text>\n",
				L - 5, y + 4, d);
		else
			fprintf(f,
				"<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%.0f us</text>\n",
				L - 5, y + 4, d / 1000);
	}
	for (int i = 0; i < n; i++) {
		double x = sx(pt[i].cpu, L, xs), y = sy(pt[i].p999, lo, hi, H - B, ys);
		const char *col = strstr(pt[i].name, "quantile") ? "#c0392b"
				  : strstr(pt[i].name, "max")	 ? "#2471a3"
								 : "#555";
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>\n", x, y, col);
		/* labels alternate above and below their point, so that close ones
		 * stay apart */
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\">%s</text>\n", x + 6,
			y + (i % 2 ? 14 : -6), col, pt[i].name);
	}
	fputs("</svg>\n", f);
	fclose(f);
}

void bench_start(struct timebase *tb, const char *svg)
{
	fair_begin();
	int64_t tfs[] = {100000, 1000000};
	for (int t = 0; t < 2; t++) {
		int64_t tf = tfs[t];
		int nb = quick ? 3 : 10;
		uint32_t frames = (uint32_t)((quick ? 300000000LL : 2000000000LL) / tf);
		if (frames > 10000)
			frames = 10000;
		fair_run(methods, NM, tb, tf, nb, frames);
		fair_report(methods, NM, tf, nb);
		if (g_read_ns > 0 && methods[1].ok)
			printf("  engine (max of 32) p50 / clock read cost: %.2fx\n",
			       (double)hist_quantile(&methods[1].all, 0.5) / g_read_ns);
		if (svg) {
			struct point pt[NM];
			int np = 0;
			for (size_t i = 0; i < NM; i++)
				if (methods[i].ok)
					pt[np++] = (struct point){
						methods[i].name, fair_cpu(&methods[i], nb),
						(double)hist_quantile(&methods[i].all, 0.999)};
			char path[512];
			snprintf(path, sizeof(path), "%s-tf%" PRId64 "us.svg", svg, tf / 1000);
			svg_frontier(path, tf, pt, np);
			printf("  the frontier (CPU against p99.9): %s\n", path);
		}
	}
	fair_end();
}
