/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The frame engine's own: its state and the functions its parts share. Not
 * for anyone outside daemon/datapath/engine*.c; the contract is engine.h.
 *
 *   engine_table.c  the table lifecycle: set-up, build off the data path,
 *                   offer, hand-over at a frame boundary, retirement
 *   engine_queue.c  the per-flow queue rules: carried packets, due frames of
 *                   pipelined flows, the late policy, skipped frames
 *   engine_tx.c     the port TX: staging a row, the push in bursts, hop
 *                   stamps, the best-effort filler, demotion
 *   engine_loop.c   the frame loop: the tick, the predictive wait, the step
 *                   of each frame, and the counter readers
 */
#ifndef TDP_ENGINE_STATE_H
#define TDP_ENGINE_STATE_H

#include <rte_mbuf.h>
#include <rte_ring.h>

#include "counters.h"
#include "launch.h"
#include "slab.h"
#include "engine.h"
#include "stamp.h"

#define BE_BURST 32
/* packets handed to the driver in one call; its count is 16 bits */
#define ENG_TX_CHUNK 4096u

struct seg {
	uint32_t flow;
	uint32_t n; /* packets staged */
};

/* A flow's state lives as long as the flow: a table swap that keeps a flow
 * (same name, same port) keeps its queue, its carried packets and its
 * counters. It is one block of the engine's slab (flow_mem): this struct,
 * then its queue on each RX core (rxq), then each queue's slots, each on
 * lines of its own. */
struct eng_flow {
	uint32_t port;
	uint32_t carry_cap, ncarry;
	struct rte_mbuf **carry; /* FIFO of packets carried from late frames */
	/* one queue per RX core (written by that core), taken in turn from rr */
	struct flow_rx *rxq;
	uint32_t nrxq, rr;
	struct flow_stats st;
	char name[SCHED_NAME_MAX];
} __rte_cache_aligned;

/* A kept flow's larger carry array: the new one until adoption swaps it
 * with the flow's, then the old one until retirement frees it. */
struct eng_grow {
	uint32_t flow, cap;
	struct rte_mbuf **carry;
};

/* A staged probe's hop stamp, written just before the push. */
struct eng_stamp {
	struct stamp_slot s;
	uint32_t flow;
};

/* Per port and per table: the staging arrays, sized for the table's rows, and
 * the port's flows (for demotion). */
struct eng_tport {
	struct eng_stamp *stamps; /* stage_cap: the staged probes that get a stamp */
	struct rte_mbuf **stage;
	int64_t *wire_end; /* stage_cap + 1 */
	uint32_t stage_cap;
	struct seg *seg;
	uint32_t seg_cap;
	uint32_t *flows;
	uint32_t nflows;
};

/*
 * A runtime table: built off the data path by the control side, handed over
 * with one atomic pointer, adopted by the engine at a frame boundary.
 */
struct eng_table {
	const struct sched_table *t;
	bool own_t;		 /* freed with the table */
	struct eng_flow **flows; /* t->nflows, by the table's flow index */
	uint32_t nflows;
	uint32_t rx_cores;	 /* queues each flow has */
	struct eng_tport *ports; /* t->nports */
	uint32_t nports;
	/* the kept flows whose carry array grows at adoption, so that adopting
	 * a table of 10^6 flows walks only these */
	struct eng_grow *grow;
	uint32_t ngrow;
	bool *kept;	  /* flows[f] is the replaced table's, not new here */
	struct slab *mem; /* the engine's flow_mem, which its new flows are blocks of */
	/* flows of the table replaced that this one does not keep */
	struct eng_flow **removed;
	uint32_t nremoved;
	struct eng_table *prev; /* the table replaced, until it is retired */
	int64_t at;		/* frame requested */
	int64_t adopted;	/* frame it took effect at; INT64_MIN before */
};

