/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The RX side with real DPDK mbufs, fib routes and net_ring ports:
 * reserved packets reach their flow's queue routed (MACs, TTL, checksum),
 * best effort reaches its port's queue or, on a port the table does not
 * schedule, the wire at once; every kind of bad packet is counted and dropped.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../tdp_test.h"

#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "dpdk_env.h"
#include "rx_rig.h"
#include "engine.h"
#include "pktgen.h"
#include "route.h"
#include "rx.h"
#include "tb_sim.h"
#include "testutil.h"

static void reserved_and_best_effort_are_routed(void **state)
{
	struct rig r;
	rig_up(&r);
	struct pg g = from_sender("10.0.2.2");
	g.dscp = 46;
	g.dport = 5000;
	g.ttl = 10;
	rx_packet(&r.rx, 0, frame(&g));
	assert_int_equal(flowq_count(r.fq[0]), 1);
	struct rte_mbuf *m = NULL;
	assert_int_equal(flowq_dequeue(r.fq[0], &m, 1), 1);
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
	assert_memory_equal(d, host_rcv, 6);
	assert_memory_equal(d + 6, mac_out, 6);
	assert_int_equal(d[14 + 8], 9);
	assert_int_equal(pkt_ip4_csum(d + 14, 20), 0);
	rte_pktmbuf_free(m);

	/* best effort via a gateway route */
	g = from_sender("10.9.3.4");
	rx_packet(&r.rx, 0, frame(&g));
	assert_int_equal(rte_ring_count(r.beq[1]), 1);
	assert_int_equal(rte_ring_sc_dequeue(r.beq[1], (void **)&m), 0);
	assert_memory_equal(rte_pktmbuf_mtod(m, uint8_t *), gw_far, 6);
	rte_pktmbuf_free(m);

	/* back towards the sender: a port the table does not schedule, sent at once */
	g = from_sender("10.0.1.2");
	memcpy(g.smac, host_rcv, 6);
	memcpy(g.dmac, mac_out, 6);
	rx_packet(&r.rx, 1, frame(&g));
	assert_int_equal(rte_ring_count(r.ringtx[0]), 1);
	assert_int_equal(rte_ring_sc_dequeue(r.ringtx[0], (void **)&m), 0);
	assert_memory_equal(rte_pktmbuf_mtod(m, uint8_t *), host_snd, 6);
	assert_memory_equal(rte_pktmbuf_mtod(m, uint8_t *) + 6, mac_in, 6);
	rte_pktmbuf_free(m);

	/* a labelled reserved flow goes to the port's peer */
	g = from_sender("10.0.2.2");
	g.mpls = 77;
	g.dscp = 20;
	rx_packet(&r.rx, 0, frame(&g));
	assert_int_equal(flowq_count(r.fq[1]), 1);
	assert_int_equal(r.rx.st.reserved, 2);
	assert_int_equal(r.rx.st.best_effort, 2);
	for (int i = 0; i < RXD_MAX; i++)
		assert_int_equal(r.rx.st.drop[i], 0);
	rig_down(&r);
}

static void bad_packets_counted(void **state)
{
	struct rig r;
	rig_up(&r);
	struct pg g = from_sender("192.168.7.7"); /* no route */
	rx_packet(&r.rx, 0, frame(&g));
	g = from_sender("10.0.2.77"); /* connected, no neighbour */
	rx_packet(&r.rx, 0, frame(&g));
	g = from_sender("10.0.2.1"); /* our own address */
	rx_packet(&r.rx, 0, frame(&g));
	g = from_sender("10.0.2.2");
	g.ttl = 1;
	rx_packet(&r.rx, 0, frame(&g));
	g = from_sender("10.0.2.2");
	memcpy(g.smac, mac_in, 6); /* our own transmission */
	rx_packet(&r.rx, 0, frame(&g));
	g = from_sender("10.0.2.2");
	struct rte_mbuf *m = frame(&g);
	rte_pktmbuf_trim(m, (uint16_t)(m->pkt_len - 20)); /* runt */
	rx_packet(&r.rx, 0, m);
	g = from_sender("10.0.2.2");
	m = frame(&g);
	rte_pktmbuf_mtod(m, uint8_t *)[14] = 0x41; /* IHL 1 */
	rx_packet(&r.rx, 0, m);
	g = from_sender("10.0.2.2"); /* a reserved flow routed out of the wrong port */
	g.dscp = 46;
	g.dport = 5000;
	memcpy(g.dst, (uint8_t[]){10, 0, 1, 2}, 4);
	rx_packet(&r.rx, 0, frame(&g));
	assert_int_equal(r.rx.st.drop[RXD_NO_ROUTE], 1);
	assert_int_equal(r.rx.st.drop[RXD_NO_NEIGH], 1);
	assert_int_equal(r.rx.st.drop[RXD_HOST], 1);
	assert_int_equal(r.rx.st.host[PUNT_LOCAL], 1);
	assert_int_equal(r.rx.st.drop[RXD_TTL], 1);
	assert_int_equal(r.rx.st.drop[RXD_OWN], 1);
	assert_int_equal(r.rx.st.drop[RXD_RUNT], 1);
	assert_int_equal(r.rx.st.drop[RXD_MALFORMED], 1);
	assert_int_equal(r.rx.st.drop[RXD_WRONG_PORT], 1);
	assert_int_equal(r.rx.st.pkts, 8);
	assert_int_equal(r.rx.st.reserved + r.rx.st.best_effort, 0);
	/* every mbuf went back to the pool */
	assert_int_equal(rte_mempool_in_use_count(env_pool()), 0);
	rig_down(&r);
}

