/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "counters.h"
#include "hist.h"
#include "ipfrag.h"
#include "rx.h"
#include "rx_pend.h"

#define RX_PREFETCH 8
/* the classification reads a flow's entry, for its queue's address, this
 * many packets after it asked for it */
#define RX_DEREF 8

static void drop(struct rx *rx, struct rte_mbuf *m, enum rx_drop why)
{
	CTR_ADD(rx->st.drop[why], 1);
	rte_pktmbuf_free(m);
}

/* Sends m out of DPDK port `port` at once, on TX queue 0: core 0 itself,
 * another core through the hand-off ring, which core 0 drains (TX queues
 * are not shared between threads, and a port's 0 is core 0's, or the
 * engine's where the table schedules the port). false: not taken (m is the
 * caller's). */
static bool tx_now(struct rx *rx, uint16_t port, struct rte_mbuf *m)
{
	if (rx->core == 0 || !rx->handoff)
		return rte_eth_tx_burst(port, 0, &m, 1) == 1;
	m->port = port;
	return rte_ring_mp_enqueue(rx->handoff, m) == 0;
}

/* Core 0: what the other cores handed over, out of its port's TX queue 0. */
static uint32_t drain_handoff(struct rx *rx)
{
	struct rte_mbuf *m[RX_BURST];
	uint32_t n = rte_ring_sc_dequeue_burst(rx->handoff, (void **)m, RX_BURST, NULL);
	for (uint32_t i = 0; i < n; i++)
		if (rte_eth_tx_burst(m[i]->port, 0, &m[i], 1) != 1) {
			CTR_ADD(rx->st.handoff_drop, 1);
			rte_pktmbuf_free(m[i]);
		}
	CTR_ADD(rx->st.handoff_sent, n);
	return n;
}

uint32_t rx_drain_handoff(struct rx *rx)
{
	uint32_t total = 0, n;
	while (rx->handoff && (n = drain_handoff(rx)) != 0)
		total += n;
	return total;
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
	if (tx_now(rx, pt->tap_port, m)) {
		CTR_ADD(pt->tap.to_kernel, 1);
		return;
	}
	CTR_ADD(pt->tap.to_kernel_drop, 1);
	rte_pktmbuf_free(m);
}

/* Queues a packet made here (an ICMP error, a fragment) as best effort out
 * of port `out`; false: not taken (m is the caller's). */
static bool be_now(struct rx *rx, uint32_t out, struct rte_mbuf *m)
{
	if (rx->be_q[out]) {
		engine_pkt_set_due(m, ENGINE_DUE_NONE);
		return rte_ring_enqueue(rx->be_q[out], m) == 0;
	}
	return tx_now(rx, rx->ports[out].dpdk_port, m);
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
			rx->icmp_tokens_ns =
				rx->icmp_tokens_ns + el > cap ? cap : rx->icmp_tokens_ns + el;
	}
	rx->icmp_last = rx->now;
	if (rx->icmp_tokens_ns < cost)
		return false;
	rx->icmp_tokens_ns -= cost;
	return true;
}

/* Drops the packet for why and, when one is owed and the rate allows, turns
 * its mbuf into the ICMP error back to its sender on the port it came by. */
static void icmp_drop_mtu(struct rx *rx, uint32_t in_port, struct rte_mbuf *m,
			  const struct pkt_info *pi, enum rx_drop why, enum icmp_err kind,
			  uint32_t mtu)
{
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
	const struct rx_port *pt = &rx->ports[in_port];
	CTR_ADD(rx->st.drop[why], 1);
	if (!rx->icmp_rate || !icmp_error_allowed(d, m->pkt_len, pi)) {
		rte_pktmbuf_free(m);
		return;
	}
	const uint8_t *src =
		pi->family == 4 ? (pt->has_ip4 ? pt->ip4 : NULL) : (pt->has_ip6 ? pt->ip6 : NULL);
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
	uint32_t n =
		kind == ICMP_ERR_TOO_BIG
			? icmp_too_big_build(buf, sizeof(buf), d, m->pkt_len, pi, mtu, pt->mac, src)
			: icmp_error_build(buf, sizeof(buf), d, m->pkt_len, pi, kind, pt->mac, src);
	rte_pktmbuf_reset(m);
	uint8_t *out = n ? (uint8_t *)rte_pktmbuf_append(m, (uint16_t)n) : NULL;
	if (!out) {
		rte_pktmbuf_free(m);
		return;
	}
	memcpy(out, buf, n);
	if (!be_now(rx, in_port, m)) {
		CTR_ADD(rx->st.icmp_tx_full, 1);
		rte_pktmbuf_free(m);
		return;
	}
	CTR_ADD(rx->st.icmp_sent[kind], 1);
}

