/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include "hist.h"

void hist_init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = INT64_MAX;
	h->max = INT64_MIN;
}

unsigned hist_bin_of(int64_t v)
{
	uint64_t u = (uint64_t)v;
	if (u < 2 * HIST_SUB)
		return (unsigned)u;
	unsigned msb = 63u - (unsigned)__builtin_clzll(u); /* >= SUB_BITS + 1 */
	unsigned shift = msb - HIST_SUB_BITS;
	unsigned sub = (unsigned)(u >> shift) & (HIST_SUB - 1);
	return (shift + 1) * HIST_SUB + sub;
}

int64_t hist_bin_lo(unsigned b)
{
	if (b < 2 * HIST_SUB)
		return b;
	unsigned shift = b / HIST_SUB - 1;
	return (int64_t)((HIST_SUB + (b % HIST_SUB)) << shift);
}

int64_t hist_bin_hi(unsigned b)
{
	return hist_bin_lo(b + 1); /* the last bin ends at HIST_MAX_NS */
}

/* one writer; readers on other threads take hist_snapshot: relaxed stores
 * are plain moves on the platforms DPDK runs on */
#define PUT(f, v) __atomic_store_n(&(f), (v), __ATOMIC_RELAXED)

void hist_add(struct hist *h, int64_t v)
{
	PUT(h->count, h->count + 1);
	double sum = h->sum + (double)v;
	__atomic_store(&h->sum, &sum, __ATOMIC_RELAXED);
	if (v < h->min)
		PUT(h->min, v);
	if (v > h->max)
		PUT(h->max, v);
	if (v < 0)
		PUT(h->under, h->under + 1);
	else if (v >= HIST_MAX_NS)
		PUT(h->over, h->over + 1);
	else {
		unsigned b = hist_bin_of(v);
		PUT(h->bin[b], h->bin[b] + 1);
	}
}

#define GET(f) __atomic_load_n(&(f), __ATOMIC_RELAXED)

void hist_snapshot(struct hist *dst, const struct hist *src)
{
	dst->count = GET(src->count);
	dst->under = GET(src->under);
	dst->over = GET(src->over);
	dst->min = GET(src->min);
	dst->max = GET(src->max);
	__atomic_load(&src->sum, &dst->sum, __ATOMIC_RELAXED);
	for (unsigned b = 0; b < HIST_NBINS; b++)
		dst->bin[b] = GET(src->bin[b]);
}

void hist_merge(struct hist *a, const struct hist *b)
{
	a->count += b->count;
	a->under += b->under;
	a->over += b->over;
	a->sum += b->sum;
	if (b->min < a->min)
		a->min = b->min;
	if (b->max > a->max)
		a->max = b->max;
	for (unsigned i = 0; i < HIST_NBINS; i++)
		a->bin[i] += b->bin[i];
}

int64_t hist_rank_walk(const uint64_t *bin, uint32_t nbins, uint64_t count, uint64_t under,
		       int64_t min, int64_t max, double q,
		       int64_t (*edge)(const void *ctx, uint32_t b), const void *ctx)
{
	if (count == 0)
		return 0;
	if (q < 0)
		q = 0;
	if (q > 1)
		q = 1;
	/* rank of the wanted value, 1-based: ceil(q * count), at least 1 */
	uint64_t rank = (uint64_t)(q * (double)count);
	if ((double)rank < q * (double)count || rank == 0)
		rank++;
	if (rank > count)
		rank = count;
	uint64_t seen = under;
	if (seen >= rank)
		return min;
	for (uint32_t b = 0; b < nbins; b++) {
		seen += bin[b];
		if (seen >= rank) {
			int64_t v = edge(ctx, b);
			if (v > max)
				v = max;
			if (v < min)
				v = min;
			return v;
		}
	}
	return max;
}

static int64_t bin_top(const void *ctx, uint32_t b)
{
	(void)ctx;
	return hist_bin_hi(b) - 1;
}

int64_t hist_quantile(const struct hist *h, double q)
{
	return hist_rank_walk(h->bin, HIST_NBINS, h->count, h->under, h->min, h->max, q, bin_top,
			      NULL);
}

double hist_mean(const struct hist *h)
{
	return h->count ? h->sum / (double)h->count : 0;
}
