/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "counters.h"
#include "hist.h"
#include "rx.h"

#define RX_PREFETCH 8

const char *rx_drop_name(enum rx_drop d)
{
	static const char *const n[RXD_MAX] = {
		[RXD_RUNT] = "runt", [RXD_MALFORMED] = "malformed", [RXD_NO_ROUTE] = "no-route",
		[RXD_NO_NEIGH] = "no-neighbour", [RXD_HOST] = "host", [RXD_TTL] = "ttl-expired",
		[RXD_OWN] = "own", [RXD_WRONG_PORT] = "flow-route-mismatch",
		[RXD_BE_OVERFLOW] = "be-overflow", [RXD_TX_FULL] = "tx-full", [RXD_OTHER_HOST] = "other-host",
	};
	return d < RXD_MAX ? n[d] : "unknown";
}

/*
 * What one burst queues, grouped by queue: each group goes in with one
 * enqueue at the burst's end (a ring's tail is published once per group, not
 * once a packet), in the order its packets came. fr: the reserved flow's
 * counts; NULL for a port's best-effort queue.
 */
struct rx_group {
	struct rte_ring *q;
	struct flow_rx *fr;
	uint16_t n;
	struct rte_mbuf *m[RX_BURST];
};

struct rx_pend {
	uint16_t ng;
	struct rx_group g[RX_BURST];
};

static void pend_add(struct rx_pend *pd, struct rte_ring *q, struct flow_rx *fr, struct rte_mbuf *m)
{
	uint16_t i = 0;
	while (i < pd->ng && pd->g[i].q != q)
		i++;
	if (i == pd->ng) {
		pd->g[i].q = q;
		pd->g[i].fr = fr;
		pd->g[i].n = 0;
		pd->ng++;
	}
	pd->g[i].m[pd->g[i].n++] = m;
}

static void pend_flush(struct rx *rx, struct rx_pend *pd)
{
	for (uint16_t i = 0; i < pd->ng; i++) {
		struct rx_group *g = &pd->g[i];
		unsigned k = rte_ring_sp_enqueue_burst(g->q, (void *const *)g->m, g->n, NULL);
		for (unsigned x = k; x < g->n; x++)
			rte_pktmbuf_free(g->m[x]);
		if (g->fr) {
			CTR_ADD(g->fr->enq, k);
			CTR_ADD(rx->st.reserved, k);
			if (k < g->n)
				CTR_ADD(g->fr->overflow, g->n - k);
		} else {
			CTR_ADD(rx->st.best_effort, k);
			if (k < g->n)
				CTR_ADD(rx->st.drop[RXD_BE_OVERFLOW], g->n - k);
		}
	}
	pd->ng = 0;
}

static void drop(struct rx *rx, struct rte_mbuf *m, enum rx_drop why)
{
	CTR_ADD(rx->st.drop[why], 1);
	rte_pktmbuf_free(m);
}

/* for the host stack (punt.h): the kernel answers on its interface, or on
 * the port's exception interface, which gets the frame */
static void host(struct rx *rx, uint32_t in_port, struct rte_mbuf *m, enum punt_class c)
{
	struct rx_port *pt = &rx->ports[in_port];
	CTR_ADD(rx->st.host[c], 1);
	if (!pt->has_tap) {
		drop(rx, m, RXD_HOST);
		return;
	}
	CTR_ADD(rx->st.drop[RXD_HOST], 1);
	if (rte_eth_tx_burst(pt->tap_port, 0, &m, 1) == 1) {
		CTR_ADD(pt->tap.to_kernel, 1);
		return;
	}
	CTR_ADD(pt->tap.to_kernel_drop, 1);
	rte_pktmbuf_free(m);
}

static bool icmp_allow(struct rx *rx)
{
	int64_t cost = 1000000000 / (int64_t)rx->icmp_rate;
	int64_t cap = cost * (int64_t)(rx->icmp_burst ? rx->icmp_burst : 1);
	if (!rx->icmp_started) {
		rx->icmp_tokens_ns = cap;
		rx->icmp_started = true;
	} else {
		int64_t el = tdp_time_diff(rx->now, rx->icmp_last);
		if (el > 0)
			rx->icmp_tokens_ns = rx->icmp_tokens_ns + el > cap ? cap : rx->icmp_tokens_ns + el;
	}
	rx->icmp_last = rx->now;
	if (rx->icmp_tokens_ns < cost)
		return false;
	rx->icmp_tokens_ns -= cost;
	return true;
}

/* Drops the packet for why and, when one is owed and the rate allows, turns
 * its mbuf into the ICMP error back to its sender on the port it came by. */