/* A promiscuous port (or a switch flooding an unknown address) hands RX
 * unicast frames for other stations: counted and dropped, never forwarded,
 * while broadcast and our own MAC still are. */
static void frames_for_other_hosts_dropped(void **state)
{
	struct rig r;
	rig_up(&r);
	struct pg g = from_sender("10.0.2.2");
	memcpy(g.dmac, gw_far, 6); /* another station's MAC */
	rx_packet(&r.rx, 0, frame(&g));
	g = from_sender("10.0.2.2");
	memcpy(g.dmac, mac_out, 6); /* our other port's MAC, not this one's */
	rx_packet(&r.rx, 0, frame(&g));
	assert_int_equal(r.rx.st.drop[RXD_OTHER_HOST], 2);
	assert_int_equal(rte_ring_count(r.beq[1]) + rte_ring_count(r.ringtx[1]), 0);
	g = from_sender("10.0.2.2");
	memset(g.dmac, 0xff, 6); /* broadcast: still ours to route */
	rx_packet(&r.rx, 0, frame(&g));
	g = from_sender("10.0.2.2");
	rx_packet(&r.rx, 0, frame(&g));
	assert_int_equal(r.rx.st.best_effort, 2);
	assert_int_equal(r.rx.st.drop[RXD_OTHER_HOST], 2);
	struct rte_mbuf *m = frame(&g); /* shorter than an Ethernet header */
	rte_pktmbuf_trim(m, (uint16_t)(m->pkt_len - 10));
	rx_packet(&r.rx, 0, m);
	assert_int_equal(r.rx.st.drop[RXD_RUNT], 1);
	assert_int_equal(r.rx.st.pkts, 5);
	assert_string_equal(rx_drop_name(RXD_OTHER_HOST), "other-host");
	rig_down(&r);
}

static void queues_are_bounded(void **state)
{
	struct rig r;
	rig_up(&r);
	struct pg g = from_sender("10.0.2.2");
	g.dscp = 46;
	g.dport = 5000;
	for (int i = 0; i < 7; i++)
		rx_packet(&r.rx, 0, frame(&g));
	assert_int_equal(r.frx[0]->enq, 4); /* depth 4 */
	assert_int_equal(r.frx[0]->overflow, 3);
	g = from_sender("10.0.2.2");
	for (int i = 0; i < 11; i++)
		rx_packet(&r.rx, 0, frame(&g));
	assert_int_equal(r.rx.st.drop[RXD_BE_OVERFLOW], 3); /* depth 8 */
	rig_down(&r);
	assert_int_equal(rte_mempool_in_use_count(env_pool()), 0);
}

/* One burst's packets go to their queues together at its end, each queue's
 * in the order they came; what a full queue refuses is counted as if they had
 * gone one by one. */
