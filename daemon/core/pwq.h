/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The oversleep quantile: a compact histogram of a timer's oversleeps over a
 * long horizon, and the oversleep that only a given share of sleeps exceed.
 * Leading a boundary by it misses that share of boundaries (a wake-up after
 * the boundary), whatever the shape of the tail; the price is the CPU spent
 * polling for the lead.
 *
 *  - Bins are the latency histogram's (hist.h: exact below 64 ns, then 32
 *    per octave up to 2^30 ns, at most 3.1 % wide), with 32-bit counts. The
 *    quantile is a bin's upper edge: it errs long, never short.
 *  - Every `horizon` samples all counts halve, so a change of load shows
 *    within a few horizons and a single outlier is gone after one.
 *  - A frame that cannot sleep (the quantile is longer than the time left)
 *    gives no sample; each such frame drops one count from the highest bin,
 *    so that one burst of outliers cannot keep the engine polling for ever
 *    (the same purpose as ClockFix's decay of the window).
 *  - Until there are 1/miss samples the quantile is the largest seen.
 *
 * Pure: no clock, no I/O.
 */
#ifndef TDP_PWQ_H
#define TDP_PWQ_H

#include <stdbool.h>
#include <stdint.h>

#include "hist.h"

struct pwq {
	uint32_t bin[HIST_NBINS];
	uint64_t total, since_halve;
	uint64_t horizon;  /* samples between halvings */
	uint64_t miss_ppb; /* share of sleeps allowed past the quantile, in 1e-9 */
	int top;	   /* highest bin with a count; -1 when empty */
	int64_t q_ns;	   /* the quantile, kept current */
};

/* miss_ppb 1..1e9 (1e-9 .. 1), horizon 1..1e9. 0, or -1 when out of range. */
int pwq_init(struct pwq *q, uint64_t miss_ppb, uint64_t horizon);
void pwq_add(struct pwq *q, int64_t over_ns);
/* The next pwq_add halves every count first. */
static inline bool pwq_halving_due(const struct pwq *q)
{
	return q->since_halve >= q->horizon;
}
/* A frame without a sleep: one count less in the highest bin. */
void pwq_forget_top(struct pwq *q);
/* The smallest bin edge x with at most miss of the samples above it. */
static inline int64_t pwq_quantile(const struct pwq *q)
{
	return q->q_ns;
}

/* The value the quantile is when it falls in v's bin: that bin's last ns. */
int64_t pwq_edge(int64_t v);

#endif
