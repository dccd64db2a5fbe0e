/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RX on two cores: each polls its share of a port's queues into its own
 * queue of each flow, the engine takes from both, what a core other than 0
 * sends at once goes through core 0, and two cores at once with the engine
 * running lose nothing and keep each core's order.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "../tdp_test.h"

#include <rte_mbuf.h>
#include <rte_ring.h>

#include "dpdk_env.h"
#include "rx_rig.h"
#include "tb_sim.h"

/* a probe packet (flow "probe": DSCP 46, UDP 5000) from the sender, with the
 * core that is to take it and a sequence number in its payload */
static struct rte_mbuf *probe(uint8_t core, uint32_t seq)
{
	struct pg g = from_sender("10.0.2.2");
	g.dscp = 46;
	g.dport = 5000;
	struct rte_mbuf *m = frame(&g);
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *) + 42;
	p[0] = core;
	memcpy(p + 1, &seq, 4);
	return m;
}

/* the counters of both cores */
static void both(const struct rig *r, struct rx_stats *st)
{
	struct rx_stats b;
	rx_sum(&r->rx, 1, st);
	rx_sum(&r->rx1, 1, &b);
	uint64_t *a = (uint64_t *)st;
	const uint64_t *x = (const uint64_t *)&b;
	for (size_t i = 0; i < sizeof(*st) / sizeof(uint64_t); i++)
		a[i] += x[i];
}

static void two_cores(void)
{
	rig_cores = 2;
	rig_in_queues = 2;
	rig_flow_depth = 4096;
}

static void one_core(void)
{
	rig_cores = 1;
	rig_in_queues = 1;
	rig_flow_depth = 4;
	rig_table = rig_table_default;
}

static void each_core_polls_its_queues_into_its_own_flow_queues(void **state)
{
	(void)state;
	two_cores();
	rig_table = "tdp-schedule 1\ntf 1ms\nk 10\nport out rate 100Mbit/s\n"
		    "flow probe port out size 100 dscp 46 udp-dport 5000\n"
		    "flow l2 port out size 100 dscp 20 mpls 77\n"
		    "frames 0-9: probe 4\n";
	struct rig r;
	rig_up(&r);
	for (uint32_t i = 0; i < 2; i++)
		assert_int_equal(rte_ring_enqueue(r.inrx[0], probe(0, i)), 0);
	assert_int_equal(rte_ring_enqueue(r.inrx[1], probe(1, 0)), 0);
	/* core 1 polls queue 1 alone, into its own queue of the flow */
	assert_int_equal(rx_poll(&r.rx1), 1);
	assert_int_equal(flowq_count(r.frx1[0]), 1);
	assert_int_equal(flowq_count(r.frx[0]), 0);
	assert_int_equal(rte_ring_count(r.inrx[0]), 2);
	assert_int_equal(rx_poll(&r.rx), 2);
	assert_int_equal(flowq_count(r.frx[0]), 2);
	assert_int_equal(r.rx.st.reserved, 2);
	assert_int_equal(r.rx1.st.reserved, 1);
	/* the engine's next frame takes from both */
	engine_start(r.e);
	engine_step(r.e);
	assert_int_equal(rte_ring_count(r.ringtx[1]), 3);
	struct flow_stats fs;
	engine_flow_stats(r.e, 0, &fs);
	assert_int_equal(fs.sent, 3);
	assert_int_equal(fs.unused, 1);
	struct flow_rx_sum sum;
	engine_table_flow_rx_sum(engine_table_current(r.e), 0, &sum, NULL);
	assert_int_equal(sum.enq, 3);
	assert_int_equal(sum.overflow, 0);
	struct rx_stats st;
	both(&r, &st);
	assert_int_equal(st.pkts, 3);
	assert_int_equal(st.reserved, 3);
	rig_down(&r);
	one_core();
}

