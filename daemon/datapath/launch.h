/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Launch time: where a port's PMD offers RTE_ETH_TX_OFFLOAD_SEND_ON_TIMESTAMP,
 * the engine hands frame j's burst over launch-lead before start(j), each
 * packet with the time it is to go on the wire: start(j) plus the wire time
 * of the packets before it. The NIC, not the CPU, then meets the boundary.
 *
 * The time goes in the mbuf's timestamp field in the device's clock, the one
 * rte_eth_read_clock reads: a raw counter of its own rate and origin (DPDK's
 * rte_ethdev.h: "convert ... with a common reference", frequency measured).
 * So a port has a map from the CTR to that clock,
 *
 *     dev(t) = dev0 + (t - ctr0) * mult / 2^32     (mult: ticks per ns, << 32)
 *
 * fitted off the data path (tdpd's housekeeping thread samples it every
 * 100 ms):
 * a CTR read, the device read, a CTR read; the middle of the two CTR reads
 * stands for the device read, and a sample whose two reads lie more than
 * max_bracket_ns apart is not taken. Each sample moves the map's origin;
 * the rate is the slope between the sample and an anchor at least
 * LAUNCH_RATE_SPAN_NS back (the anchor moves on every LAUNCH_ANCHOR_NS).
 * The map is ready only once it has a measured rate. A sample the map in
 * force misses by more than LAUNCH_STEP_NS is a step of either clock: the
 * rate starts again from it, and the map is not ready until it has.
 *
 * One thread samples; the engine reads the map through a sequence lock.
 */
#ifndef TDP_LAUNCH_H
#define TDP_LAUNCH_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "seqlock.h"
#include "tdp_time.h"

#define LAUNCH_RATE_SPAN_NS 1000000000LL /* the shortest span a rate is taken over */
#define LAUNCH_ANCHOR_NS 10000000000LL	 /* the anchor moves on after this long */
#define LAUNCH_STEP_NS 1000000LL	 /* a sample this far off the map is a step */

__extension__ typedef __int128 launch_i128;

struct launch_map {
	int64_t ctr0; /* CTR ns */
	int64_t dev0; /* device clock at ctr0 */
	int64_t mult; /* device ticks per ns, times 2^32 */
};

/* The device time for CTR time t, rounded up: a packet is never launched
 * before the time it was given. */
static inline uint64_t launch_dev(const struct launch_map *m, tdp_time_t t)
{
	return (uint64_t)(m->dev0 +
			  (int64_t)(((launch_i128)(t.ns - m->ctr0) * m->mult + 0xffffffff) >> 32));
}

/* The CTR time of device time d (the inverse, for logs and tests). */
static inline int64_t launch_ctr(const struct launch_map *m, uint64_t d)
{
	return m->ctr0 + (int64_t)(((launch_i128)((int64_t)d - m->dev0) << 32) / m->mult);
}

struct launch_stats {
	uint64_t samples;	 /* samples taken into the map */
	uint64_t wide;		 /* samples not taken: the CTR reads too far apart */
	uint64_t failed;	 /* device reads that failed */
	uint64_t steps;		 /* samples that found a step: the rate started again */
	int64_t last_bracket_ns; /* the latest sample's CTR reads, apart */
	int64_t last_miss_ns;	 /* how far the map missed the latest sample, ns */
	int64_t rate_ppb; /* the device clock's rate against the CTR, less one tick per ns, ppb */
	bool ready;
};

struct launch_clock {
	struct seq3 map; /* ctr0, dev0, mult; mult 0: no map */
	/* the sampler's own */
	int (*read)(void *arg, uint64_t *dev);
	void *arg;
	int64_t max_bracket_ns;
	bool anchored;
	int64_t a_ctr, a_dev;  /* the rate's anchor */
	int64_t last_mult;     /* the rate measured, kept across a re-anchoring */
	pthread_mutex_t st_mu; /* the counts: the sampler and the readers, never the engine */
	struct launch_stats st;
};

/* read: the device clock (rte_eth_read_clock on a port, a model in tests).
 * launch_clock_fini when done. */
void launch_clock_init(struct launch_clock *lc, int (*read)(void *arg, uint64_t *dev), void *arg,
		       int64_t max_bracket_ns);
void launch_clock_fini(struct launch_clock *lc);
/* One sample, CTR reads from now(now_arg). 0 when taken, else -1. */
int launch_clock_sample(struct launch_clock *lc, tdp_time_t (*now)(void *), void *now_arg);
/* The map in force; false while there is none. Any thread. */
bool launch_map_get(const struct launch_clock *lc, struct launch_map *m);
/* The sampler's counts, from any thread. */
void launch_clock_stats(const struct launch_clock *lc, struct launch_stats *out);

#endif
