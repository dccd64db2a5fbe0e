/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RX at a router's edges, on the RX rig (rx_rig.h): a packet over the egress
 * MTU (Fragmentation Needed for DF, fragments without it, never a reserved
 * packet cut), a link down, a reserved flow whose route moved off its port
 * (counted for the flow under both moved-route policies), an equal-cost
 * multipath route (one transport flow on one next hop, a reserved flow on
 * its own port), and best effort held while its next hop is resolved.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "../tdp_test.h"

#include <rte_mbuf.h>
#include <rte_ring.h>

#include "dpdk_env.h"
#include "rx_rig.h"
#include "testutil.h"

static struct port_link links[2];

/* the rig with each port's link known, up, MTU 1500; ICMP errors allowed */
static void up(struct rig *r)
{
	rig_up(r);
	memset(links, 0, sizeof(links));
	for (int p = 0; p < 2; p++)
		links[p] = (struct port_link){.mtu = 1500, .known = 1, .admin_up = 1, .carrier = 1};
	r->rx.link = links;
	r->ports[0].has_ip4 = true;
	memcpy(r->ports[0].ip4, (uint8_t[]){10, 0, 1, 1}, 4);
	r->rx.icmp_rate = 1000;
	r->rx.icmp_burst = 100;
	r->rx.now = tdp_time(1000000000);
}

/* g's frame with IPv4's Don't Fragment set */
static struct rte_mbuf *frame_df(const struct pg *g)
{
	struct rte_mbuf *m = frame(g);
	uint8_t *ip = rte_pktmbuf_mtod(m, uint8_t *) + 14;
	ip[6] |= 0x40;
	ip[10] = ip[11] = 0;
	uint16_t c = pkt_ip4_csum(ip, 20);
	ip[10] = (uint8_t)(c >> 8);
	ip[11] = (uint8_t)c;
	return m;
}

static struct rte_mbuf *take(struct rte_ring *q)
{
	struct rte_mbuf *m = NULL;
	return rte_ring_sc_dequeue(q, (void **)&m) == 0 ? m : NULL;
}

static void too_big(void **state)
{
	struct rig r;
	up(&r);
	links[1].mtu = 576;
	/* DF: Fragmentation Needed back to the sender, with the next hop's MTU */
	struct pg g = from_sender("10.9.3.4");
	g.size = 1014;
	rx_packet(&r.rx, 0, frame_df(&g));
	struct rte_mbuf *m = take(r.ringtx[0]);
	assert_non_null(m);
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
	assert_memory_equal(d, host_snd, 6);
	assert_int_equal(d[14 + 20], 3);
	assert_int_equal(d[14 + 21], 4);
	assert_int_equal(d[14 + 26] << 8 | d[14 + 27], 576);
	rte_pktmbuf_free(m);
	assert_int_equal(r.rx.st.drop[RXD_TOO_BIG], 1);
	assert_int_equal(r.rx.st.icmp_sent[ICMP_ERR_TOO_BIG], 1);
	/* no DF: fragments, each within the MTU, out of the route's port */
	rx_packet(&r.rx, 0, frame(&g));
	assert_int_equal(r.rx.st.frag_pkts, 1);
	assert_int_equal(r.rx.st.frag_sent, 2); /* 1000 bytes of IP: 556 + 464 */
	uint32_t data = 0;
	for (int i = 0; i < 2; i++) {
		m = take(r.beq[1]);
		assert_non_null(m);
		d = rte_pktmbuf_mtod(m, const uint8_t *);
		assert_memory_equal(d, gw_far, 6); /* rewritten for the next hop */
		assert_int_equal(d[14 + 8], 63);   /* TTL less one */
		uint32_t tot = (uint32_t)(d[16] << 8 | d[17]);
		assert_true(tot <= 576);
		assert_int_equal(pkt_ip4_csum(d + 14, 20), 0);
		data += tot - 20;
		rte_pktmbuf_free(m);
	}
	assert_int_equal(data, 1000 - 20);
	/* a reserved packet is never cut: dropped, too big, no fragments */
	g = from_sender("10.0.2.2");
	g.size = 1014;
	g.dscp = 46;
	g.dport = 5000;
	rx_packet(&r.rx, 0, frame(&g));
	assert_int_equal(flowq_count(r.fq[0]), 0);
	assert_int_equal(r.rx.st.drop[RXD_TOO_BIG], 2);
	struct flow_rx_sum fs;
	engine_table_flow_rx_sum(engine_table_current(r.e), 0, &fs, NULL);
	assert_int_equal(fs.too_big, 1); /* counted for its flow too */
	assert_int_equal(r.rx.st.frag_pkts, 1);
	/* at the MTU: through */
	g.size = 14 + 576;
	rx_packet(&r.rx, 0, frame_df(&g));
	assert_int_equal(flowq_count(r.fq[0]), 1);
	rig_down(&r);
}

