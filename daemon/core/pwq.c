/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include "pwq.h"

static int bin_of(int64_t ns)
{
	return (int)hist_bin_of(ns < 0 ? 0 : ns >= HIST_MAX_NS ? HIST_MAX_NS - 1 : ns);
}

static int64_t upper(int b)
{
	return hist_bin_hi((unsigned)b) - 1;
}

int64_t pwq_edge(int64_t v)
{
	return upper(bin_of(v));
}

static void requantile(struct pwq *q)
{
	while (q->top >= 0 && q->bin[q->top] == 0)
		q->top--;
	if (q->top < 0) {
		__atomic_store_n(&q->q_ns, 0, __ATOMIC_RELAXED);
		return;
	}
	/* samples allowed above the quantile: floor(miss * total) */
	uint64_t allowed = q->miss_ppb * q->total / 1000000000u; /* total <= 2 horizon <= 2e9 */
	uint64_t above = 0;
	int b = q->top;
	for (; b > 0; b--) {
		if (above + q->bin[b] > allowed)
			break;
		above += q->bin[b];
	}
	__atomic_store_n(&q->q_ns, upper(b), __ATOMIC_RELAXED);
}

int pwq_init(struct pwq *q, uint64_t miss_ppb, uint64_t horizon)
{
	if (miss_ppb < 1 || miss_ppb > 1000000000u || horizon < 1 || horizon > 1000000000u)
		return -1;
	memset(q, 0, sizeof(*q));
	q->miss_ppb = miss_ppb;
	q->horizon = horizon;
	q->top = -1;
	return 0;
}

void pwq_add(struct pwq *q, int64_t over_ns)
{
	if (++q->since_halve > q->horizon) {
		q->since_halve = 1;
		q->total = 0;
		for (int b = 0; b <= q->top; b++) {
			q->bin[b] >>= 1;
			q->total += q->bin[b];
		}
	}
	int b = bin_of(over_ns);
	if (q->bin[b] < UINT32_MAX) {
		q->bin[b]++;
		q->total++;
	}
	if (b > q->top)
		q->top = b;
	requantile(q);
}

void pwq_forget_top(struct pwq *q)
{
	while (q->top >= 0 && q->bin[q->top] == 0)
		q->top--;
	if (q->top < 0)
		return;
	q->bin[q->top]--;
	q->total--;
	requantile(q);
}