static void icmp_drop(struct rx *rx, uint32_t in_port, struct rte_mbuf *m, const struct pkt_info *pi,
		      enum rx_drop why, enum icmp_err kind)
{
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
	const struct rx_port *pt = &rx->ports[in_port];
	CTR_ADD(rx->st.drop[why], 1);
	if (!rx->icmp_rate || !icmp_error_allowed(d, m->pkt_len, pi)) {
		rte_pktmbuf_free(m);
		return;
	}
	const uint8_t *src = pi->family == 4 ? (pt->has_ip4 ? pt->ip4 : NULL) : (pt->has_ip6 ? pt->ip6 : NULL);
	if (!src) {
		CTR_ADD(rx->st.icmp_no_source, 1);
		rte_pktmbuf_free(m);
		return;
	}
	if (!icmp_allow(rx)) {
		CTR_ADD(rx->st.icmp_rate_limited, 1);
		rte_pktmbuf_free(m);
		return;
	}
	uint8_t buf[ICMP_ERR_FRAME_MAX];
	uint32_t n = icmp_error_build(buf, sizeof(buf), d, m->pkt_len, pi, kind, pt->mac, src);
	rte_pktmbuf_reset(m);
	uint8_t *out = n ? (uint8_t *)rte_pktmbuf_append(m, (uint16_t)n) : NULL;
	if (!out) {
		rte_pktmbuf_free(m);
		return;
	}
	memcpy(out, buf, n);
	if (rx->be_q[in_port]) {
		engine_pkt_set_due(m, ENGINE_DUE_NONE);
		if (rte_ring_sp_enqueue(rx->be_q[in_port], m) != 0) {
			CTR_ADD(rx->st.icmp_tx_full, 1);
			rte_pktmbuf_free(m);
			return;
		}
	} else if (rte_eth_tx_burst(pt->dpdk_port, 0, &m, 1) != 1) {
		CTR_ADD(rx->st.icmp_tx_full, 1);
		rte_pktmbuf_free(m);
		return;
	}
	CTR_ADD(rx->st.icmp_sent[kind], 1);
}

static void ask_resolve(struct rx *rx, uint32_t out, int family, const uint8_t nh[16])
{
	if (!rx->resolve)
		return;
	struct rx_resolve q = {.family = (uint8_t)family, .port = out};
	memcpy(q.addr, nh, 16);
	if (rte_ring_sp_enqueue_elem(rx->resolve, &q, sizeof(q)) != 0)
		CTR_ADD(rx->st.resolve_ring_full, 1);
	else
		CTR_ADD(rx->st.resolve_asked, 1);
}

/* One packet of a burst (rx->st.pkts and bytes counted by the caller); what
 * goes to a queue waits in pd for the burst's end. */