struct eng_port {
	struct eng_port_cfg c;
	struct rte_ring *be;
	struct rte_mbuf *held;	 /* best effort that did not fit; goes first next time */
	struct rte_mbuf **stage; /* from the table in force */
	int64_t *wire_end;	 /* wire_end[i]: wire time of stage[0..i) */
	uint32_t nstage;
	struct seg *seg;
	uint32_t nseg;
	struct eng_stamp *stamps;
	uint32_t nstamps;
	int64_t stage_wire_ns;
	tdp_time_t cursor; /* when the port will have sent what it was given */
	uint32_t *flows;   /* the port's flows, for demotion (table in force) */
	uint32_t nflows, demote_rr;
	bool cpu_push; /* this frame: pushed by the CPU at the boundary */
	struct port_stats st;
} __rte_cache_aligned;

struct engine {
	const struct sched_table *t;
	struct eng_table *tab;		   /* in force; the engine's own copy of pub */
	_Atomic(struct eng_table *) offer; /* handed over, waiting for its frame */
	_Atomic(struct eng_table *) pub;   /* in force, for readers */
	uint32_t flow_depth;
	uint32_t rx_cores; /* queues per flow */
	/* the flows' blocks (struct eng_flow), on huge pages where the kernel
	 * gives them (slab.h): at 10^6 flows, one malloc each put RX's and the
	 * engine's reads of a flow on 4 KiB pages, a TLB miss apiece */
	struct slab *flow_mem;
	uint16_t node_id; /* written into hop stamps */
	struct timebase *tb;
	struct frame_geom g;
	int64_t guard_ns;
	enum late_policy late;
	int64_t be_poll_ns;
	int64_t lead_ns; /* launch-lead when a port has launch time, else 0 */
	int64_t launch_margin_ns;
	struct pw pw;

	enum sync_action act[3];     /* by enum tb_state */
	enum sync_action act_budget; /* the uncertainty past the table's sync budget */
	bool demote;		     /* this frame: reserved flows go out as best effort */
	bool overran;		     /* this frame: its staging ran past its start */
	int64_t seen;		     /* frame index of the latest time read, to see steps back */

	int64_t next;	     /* frame to push next */
	tdp_time_t fill_end; /* best effort may be on the wire until here */

	struct eng_flow **flows; /* tab->flows */
	uint32_t nflows;
	struct eng_port *ports;
	uint32_t nports;
	void *ring_mem; /* best-effort queues */

	int tick_fd; /* the source's frame tick, or -1 */

	atomic_int stop;
	struct eng_stats st;
	struct hist err;
	struct hist tick_lat;
};

static inline int64_t wire_ns(const struct eng_port *p, const struct rte_mbuf *m)
{
	return engine_wire_ns(p->c.rate_bps, p->c.overhead, m->pkt_len);
}

/* The engine takes a table offered for a frame <= j by emptying the offer
 * with one compare-and-swap, so that engine_table_withdraw, which empties it
 * the same way, either withdraws it before or finds it taken. */
static inline struct eng_table *claim(struct engine *e, int64_t j)
{
	struct eng_table *nt = atomic_load_explicit(&e->offer, memory_order_acquire);
	if (__builtin_expect(nt == NULL, 1) || j < nt->at)
		return NULL;
	return atomic_compare_exchange_strong_explicit(&e->offer, &nt, NULL, memory_order_acq_rel,
						       memory_order_acquire)
		       ? nt
		       : NULL;
}

/* engine_table.c: takes a table claimed for frame j (nothing is staged) */
void eng_adopt(struct engine *e, struct eng_table *nt, int64_t j);

/* engine_queue.c */
uint32_t eng_take(struct eng_flow *fl, struct rte_mbuf **out, uint32_t want);
uint32_t eng_take_for(struct engine *e, uint32_t flow, int64_t x, struct rte_mbuf **out,
		      uint32_t want);
bool eng_missed(struct engine *e, struct eng_flow *fl, struct rte_mbuf **m, uint32_t cnt);
void eng_late_port(struct engine *e, struct eng_port *p);
void eng_skip_frame(struct engine *e, int64_t j);

/* engine_tx.c */
uint32_t eng_stage(struct engine *e, int64_t j);
/* lm: the port's launch map for a push with launch times, else NULL */
void eng_push(struct engine *e, struct eng_port *p, int64_t j, tdp_time_t t, tdp_time_t end,
	      const struct launch_map *lm);
void eng_be_fill_all(struct engine *e, tdp_time_t now);

#endif