static void icmp_drop(struct rx *rx, uint32_t in_port, struct rte_mbuf *m,
		      const struct pkt_info *pi, enum rx_drop why, enum icmp_err kind)
{
	icmp_drop_mtu(rx, in_port, m, pi, why, kind, 0);
}

/* An IPv4 packet over the MTU of port out, without DF, already rewritten
 * for its next hop: its fragments out as best effort, the packet freed. */
static void fragment(struct rx *rx, struct rte_mbuf *m, const struct pkt_info *pi, uint32_t out,
		     uint32_t mtu)
{
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t off = 0;
	CTR_ADD(rx->st.frag_pkts, 1);
	for (;;) {
		struct rte_mbuf *f = rte_pktmbuf_alloc(m->pool);
		if (!f) {
			CTR_ADD(rx->st.frag_drop, 1);
			break;
		}
		int32_t n = ip4_frag_next(d, m->pkt_len, pi, mtu, &off,
					  rte_pktmbuf_mtod(f, uint8_t *), rte_pktmbuf_tailroom(f));
		if (n <= 0) {
			rte_pktmbuf_free(f);
			break;
		}
		rte_pktmbuf_append(f, (uint16_t)n);
		if (!be_now(rx, out, f)) {
			CTR_ADD(rx->st.frag_drop, 1);
			rte_pktmbuf_free(f);
			continue;
		}
		CTR_ADD(rx->st.frag_sent, 1);
	}
	rte_pktmbuf_free(m);
}

/* A reserved packet of flow fr whose route leaves by port out, not the
 * flow's (UINT32_MAX: it has no route): counted for the flow, where it
 * went and when. */
static void moved(struct rx *rx, struct flow_rx *fr, uint32_t out)
{
	CTR_ADD(fr->route_moved, 1);
	CTR_SET(fr->moved_port, out == UINT32_MAX ? 0 : out + 1);
	CTR_SET(fr->moved_at_ns, rx->now.ns);
}

static void ask_resolve(struct rx *rx, uint32_t out, int family, const uint8_t nh[16])
{
	if (!rx->resolve)
		return;
	struct rx_resolve q = {.family = (uint8_t)family, .port = out};
	memcpy(q.addr, nh, 16);
	if (rte_ring_enqueue_elem(rx->resolve, &q, sizeof(q)) != 0)
		CTR_ADD(rx->st.resolve_ring_full, 1);
	else
		CTR_ADD(rx->st.resolve_asked, 1);
}

/* A packet of a burst between the stages of rx_burst. */
struct rx_pk {
	struct rte_mbuf *m;
	int32_t f;	      /* its reserved flow, or -1 */
	bool routed;	      /* IP, not labelled: routed by destination */
	struct route_hop hop; /* when routed */
	struct pkt_info pi;
	struct cls_probe probe; /* its keys and slots, worked out once */
};

/* Stage 1, each packet on its own: the link's checks, the parse and the
 * host's frames. false: done with (dropped or the host's). */
