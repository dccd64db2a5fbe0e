/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The RX tests' router: two net_ring ports, "in" (configured port 0, not in
 * the table) and "out" (table port 0), the engine on rig_table, and routes:
 * 10.0.1.0/24 on in (sender 10.0.1.2), 10.0.2.0/24 on out (receiver
 * 10.0.2.2, gateway 10.0.2.9), 10.9.0.0/16 via the gateway.
 */
#ifndef TDP_RX_RIG_H
#define TDP_RX_RIG_H

#include <stdint.h>

#include "engine.h"
#include "pktgen.h"
#include "route.h"
#include "rx.h"

struct rte_mbuf;
struct rte_ring;

/* flows probe (DSCP 46, UDP 5000) and l2 (MPLS 77), one packet each in frame 0 */
extern const char rig_table_default[];
/* the table rig_up uses: rig_table_default unless a test says otherwise */
extern const char *rig_table;
/* RX cores (1 or 2: rx, then rx1 with its own ports, tables and the
 * hand-off to rx), the flows' queue depth, RX queues of port "in" (1 or 2) */
extern uint32_t rig_cores, rig_flow_depth;
extern uint16_t rig_in_queues;
extern const uint8_t mac_in[6], mac_out[6], host_rcv[6], host_snd[6], gw_far[6];

struct rig {
	struct sched_table *t;
	struct timebase *tb;
	struct engine *e;
	struct cls *cls;
	struct router *rt;
	struct rx rx;
	struct rx_port ports[2];
	struct flow_rx *fq[2];
	struct rte_ring *beq[2], *ringrx[2], *ringtx[2];
	uint32_t t2p[1];
	struct flow_rx *frx[2];
	struct rx_table rxt;
	/* RX core 1 (rig_cores 2) */
	struct rx rx1;
	struct rx_port ports1[2];
	struct flow_rx *frx1[2];
	struct rx_table rxt1;
	struct rte_ring *handoff;
	struct rte_ring *inrx[2], *intx[2]; /* port "in"'s queues */
};

void addr(const char *s, uint8_t a[16]);
void rig_up(struct rig *r);
void rig_down(struct rig *r);
/* an mbuf holding g's frame */
struct rte_mbuf *frame(const struct pg *g);
/* a frame from the sender on "in" to dst, to our MAC */
struct pg from_sender(const char *dst);

#endif
