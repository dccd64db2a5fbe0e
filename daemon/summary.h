/* SPDX-License-Identifier: BSD-3-Clause */
/* The counters of a run, for people (a table) and for scripts (JSON). */
#ifndef TDP_SUMMARY_H
#define TDP_SUMMARY_H

#include <stdint.h>
#include <stdio.h>

#include "engine.h"
#include "rx.h"

#include <jansson.h>

/* a port whose driver counters (pmd_port_counters) are reported */
struct summary_drv {
	const char *name;
	uint16_t dpdk_port;
	const char *tap; /* its exception interface (rx port has_tap), or NULL */
};

struct summary_src {
	struct engine *e;    /* its table in force is the one reported */
	const struct rx *rx; /* the RX cores, nrx of them (0 counts as 1) */
	uint32_t nrx;
	double elapsed_s;
	const char *timebase;
	struct timebase *tb;	       /* for the sync state */
	const struct summary_drv *drv; /* every port, scheduled or not; may be NULL */
	uint32_t ndrv;
};

void summary_text(const struct summary_src *s, FILE *out);
/* One JSON document: the file summary-json writes at exit and what the
 * control socket's stats command answers. */
int summary_json(const struct summary_src *s, FILE *out);
json_t *summary_to_json(const struct summary_src *s);
/* its parts, for the control socket's narrower commands */
const struct sched_table *summary_table(const struct summary_src *s);
json_t *summary_engine_json(const struct summary_src *s);
json_t *summary_sync_json(struct timebase *tb);
json_t *summary_tick_json(const struct summary_src *s);
json_t *summary_flow_json(const struct sched_table *t, struct eng_table *et, uint32_t f);
/* Replies and the summary name each flow up to this many (the old 16-bit
 * index's limit: what listed before still does); past it they give every
 * flow's counters summed, and a flow is asked for by name. */
#define SUMMARY_FLOWS_MAX 65535u
/* every flow's counters summed, with "flows": their count */
json_t *summary_flows_sum_json(const struct sched_table *t, struct eng_table *et);
json_t *summary_port_json(const struct summary_src *s, uint32_t p);
/* the RX cores' counters summed, and per core when there are several */
json_t *summary_rx_json(const struct rx *rx, uint32_t nrx);
/* the driver's counts of one port; null when the driver does not answer */
json_t *summary_drv_json(uint16_t dpdk_port);
/* what crossed a port's exception interface */
json_t *summary_tap_json(const struct rx_tap_stats *t);
/* One line: frames, late, p50/p99/max frame-start error, RX, drops. */
void summary_line(const struct summary_src *s, char *buf, size_t len);

#endif