static bool rx_front(struct rx *rx, uint32_t in_port, struct rx_pk *k)
{
	struct rte_mbuf *m = k->m;
	if (m->nb_segs != 1 || m->pkt_len != m->data_len) {
		drop(rx, m, RXD_MALFORMED); /* chained mbufs: not produced by our pools */
		return false;
	}
	uint8_t *d = rte_pktmbuf_mtod(m, uint8_t *);
	if (m->pkt_len < 14) {
		drop(rx, m, RXD_RUNT);
		return false;
	}
	/* our own transmissions seen again by a tap-like PMD */
	if (memcmp(d + 6, rx->ports[in_port].mac, 6) == 0) {
		drop(rx, m, RXD_OWN);
		return false;
	}
	/* Unicast to another station: ports are promiscuous (and a veth or a
	 * switch flooding an unknown address delivers it anyway), but a router
	 * takes only what is sent to it, as the kernel does (PACKET_OTHERHOST).
	 * Forwarding it would put a second copy on the wire. */
	if (!(d[0] & 1) && memcmp(d, rx->ports[in_port].mac, 6) != 0) {
		drop(rx, m, RXD_OTHER_HOST);
		return false;
	}
	int rc = pkt_parse(d, m->pkt_len, &k->pi);
	if (rc != PKT_OK) {
		drop(rx, m, rc == PKT_RUNT ? RXD_RUNT : RXD_MALFORMED);
		return false;
	}
	enum punt_class pc = punt_classify(d, m->pkt_len, &k->pi);
	if (pc != PUNT_NONE) {
		host(rx, in_port, m, pc);
		return false;
	}
	k->routed = k->pi.family && !(k->pi.flags & PKT_F_MPLS);
	return true;
}

void rx_set_router(struct rx *rx, const struct router *rt)
{
	rx->rt = rt;
	rx->rt_gen = rx->rt_gen + 1 ? rx->rt_gen + 1
				    : 1; /* the flows' cached routes are of the old one */
}

static inline uint32_t dst4(const struct pkt_info *pi)
{
	uint32_t a;
	memcpy(&a, pi->dst, 4);
	return a;
}

/* The flow's cached route, when it is of this router and this destination. */
static bool nh_cached(const struct rx *rx, const struct flow_rx *fr, const struct pkt_info *pi,
		      struct route_hop *h)
{
	if (pi->family != 4 || !rx->rt_gen || fr->nh_gen != rx->rt_gen || fr->nh_dst != dst4(pi))
		return false;
	h->res = ROUTE_OK;
	h->port = fr->nh_port;
	memcpy(h->mac, fr->nh_mac, 6);
	return true;
}

/* Stage 4, in the burst's order: the route's verdict, the rewrite, the queue
 * (a reserved packet into its flow's at once, a best-effort one into pd
 * until the burst's end). */
/* The parts of rx_back, inlined into it: one packet's path on the data path,
 * written as steps. Each returns false when it has taken the packet (queued,
 * sent, held or dropped and counted). */
#define RX_STEP static inline __attribute__((always_inline)) bool

/* A routed packet: its hop, or why not (the host's, a reserved flow's route
 * moved, no neighbour yet, none at all); *f becomes -1 when a moved flow's
 * packet goes on as best effort. */