static void a_core_hands_what_it_sends_at_once_to_core_0(void **state)
{
	(void)state;
	two_cores();
	struct rig r;
	rig_up(&r);
	/* from the receiver's side to the sender: out of "in", which the table
	 * does not schedule, so sent at once; core 1 does not own its TX queue */
	struct pg g;
	pg_defaults(&g);
	memcpy(g.dmac, mac_out, 6);
	memcpy(g.smac, host_rcv, 6);
	addr("10.0.1.2", g.dst);
	addr("10.0.2.2", g.src);
	rx_packet(&r.rx1, 1, frame(&g));
	assert_int_equal(r.rx1.st.best_effort, 1);
	assert_int_equal(rte_ring_count(r.ringtx[0]), 0);
	assert_int_equal(rte_ring_count(r.handoff), 1);
	assert_int_equal(rx_poll(&r.rx), 0); /* nothing received; the hand-off sent */
	assert_int_equal(rte_ring_count(r.handoff), 0);
	assert_int_equal(rte_ring_count(r.ringtx[0]), 1);
	assert_int_equal(r.rx.st.handoff_sent, 1);
	assert_int_equal(r.rx.st.handoff_drop, 0);
	struct rte_mbuf *m = NULL;
	assert_int_equal(rte_ring_dequeue(r.ringtx[0], (void **)&m), 0);
	assert_memory_equal(rte_pktmbuf_mtod(m, uint8_t *), host_snd, 6);
	rte_pktmbuf_free(m);
	/* core 0 itself sends at once */
	rx_packet(&r.rx, 1, frame(&g));
	assert_int_equal(rte_ring_count(r.ringtx[0]), 1);
	assert_int_equal(rte_ring_count(r.handoff), 0);
	env_drain(r.ringtx[0]);
	/* at stop, what is left in the hand-off (more than a burst) is sent,
	 * not left to be freed uncounted */
	for (int i = 0; i < 40; i++)
		rx_packet(&r.rx1, 1, frame(&g));
	assert_int_equal(rte_ring_count(r.handoff), 40);
	assert_int_equal(rx_drain_handoff(&r.rx), 40);
	assert_int_equal(rte_ring_count(r.handoff), 0);
	assert_int_equal(rte_ring_count(r.ringtx[0]), 40);
	assert_int_equal(r.rx.st.handoff_sent, 41);
	rig_down(&r);
	one_core();
}

/* A pipelined flow fed by two cores: a packet due later at the head of one
 * core's queue waits there, and the other core's packet due now still goes
 * in its frame. */
static void a_later_packet_on_one_core_does_not_hold_the_other(void **state)
{
	(void)state;
	two_cores();
	rig_table = "tdp-schedule 1\ntf 1ms\nk 10\nport out rate 100Mbit/s\n"
		    "flow probe port out size 100 dscp 46 udp-dport 5000 alpha 2 delay 10us\n"
		    "flow l2 port out size 100 dscp 20 mpls 77\n"
		    "frames 0-9: probe 2\n";
	struct rig r;
	rig_up(&r);
	engine_start(r.e);
	int64_t j = engine_next_frame(r.e);
	struct rte_mbuf *a = probe(0, 1), *b = probe(1, 0);
	engine_pkt_set_due(a, j + 1);
	engine_pkt_set_due(b, j);
	assert_int_equal(flowq_enqueue(r.frx[0], &a, 1), 1);
	assert_int_equal(flowq_enqueue(r.frx1[0], &b, 1), 1);
	for (int64_t x = j; x <= j + 1; x++) {
		assert_int_equal(engine_step(r.e), x);
		struct rte_mbuf *m = NULL;
		assert_int_equal(rte_ring_count(r.ringtx[1]), 1);
		assert_int_equal(rte_ring_dequeue(r.ringtx[1], (void **)&m), 0);
		assert_int_equal(rte_pktmbuf_mtod(m, uint8_t *)[42],
				 x == j ? 1 : 0); /* b, then a */
		rte_pktmbuf_free(m);
	}
	struct flow_stats fs;
	engine_flow_stats(r.e, 0, &fs);
	assert_int_equal(fs.sent, 2);
	assert_int_equal(fs.arr_late_dropped + fs.arr_late_carried, 0);
	rig_down(&r);
	one_core();
}

#define PER_CORE 3000

struct feeder {
	struct rx *rx;
	uint8_t core;
	bool best_effort; /* else reserved */
	_Atomic int *go, *done;
};

static void *feed(void *arg)
{
	struct feeder *f = arg;
	while (!atomic_load(f->go))
		;
	for (uint32_t i = 0; i < PER_CORE; i++) {
		if (f->best_effort) {
			struct pg g = from_sender("10.0.2.2");
			rx_packet(f->rx, 0, frame(&g));
		} else {
			rx_packet(f->rx, 0, probe(f->core, i));
		}
	}
	atomic_fetch_add(f->done, 1);
	return NULL;
}

/* Reserved packets from two cores while the engine runs frames; then best
 * effort from both into the port's one ring at once (the engine reads it
 * after: DPDK's ring on x86 orders its slots by x86's store order, which
 * ThreadSanitizer cannot see, so only tdpd's own flow queues are crossed
 * while both sides run). */
