/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RX's fast path: the flows' single-producer queue (flowq.h) keeps order and
 * its depth across the counters' wrap and between two threads; the bulk
 * route lookup answers as the single one; a reserved flow's cached route
 * is used for its destination only, and never across a change of routes.
 */
#include <pthread.h>
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

#include "dpdk_env.h"
#include "rx_rig.h"
#include "testutil.h"

/* tokens in place of mbufs: the queue only moves pointers */
static struct rte_mbuf *tok(uintptr_t i)
{
	return (struct rte_mbuf *)(i << 4);
}

static void queue_holds_its_depth_in_order_across_the_wrap(void **state)
{
	(void)state;
	struct flow_rx q;
	struct rte_mbuf *slot[8], *m[12];
	assert_int_equal(flowq_slots(5), 8);
	flowq_init(&q, slot, 5);
	/* counters 3 short of 2^32: the next packets cross it */
	atomic_store(&q.head, UINT32_MAX - 2);
	atomic_store(&q.tail, UINT32_MAX - 2);
	q.tail_seen = q.head_seen = UINT32_MAX - 2;
	uintptr_t next = 1, want = 1;
	for (int round = 0; round < 4; round++) {
		for (int i = 0; i < 7; i++)
			m[i] = tok(next + (uintptr_t)i);
		/* 7 offered, the depth (5) taken */
		assert_int_equal(flowq_enqueue(&q, m, 7), 5);
		next += 5;
		assert_int_equal(flowq_count(&q), 5);
		assert_int_equal(flowq_enqueue(&q, m, 1), 0);
		assert_int_equal(flowq_dequeue(&q, m, 2), 2);
		assert_ptr_equal(m[0], tok(want));
		assert_ptr_equal(m[1], tok(want + 1));
		want += 2;
		assert_int_equal(flowq_dequeue(&q, m, 12), 3);
		for (int i = 0; i < 3; i++)
			assert_ptr_equal(m[i], tok(want + (uintptr_t)i));
		want += 3;
		assert_int_equal(flowq_dequeue(&q, m, 1), 0);
		assert_int_equal(flowq_count(&q), 0);
	}
	assert_true(atomic_load(&q.head) < 100); /* it wrapped */
}

#define STREAM 200000u

struct stream {
	struct flow_rx q;
	uint32_t refused;
};

static void *producer(void *arg)
{
	struct stream *s = arg;
	uintptr_t next = 1;
	uint32_t burst = 1;
	while (next <= STREAM) {
		struct rte_mbuf *m[32];
		uint32_t n = burst;
		if (next + n - 1 > STREAM)
			n = (uint32_t)(STREAM - next + 1);
		for (uint32_t i = 0; i < n; i++)
			m[i] = tok(next + i);
		uint32_t k = flowq_enqueue(&s->q, m, n);
		next += k; /* what was refused is offered again */
		s->refused += n - k;
		burst = burst % 31 + 1;
	}
	return NULL;
}

static void two_threads_lose_nothing_and_keep_order(void **state)
{
	(void)state;
	static struct stream s;
	static struct rte_mbuf *slot[64];
	flowq_init(&s.q, slot, 48);
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, producer, &s), 0);
	uintptr_t want = 1;
	uint32_t burst = 7;
	while (want <= STREAM) {
		struct rte_mbuf *m[32];
		uint32_t n = flowq_dequeue(&s.q, m, burst);
		for (uint32_t i = 0; i < n; i++)
			if (m[i] != tok(want++))
				fail_msg("packet %lu out of order", (unsigned long)(want - 1));
		burst = burst % 32 + 1;
	}
	pthread_join(th, NULL);
	assert_int_equal(flowq_count(&s.q), 0);
	/* a queue of 48 with the consumer on the same two cores: it was full at times */
	printf("  %u packets through a queue of 48; %u offers refused while it was full\n", STREAM,
	       s.refused);
}

static void pi_for(struct pkt_info *pi, const char *dst)
{
	memset(pi, 0, sizeof(*pi));
	int fam;
	assert_int_equal(route_parse_addr(dst, &fam, pi->dst), 0);
	pi->family = (uint8_t)fam;
	pi->ttl = 64;
}