RX_STEP back_routed(struct rx *rx, uint32_t in_port, struct rx_pk *k, int *f, uint32_t *out,
		    const uint8_t **mac)
{
	struct rte_mbuf *m = k->m;
	const struct pkt_info *pi = &k->pi;
	const struct rx_table *tab = rx->tab;
	int rc = k->hop.res;
	*out = k->hop.port;
	if (rc == ROUTE_LOCAL) {
		host(rx, in_port, m, PUNT_LOCAL);
		return false;
	}
	/* a reserved flow whose route moved off its port (or went away) is
	 * the flow's news first, whatever the new next hop's state */
	if (*f >= 0 && (rc == ROUTE_NONE || *out != rx->table_to_port[tab->flows[*f].port])) {
		moved(rx, tab->flows[*f].q, rc == ROUTE_NONE ? UINT32_MAX : *out);
		if (rc != ROUTE_NONE && rx->moved != RX_MOVED_BEST_EFFORT) {
			drop(rx, m, RXD_WRONG_PORT);
			return false;
		}
		if (rc != ROUTE_NONE)
			CTR_ADD(rx->st.moved_best_effort, 1);
		*f = -1;
	}
	/* a failed one too: the kernel tries again, and answers when the host is back */
	uint8_t nh[16];
	if (rc == ROUTE_NO_NEIGH || rc == ROUTE_NEIGH_FAILED) {
		uint8_t unused[6];
		router_lookup(rx->rt, pi, out, unused, nh);
		ask_resolve(rx, *out, pi->family, nh);
	}
	if (rc != ROUTE_OK) {
		/* an expired TTL is the first thing a router checks (RFC 1812 §5.3.1) */
		if (pi->ttl <= 1)
			icmp_drop(rx, in_port, m, pi, RXD_TTL, ICMP_ERR_TTL);
		else if (rc == ROUTE_NONE)
			icmp_drop(rx, in_port, m, pi, RXD_NO_ROUTE, ICMP_ERR_NO_ROUTE);
		else if (rc == ROUTE_NEIGH_FAILED) /* RFC 1812 §4.3.3.1, RFC 4443 §3.1 */
			icmp_drop(rx, in_port, m, pi, RXD_NO_NEIGH, ICMP_ERR_NO_NEIGH);
		else if (*f >= 0 || !rx->hold ||
			 !rx_hold_put(rx->hold, *out, pi->family, nh, m, in_port, rx->now.ns))
			drop(rx, m,
			     RXD_NO_NEIGH); /* held otherwise, until the neighbour is known */
		return false;
	}
	*mac = k->hop.mac;
	return true;
}

/* The out port's link up, and the packet within its MTU: else dropped (a
 * reserved packet is counted for its flow too), answered with ICMP, or to be
 * cut in fragments (*frag). */
RX_STEP back_fits(struct rx *rx, uint32_t in_port, const struct rx_pk *k, int f, uint32_t out,
		  uint32_t *mtu, bool *frag)
{
	struct rte_mbuf *m = k->m;
	const struct pkt_info *pi = &k->pi;
	const struct rx_table *tab = rx->tab;
	const struct port_link *ln = rx->link ? &rx->link[out] : NULL;
	if (ln && !port_link_usable(ln)) {
		if (f >= 0)
			CTR_ADD(tab->flows[f].q->link_down, 1);
		drop(rx, m, RXD_LINK_DOWN);
		return false;
	}
	*mtu = ln && k->routed ? PL_GET(ln->mtu) : 0;
	*frag = false;
	if (*mtu && pi->l3_len > *mtu) {
		/* RFC 1812 §5.2.7.1 (DF), RFC 4443 §3.2, RFC 8201; a reserved
		 * packet is one slot of its reservation, never cut in pieces */
		if (f >= 0)
			CTR_ADD(tab->flows[f].q->too_big, 1);
		if (pi->family == 6 || (pi->flags & PKT_F_DF)) {
			icmp_drop_mtu(rx, in_port, m, pi, RXD_TOO_BIG, ICMP_ERR_TOO_BIG, *mtu);
			return false;
		}
		if (f >= 0) {
			drop(rx, m, RXD_TOO_BIG);
			return false;
		}
		*frag = true;
	}
	return true;
}

/* A reserved packet into its flow's queue, a pipelined one with its due
 * frame from the upstream frame it was sent in, its arrival counted. The
 * queue is this core's own (one writer, flowq.h): put in at once, where a
 * burst's group would cost more than the one store it saves. */