static void one_burst_queued_in_order(void **state)
{
	struct rig r;
	rig_up(&r);
	/* 24 frames: every third reserved (sizes 100, 101, ...), the rest best effort (sizes 200, ...) */
	uint32_t nr = 0, nb = 0;
	uint64_t bytes = 0;
	for (int i = 0; i < 24; i++) {
		struct pg g = from_sender("10.0.2.2");
		if (i % 3 == 0) {
			g.dscp = 46;
			g.dport = 5000;
			g.size = 100 + nr++;
		} else {
			g.size = 200 + nb++;
		}
		bytes += g.size;
		assert_int_equal(rte_ring_sp_enqueue(r.ringrx[0], frame(&g)), 0);
	}
	assert_int_equal(rx_poll(&r.rx), 24);
	assert_int_equal(r.rx.st.pkts, 24);
	assert_int_equal(r.rx.st.bytes, bytes);
	assert_int_equal(r.frx[0]->enq, 4); /* depth 4 */
	assert_int_equal(r.frx[0]->overflow, nr - 4);
	assert_int_equal(r.rx.st.flow_overflow, nr - 4); /* the sum the status line gives */
	assert_int_equal(r.rx.st.reserved, 4);
	assert_int_equal(r.rx.st.best_effort, 8); /* depth 8 */
	assert_int_equal(r.rx.st.drop[RXD_BE_OVERFLOW], nb - 8);
	for (uint32_t i = 0; i < 4; i++) {
		struct rte_mbuf *m = NULL;
		assert_int_equal(flowq_dequeue(r.fq[0], &m, 1), 1);
		assert_int_equal(m->pkt_len, 100 + i);
		rte_pktmbuf_free(m);
	}
	for (uint32_t i = 0; i < 8; i++) {
		struct rte_mbuf *m = NULL;
		assert_int_equal(rte_ring_sc_dequeue(r.rx.be_q[1], (void **)&m), 0);
		assert_int_equal(m->pkt_len, 200 + i);
		rte_pktmbuf_free(m);
	}
	rig_down(&r);
	assert_int_equal(rte_mempool_in_use_count(env_pool()), 0);
}

static tdp_time_t tick_clock(void *arg)
{
	int64_t *us = arg;
	return tdp_time(++*us * 1000);
}

static void rx_poll_reads_ports(void **state)
{
	struct rig r;
	rig_up(&r);
	struct pg g = from_sender("10.0.2.2");
	for (int i = 0; i < 40; i++) {
		struct rte_mbuf *m = frame(&g);
		assert_int_equal(rte_ring_sp_enqueue(r.ringrx[0], m), 0);
	}
	/* a clock that ticks 1 us a read: per port, one read before the burst,
	 * one after a burst with packets */
	int64_t ticks = 0;
	r.rx.clock = tick_clock;
	r.rx.clock_arg = &ticks;
	assert_int_equal(rx_poll(&r.rx), 32); /* one burst */
	/* port 0 read at 1 us, burst full: nothing known of when the rest came */
	assert_int_equal(r.rx.now.ns, 2000);
	assert_false(r.ports[0].drained_ok[0]);
	assert_true(r.ports[1].drained_ok[0]); /* port 1 empty at 3 us */
	assert_int_equal(r.ports[1].drained[0].ns, 3000);
	assert_int_equal(rx_poll(&r.rx), 8);
	/* the 8 came after the full burst: no drained time yet for them */
	assert_false(r.rx.since_ok);
	assert_true(r.ports[0].drained_ok[0]);
	assert_int_equal(r.ports[0].drained[0].ns, 4000);
	assert_int_equal(r.rx.st.best_effort, 8); /* the BE queue holds 8 */
	assert_int_equal(r.rx.st.drop[RXD_BE_OVERFLOW], 32);
	/* the next burst on port 0 arrived after 4 us */
	struct rte_mbuf *m = frame(&g);
	assert_int_equal(rte_ring_sp_enqueue(r.ringrx[0], m), 0);
	assert_int_equal(rx_poll(&r.rx), 1);
	assert_true(r.rx.since_ok);
	assert_int_equal(r.rx.since.ns, 4000);
	assert_int_equal(r.ports[0].drained[0].ns, 7000);
	rig_down(&r);
}

/* A probe-flow packet (dscp 46, port 5000) through RX, read at now: the
 * frame its queue entry is due in. */
static int64_t due_of_probe(struct rig *r, int64_t now)
{
	struct pg g = from_sender("10.0.2.2");
	g.dscp = 46;
	g.dport = 5000;
	r->rx.now = tdp_time(now);
	rx_packet(&r->rx, 0, frame(&g));
	struct rte_mbuf *m = NULL;
	assert_int_equal(flowq_dequeue(r->fq[0], &m, 1), 1);
	int64_t due = engine_pkt_due(m);
	rte_pktmbuf_free(m);
	return due;
}

/* A pipelined flow's packets carry the frame they are due in: the frame of
 * (arrival - delay), which the upstream sent them in, plus alpha. */
