/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The RX side, on the housekeeping lcore: bursts of 32 from every port;
 * each packet is parsed, classified by the table's flow matches and routed
 * (MAC rewrite, TTL decrement). A reserved packet goes to its flow's queue, the
 * rest to the best-effort queue of the port its route leads to; best effort for
 * a port the table does not schedule is sent at once. Everything dropped is
 * counted by reason; nothing here can crash on what arrives.
 */
#ifndef TDP_RX_H
#define TDP_RX_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "flowq.h"
#include "frame.h"
#include "pkt.h"
#include "route.h"
#include "tdp_sched.h"

struct rte_mbuf;
struct rte_ring;

#define RX_BURST 32

struct rx_port {
	uint16_t dpdk_port;
	int table_port;           /* index in the table, or -1 when the table does not schedule it */
	uint8_t mac[6];           /* our source MAC on this port */
	bool has_peer;
	uint8_t peer_mac[6];      /* next hop for non-IP (e.g. MPLS) packets */
	/* the clock read just before the latest burst that left the port's queue
	 * empty (fewer than RX_BURST): whatever the next burst holds arrived after */
	tdp_time_t drained;
	bool drained_ok;
};

enum rx_drop {
	RXD_RUNT, RXD_MALFORMED, RXD_NO_ROUTE, RXD_NO_NEIGH, RXD_LOCAL, RXD_TTL, RXD_OWN,
	RXD_WRONG_PORT, RXD_BE_OVERFLOW, RXD_TX_FULL, RXD_MAX
};

struct rx_stats {
	uint64_t pkts, bytes;
	uint64_t reserved;        /* queued for a flow */
	uint64_t best_effort;     /* queued for the filler or sent at once */
	uint64_t drop[RXD_MAX];
};

/* What RX classifies against: a table, its classifier and its flows' queues. */
struct rx_table {
	const struct cls *cls;
	const struct sched_table *t;
	struct flow_rx **flows;     /* per flow of t */
};

struct rx {
	struct rx_port *ports;
	uint32_t nports;
	const struct router *rt;
	const struct rx_table *tab;
	/* a new table from the control side: taken at the next poll, which then
	 * stores NULL here to say the old one is no longer in use */
	_Atomic(const struct rx_table *) offer;
	struct rte_ring **be_q;     /* per configured port; NULL: send at once */
	/* arrival time of the burst in hand, for pipelined flows' due frames:
	 * rx_poll reads clock(clock_arg) before each burst (for drained) and
	 * once more after a burst with packets (for now) */
	tdp_time_t now;
	/* and the earliest it can have arrived (since_ok: known): a pipelined
	 * packet that can have arrived before the guard band that ends the
	 * upstream frame before the one now gives is counted as uncertain */
	tdp_time_t since;
	bool since_ok;
	tdp_time_t (*clock)(void *arg);
	void *clock_arg;
	struct frame_geom g;
	uint32_t *table_to_port;    /* table port -> configured port */
	struct rx_stats st;
};

const char *rx_drop_name(enum rx_drop d);

/* Handles one received packet (takes ownership), arrived at rx->now (and
 * after rx->since when since_ok). */
void rx_packet(struct rx *rx, uint32_t in_port, struct rte_mbuf *m);
/* Takes a table offered by the control side, then one burst from every port;
 * returns packets received. The daemon's main loop calls it (with its idle
 * back-off, stats and stop checks). */
uint32_t rx_poll(struct rx *rx);

#endif
