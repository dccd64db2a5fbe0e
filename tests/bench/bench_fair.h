/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fair runs of frame-timing methods (bench_fair.c): every method under the
 * same conditions in one run.
 *
 *  - /dev/cpu_dma_latency is held at 0 and RT throttling is off for the
 *    whole run (fair_begin .. fair_end), so no method gets deeper C-states
 *    or is stopped 50 ms a second.
 *  - The methods take turns in blocks, in an order rotated from block to
 *    block, so a stall of the VM lands on whichever is running and shows as
 *    spread across blocks, not as one method's tail.
 *  - Every period counts as cyclictest counts them: a wake-up after later
 *    boundaries is late for each (by its lateness less one TF, two, ...).
 *  - The clock sources are refreshed on another CPU, as tdpd's housekeeping
 *    thread does.
 */
#ifndef TDP_BENCH_FAIR_H
#define TDP_BENCH_FAIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench.h"

enum fair_kind {
	K_ENGINE,
	K_SPIN,
	K_NANOSLEEP,
	K_CYCLICTEST
};

#define FAIR_MAXB 16

struct method {
	const char *name;
	enum fair_kind kind;
	uint32_t window;     /* engine: the max-of-N window */
	uint64_t miss_ppb;   /* engine: the quantile's miss target, 0 for max of N */
	struct timebase *tb; /* engine: its clock source; NULL for the run's */
	/* filled by the run */
	struct engine *e;
	struct sched_table *t;
	int port;
	bool ok;
	uint64_t steps;		  /* engine: frames it handled, warm-up included */
	struct figs tick;	  /* engine: tick latency, when its source ticks */
	double tick_share;	  /* engine: share of its frames that had their tick */
	struct figs b[FAIR_MAXB]; /* per block */
	struct hist all;	  /* every block's periods */
};

/* PM QoS at 0 and RT throttling off until fair_end (and at exit); prints what
 * it could do */
void fair_begin(void);
void fair_end(void);
/* nb blocks of frames periods of every method at tf, on cpu at SCHED_FIFO 80;
 * the engines learn for frames / 4 periods first */
void fair_run(struct method *ms, size_t n, struct timebase *tb, int64_t tf, int nb,
	      uint32_t frames);
/* the table: all periods together with [min, max] over blocks, CPU; and each
 * method's ratio to cyclictest per percentile when one of them is cyclictest */
void fair_report(const struct method *ms, size_t n, int64_t tf, int nb);
/* the median over blocks of a method's CPU share */
double fair_cpu(const struct method *m, int nb);

#endif
