/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Log-linear latency histogram: values below 64 ns are exact, above that every
 * power of two is split into 32 bins (at most 3.1% relative bin width). Values
 * at or above HIST_MAX_NS go to an overflow count, negative values to an
 * underflow count; min, max and the sum see every value. Adding is O(1) with
 * no allocation, so the frame engine records into it on its hot path.
 */
#ifndef TDP_HIST_H
#define TDP_HIST_H

#include <stdint.h>
#include <stdio.h>

#define HIST_SUB_BITS 5
#define HIST_SUB (1u << HIST_SUB_BITS)
#define HIST_MAX_LOG2 30 /* 2^30 ns, about 1.07 s */
#define HIST_MAX_NS (1LL << HIST_MAX_LOG2)
#define HIST_NBINS ((HIST_MAX_LOG2 - HIST_SUB_BITS + 1) * HIST_SUB)

struct hist {
	uint64_t count; /* every value, also under- and overflow */
	uint64_t under, over;
	int64_t min, max;
	double sum;
	uint64_t bin[HIST_NBINS];
};

void hist_init(struct hist *h);
void hist_add(struct hist *h, int64_t v);
/* A copy of a histogram another thread is adding to (not atomic as a whole:
 * the count may be ahead of the bins by the values being added). */
void hist_snapshot(struct hist *dst, const struct hist *src);
/* Adds b into a. */
void hist_merge(struct hist *a, const struct hist *b);
/* Value at quantile q in [0,1] (upper edge of its bin, clamped to max). Under-
 * and overflows count as below the first and above the last bin. */
int64_t hist_quantile(const struct hist *h, double q);
/* The quantile walk every histogram of tdp shares (this one, tdp-probe's
 * linear one): the value at quantile q of count values, under of them below
 * bin 0, then bin[0..nbins); a bin stands for edge(ctx, b), clamped to
 * [min, max]; 0 when count is 0. */
int64_t hist_rank_walk(const uint64_t *bin, uint32_t nbins, uint64_t count, uint64_t under,
		       int64_t min, int64_t max, double q,
		       int64_t (*edge)(const void *ctx, uint32_t b), const void *ctx);
double hist_mean(const struct hist *h);
/* Bin index and its [lo, hi) range, exposed for reports and tests. */
unsigned hist_bin_of(int64_t v);
int64_t hist_bin_lo(unsigned b);
int64_t hist_bin_hi(unsigned b);

#endif