static inline __attribute__((always_inline)) void back_reserved(struct rx *rx, struct rte_mbuf *m,
								int f)
{
	const struct rx_table *tab = rx->tab;
	const struct rx_flow *rf = &tab->flows[f];
	struct flow_rx *fr = rf->q;
	if (rf->alpha) {
		/* the upstream frame it was sent in, then this node's alpha */
		tdp_time_t a = tdp_time_add(rx->now, -(int64_t)rf->delay_ns);
		int64_t up = frame_index(&rx->g, a);
		engine_pkt_set_due(m, up + rf->alpha);
		int64_t off = tdp_time_diff(a, frame_start(&rx->g, up));
		if (fr->arr)
			hist_add(fr->arr, off);
		int64_t guard = (int64_t)tab->t->guard_ns;
		if (off >= rx->g.tf_ns - guard)
			CTR_ADD(fr->arr_guard, 1);
		/* read late: it may be a packet of an earlier upstream frame,
		 * which would then be due one frame or more too late */
		if (rx->since_ok &&
		    frame_index(&rx->g, tdp_time_add(rx->since, guard - (int64_t)rf->delay_ns)) <
			    up)
			CTR_ADD(fr->arr_uncertain, 1);
	} else {
		engine_pkt_set_due(m, ENGINE_DUE_NONE); /* if a swap makes the flow pipelined */
	}
	if (flowq_enqueue(fr, &m, 1) == 1) {
		CTR_ADD(fr->enq, 1);
		CTR_ADD(rx->st.reserved, 1);
		return;
	}
	rte_pktmbuf_free(m);
	CTR_ADD(fr->overflow, 1);
	CTR_ADD(rx->st.flow_overflow, 1);
}

static void rx_back(struct rx *rx, uint32_t in_port, struct rx_pk *k, struct rx_pend *pd)
{
	struct rte_mbuf *m = k->m;
	const struct pkt_info *pi = &k->pi;
	const struct rx_table *tab = rx->tab;
	int f = k->f;
	uint32_t out, mtu;
	const uint8_t *mac;
	bool frag;
	if (k->routed) {
		if (!back_routed(rx, in_port, k, &f, &out, &mac))
			return;
	} else {
		/* not routed: a reserved flow's port or nothing */
		if (f < 0) {
			drop(rx, m, RXD_NO_ROUTE);
			return;
		}
		out = rx->table_to_port[tab->flows[f].port];
		if (!rx->ports[out].has_peer) {
			drop(rx, m, RXD_NO_NEIGH);
			return;
		}
		mac = rx->ports[out].peer_mac;
	}
	if (!back_fits(rx, in_port, k, f, out, &mtu, &frag))
		return;
	uint8_t *d = rte_pktmbuf_mtod(m, uint8_t *);
	if (pkt_forward(d, pi, rx->ports[out].mac, mac) != 0) {
		icmp_drop(rx, in_port, m, pi, RXD_TTL, ICMP_ERR_TTL);
		return;
	}
	if (frag) {
		fragment(rx, m, pi, out, mtu);
		return;
	}
	if (f >= 0) {
		back_reserved(rx, m, f);
		return;
	}
	if (rx->be_q[out]) {
		pend_add(pd, rx->be_q[out], m);
		return;
	}
	if (!tx_now(rx, rx->ports[out].dpdk_port, m)) {
		drop(rx, m, RXD_TX_FULL);
		return;
	}
	CTR_ADD(rx->st.best_effort, 1);
}
#undef RX_STEP

/*
 * A burst of n packets of in_port (rx->st.pkts counted by the caller; their
 * bytes added to *bytes when given), in stages so that each stage's cache
 * misses overlap across the burst: the checks and the parse, with the
 * classifier's slots asked for (each key hashed once, kept in the packet's
 * probe); the classification, with each reserved flow's entry (struct
 * rx_flow) asked for, and a few packets later, read, its queue's line; the
 * routes, a reserved flow's cached one (the slot its packet goes in asked
 * for) or one bulk fib lookup for the rest; then, in order, the rewrite and
 * the queues. With 10^4 flows every line of a flow is a miss, and none is
 * met before it was asked for a stage, or RX_DEREF packets, ahead.
 */
/* Stage 1: the checks and the parse of pkts[0, n), each packet's data and
 * header asked for a few packets ahead; what goes on into pk (its count),
 * the classifier's slots asked for. */
