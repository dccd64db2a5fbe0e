/* SPDX-License-Identifier: BSD-3-Clause */
/* The counters of a run, for people (a table) and for scripts (JSON). */
#ifndef TDP_SUMMARY_H
#define TDP_SUMMARY_H

#include <stdint.h>
#include <stdio.h>

#include "engine.h"
#include "rx.h"

struct summary_src {
	const struct sched_table *t;
	const struct engine *e;
	const struct rx *rx;
	double elapsed_s;
	const char *timebase;
	struct timebase *tb;      /* for the sync state */
};

void summary_text(const struct summary_src *s, FILE *out);
void summary_json(const struct summary_src *s, FILE *out);
/* One line: frames, late, p50/p99/max frame-start error, RX, drops. */
void summary_line(const struct summary_src *s, char *buf, size_t len);

#endif