static void link_down(void **state)
{
	struct rig r;
	up(&r);
	links[1].carrier = 0;
	struct pg g = from_sender("10.9.3.4");
	rx_packet(&r.rx, 0, frame(&g));
	assert_int_equal(r.rx.st.drop[RXD_LINK_DOWN], 1);
	/* a reserved packet: counted for its flow too */
	g.dscp = 46;
	g.dport = 5000;
	rx_packet(&r.rx, 0, frame(&g));
	struct flow_rx_sum fs;
	engine_table_flow_rx_sum(engine_table_current(r.e), 0, &fs, NULL);
	assert_int_equal(fs.link_down, 1);
	assert_int_equal(r.rx.st.drop[RXD_LINK_DOWN], 2);
	g = from_sender("10.9.3.4");
	assert_int_equal(rte_ring_count(r.beq[1]), 0);
	/* not followed (never reported): nothing held back */
	links[1].known = 0;
	rx_packet(&r.rx, 0, frame(&g));
	assert_int_equal(rte_ring_count(r.beq[1]), 1);
	rig_down(&r);
}

/* a router with tdpd.conf's entries and the kernel's route 10.7.0.0/16 over
 * nnh of the next hops: via the sender (port 0), via 10.0.2.9 (port 1) */
static struct router *with_route(struct rig *r, unsigned first, unsigned nnh)
{
	struct route_nh nh[2] = {{.port = 0, .has_gw = true}, {.port = 1, .has_gw = true}};
	addr("10.0.1.2", nh[0].gw);
	addr("10.0.2.9", nh[1].gw);
	uint8_t p[16] = {10, 7};
	struct router *k = router_copy_static(r->rt);
	assert_int_equal(router_add_kernel_route(k, 4, p, 16, nh + first, nnh, 11), 0);
	char err[160];
	assert_int_equal(router_build(k, err, sizeof(err)), 0);
	rx_set_router(&r->rx, k);
	return k;
}

static void moved_route(void **state)
{
	struct rig r;
	up(&r);
	/* the probe flow leaves by port 1 (out); its destination's route by 0 */
	struct router *k = with_route(&r, 0, 1);
	struct pg g = from_sender("10.7.1.1");
	g.dscp = 46;
	g.dport = 5000;
	for (int i = 0; i < 3; i++)
		rx_packet(&r.rx, 0, frame(&g));
	struct flow_rx_sum fs;
	engine_table_flow_rx_sum(engine_table_current(r.e), 0, &fs, NULL);
	assert_int_equal(fs.route_moved, 3);
	assert_int_equal(fs.moved_port, 1); /* configured port 0, + 1 */
	assert_int_equal(fs.moved_at_ns, r.rx.now.ns);
	assert_int_equal(r.rx.st.drop[RXD_WRONG_PORT], 3);
	assert_int_equal(rte_ring_count(r.ringtx[0]), 0);
	/* moved-route best-effort: sent by the new route, counted the same */
	r.rx.moved = RX_MOVED_BEST_EFFORT;
	rx_packet(&r.rx, 0, frame(&g));
	engine_table_flow_rx_sum(engine_table_current(r.e), 0, &fs, NULL);
	assert_int_equal(fs.route_moved, 4);
	assert_int_equal(r.rx.st.moved_best_effort, 1);
	struct rte_mbuf *m = take(r.ringtx[0]);
	assert_non_null(m);
	assert_memory_equal(rte_pktmbuf_mtod(m, uint8_t *), host_snd, 6);
	rte_pktmbuf_free(m);
	assert_int_equal(flowq_count(r.fq[0]), 0);
	/* no route at all: counted for the flow (port 0: none), no-route */
	g = from_sender("10.6.6.6");
	g.dscp = 46;
	g.dport = 5000;
	rx_packet(&r.rx, 0, frame(&g));
	engine_table_flow_rx_sum(engine_table_current(r.e), 0, &fs, NULL);
	assert_int_equal(fs.route_moved, 5);
	assert_int_equal(fs.moved_port, 0);
	assert_int_equal(r.rx.st.drop[RXD_NO_ROUTE], 1);
	rx_set_router(&r.rx, r.rt);
	router_free(k);
	rig_down(&r);
}

