/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>
#include <rte_ring.h>

#include "counters.h"
#include "hist.h"
#include "rx.h"

#define RX_PREFETCH 8

const char *rx_drop_name(enum rx_drop d)
{
	static const char *const n[RXD_MAX] = {
		[RXD_RUNT] = "runt", [RXD_MALFORMED] = "malformed", [RXD_NO_ROUTE] = "no-route",
		[RXD_NO_NEIGH] = "no-neighbour", [RXD_LOCAL] = "local", [RXD_TTL] = "ttl-expired",
		[RXD_OWN] = "own", [RXD_WRONG_PORT] = "flow-route-mismatch",
		[RXD_BE_OVERFLOW] = "be-overflow", [RXD_TX_FULL] = "tx-full",
	};
	return d < RXD_MAX ? n[d] : "unknown";
}

static void drop(struct rx *rx, struct rte_mbuf *m, enum rx_drop why)
{
	CTR_ADD(rx->st.drop[why], 1);
	rte_pktmbuf_free(m);
}

void rx_packet(struct rx *rx, uint32_t in_port, struct rte_mbuf *m)
{
	struct pkt_info pi;
	CTR_ADD(rx->st.pkts, 1);
	CTR_ADD(rx->st.bytes, m->pkt_len);
	if (m->nb_segs != 1 || m->pkt_len != m->data_len) {
		drop(rx, m, RXD_MALFORMED);   /* chained mbufs: not produced by our pools */
		return;
	}
	uint8_t *d = rte_pktmbuf_mtod(m, uint8_t *);
	/* our own transmissions seen again by a tap-like PMD */
	if (memcmp(d + 6, rx->ports[in_port].mac, 6) == 0) {
		drop(rx, m, RXD_OWN);
		return;
	}
	int rc = pkt_parse(d, m->pkt_len, &pi);
	if (rc != PKT_OK) {
		drop(rx, m, rc == PKT_RUNT ? RXD_RUNT : RXD_MALFORMED);
		return;
	}
	const struct rx_table *tab = rx->tab;
	int f = cls_lookup(tab->cls, &pi);
	uint32_t out;
	uint8_t mac[6];
	if (pi.family && !(pi.flags & PKT_F_MPLS)) {
		rc = router_lookup(rx->rt, &pi, &out, mac);
		if (rc != ROUTE_OK) {
			drop(rx, m, rc == ROUTE_NONE ? RXD_NO_ROUTE : rc == ROUTE_LOCAL ? RXD_LOCAL : RXD_NO_NEIGH);
			return;
		}
	} else {
		/* not routed: a reserved flow's port or nothing */
		if (f < 0) {
			drop(rx, m, RXD_NO_ROUTE);
			return;
		}
		out = rx->table_to_port[tab->t->flows[f].port];
		if (!rx->ports[out].has_peer) {
			drop(rx, m, RXD_NO_NEIGH);
			return;
		}
		memcpy(mac, rx->ports[out].peer_mac, 6);
	}
	if (f >= 0 && out != rx->table_to_port[tab->t->flows[f].port]) {
		drop(rx, m, RXD_WRONG_PORT);
		return;
	}
	if (pkt_forward(d, &pi, rx->ports[out].mac, mac) != 0) {
		drop(rx, m, RXD_TTL);
		return;
	}
	if (f >= 0) {
		struct flow_rx *fr = tab->flows[f];
		const struct sched_flow *sf = &tab->t->flows[f];
		if (sf->alpha) {
			/* the upstream frame it was sent in, then this node's alpha */
			tdp_time_t a = tdp_time_add(rx->now, -(int64_t)sf->delay_ns);
			int64_t up = frame_index(&rx->g, a);
			engine_pkt_set_due(m, up + sf->alpha);
			int64_t off = tdp_time_diff(a, frame_start(&rx->g, up));
			if (fr->arr)
				hist_add(fr->arr, off);
			int64_t guard = (int64_t)tab->t->guard_ns;
			if (off >= rx->g.tf_ns - guard)
				CTR_ADD(fr->arr_guard, 1);
			/* read late: it may be a packet of an earlier upstream frame,
			 * which would then be due one frame or more too late */
			if (rx->since_ok &&
			    frame_index(&rx->g, tdp_time_add(rx->since, guard - (int64_t)sf->delay_ns)) < up)
				CTR_ADD(fr->arr_uncertain, 1);
		} else {
			engine_pkt_set_due(m, ENGINE_DUE_NONE); /* if a swap makes the flow pipelined */
		}
		if (rte_ring_sp_enqueue(fr->q, m) != 0) {
			CTR_ADD(fr->overflow, 1);
			rte_pktmbuf_free(m);
			return;
		}
		CTR_ADD(fr->enq, 1);
		CTR_ADD(rx->st.reserved, 1);
		return;
	}
	if (rx->be_q[out]) {
		if (rte_ring_sp_enqueue(rx->be_q[out], m) != 0) {
			drop(rx, m, RXD_BE_OVERFLOW);
			return;
		}
	} else if (rte_eth_tx_burst(rx->ports[out].dpdk_port, 0, &m, 1) != 1) {
		drop(rx, m, RXD_TX_FULL);
		return;
	}
	CTR_ADD(rx->st.best_effort, 1);
}

uint32_t rx_poll(struct rx *rx)
{
	struct rte_mbuf *pkts[RX_BURST];
	uint32_t total = 0;
	const struct rx_table *nt = atomic_load_explicit(&rx->offer, memory_order_acquire);
	if (__builtin_expect(nt != NULL, 0)) {
		rx->tab = nt;
		atomic_store_explicit(&rx->offer, NULL, memory_order_release);
	}
	for (uint32_t p = 0; p < rx->nports; p++) {
		struct rx_port *pt = &rx->ports[p];
		tdp_time_t before = rx->clock ? rx->clock(rx->clock_arg) : rx->now;
		uint16_t n = rte_eth_rx_burst(pt->dpdk_port, 0, pkts, RX_BURST);
		if (n) {
			if (rx->clock)
				rx->now = rx->clock(rx->clock_arg);
			rx->since = pt->drained;
			rx->since_ok = pt->drained_ok && rx->clock;
		}
		if (n < RX_BURST) {
			pt->drained = before;
			pt->drained_ok = true;
		}
		/* the whole burst's headers first, so their misses overlap; then each
		 * packet's data a few packets ahead of its turn */
		for (uint16_t i = 0; i < n; i++)
			rte_prefetch0(pkts[i]);
		for (uint16_t i = 0; i < n && i < RX_PREFETCH; i++)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
		for (uint16_t i = 0; i < n; i++) {
			if (i + RX_PREFETCH < n)
				rte_prefetch0(rte_pktmbuf_mtod(pkts[i + RX_PREFETCH], void *));
			rx_packet(rx, p, pkts[i]);
		}
		total += n;
	}
	return total;
}
