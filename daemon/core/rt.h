/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Real-time set-up: mlockall, /dev/cpu_dma_latency held at 0, and per thread
 * CPU affinity, SCHED_FIFO and a 1 ns timer slack. Every step that fails
 * (missing privilege, no such file) logs a warning that says what it costs
 * and how to fix it, and the daemon carries on.
 */
#ifndef TDP_RT_H
#define TDP_RT_H

#include <stdbool.h>

struct rt_process {
	int dma_fd; /* -1 when not held */
	bool locked;
	unsigned warnings;
};

void rt_process_setup(struct rt_process *rp, bool mlock, bool dma_latency);
void rt_process_release(struct rt_process *rp);
/* For the calling thread; cpu < 0 leaves the affinity alone, prio 0 keeps
 * SCHED_OTHER. Returns the number of warnings logged. */
unsigned rt_thread_setup(const char *who, int cpu, int prio);

#endif
