/* SPDX-License-Identifier: BSD-3-Clause */
/* What the engine's benchmarks share: the CPU they run on, clocks, tables,
 * real-time set-up, and a row of figures. */
#ifndef TDP_BENCH_H
#define TDP_BENCH_H

#include <stdbool.h>
#include <stdint.h>

#include "hist.h"
#include "tdp_sched.h"
#include "timebase.h"

extern int cpu;		 /* the engine's CPU (--cpu) */
extern bool quick;	 /* --quick: short runs */
extern double g_read_ns; /* the fast clock's read cost, from the clock bench */

int64_t mono(void);
int64_t thread_cpu(void);
struct sched_table *table_from(const char *txt);
void rt_self(void); /* pinned to cpu, SCHED_FIFO 80, 1 ns timer slack */
void rt_off(void);

struct figs {
	int64_t p50, p99, p999, max;
	uint64_t n;
	double duty;
};
void figs_of(const struct hist *h, struct figs *f);
/* cyclictest on cpu at tf for frames periods, its histogram (1 us bins) into
 * figures (and, when h is not NULL, added to h), its CPU (user + system,
 * start-up included) in duty; -1 when it cannot run */
int run_cyclictest(int64_t tf_ns, uint32_t frames, struct figs *out, struct hist *h);

/* the fair frame-start benchmark (bench_start.c) */
void bench_start(struct timebase *tb, const char *svg);
/* the data path (bench_datapath.c): RX, the engine's push and the l2fwd- and
 * l3fwd-style loops at 4 and 10^4 flows; RX of pipelined flows */
void bench_datapath(void);
/* RX and the engine from 10 to 10^6 flows (svg: PREFIX-flows.svg, or NULL);
 * only: one of those counts alone (0: all), for runs of two builds
 * alternated by hand */
void bench_flows_curve(const char *svg, uint32_t only);
void bench_rx_piped(struct timebase *clk);

#endif