static uint16_t burst_front(struct rx *rx, uint32_t in_port, struct rte_mbuf **pkts, uint16_t n,
			    struct rx_pk *pk, uint64_t *bytes)
{
	const struct rx_table *tab = rx->tab;
	uint16_t live = 0;
	bool apart = tab->ask_apart;
	for (uint16_t i = 0; i < n; i++) {
		if (i + 2 * RX_PREFETCH < n)
			rte_prefetch0(pkts[i + 2 * RX_PREFETCH]);
		if (i + RX_PREFETCH < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + RX_PREFETCH], void *));
		if (bytes)
			*bytes += pkts[i]->pkt_len;
		pk[live].m = pkts[i];
		if (rx_front(rx, in_port, &pk[live])) {
			if (apart)
				cls_probe(tab->cls, &pk[live].pi, &pk[live].probe);
			else
				cls_prefetch(tab->cls, &pk[live].pi, &pk[live].probe);
			live++;
		}
	}
	for (uint16_t j = 0; apart && j < live; j++)
		cls_ask(&pk[j].probe);
	return live;
}

/* A reserved packet's flow queue's line asked for, from its entry. */
static inline void ask_queue(const struct rx_table *tab, const struct rx_pk *k)
{
	if (k->f >= 0)
		rte_prefetch0(tab->flows[k->f].q);
}

/* Stage 2: each packet's flow, its entry asked for, and RX_DEREF packets
 * later its queue's line (the entry's address is the flow's, the line's is
 * in the entry: read at once, it would stall on the miss just asked for);
 * the routed ones' indices into li (their count). */
static uint16_t burst_classify(const struct rx *rx, struct rx_pk *pk, uint16_t live, uint16_t *li)
{
	const struct rx_table *tab = rx->tab;
	uint16_t nl = 0;
	for (uint16_t j = 0; j < live; j++) {
		struct rx_pk *k = &pk[j];
		k->f = cls_lookup_probe(tab->cls, &k->pi, &k->probe);
		if (k->f >= 0)
			rte_prefetch0(&tab->flows[k->f]);
		if (j >= RX_DEREF)
			ask_queue(tab, &pk[j - RX_DEREF]);
		if (k->routed)
			li[nl++] = j;
	}
	for (uint16_t j = live > RX_DEREF ? live - RX_DEREF : 0; j < live; j++)
		ask_queue(tab, &pk[j]);
	return nl;
}

/* A reserved flow's route from the bulk lookup: its planned hop where the
 * route (multipath) has one out of the flow's port, then cached in the
 * flow for its next packets. */
static void flow_hop(const struct rx *rx, struct rx_pk *k)
{
	const struct rx_table *tab = rx->tab;
	if (k->hop.res != ROUTE_NONE && k->hop.res != ROUTE_LOCAL) {
		uint32_t want = rx->table_to_port[tab->flows[k->f].port], p;
		uint8_t mac[6];
		int rc = k->hop.port == want ? ROUTE_OTHER_PORT
					     : router_lookup_port(rx->rt, &k->pi, want, &p, mac);
		if (rc != ROUTE_OTHER_PORT && rc != ROUTE_NONE && rc != ROUTE_LOCAL) {
			k->hop.res = (int8_t)rc;
			k->hop.port = p;
			memcpy(k->hop.mac, mac, 6);
		}
	}
	if (k->hop.res == ROUTE_OK && k->pi.family == 4 && rx->rt_gen) {
		struct flow_rx *fr = tab->flows[k->f].q;
		fr->nh_gen = rx->rt_gen;
		fr->nh_dst = dst4(&k->pi);
		fr->nh_port = (uint16_t)k->hop.port;
		memcpy(fr->nh_mac, k->hop.mac, 6);
	}
}

/* Stage 3: the routes of the nl routed packets pk[li[..]]: a reserved
 * flow's cached one, where it holds this destination (the slot its packet
 * goes in asked for), the rest in one bulk lookup. */
static void burst_route(struct rx *rx, struct rx_pk *pk, uint16_t *li, uint16_t nl)
{
	const struct rx_table *tab = rx->tab;
	const struct pkt_info *lp[RX_BURST];
	struct route_hop hop[RX_BURST];
	uint16_t nm = 0;
	for (uint16_t x = 0; x < nl; x++) {
		struct rx_pk *k = &pk[li[x]];
		if (k->f >= 0) {
			flowq_prefetch_slot(tab->flows[k->f].q);
			if (nh_cached(rx, tab->flows[k->f].q, &k->pi, &k->hop)) {
				CTR_ADD(rx->st.nh_cached, 1);
				continue;
			}
		}
		lp[nm] = &k->pi;
		li[nm++] = li[x];
	}
	if (nm)
		router_lookup_bulk(rx->rt, lp, nm, hop);
	for (uint16_t x = 0; x < nm; x++) {
		struct rx_pk *k = &pk[li[x]];
		k->hop = hop[x];
		if (k->f >= 0)
			flow_hop(rx, k);
	}
}

