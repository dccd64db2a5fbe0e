/* SPDX-License-Identifier: BSD-3-Clause */
/* The benchmarks' cost curves as SVG: ns (or any figure) against a count on
 * a log scale, one line a method, with each point's spread where given. */
#ifndef TDP_BENCH_PLOT_H
#define TDP_BENCH_PLOT_H

#include <stdbool.h>

struct plot_line {
	const char *name;
	const double *y;       /* a value a point */
	const double *lo, *hi; /* its spread, or NULL */
	const bool *have;      /* which points it has, or NULL for all */
};

/* Points at counts x[0..n-1] (10^1 .. 10^decades, log scale); the values on
 * a log scale too when they span more than a factor of 100. 0, or -1 when
 * path cannot be written (said on stderr). */
int plot_svg(const char *path, const char *xlabel, const char *ylabel, int decades, const double *x,
	     int n, const struct plot_line *l, int nl);

#endif