static void multipath(void **state)
{
	struct rig r;
	up(&r);
	struct router *k = with_route(&r, 0, 2);
	struct route_view v[16];
	size_t nv = router_routes(k, v, 16), seen = 0;
	for (size_t i = 0; i < nv; i++)
		if (v[i].prefix[0] == 10 && v[i].prefix[1] == 7) {
			seen |= 1u << v[i].nh_index;
			assert_int_equal(v[i].nnh, 2);
		}
	assert_int_equal(seen, 3);
	/* best effort from 64 sources: both next hops; each source always the same one */
	uint32_t on0 = 0, on1 = 0;
	for (int rep = 0; rep < 2; rep++)
		for (int s = 1; s <= 64; s++) {
			struct pg g = from_sender("10.7.1.1");
			g.src[3] = (uint8_t)s;
			rx_packet(&r.rx, 0, frame(&g));
			struct rte_mbuf *m0 = take(r.ringtx[0]), *m1 = take(r.beq[1]);
			assert_true((m0 != NULL) != (m1 != NULL));
			static bool first_on0[65];
			if (rep == 0)
				first_on0[s] = m0 != NULL;
			else
				assert_int_equal(first_on0[s], m0 != NULL);
			on0 += m0 != NULL;
			on1 += m1 != NULL;
			rte_pktmbuf_free(m0 ? m0 : m1);
		}
	assert_true(on0 >= 20 && on1 >= 20);
	/* the reserved flow keeps its port (1) whatever its hash */
	for (int s = 1; s <= 32; s++) {
		struct pg g = from_sender("10.7.1.1");
		g.src[3] = (uint8_t)s;
		g.dscp = 46;
		g.dport = 5000;
		rx_packet(&r.rx, 0, frame(&g));
	}
	struct flow_rx_sum fs;
	engine_table_flow_rx_sum(engine_table_current(r.e), 0, &fs, NULL);
	assert_int_equal(fs.route_moved, 0);
	assert_int_equal(fs.enq + fs.overflow, 32);
	struct rte_mbuf *m = NULL;
	assert_int_equal(flowq_dequeue(r.fq[0], &m, 1), 1);
	assert_memory_equal(rte_pktmbuf_mtod(m, uint8_t *), gw_far, 6);
	rte_pktmbuf_free(m);
	rx_set_router(&r.rx, r.rt);
	router_free(k);
	rig_down(&r);
}

static void held_while_resolving(void **state)
{
	struct rig r;
	up(&r);
	static struct rx_hold hold;
	memset(&hold, 0, sizeof(hold));
	r.rx.hold = &hold;
	char err[160];
	/* 10.8.0.0/16 via 10.0.2.7, whose MAC is not known yet */
	uint8_t p[16] = {10, 8}, gw[16] = {10, 0, 2, 7};
	struct route_nh nh = {.port = 1, .has_gw = true};
	memcpy(nh.gw, gw, 16);
	struct router *k = router_copy_static(r.rt);
	assert_int_equal(router_add_kernel_route(k, 4, p, 16, &nh, 1, 4), 0);
	assert_int_equal(router_build(k, err, sizeof(err)), 0);
	rx_set_router(&r.rx, k);
	struct pg g = from_sender("10.8.1.1");
	for (int i = 0; i < RX_HOLD_PKTS + 1; i++)
		rx_packet(&r.rx, 0, frame(&g));
	assert_int_equal(hold.queued, RX_HOLD_PKTS);
	assert_int_equal(hold.full, 1);
	assert_int_equal(r.rx.st.drop[RXD_NO_NEIGH], 1); /* only the one past the queue */
	assert_int_equal(rte_ring_count(r.beq[1]), 0);
	/* reserved packets are not held: late for their frame they are no use */
	g.dscp = 46;
	g.dport = 5000;
	rx_packet(&r.rx, 0, frame(&g));
	assert_int_equal(hold.queued, RX_HOLD_PKTS);
	assert_int_equal(r.rx.st.drop[RXD_NO_NEIGH], 2);
	g = from_sender("10.8.1.1");
	/* the kernel's answer: a new router; RX takes it and routes them again
	 * (the old one freed first: each holds 128 MiB of tables) */
	rx_set_router(&r.rx, r.rt);
	router_free(k);
	struct router *k2 = router_copy_static(r.rt);
	const uint8_t gmac[6] = {2, 0, 0, 0, 2, 7};
	assert_int_equal(router_add_kernel_neighbour(k2, 1, 4, gw, gmac), 0);
	assert_int_equal(router_add_kernel_route(k2, 4, p, 16, &nh, 1, 4), 0);
	assert_int_equal(router_build(k2, err, sizeof(err)), 0);
	atomic_store(&r.rx.rt_offer, k2);
	rx_poll(&r.rx);
	assert_ptr_equal(r.rx.rt, k2);
	assert_int_equal(hold.released, RX_HOLD_PKTS);
	assert_int_equal(hold.used, 0);
	/* the rig's best-effort ring is small: what it could not take is counted */
	assert_int_equal(rte_ring_count(r.beq[1]) + r.rx.st.drop[RXD_BE_OVERFLOW], RX_HOLD_PKTS);
	assert_true(rte_ring_count(r.beq[1]) >= 7);
	struct rte_mbuf *m = take(r.beq[1]);
	assert_memory_equal(rte_pktmbuf_mtod(m, uint8_t *), gmac, 6);
	rte_pktmbuf_free(m);
	env_drain(r.beq[1]);
	/* no answer in time: dropped, counted as no-neighbour */
	g = from_sender("10.0.2.77"); /* on the link, not resolved */
	rx_packet(&r.rx, 0, frame(&g));
	assert_int_equal(hold.used, 1);
	r.rx.now = tdp_time_add(r.rx.now, RX_HOLD_NS);
	rx_poll(&r.rx);
	assert_int_equal(hold.expired, 1);
	assert_int_equal(hold.used, 0);
	rx_set_router(&r.rx, r.rt);
	router_free(k2);
	rig_down(&r);
}

TDP_TEST_MAIN(cmocka_unit_test(too_big), cmocka_unit_test(link_down), cmocka_unit_test(moved_route),
	      cmocka_unit_test(multipath), cmocka_unit_test(held_while_resolving))