static void rx_burst(struct rx *rx, uint32_t in_port, struct rte_mbuf **pkts, uint16_t n,
		     struct rx_pend *pd, uint64_t *bytes)
{
	struct rx_pk pk[RX_BURST];
	uint16_t li[RX_BURST];
	uint16_t live = burst_front(rx, in_port, pkts, n, pk, bytes);
	uint16_t nl = burst_classify(rx, pk, live, li);
	burst_route(rx, pk, li, nl);
	/* stage 4, in order: the rewrite and the queues */
	for (uint16_t j = 0; j < live; j++)
		rx_back(rx, in_port, &pk[j], pd);
}

void rx_packet(struct rx *rx, uint32_t in_port, struct rte_mbuf *m)
{
	struct rx_pend pd;
	pend_init(&pd);
	CTR_ADD(rx->st.pkts, 1);
	CTR_ADD(rx->st.bytes, m->pkt_len);
	rx_burst(rx, in_port, &m, 1, &pd, NULL);
	pend_flush(rx, &pd);
}

/* A new router: the packets held for next hops being resolved, routed again
 * (held again where the MAC is still missing). */
static void release(struct rx *rx)
{
	struct rte_mbuf *m[RX_HOLD_NEIGH * RX_HOLD_PKTS];
	uint32_t in[RX_HOLD_NEIGH * RX_HOLD_PKTS];
	uint32_t n = rx_hold_take(rx->hold, m, in);
	struct rx_pend pd;
	for (uint32_t i = 0; i < n; i++) {
		pend_init(&pd);
		rx_burst(rx, in[i], &m[i], 1, &pd, NULL);
		pend_flush(rx, &pd);
	}
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
	/* the first headers, then the first packets' data; rx_burst asks for
	 * the rest a few packets ahead of their turn (a burst's 32 headers at
	 * once fill the CPU's queue of misses and stall it) */
	for (uint16_t i = 0; i < n && i < 2 * RX_PREFETCH; i++)
		rte_prefetch0(pkts[i]);
	for (uint16_t i = 0; i < n && i < RX_PREFETCH; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
	struct rx_pend pd;
	pend_init(&pd);
	uint64_t bytes = 0;
	if (n) {
		CTR_ADD(rx->st.pkts, n);
		rx_burst(rx, p, pkts, n, &pd, &bytes);
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
			ok = rte_ring_enqueue(rx->be_q[p], m) == 0;
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
		rx_set_router(rx, nr);
		atomic_store_explicit(&rx->rt_offer, NULL, memory_order_release);
		if (rx->hold && rx->hold->used)
			release(rx);
	}
	/* core c of n polls queues c, c + n, ...; the exception interfaces and
	 * the hand-off are core 0's */
	uint16_t step = rx->ncores ? rx->ncores : 1;
	for (uint32_t p = 0; p < rx->nports; p++) {
		uint16_t nq = rx->ports[p].nrxq ? rx->ports[p].nrxq : 1;
		for (uint16_t q = rx->core; q < nq; q += step)
			total += poll_queue(rx, p, q);
		if (rx->core == 0 && rx->ports[p].has_tap)
			total += poll_tap(rx, p);
	}
	if (rx->core == 0 && rx->handoff)
		drain_handoff(rx);
	if (rx->hold && rx->hold->used) {
		uint32_t x = rx_hold_expire(rx->hold,
					    rx->clock ? rx->clock(rx->clock_arg).ns : rx->now.ns);
		if (x)
			CTR_ADD(rx->st.drop[RXD_NO_NEIGH], x);
	}
	return total;
}
