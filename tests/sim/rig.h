/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The frame engine's test rig: the engine against the sim timebase on
 * in-memory DPDK ports (net_ring). A TX callback logs every packet the engine
 * hands the driver with the sim time of the hand-over; a link model checks in
 * which frame each packet left and how long it occupied the wire. The
 * callback can also play a driver whose TX ring takes at most so many packets
 * per call and costs sim time per call, as a NIC with few descriptors does.
 */
#ifndef TDP_TEST_RIG_H
#define TDP_TEST_RIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "launch.h"
#include "tb_bc635.h"
#include "tb_sim.h"

struct rte_mempool;

struct txrec {
	int64_t t;	/* sim time of the hand-over */
	int64_t launch; /* its launch time, in sim time (INT64_MIN: none) */
	uint16_t port;
	int32_t flow; /* -1: best effort */
	uint32_t seq;
	uint32_t len;
};

struct txlog {
	struct timebase *tb;
	struct txrec *v;
	size_t n, cap;
	/* the driver the callback plays: at most take_max packets a call
	 * (0: all), call_ns of sim time a call; it sends (empties the port's
	 * ring) when the ring holds more than half its size */
	uint16_t take_max;
	int64_t call_ns;
	uint64_t calls;
	/* launch times: the mbuf's timestamp field and flag (flag 0: none) */
	int ts_off;
	uint64_t ts_flag;
};
extern struct txlog txlog;

struct rig {
	struct sched_table *t;
	struct timebase *tb;
	struct engine *e;
	int port[4];
	struct rte_ring *rx[4], *tx[4];
	uint32_t seq[64]; /* next sequence number to enqueue, per flow */
	uint32_t be_seq;
	/* with rig_opts.bc635: the simulated card and its source, on the sim clock */
	struct bc_sim *sim;
	struct timebase *bctb;
	/* with rig_opts.launch: each port's device clock map */
	struct launch_clock lc[4];
	bool launch;
};

/* A rig's settings beyond the table: what the engine does in holdover and
 * unlocked (default serve), and whether it runs on the bc635 source over the
 * simulator on the sim clock (edges are made before each frame). */
struct rig_opts {
	enum sync_action hold, unl, budget;
	bool bc635;
	/* launch time on every port, over the rig's device clock (rig_dev):
	 * its map sampled at the start and one second of sim time later */
	bool launch;
	int64_t lead_ns, margin_ns;
	bool launch_unready; /* one sample only: the map has no rate */
};

/* Samples each port's map, as the daemon's housekeeping does every clock-refresh. */
void rig_launch_sample(struct rig *r);
/* The rig's NIC clock: 1 tick a ns plus 100 ppm, from an origin of its own. */
uint64_t rig_dev(int64_t sim_ns);
int64_t rig_dev_to_sim(uint64_t dev);

/* One flow, a frame of 100 us with room to spare: the late-frame and clock tests' table. */
extern const char table_late[];

/* A tagged packet of len bytes from pool (NULL: the environment's pool). */
struct rte_mbuf *mk_in(struct rte_mempool *pool, int32_t flow, uint32_t seq, uint32_t len);
struct rte_mbuf *mk(int32_t flow, uint32_t seq, uint32_t len);

void rig_up(struct rig *r, const char *table, enum late_policy late, int64_t start_ns,
	    int64_t be_poll_ns, uint32_t depth);
void rig_up_with(struct rig *r, const char *table, enum late_policy late, int64_t start_ns,
		 int64_t be_poll_ns, uint32_t depth, const struct rig_opts *o);
void rig_down(struct rig *r);
/* Keeps every flow's queue at `want` packets and best effort at be_want. */
void top_up(struct rig *r, uint32_t want, uint32_t be_want, const uint32_t *be_sizes, size_t nbs);
void drain_all(struct rig *r);
/* Packets flow has in row tfc. */
uint32_t row_n(const struct sched_table *t, uint32_t tfc, uint32_t flow);
int port_of(const struct rig *r, uint16_t dpdk);
/* The link model over txlog.v[from, to): fails on a packet that crosses a
 * guard band or a reserved one that starts outside its hand-over's frame. */
void check_wire(const struct rig *r, size_t from, size_t to);
/* One engine frame (the bc635 simulator run up to now first). */
int64_t step(struct rig *r);
/* Steps until the engine's next frame has row tfc. */
void run_to_tfc(struct rig *r, uint32_t tfc);
/* Sequence numbers (and tfc) of flow's packets in txlog from `from` on. */
size_t seqs_of(const struct rig *r, int32_t flow, size_t from, uint32_t *seq, uint32_t *tfc,
	       size_t max);
/* The next sleep oversleeps by stall_ns: one late wake-up. */
void late_wakeup(struct rig *r, int64_t stall_ns);

#endif