static void pipelined_due_frames(void **state)
{
	static const char piped[] =
		"tdp-schedule 1\ntf 1ms\nk 10\nepoch 200us\nguard 50us\n"
		"port out rate 100Mbit/s\n"
		"flow probe port out size 100 alpha 3 delay 300us dscp 46 udp-dport 5000\n"
		"flow l2 port out size 100 dscp 20 mpls 77\n"
		"frames 0: probe 1, l2 1\n";
	struct rig r;
	rig_table = piped;
	rig_up(&r);
	rig_table = rig_table_default;
	/* arrivals around the edge: frame u starts at u ms + 200 us, and the
	 * upstream's frame-u packets arrive from start(u) + 300 us on */
	const int64_t at[] = {6499999, 6500000, 7499999, 7500000, 7449999, 7450000};
	const int64_t due[] = {5 + 3, 6 + 3, 6 + 3, 7 + 3, 6 + 3, 6 + 3};
	for (int i = 0; i < 6; i++)
		assert_int_equal(due_of_probe(&r, at[i]), due[i]);
	/* each arrival measured from its upstream frame's start: 999999, 0,
	 * 999999, 0, 949999, 950000 ns; the guard band is [950 us, 1 ms) */
	const struct flow_rx *fr = r.frx[0];
	assert_non_null(fr->arr);
	assert_int_equal(fr->arr->count, 6);
	assert_int_equal(fr->arr->min, 0);
	assert_int_equal(fr->arr->max, 999999);
	assert_int_equal(fr->arr->bin[hist_bin_of(0)], 2);
	assert_int_equal(fr->arr_guard, 3);
	assert_int_equal(fr->arr_uncertain, 0); /* no drained time known */
	/* read at 7.5 ms (upstream frame 7 less 300 us): uncertain only when it
	 * can have arrived before frame 6's guard band ended, at 7.45 ms */
	const int64_t since[] = {7499990, 7450000, 7449999, 6000000};
	const uint64_t unc[] = {0, 0, 1, 2};
	for (int i = 0; i < 4; i++) {
		r.rx.since = tdp_time(since[i]);
		r.rx.since_ok = true;
		assert_int_equal(due_of_probe(&r, 7500000), 7 + 3);
		assert_int_equal(fr->arr_uncertain, unc[i]);
	}
	/* an in-order flow measures nothing */
	assert_null(r.frx[1]->arr);
	assert_int_equal(r.frx[1]->arr_guard, 0);
	assert_int_equal(r.frx[1]->arr_uncertain, 0);
	rig_down(&r);
}

/* A swap that makes a kept flow pipelined gives it its arrival histogram
 * before the table is offered; one that makes it in order again keeps it. */
static void swap_to_pipelined_measures_arrivals(void **state)
{
	static const char piped[] = "tdp-schedule 1\ntf 1ms\nk 10\n"
				    "port out rate 100Mbit/s\n"
				    "flow probe port out size 100 alpha 2 dscp 46 udp-dport 5000\n"
				    "flow bulk port out size 1000 dscp 10\n"
				    "frames 0: probe 1, bulk 2\n";
	char err[256];
	struct rig r;
	rig_up(&r);
	assert_null(engine_flow_rx(r.e, 0)->arr);
	struct eng_table *nt = engine_table_build(r.e, parse_ok(piped), err, sizeof(err));
	if (!nt)
		fail_msg("engine_table_build: %s", err);
	struct flow_rx *fr = engine_table_flow_rx(nt, 0);
	assert_ptr_equal(fr, engine_flow_rx(r.e, 0)); /* kept: the same flow */
	assert_non_null(fr->arr);
	assert_int_equal(fr->arr->count, 0);
	assert_null(engine_table_flow_rx(nt, 1)->arr);
	engine_table_discard(r.e, nt);
	assert_non_null(engine_flow_rx(r.e, 0)->arr); /* kept for a later swap */
	rig_down(&r);
}

/* the one frame RX sent back out of port 0, or NULL */
static struct rte_mbuf *sent_back(struct rig *r)
{
	struct rte_mbuf *m = NULL;
	if (rte_ring_count(r->ringtx[0]) == 0)
		return NULL;
	assert_int_equal(rte_ring_sc_dequeue(r->ringtx[0], (void **)&m), 0);
	return m;
}