static void two_cores_at_once_lose_nothing_and_keep_their_order(void **state)
{
	(void)state;
	two_cores();
	rig_table = "tdp-schedule 1\ntf 1ms\nk 10\nport out rate 1Gbit/s\n"
		    "flow probe port out size 100 dscp 46 udp-dport 5000\n"
		    "flow l2 port out size 100 dscp 20 mpls 77\n"
		    "frames 0-9: probe 64\n";
	struct rig r;
	rig_up(&r);
	_Atomic int go = 0, done = 0;
	struct feeder f0 = {&r.rx, 0, false, &go, &done}, f1 = {&r.rx1, 1, false, &go, &done};
	pthread_t t0, t1;
	assert_int_equal(pthread_create(&t0, NULL, feed, &f0), 0);
	assert_int_equal(pthread_create(&t1, NULL, feed, &f1), 0);
	engine_start(r.e);
	atomic_store(&go, 1);
	/* the engine serves frames while both cores fill their queues, and
	 * until they are empty (bounded: 64 a frame, far more frames than
	 * that takes once the cores are done) */
	uint32_t next[2] = {0, 0}, got[2] = {0, 0};
	struct flow_stats fs;
	for (int after = 0; after < 1000;) {
		if (atomic_load(&done) == 2)
			after++;
		engine_step(r.e);
		struct rte_mbuf *m;
		while (rte_ring_dequeue(r.ringtx[1], (void **)&m) == 0) {
			const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
			uint8_t c = p[42];
			uint32_t seq;
			memcpy(&seq, p + 43, 4);
			assert_true(c < 2);
			assert_int_equal(seq, next[c]); /* each core's order kept */
			next[c]++;
			got[c]++;
			rte_pktmbuf_free(m);
		}
		engine_flow_stats(r.e, 0, &fs);
		if (fs.sent == 2 * PER_CORE)
			break;
	}
	pthread_join(t0, NULL);
	pthread_join(t1, NULL);
	assert_int_equal(got[0], PER_CORE);
	assert_int_equal(got[1], PER_CORE);
	assert_int_equal(fs.sent, 2 * PER_CORE);
	struct flow_rx_sum sum;
	engine_table_flow_rx_sum(engine_table_current(r.e), 0, &sum, NULL);
	assert_int_equal(sum.enq, 2 * PER_CORE);
	assert_int_equal(sum.overflow, 0);
	/* best effort from both cores at once into one ring */
	atomic_store(&go, 0);
	atomic_store(&done, 0);
	f0.best_effort = f1.best_effort = true;
	assert_int_equal(pthread_create(&t0, NULL, feed, &f0), 0);
	assert_int_equal(pthread_create(&t1, NULL, feed, &f1), 0);
	atomic_store(&go, 1);
	pthread_join(t0, NULL);
	pthread_join(t1, NULL);
	struct rx_stats st;
	both(&r, &st);
	assert_int_equal(st.pkts, 4 * PER_CORE);
	assert_int_equal(st.reserved, 2 * PER_CORE);
	assert_int_equal(st.best_effort + st.drop[RXD_BE_OVERFLOW], 2 * PER_CORE);
	assert_int_equal(rte_ring_count(engine_be_ring(r.e, 0)), st.best_effort);
	rig_down(&r);
	one_core();
}

/* icmp-rate and icmp-burst are shared out so that the cores together send
 * no more than configured, and no less */
static void limits_shared_out_add_up_exactly(void **state)
{
	(void)state;
	for (uint32_t total = 0; total <= 100; total++)
		for (uint32_t n = 1; n <= RX_MAX_CORES; n++) {
			uint32_t sum = 0, lo = UINT32_MAX, hi = 0;
			for (uint32_t k = 0; k < n; k++) {
				uint32_t v = rx_share(total, n, k);
				sum += v;
				lo = v < lo ? v : lo;
				hi = v > hi ? v : hi;
			}
			assert_int_equal(sum, total);
			assert_true(hi - lo <= 1);
		}
}

TDP_TEST_MAIN(cmocka_unit_test(each_core_polls_its_queues_into_its_own_flow_queues),
	      cmocka_unit_test(a_core_hands_what_it_sends_at_once_to_core_0),
	      cmocka_unit_test(limits_shared_out_add_up_exactly),
	      cmocka_unit_test(a_later_packet_on_one_core_does_not_hold_the_other),
	      cmocka_unit_test(two_cores_at_once_lose_nothing_and_keep_their_order))