static void bulk_lookup_answers_as_the_single_one(void **state)
{
	(void)state;
	struct rig r;
	rig_up(&r);
	const char *dst[] = {"10.0.2.2", "10.9.1.1",	"10.0.1.1",   "10.0.2.77", "192.168.1.1",
			     "10.0.1.2", "2001:db8::1", "10.9.200.3", "10.0.2.9",  "0.0.0.0"};
	enum {
		N = sizeof(dst) / sizeof(dst[0])
	};
	struct pkt_info pi[N];
	const struct pkt_info *pp[N];
	struct route_hop h[N];
	for (int i = 0; i < N; i++) {
		pi_for(&pi[i], dst[i]);
		pp[i] = &pi[i];
	}
	router_lookup_bulk(r.rt, pp, N, h);
	int seen[5] = {0};
	for (int i = 0; i < N; i++) {
		uint32_t port = 99;
		uint8_t mac[6] = {0}, nh[16];
		int rc = router_lookup(r.rt, &pi[i], &port, mac, nh);
		if (h[i].res != rc)
			fail_msg("%s: bulk %s, single %s", dst[i], route_res_name(h[i].res),
				 route_res_name(rc));
		seen[-rc]++;
		if (rc == ROUTE_OK || rc == ROUTE_LOCAL || rc == ROUTE_NO_NEIGH)
			assert_int_equal(h[i].port, port);
		if (rc == ROUTE_OK)
			assert_memory_equal(h[i].mac, mac, 6);
	}
	/* the set covers routed, no route, no neighbour and local */
	assert_true(seen[0] >= 3 && seen[1] >= 2 && seen[2] >= 1 && seen[3] >= 1);
	rig_down(&r);
}

/* one reserved packet (flow "probe") to dst through RX; its next-hop MAC */
static void probe_through(struct rig *r, const char *dst, uint8_t mac[6])
{
	struct pg g = from_sender(dst);
	g.dscp = 46;
	g.dport = 5000;
	struct rte_mbuf *m = frame(&g);
	assert_int_equal(rte_ring_enqueue(r->ringrx[0], m), 0);
	assert_int_equal(rx_poll(&r->rx), 1);
	assert_int_equal(flowq_dequeue(r->fq[0], &m, 1), 1);
	memcpy(mac, rte_pktmbuf_mtod(m, uint8_t *), 6);
	rte_pktmbuf_free(m);
}

static void flow_route_cache_holds_one_destination_of_one_router(void **state)
{
	(void)state;
	struct rig r;
	rig_up(&r);
	uint8_t mac[6];
	probe_through(&r, "10.9.1.1", mac); /* via the gateway: looked up, then cached */
	assert_memory_equal(mac, gw_far, 6);
	assert_int_equal(r.rx.st.nh_cached, 0);
	probe_through(&r, "10.9.1.1", mac);
	assert_memory_equal(mac, gw_far, 6);
	assert_int_equal(r.rx.st.nh_cached, 1);
	/* the same flow to another destination: not the cached route */
	probe_through(&r, "10.0.2.2", mac);
	assert_memory_equal(mac, host_rcv, 6);
	assert_int_equal(r.rx.st.nh_cached, 1);
	probe_through(&r, "10.9.1.1", mac);
	assert_memory_equal(mac, gw_far, 6);
	probe_through(&r, "10.9.1.1", mac);
	assert_int_equal(r.rx.st.nh_cached, 2);
	/* the gateway moves to a new MAC: the kernel's new router comes the
	 * way nl.c offers it, and the cached route of the old one goes */
	char err[160];
	uint8_t gw[16];
	addr("10.0.2.9", gw);
	static const uint8_t moved[6] = {2, 0, 0, 0, 2, 0x42};
	struct router *nr = router_create(2, err, sizeof(err));
	uint8_t a[16];
	int fam;
	unsigned len;
	assert_int_equal(route_parse_prefix("10.0.2.1/24", &fam, a, &len), 0);
	assert_int_equal(router_add_address(nr, 1, fam, a, len, err, sizeof(err)), 0);
	assert_int_equal(router_add_neighbour(nr, 1, 4, gw, moved, err, sizeof(err)), 0);
	assert_int_equal(route_parse_prefix("10.9.0.0/16", &fam, a, &len), 0);
	assert_int_equal(router_add_route(nr, 1, fam, a, len, gw, err, sizeof(err)), 0);
	assert_int_equal(router_build(nr, err, sizeof(err)), 0);
	atomic_store(&r.rx.rt_offer, nr);
	probe_through(&r, "10.9.1.1", mac);
	assert_null(atomic_load(&r.rx.rt_offer)); /* taken */
	assert_memory_equal(mac, moved, 6);
	assert_int_equal(r.rx.st.nh_cached, 2);
	probe_through(&r, "10.9.1.1", mac);
	assert_memory_equal(mac, moved, 6);
	assert_int_equal(r.rx.st.nh_cached, 3);
	rx_set_router(&r.rx, r.rt);
	router_free(nr);
	rig_down(&r);
}

TDP_TEST_MAIN(cmocka_unit_test(queue_holds_its_depth_in_order_across_the_wrap),
	      cmocka_unit_test(two_threads_lose_nothing_and_keep_order),
	      cmocka_unit_test(bulk_lookup_answers_as_the_single_one),
	      cmocka_unit_test(flow_route_cache_holds_one_destination_of_one_router))