static void icmp_errors_rate_limited(void **state)
{
	struct rig r;
	rig_up(&r);
	r.ports[0].has_ip4 = true;
	memcpy(r.ports[0].ip4, (uint8_t[]){10, 0, 1, 1}, 4);
	r.rx.icmp_rate = 1000; /* one per ms */
	r.rx.icmp_burst = 2;
	r.rx.now = tdp_time(1000000000);
	struct pg g = from_sender("10.0.2.2");
	g.ttl = 1;
	rx_packet(&r.rx, 0, frame(&g));
	struct rte_mbuf *m = sent_back(&r);
	assert_non_null(m);
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
	assert_memory_equal(d, host_snd, 6); /* back to the sender */
	assert_memory_equal(d + 6, mac_in, 6);
	assert_memory_equal(d + 14 + 12, ((uint8_t[]){10, 0, 1, 1}),
			    4); /* from the ingress port's address */
	assert_memory_equal(d + 14 + 16, ((uint8_t[]){10, 0, 1, 2}), 4);
	assert_int_equal(d[14 + 20], 11); /* time exceeded */
	rte_pktmbuf_free(m);
	/* no route: destination unreachable; the burst of 2 is then spent */
	g = from_sender("192.168.7.7");
	rx_packet(&r.rx, 0, frame(&g));
	m = sent_back(&r);
	assert_non_null(m);
	assert_int_equal(rte_pktmbuf_mtod(m, uint8_t *)[14 + 20], 3);
	rte_pktmbuf_free(m);
	rx_packet(&r.rx, 0, frame(&g));
	assert_null(sent_back(&r));
	assert_int_equal(r.rx.st.icmp_rate_limited, 1);
	/* a millisecond later, one more */
	r.rx.now = tdp_time(1001000000);
	rx_packet(&r.rx, 0, frame(&g));
	m = sent_back(&r);
	assert_non_null(m);
	rte_pktmbuf_free(m);
	assert_int_equal(r.rx.st.icmp_sent[ICMP_ERR_TTL], 1);
	assert_int_equal(r.rx.st.icmp_sent[ICMP_ERR_NO_ROUTE], 2);
	/* each packet still counted once as a drop by its reason */
	assert_int_equal(r.rx.st.drop[RXD_TTL], 1);
	assert_int_equal(r.rx.st.drop[RXD_NO_ROUTE], 3);
	/* a port without an address sends none, and says so */
	g = from_sender("192.168.7.7");
	memcpy(g.dmac, mac_out, 6);
	r.rx.now = tdp_time(2000000000);
	rx_packet(&r.rx, 1, frame(&g));
	assert_int_equal(r.rx.st.icmp_no_source, 1);
	rig_down(&r);
	assert_int_equal(rte_mempool_in_use_count(env_pool()), 0);
}

static void host_frames_left_to_the_kernel(void **state)
{
	struct rig r;
	rig_up(&r);
	struct pg g = from_sender("224.0.1.129");
	g.dport = 319; /* PTP event, its multicast group */
	rx_packet(&r.rx, 0, frame(&g));
	g = from_sender("10.0.2.2");
	g.dport = 319; /* unicast PTP through: forwarded */
	rx_packet(&r.rx, 0, frame(&g));
	assert_int_equal(r.rx.st.best_effort, 1);
	g = from_sender("224.0.0.5");
	rx_packet(&r.rx, 0, frame(&g));
	struct rte_mbuf *m = frame(&g);
	pg_w16(rte_pktmbuf_mtod(m, uint8_t *) + 12, 0x0806); /* ARP */
	rx_packet(&r.rx, 0, m);
	assert_int_equal(r.rx.st.host[PUNT_PTP], 1);
	assert_int_equal(r.rx.st.host[PUNT_LINK], 1);
	assert_int_equal(r.rx.st.host[PUNT_ARP], 1);
	assert_int_equal(r.rx.st.drop[RXD_HOST], 3);
	assert_int_equal(r.rx.st.drop[RXD_NO_ROUTE], 0);
	rig_down(&r);
}

/* A port whose NIC left the kernel: the host's frames go to its exception
 * interface (here a ring port standing in for the TAP), and what the kernel
 * writes there leaves the port as best effort, each counted. */
