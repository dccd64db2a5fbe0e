/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Best-effort packets to a next hop whose MAC is being resolved wait here,
 * as the kernel queues them per neighbour while ARP/ND runs
 * (unres_qlen_bytes): a few packets for each of a few next hops, per RX
 * core. When a new router arrives (nl.c built it after the kernel's answer)
 * RX routes them again; what waited longer than RX_HOLD_NS, or found the
 * queue full, is dropped and counted (no-neighbour). Reserved packets are
 * not held: a packet late for its frame is no use to its flow.
 */
#ifndef TDP_RX_HOLD_H
#define TDP_RX_HOLD_H

#include <stdbool.h>
#include <stdint.h>

struct rte_mbuf;

#define RX_HOLD_NEIGH 32		     /* next hops being resolved, per RX core */
#define RX_HOLD_PKTS 16			     /* packets held for one next hop */
#define RX_HOLD_NS (3 * (int64_t)1000000000) /* ARP's 3 probes a second apart (Linux's defaults) */

struct rx_hold_slot {
	uint8_t family; /* 0: free */
	uint8_t n;
	uint32_t port;
	uint8_t addr[16];
	int64_t since_ns; /* RX's clock when the first packet came */
	struct rte_mbuf *m[RX_HOLD_PKTS];
	uint32_t in_port[RX_HOLD_PKTS];
};

struct rx_hold {
	uint32_t used;				  /* slots in use */
	uint64_t queued, released, full, expired; /* RX's counters of what was held */
	struct rx_hold_slot s[RX_HOLD_NEIGH];
};

/* Holds m (arrived on in_port) for next hop nh of port; false when there is
 * no room (for the next hop, or for another next hop): m is the caller's. */
bool rx_hold_put(struct rx_hold *h, uint32_t port, int family, const uint8_t nh[16],
		 struct rte_mbuf *m, uint32_t in_port, int64_t now_ns);
/* Takes every held packet into m and in_port (room for RX_HOLD_NEIGH *
 * RX_HOLD_PKTS), to be routed again; returns how many. */
uint32_t rx_hold_take(struct rx_hold *h, struct rte_mbuf **m, uint32_t *in_port);
/* Frees the packets of next hops that waited RX_HOLD_NS or longer; returns
 * how many. */
uint32_t rx_hold_expire(struct rx_hold *h, int64_t now_ns);

#endif
