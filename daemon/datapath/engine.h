/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The frame engine. Per frame, on its own shielded lcore:
 *   1. stage frame j = next: row = table[j mod k]; for every entry (f, n) take
 *      up to n packets of f (first any carried over, then its queue; for a
 *      pipelined flow those due in j, then carried ones) into the burst of
 *      f's port, and find where the hop stamps of stamped flows' probes go;
 *   2. wait precisely for start(j): predictive sleep, then poll the fast clock;
 *      while waiting, best effort still fills the current frame;
 *   3. write the hop stamps (node, frame, push time); push each port's burst
 *      with rte_eth_tx_burst, again and again while the driver takes part of
 *      it (a TX ring smaller than the row), until all is taken or the next
 *      packet, handed over now, would no longer end before the guard band;
 *      what the driver has not taken then follows the late policy;
 *   4. record the frame-start error (push time - start(j));
 *   5. fill frame j with best effort while the next packet's serialization at
 *      the port's rate still ends before start(j) + TF - guard.
 * A frame is late on a port when its burst, pushed now, would not end before
 * that frame's guard band; the late policy then drops the burst or carries it
 * to the flow's next reserved frame. A wake-up in a later frame makes every
 * frame in between late as well (skipped; per-flow accounting walks at most
 * one cycle of them, the engine's skipped_frames counts all). Reserved packets
 * are never sent in a frame other than one the table reserves for their flow.
 *
 * The source's sync state picks what the engine does (sync-holdover-action,
 * sync-unlocked-action): serve as if locked; serve and count the frames as
 * alarm frames; or demote, where no row is staged and the reserved flows'
 * packets go out as best effort, behind the port's own best effort.
 *
 * A phase step of the reference moves the frame counter with it. Forward:
 * the frames passed over are skipped, as after a late wake-up. Backward: the
 * starts of frames already pushed come round again; their rows are not sent a
 * second time, the engine waits for the first frame it has not pushed and
 * counts the frames in between as repeated.
 *
 * With a source that has a frame tick (the bc635 heartbeat), the engine waits
 * for the tick that marks the start of frame j-1 before it stages j, then does
 * the precise wait to start(j): the hardware advances the frame counter, the
 * clock still times the push. A tick that does not come before the precise
 * wait must begin is counted (tick_timeouts) and the clock carries on alone.
 *
 * A port with launch time (launch.h) gets its burst launch-lead before
 * start(j) instead, each packet stamped with its wire time on the NIC's
 * clock; the engine's wait then aims at start(j) - launch-lead, ports
 * without it are pushed after a poll to start(j), and a hand-over later
 * than start(j) - launch-margin falls back to the CPU push at start(j).
 * The wait's error is then taken against start(j) - launch-lead.
 *
 * engine_step() runs one frame and is what the tests drive against the sim
 * timebase; engine_run() loops it until engine_stop(). Nothing on this path
 * allocates, locks or makes a syscall apart from the clock read, the sleep and
 * the TX.
 */
#ifndef TDP_ENGINE_H
#define TDP_ENGINE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_mbuf_core.h>

#include "frame.h"
#include "hist.h"
#include "pw.h"
#include "tdp_sched.h"
#include "ctl_counters.h"
#include "flowq.h"
#include "timebase.h"

struct rte_ring;

enum late_policy {
	LATE_DROP,
	LATE_CARRY
};
enum sync_action {
	SA_SERVE,
	SA_ALARM,
	SA_DEMOTE
};

struct launch_clock;

struct eng_port_cfg {
	uint16_t dpdk_port;
	uint16_t txq;
	uint64_t rate_bps; /* rate the filler and the late check use */
	uint32_t overhead; /* per-packet wire overhead, bytes */
	/* launch time (launch.h): the device clock's map, the mbuf's timestamp
	 * field and its TX flag; NULL: the CPU pushes at the boundary */
	const struct launch_clock *launch;
	int ts_off;
	uint64_t ts_flag;
};

struct eng_config {
	const struct sched_table *t;
	struct timebase *tb;
	struct pw_config pw; /* tf_ns is filled in from the table */
	enum late_policy late;
	uint32_t flow_depth; /* packets per flow queue */
	uint32_t rx_cores;   /* RX cores, each with a queue per flow (0: 1) */
	uint32_t be_depth;   /* packets per best-effort queue */
	int64_t be_poll_ns;  /* while waiting, fill best effort this often; 0 = no */
	enum sync_action holdover_action;
	enum sync_action unlocked_action;
	enum sync_action budget_action;	  /* the uncertainty past the table's sync budget */
	uint16_t node_id;		  /* this router's id in hop stamps */
	const struct eng_port_cfg *ports; /* t->nports, indexed like t->ports */
	/* with a launch-time port: its bursts are handed over launch_lead_ns
	 * before their frame, and no later than launch_margin_ns before it */
	int64_t launch_lead_ns;
	bool launch_lead_default; /* the lead is a default: cut to TF/2 where longer */
	int64_t launch_margin_ns;
};

/* Counters are written by the engine only and read through atomics. */
/* A flow's counters, the port's and RX's: declared once, with their JSON
 * keys and meaning, in ctl_counters.h. */
struct flow_stats {
	CTL_FLOW_COUNTERS(CTL_COUNTER_FIELD)
};

struct port_stats {
	CTL_PORT_COUNTERS(CTL_COUNTER_FIELD)
};

struct eng_stats {
	CTL_ENGINE_COUNTERS(CTL_PROM_FIELD) /* ctl_counters.h */
	int64_t last_push_ns;		    /* CTR time of the latest push */
	int64_t last_jump_frames; /* the latest skip (> 0) or step back (< 0), in frames */
	int64_t last_swap_frame;  /* frame the latest table took effect at */
	/* the latest stage_overruns: how long its row took to take, its entries,
	 * and how long before the boundary it was begun */
	int64_t last_overrun_ns;
	int64_t last_overrun_entries;
	int64_t last_overrun_lead_ns;
};