static void host_frames_through_the_exception_interface(void **state)
{
	static int no;
	char name[32];
	struct rig r;
	rig_up(&r);
	struct rte_ring *krx[2], *ktx[2];
	int tap[2];
	for (int p = 0; p < 2; p++) {
		snprintf(name, sizeof(name), "tap%d_%d", no, p);
		tap[p] = env_ring_port(name, &krx[p], &ktx[p]);
		assert_true(tap[p] >= 0);
		r.ports[p].has_tap = true;
		r.ports[p].tap_port = (uint16_t)tap[p];
	}
	no++;
	struct pg g = from_sender("224.0.1.129");
	g.dport = 319; /* PTP event */
	rx_packet(&r.rx, 0, frame(&g));
	struct rte_mbuf *m = frame(&g);
	pg_w16(rte_pktmbuf_mtod(m, uint8_t *) + 12, 0x0806); /* ARP */
	rx_packet(&r.rx, 0, m);
	g = from_sender("10.0.1.1"); /* the router's own address */
	rx_packet(&r.rx, 0, frame(&g));
	g = from_sender("10.0.2.2"); /* through: not the kernel's */
	rx_packet(&r.rx, 0, frame(&g));
	assert_int_equal(rte_ring_count(ktx[0]), 3);
	assert_int_equal(r.ports[0].tap.to_kernel, 3);
	assert_int_equal(r.rx.st.drop[RXD_HOST], 3);
	assert_int_equal(r.rx.st.host[PUNT_PTP], 1);
	assert_int_equal(r.rx.st.host[PUNT_ARP], 1);
	assert_int_equal(r.rx.st.host[PUNT_LOCAL], 1);
	assert_int_equal(r.rx.st.best_effort, 1);
	/* the frames reach the kernel as they came, not rewritten for forwarding */
	assert_int_equal(rte_ring_sc_dequeue(ktx[0], (void **)&m), 0);
	assert_memory_equal(rte_pktmbuf_mtod(m, uint8_t *), mac_in, 6);
	assert_memory_equal(rte_pktmbuf_mtod(m, uint8_t *) + 6, host_snd, 6);
	assert_int_equal(rte_pktmbuf_mtod(m, uint8_t *)[14 + 8], 64); /* TTL as sent */
	rte_pktmbuf_free(m);
	env_drain(ktx[0]);
	env_drain(r.beq[1]);

	/* what the kernel writes on "out" (scheduled: its best-effort queue of 8)
	 * and on "in" (not scheduled: straight to the wire) */
	g = from_sender("10.0.2.2");
	for (int i = 0; i < 10; i++)
		assert_int_equal(rte_ring_sp_enqueue(krx[1], frame(&g)), 0);
	assert_int_equal(rte_ring_sp_enqueue(krx[0], frame(&g)), 0);
	rx_poll(&r.rx);
	assert_int_equal(rte_ring_count(r.beq[1]), 8);
	assert_int_equal(r.ports[1].tap.from_kernel, 8);
	assert_int_equal(r.ports[1].tap.from_kernel_drop, 2);
	assert_int_equal(rte_ring_count(r.ringtx[0]), 1);
	assert_int_equal(r.ports[0].tap.from_kernel, 1);
	assert_int_equal(r.rx.st.pkts, 4); /* none of them counted as received */
	env_drain(r.beq[1]);

	/* an interface that refuses the frame: dropped and counted */
	assert_int_equal(rte_eth_dev_stop((uint16_t)tap[0]), 0);
	rx_packet(&r.rx, 0, frame(&g));
	g = from_sender("10.0.1.1");
	rx_packet(&r.rx, 0, frame(&g));
	assert_int_equal(r.ports[0].tap.to_kernel, 3);
	assert_int_equal(r.ports[0].tap.to_kernel_drop, 1);
	assert_int_equal(r.rx.st.drop[RXD_HOST], 4);
	for (int p = 0; p < 2; p++) {
		env_drain(ktx[p]);
		r.ports[p].has_tap = false;
	}
	rig_down(&r);
}

/* The kernel gave up resolving a host on a connected prefix (NUD_FAILED):
 * RX answers Host Unreachable, counts the drop, and asks again, so that
 * the host is reached once it is back. */
/* a kernel route with one next hop (gw NULL: connected) */
static int kroute(struct router *r, uint32_t port, int family, const uint8_t *prefix, unsigned len,
		  const uint8_t *gw, uint8_t proto)
{
	struct route_nh nh = {.port = port, .has_gw = gw != NULL};
	if (gw)
		memcpy(nh.gw, gw, 16);
	return router_add_kernel_route(r, family, prefix, len, &nh, 1, proto);
}

/* The route table sized for what it holds: 600 IPv4 host routes in 600
 * /24s and 300 IPv6 host routes in 300 /48s need more second-level groups
 * than a fixed 256 / 1,024 give (each /24 with a longer prefix takes one
 * group; a /128 up to 13); all go in, none missing, each found. */