static void rx_one(struct rx *rx, uint32_t in_port, struct rte_mbuf *m, struct rx_pend *pd)
{
	struct pkt_info pi;
	if (m->nb_segs != 1 || m->pkt_len != m->data_len) {
		drop(rx, m, RXD_MALFORMED);   /* chained mbufs: not produced by our pools */
		return;
	}
	uint8_t *d = rte_pktmbuf_mtod(m, uint8_t *);
	if (m->pkt_len < 14) {
		drop(rx, m, RXD_RUNT);
		return;
	}
	/* our own transmissions seen again by a tap-like PMD */
	if (memcmp(d + 6, rx->ports[in_port].mac, 6) == 0) {
		drop(rx, m, RXD_OWN);
		return;
	}
	/* Unicast to another station: ports are promiscuous (and a veth or a
	 * switch flooding an unknown address delivers it anyway), but a router
	 * takes only what is sent to it, as the kernel does (PACKET_OTHERHOST).
	 * Forwarding it would put a second copy on the wire. */
	if (!(d[0] & 1) && memcmp(d, rx->ports[in_port].mac, 6) != 0) {
		drop(rx, m, RXD_OTHER_HOST);
		return;
	}
	int rc = pkt_parse(d, m->pkt_len, &pi);
	if (rc != PKT_OK) {
		drop(rx, m, rc == PKT_RUNT ? RXD_RUNT : RXD_MALFORMED);
		return;
	}
	enum punt_class pc = punt_classify(d, m->pkt_len, &pi);
	if (pc != PUNT_NONE) {
		host(rx, in_port, m, pc);
		return;
	}
	const struct rx_table *tab = rx->tab;
	int f = cls_lookup(tab->cls, &pi);
	uint32_t out;
	uint8_t mac[6];
	if (pi.family && !(pi.flags & PKT_F_MPLS)) {
		uint8_t nh[16];
		rc = router_lookup(rx->rt, &pi, &out, mac, nh);
		if (rc == ROUTE_LOCAL) {
			host(rx, in_port, m, PUNT_LOCAL);
			return;
		}
		/* a failed one too: the kernel tries again, and answers when the host is back */
		if (rc == ROUTE_NO_NEIGH || rc == ROUTE_NEIGH_FAILED)
			ask_resolve(rx, out, pi.family, nh);
		if (rc != ROUTE_OK) {
			/* an expired TTL is the first thing a router checks (RFC 1812 §5.3.1) */
			if (pi.ttl <= 1)
				icmp_drop(rx, in_port, m, &pi, RXD_TTL, ICMP_ERR_TTL);
			else if (rc == ROUTE_NONE)
				icmp_drop(rx, in_port, m, &pi, RXD_NO_ROUTE, ICMP_ERR_NO_ROUTE);
			else if (rc == ROUTE_NEIGH_FAILED)   /* RFC 1812 §4.3.3.1, RFC 4443 §3.1 */
				icmp_drop(rx, in_port, m, &pi, RXD_NO_NEIGH, ICMP_ERR_NO_NEIGH);
			else
				drop(rx, m, RXD_NO_NEIGH);
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
		icmp_drop(rx, in_port, m, &pi, RXD_TTL, ICMP_ERR_TTL);
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
		pend_add(pd, fr->q, fr, m);
		return;
	}
	if (rx->be_q[out]) {
		pend_add(pd, rx->be_q[out], NULL, m);
		return;
	}
	if (rte_eth_tx_burst(rx->ports[out].dpdk_port, 0, &m, 1) != 1) {
		drop(rx, m, RXD_TX_FULL);
		return;
	}
	CTR_ADD(rx->st.best_effort, 1);
}

void rx_packet(struct rx *rx, uint32_t in_port, struct rte_mbuf *m)
{
	struct rx_pend pd;
	pd.ng = 0;
	CTR_ADD(rx->st.pkts, 1);
	CTR_ADD(rx->st.bytes, m->pkt_len);
	rx_one(rx, in_port, m, &pd);
	pend_flush(rx, &pd);
}

/* One burst from queue q of port p. */
static uint16_t poll_queue(struct rx *rx, uint32_t p, uint16_t q)
{
	struct rte_mbuf *pkts[RX_BURST];
	struct rx_port *pt = &rx->ports[p];
	tdp_time_t before = rx->clock ? rx->clock(rx->clock_arg) : rx->now;
	uint16_t n = rte_eth_rx_burst(pt->dpdk_port, q, pkts, RX_BURST);
	if (n) {
		if (rx->clock)
			rx->now = rx->clock(rx->clock_arg);
		rx->since = pt->drained[q];
		rx->since_ok = pt->drained_ok[q] && rx->clock;
	}
	if (n < RX_BURST) {
		pt->drained[q] = before;
		pt->drained_ok[q] = true;
	}
	/* the whole burst's headers first, so their misses overlap; then each
	 * packet's data a few packets ahead of its turn */
	for (uint16_t i = 0; i < n; i++)
		rte_prefetch0(pkts[i]);
	for (uint16_t i = 0; i < n && i < RX_PREFETCH; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
	struct rx_pend pd;
	pd.ng = 0;
	uint64_t bytes = 0;
	for (uint16_t i = 0; i < n; i++) {
		if (i + RX_PREFETCH < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + RX_PREFETCH], void *));
		bytes += pkts[i]->pkt_len;
		rx_one(rx, p, pkts[i], &pd);
	}
	if (n) {
		CTR_ADD(rx->st.pkts, n);
		CTR_ADD(rx->st.bytes, bytes);
	}
	pend_flush(rx, &pd);
	return n;
}

/* What the kernel wrote to port p's exception interface: out of p as best
 * effort. The TAP PMD reads only after its signal said there is something
 * (pmd_rx_burst's trigger), so an idle interface costs no system call. */
static uint16_t poll_tap(struct rx *rx, uint32_t p)
{
	struct rte_mbuf *pkts[RX_BURST];
	struct rx_port *pt = &rx->ports[p];
	uint16_t n = rte_eth_rx_burst(pt->tap_port, 0, pkts, RX_BURST);
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		if (m->nb_segs != 1) {
			CTR_ADD(pt->tap.from_kernel_drop, 1);
			rte_pktmbuf_free(m);
			continue;
		}
		bool ok;
		if (rx->be_q[p]) {
			engine_pkt_set_due(m, ENGINE_DUE_NONE);
			ok = rte_ring_sp_enqueue(rx->be_q[p], m) == 0;
		} else {
			ok = rte_eth_tx_burst(pt->dpdk_port, 0, &m, 1) == 1;
		}
		if (!ok) {
			CTR_ADD(pt->tap.from_kernel_drop, 1);
			rte_pktmbuf_free(m);
			continue;
		}
		CTR_ADD(pt->tap.from_kernel, 1);
	}
	return n;
}

uint32_t rx_poll(struct rx *rx)
{
	uint32_t total = 0;
	const struct rx_table *nt = atomic_load_explicit(&rx->offer, memory_order_acquire);
	if (__builtin_expect(nt != NULL, 0)) {
		rx->tab = nt;
		atomic_store_explicit(&rx->offer, NULL, memory_order_release);
	}
	const struct router *nr = atomic_load_explicit(&rx->rt_offer, memory_order_acquire);
	if (__builtin_expect(nr != NULL, 0)) {
		rx->rt = nr;
		atomic_store_explicit(&rx->rt_offer, NULL, memory_order_release);
	}
	for (uint32_t p = 0; p < rx->nports; p++) {
		uint16_t nq = rx->ports[p].nrxq ? rx->ports[p].nrxq : 1;
		for (uint16_t q = 0; q < nq; q++)
			total += poll_queue(rx, p, q);
		if (rx->ports[p].has_tap)
			total += poll_tap(rx, p);
	}
	return total;
}
