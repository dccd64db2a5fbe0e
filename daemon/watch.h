/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the housekeeping thread watches to log: the sync state as the engine
 * sees it, the uncertainty against the table's sync budget, the engine's
 * frame jumps, reserved flows whose route moved off their port and
 * pipelined arrivals in their upstream frame's guard band (counted by RX
 * per flow, flowq.h). Each change is said once, repeats at most every
 * WATCH_MOVED_LOG_NS, and its end is said too. The flows are read a slice
 * of WATCH_FLOWS_A_STEP at each step of RX core 0's loop, which this runs
 * on: a pass starts at most once a second, and with 10^6 flows takes a few
 * seconds, never a stall of RX for the whole table.
 */
#ifndef TDP_WATCH_H
#define TDP_WATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "engine.h"
#include "timebase.h"

struct tdpd;

/* a moved route is logged again at most this often while it lasts, and
 * said to be over once no packet moved for this long */
#define WATCH_MOVED_LOG_NS (10 * (int64_t)1000000000)
/* flows whose counters one step of the loop reads */
#define WATCH_FLOWS_A_STEP 1024u

struct watch {
	enum tb_state state;
	uint64_t skip_events, back_steps, repeated;
	uint64_t skipped, overruns, overrun_skips;
	int64_t next_jump_log; /* monotonic ns: skips and steps are logged at most once a second */
	/* moved routes, per flow of the table et: packets counted at the
	 * latest check and at the latest log line, when the count last rose,
	 * when it was last logged (0: not moved now); primed: read once under
	 * et (the counts before are not news) */
	struct eng_table *et;
	uint32_t nflows;
	struct watch_flow {
		uint64_t seen, logged;
		int64_t rose_ns, log_ns;
		uint64_t guard_seen,
			guard_logged; /* arrivals in their upstream frame's guard band */
		int64_t guard_log_ns;
		bool primed;
	} * fl;
	int64_t next_moved_check;
	uint32_t next_flow; /* the pass under way: the next flow to read; 0: none */
	/* the uncertainty past the table's sync budget: since when (0: not in
	 * an episode), when last said */
	int64_t over_since_ns, over_log_ns;
};

void watch_init(struct watch *w, struct tdpd *d);
/* Called often from the housekeeping loop; does its work at most once a
 * second (the sync state at once). */
void watch(struct tdpd *d, struct watch *w);
void watch_free(struct watch *w);

#endif