static void many_host_routes_all_taken(void **state)
{
	(void)state;
	struct rig r;
	rig_up(&r);
	char err[160];
	struct router *k = router_copy_static(r.rt);
	uint8_t gw4[16] = {10, 0, 2, 8}, gw6[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 2};
	gw6[15] = 8;
	for (int i = 0; i < 600; i++) {
		uint8_t p[16] = {11, (uint8_t)(i / 256), (uint8_t)(i % 256), 7};
		assert_int_equal(kroute(k, 1, 4, p, 32, gw4, 4), 0);
	}
	for (int i = 0; i < 300; i++) {
		uint8_t p[16] = {0x20, 0x01, 0x0d, 0xb8, (uint8_t)(i >> 8), (uint8_t)i};
		p[15] = 9;
		assert_int_equal(kroute(k, 1, 6, p, 128, gw6, 4), 0);
	}
	assert_int_equal(router_build(k, err, sizeof(err)), 0);
	const char *first = NULL;
	assert_int_equal(router_missing(k, &first), 0);
	for (int i = 0; i < 600; i += 37) {
		struct pkt_info pi = {.family = 4};
		memcpy(pi.dst, (uint8_t[]){11, (uint8_t)(i / 256), (uint8_t)(i % 256), 7}, 4);
		uint32_t port = 99;
		uint8_t mac[6], nh[16];
		int rc = router_lookup(k, &pi, &port, mac, nh);
		assert_true(rc == ROUTE_OK || rc == ROUTE_NO_NEIGH);
		assert_int_equal(port, 1);
		pi.dst[3] = 8; /* the /24 holds only the /32: no route */
		assert_true(router_lookup(k, &pi, &port, mac, nh) < 0 &&
			    router_lookup(k, &pi, &port, mac, nh) != ROUTE_NO_NEIGH);
	}
	router_free(k);
	rig_down(&r);
}