struct engine;
struct eng_table;

/* Allocates queues and state (needs the EAL). NULL with a message in err. */
struct engine *engine_create(const struct eng_config *c, char *err, size_t errlen);
void engine_destroy(struct engine *e);

/* The queues the RX side fills: one per flow of the table in force and RX
 * core (flowq.h; engine_flow_rx is core 0's), one best-effort ring per port
 * (multi-producer with more than one RX core). */
struct flow_rx *engine_flow_rx(struct engine *e, uint32_t flow);
struct rte_ring *engine_be_ring(struct engine *e, uint32_t port);

/* What the RX cores counted for a flow, summed over its queues. */
struct flow_rx_sum {
	CTL_FLOW_RX_COUNTERS(CTL_COUNTER_FIELD)
	int64_t moved_at_ns; /* the latest moved route, RX's clock; 0: none */
	uint32_t moved_port; /* the port it left by (configured port + 1); 0: none */
};

/*
 * Table swap, from one control thread (never the engine's):
 *   nt = engine_table_build(e, t)   off the data path: flows the table in force
 *                                   has (same name, same port) keep their queue,
 *                                   carried packets and counters; new ones get
 *                                   queues. Same ports, TF and epoch, or an error.
 *   engine_table_offer(e, nt, J)    one atomic pointer; the engine adopts nt
 *                                   when it reaches frame J (>= next + 2), in
 *                                   frame order: frames < J are served by the
 *                                   old table, frames >= J by nt.
 *   engine_table_adopted(nt)        the frame it took effect at, once it has.
 *   engine_table_withdraw(e, nt)    before the engine has taken it: 0, and nt
 *                                   is freed; -EALREADY once it has (then it
 *                                   is adopted or about to be).
 *   engine_table_retire(e, nt)      after adoption and once RX has let go of the
 *                                   old table: frees it and the flows nt dropped
 *                                   (their queued packets; returns how many).
 * engine_table_boundary(e, nt, F) is the first frame >= F that starts a cycle
 * of both tables. engine_table_build takes ownership of t when it succeeds.
 */
struct eng_table *engine_table_build(struct engine *e, const struct sched_table *t, char *err,
				     size_t errlen);
void engine_table_discard(struct engine *e, struct eng_table *nt);
int64_t engine_table_boundary(const struct engine *e, const struct eng_table *nt, int64_t from);
int engine_table_offer(struct engine *e, struct eng_table *nt, int64_t frame, char *err,
		       size_t errlen);
int engine_table_withdraw(struct engine *e, struct eng_table *nt);
struct eng_table *engine_table_pending(const struct engine *e);
struct eng_table *engine_table_current(const struct engine *e);
const struct sched_table *engine_table_sched(const struct eng_table *nt);
int64_t engine_table_requested(const struct eng_table *nt);
int64_t engine_table_adopted(const struct eng_table *nt); /* INT64_MIN before */
bool engine_table_retirable(const struct eng_table *nt);
uint64_t engine_table_retire(struct engine *e, struct eng_table *nt);
struct flow_rx *engine_table_flow_rx(struct eng_table *nt, uint32_t flow);
struct flow_rx *engine_table_flow_rxq(struct eng_table *nt, uint32_t flow, uint32_t core);
uint32_t engine_table_rx_cores(const struct eng_table *nt);
/* The flow's RX counts over its queues, and (arr not NULL) their arrival
 * histograms merged; returns whether the flow has them (pipelined once). */
bool engine_table_flow_rx_sum(struct eng_table *nt, uint32_t flow, struct flow_rx_sum *out,
			      struct hist *arr);
void engine_table_flow_stats(const struct eng_table *nt, uint32_t flow, struct flow_stats *out);

/* The launch-lead in use: 0 without a launch-time port. */
int64_t engine_launch_lead(const struct engine *e);
/* Sets the first frame to push: the one after the frame containing now.
 * engine_run does it; callers of engine_step call it first. */
void engine_start(struct engine *e);
/* Runs one frame. Returns the index of the frame it pushed (or handled late). */
int64_t engine_step(struct engine *e);
/* engine_start, then engine_step until engine_stop. */
void engine_run(struct engine *e);
void engine_stop(struct engine *e);

int64_t engine_next_frame(const struct engine *e);
const struct frame_geom *engine_geom(const struct engine *e);

/* Consistent-enough snapshots for the control side (relaxed atomic reads);
 * flows are those of the table in force. */
void engine_flow_stats(const struct engine *e, uint32_t flow, struct flow_stats *out);
void engine_port_stats(const struct engine *e, uint32_t port, struct port_stats *out);
void engine_stats(const struct engine *e, struct eng_stats *out);
/* The frame-start error histogram; read when the engine is stopped. */
const struct hist *engine_error_hist(const struct engine *e);
const struct pw *engine_pw(const struct engine *e);
/* Tick latency: when the engine had the tick, from the start of its frame. */
const struct hist *engine_tick_hist(const struct engine *e);

/* Serialization time of a packet of len bytes (no FCS) at the port's rate. */
static inline int64_t engine_wire_ns(uint64_t rate_bps, uint32_t overhead, uint32_t len)
{
	uint64_t bytes = (len < SCHED_MIN_FRAME ? SCHED_MIN_FRAME : len) + (uint64_t)overhead;
	return (int64_t)((bytes * 8 * 1000000000ull + rate_bps - 1) / rate_bps);
}

#endif