static void failed_neighbour_host_unreachable(void **state)
{
	struct rig r;
	rig_up(&r);
	char err[160];
	r.ports[0].has_ip4 = true;
	memcpy(r.ports[0].ip4, (uint8_t[]){10, 0, 1, 1}, 4);
	r.rx.icmp_rate = 1000;
	r.rx.icmp_burst = 4;
	r.rx.now = tdp_time(1000000000);
	struct rte_ring *res = rte_ring_create_elem("rx_resolve_f", sizeof(struct rx_resolve), 64,
						    SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	assert_non_null(res);
	r.rx.resolve = res;
	struct router *k = router_copy_static(r.rt);
	uint8_t gone[16] = {10, 0, 2, 77}, gw[16] = {10, 0, 2, 8}, p8[16] = {10, 8};
	assert_int_equal(router_add_kernel_failed(k, 1, 4, gone), 0);
	assert_int_equal(router_add_kernel_failed(k, 1, 4, gw), 0);
	assert_int_equal(kroute(k, 1, 4, p8, 16, gw, 4), 0);
	/* a static neighbour is never failed by the kernel */
	uint8_t st[16] = {10, 0, 2, 2};
	assert_int_equal(router_add_kernel_failed(k, 1, 4, st), 1);
	assert_int_equal(router_build(k, err, sizeof(err)), 0);
	rx_set_router(&r.rx, k);
	struct pg g = from_sender("10.0.2.77");
	rx_packet(&r.rx, 0, frame(&g));
	g = from_sender("10.8.3.3"); /* via the failed gateway */
	rx_packet(&r.rx, 0, frame(&g));
	g = from_sender("10.0.2.2"); /* the static one still forwards */
	rx_packet(&r.rx, 0, frame(&g));
	assert_int_equal(r.rx.st.best_effort, 1);
	for (int i = 0; i < 2; i++) {
		struct rte_mbuf *m = sent_back(&r);
		assert_non_null(m);
		const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
		assert_memory_equal(d + 14 + 12, ((uint8_t[]){10, 0, 1, 1}), 4);
		assert_int_equal(d[14 + 20], 3); /* destination unreachable */
		assert_int_equal(d[14 + 21], 1); /* host */
		rte_pktmbuf_free(m);
	}
	assert_int_equal(r.rx.st.icmp_sent[ICMP_ERR_NO_NEIGH], 2);
	assert_int_equal(r.rx.st.drop[RXD_NO_NEIGH], 2);
	struct rx_resolve q;
	assert_int_equal(rte_ring_sc_dequeue_elem(res, &q, sizeof(q)), 0);
	assert_memory_equal(q.addr, gone, 4);
	assert_int_equal(rte_ring_sc_dequeue_elem(res, &q, sizeof(q)), 0);
	assert_memory_equal(q.addr, gw, 4); /* asked again */
	/* tdpctl neighbours: the failed ones say so */
	struct route_view v[8];
	size_t n = router_neighbours(k, v, 8), nf = 0;
	for (size_t i = 0; i < n && i < 8; i++)
		nf += v[i].failed && !v[i].resolved;
	assert_int_equal(nf, 2);
	rx_set_router(&r.rx, r.rt);
	router_free(k);
	rte_ring_free(res);
	rig_down(&r);
}

static void kernel_routes_swap_in_between_bursts(void **state)
{
	struct rig r;
	rig_up(&r);
	char err[160];
	struct rte_ring *res = rte_ring_create_elem("rx_resolve_t", sizeof(struct rx_resolve), 64,
						    SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	assert_non_null(res);
	r.rx.resolve = res;
	/* a kernel route via a gateway whose MAC is not known yet */
	struct router *k = router_copy_static(r.rt);
	uint8_t p[16] = {10, 8}, gw[16] = {10, 0, 2, 7}, p9[16] = {10, 9};
	assert_int_equal(kroute(k, 1, 4, p, 16, gw, 4), 0);
	/* the static route to 10.9/16 wins over the kernel's */
	assert_int_equal(kroute(k, 1, 4, p9, 16, gw, 11), 1);
	assert_int_equal(router_build(k, err, sizeof(err)), 0);
	atomic_store(&r.rx.rt_offer, k);
	rx_poll(&r.rx);
	assert_null(atomic_load(&r.rx.rt_offer)); /* taken */
	assert_ptr_equal(r.rx.rt, k);
	struct pg g = from_sender("10.8.1.1");
	rx_packet(&r.rx, 0, frame(&g));
	assert_int_equal(r.rx.st.drop[RXD_NO_NEIGH], 1);
	struct rx_resolve q;
	assert_int_equal(rte_ring_sc_dequeue_elem(res, &q, sizeof(q)), 0);
	assert_int_equal(q.family, 4);
	assert_int_equal(q.port, 1);
	assert_memory_equal(q.addr, gw, 4); /* the gateway, for the kernel to ARP */
	/* the kernel resolved it: the next router forwards (the old one freed
	 * first: each holds 128 MiB of tables) */
	rx_set_router(&r.rx, r.rt);
	router_free(k);
	struct router *k2 = router_copy_static(r.rt);
	const uint8_t gmac[6] = {2, 0, 0, 0, 2, 7};
	assert_int_equal(router_add_kernel_neighbour(k2, 1, 4, gw, gmac), 0);
	assert_int_equal(kroute(k2, 1, 4, p, 16, gw, 4), 0);
	assert_int_equal(router_build(k2, err, sizeof(err)), 0);
	atomic_store(&r.rx.rt_offer, k2);
	rx_poll(&r.rx);
	rx_packet(&r.rx, 0, frame(&g));
	assert_int_equal(r.rx.st.best_effort, 1);
	struct rte_mbuf *m = NULL;
	assert_int_equal(rte_ring_sc_dequeue(r.beq[1], (void **)&m), 0);
	assert_memory_equal(rte_pktmbuf_mtod(m, uint8_t *), gmac, 6);
	rte_pktmbuf_free(m);
	/* what tdpctl shows: the static 10.9/16 and the kernel's 10.8/16, resolved */
	struct route_view v[8];
	size_t n = router_routes(k2, v, 8);
	bool seen8 = false, seen9 = false;
	for (size_t i = 0; i < n; i++) {
		if (v[i].prefix[1] == 8)
			seen8 = v[i].origin == ROUTE_ORIGIN_KERNEL && v[i].resolved &&
				v[i].proto == 4;
		if (v[i].prefix[1] == 9)
			seen9 = v[i].origin == ROUTE_ORIGIN_STATIC;
	}
	assert_true(seen8 && seen9);
	rx_set_router(&r.rx, r.rt);
	router_free(k2);
	rte_ring_free(res);
	rig_down(&r);
}

TDP_TEST_MAIN(cmocka_unit_test(reserved_and_best_effort_are_routed),
	      cmocka_unit_test(bad_packets_counted),
	      cmocka_unit_test(frames_for_other_hosts_dropped),
	      cmocka_unit_test(icmp_errors_rate_limited),
	      cmocka_unit_test(host_frames_left_to_the_kernel),
	      cmocka_unit_test(host_frames_through_the_exception_interface),
	      cmocka_unit_test(failed_neighbour_host_unreachable),
	      cmocka_unit_test(kernel_routes_swap_in_between_bursts),
	      cmocka_unit_test(queues_are_bounded), cmocka_unit_test(one_burst_queued_in_order),
	      cmocka_unit_test(rx_poll_reads_ports), cmocka_unit_test(pipelined_due_frames),
	      cmocka_unit_test(many_host_routes_all_taken),
	      cmocka_unit_test(swap_to_pipelined_measures_arrivals))
