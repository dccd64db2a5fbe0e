/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The push of a frame larger than the driver takes in one call: a TX ring of
 * a few descriptors, or a PMD that takes a few packets per call, must not cost
 * an admitted packet. The rig's TX callback plays that driver (at most N
 * packets a call, sim time a call); the engine must call again until the frame
 * is out, in its frame and before its guard band, and what the driver has not
 * taken by the guard band follows the late policy, counted by flow and by port
 * with the same numbers.
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

#include <rte_mbuf.h>
#include <rte_ring.h>

#include "dpdk_env.h"
#include "engine.h"
#include "frame.h"
#include "rig.h"
#include "testutil.h"

#define PER_FLOW 50000u

/* TF 10 ms at 10 Gbit/s: 10^5 packets of 64 bytes are 7.04 ms of wire, so
 * the table is admitted; every other frame is empty. */
static const char table_big[] = "tdp-schedule 1\ntf 10ms\nk 2\nguard 100us\n"
				"port out rate 10Gbit/s\n"
				"flow a port out size 64 udp-dport 1\n"
				"flow b port out size 64 udp-dport 2\n"
				"frames 0: a 50000, b 50000\n";

/* 10^5 packets do not fit the environment's pool: a pool of small buffers */
static struct rte_mempool *small_pool(void)
{
	static struct rte_mempool *mp;
	if (!mp)
		mp = rte_pktmbuf_pool_create("push_small", 262143, 256, 0,
					     RTE_PKTMBUF_HEADROOM + 128, SOCKET_ID_ANY);
	assert_non_null(mp);
	return mp;
}

static void fill(struct rig *r, uint32_t flow, uint32_t n)
{
	struct flow_rx *q = engine_flow_rx(r->e, flow);
	for (uint32_t i = 0; i < n; i++) {
		struct rte_mbuf *m = mk_in(small_pool(), (int32_t)flow, r->seq[flow]++, 64);
		assert_int_equal(flowq_enqueue(q, &m, 1), 1);
	}
}

/* Each reason a reserved packet was not sent: the port's count is the sum of
 * its flows'. */
static void counters_agree(const struct rig *r)
{
	struct port_stats ps;
	engine_port_stats(r->e, 0, &ps);
	uint64_t sent = 0, txd = 0, txc = 0, ld = 0, lc = 0, ald = 0;
	for (uint32_t f = 0; f < r->t->nflows; f++) {
		struct flow_stats fs;
		engine_flow_stats(r->e, f, &fs);
		sent += fs.sent;
		txd += fs.tx_drop;
		txc += fs.tx_carried;
		ld += fs.late_dropped;
		lc += fs.late_carried;
		ald += fs.arr_late_dropped;
	}
	assert_int_equal(ps.rsv_pkts, sent);
	assert_int_equal(ps.tx_drop, txd);
	assert_int_equal(ps.tx_carried, txc);
	assert_int_equal(ps.late_dropped, ld);
	assert_int_equal(ps.late_carried, lc);
	assert_int_equal(ps.arr_late_dropped, ald);
}

/* Steps to the frame with the row; returns its index. */
static int64_t step_to_row(struct rig *r)
{
	const struct frame_geom *g = engine_geom(r->e);
	for (;;) {
		size_t from = txlog.n;
		int64_t j = step(r);
		if (frame_tfc(g, j) == 0)
			return j;
		assert_int_equal(txlog.n, from); /* the empty frame sends nothing */
	}
}

/*
 * The table's big frame against a driver taking 32 packets a call at call_ns
 * a call: both queues filled, the engine stepped to the frame with the row.
 * Returns that frame's index; *from is where its packets start in the log.
 */
static int64_t big_frame(struct rig *r, enum late_policy pol, int64_t call_ns, size_t *from)
{
	rig_up(r, table_big, pol, 1000 * TDP_NS_PER_S - 15000000, 0, 65536);
	txlog.take_max = 32;
	txlog.call_ns = call_ns;
	fill(r, 0, PER_FLOW);
	fill(r, 1, PER_FLOW);
	*from = txlog.n;
	return step_to_row(r);
}

/* Every packet of the frame, a's then b's in order, handed over in frame j
 * from txlog.v[from]; returns how many. */
static size_t in_frame(const struct rig *r, size_t from, int64_t j, uint32_t *seq)
{
	const struct frame_geom *g = engine_geom(r->e);
	size_t n = 0;
	for (size_t x = from; x < txlog.n; x++, n++) {
		const struct txrec *t = &txlog.v[x];
		assert_true(t->flow == 0 || t->flow == 1);
		if (frame_index(g, tdp_time(t->t)) != j)
			fail_msg(
				"packet %zu of flow %d left at %lld, frame %lld, not in frame %lld",
				x - from, t->flow, (long long)t->t,
				(long long)frame_index(g, tdp_time(t->t)), (long long)j);
		if (t->seq != seq[t->flow])
			fail_msg("flow %d: packet %u left where %u was due", t->flow, t->seq,
				 seq[t->flow]);
		seq[t->flow]++;
	}
	return n;
}

/* A driver that takes 32 packets a call: the whole 10^5-packet frame leaves
 * in its frame, before its guard band, and nothing is counted lost. */
static void whole_frame_through_a_small_ring(void **state)
{
	(void)state;
	struct rig r;
	size_t from;
	int64_t j = big_frame(&r, LATE_DROP, 0, &from);
	uint32_t seq[2] = {0, 0};
	assert_int_equal(in_frame(&r, from, j, seq), 2 * PER_FLOW);
	assert_int_equal(seq[0], PER_FLOW);
	assert_int_equal(seq[1], PER_FLOW);
	check_wire(&r, from, txlog.n);
	assert_true(txlog.calls >= 2 * PER_FLOW / 32);
	print_message("push: %u packets of 64 B in one frame through a driver taking 32 a call: "
		      "%zu sent in the "
		      "frame, %llu calls\n",
		      2 * PER_FLOW, txlog.n - from, (unsigned long long)txlog.calls);
	for (uint32_t f = 0; f < 2; f++) {
		struct flow_stats fs;
		engine_flow_stats(r.e, f, &fs);
		assert_int_equal(fs.sent, PER_FLOW);
		assert_int_equal(fs.reserved, PER_FLOW);
		assert_int_equal(fs.tx_drop + fs.tx_carried + fs.late_dropped + fs.late_carried +
					 fs.unused,
				 0);
		assert_int_equal(fs.late_frames, 0);
	}
	struct port_stats ps;
	engine_port_stats(r.e, 0, &ps);
	assert_int_equal(ps.rsv_pkts, 2 * PER_FLOW);
	assert_int_equal(ps.rsv_bytes, 2 * PER_FLOW * 64);
	assert_int_equal(ps.frames, 1);
	assert_int_equal(ps.late_frames, 0);
	assert_true(ps.push_retries > 0);
	counters_agree(&r);
	drain_all(&r);
	rig_down(&r);
}

/*
 * A driver too slow for the frame (32 packets and 30 us a call): it takes what
 * fits before the guard band, all in the frame; the rest follows the late
 * policy. Under carry, the packets left over go first in the flow's next
 * reserved frame, in order.
 */
static void unsent_follow_the_late_policy(enum late_policy pol)
{
	struct rig r;
	size_t from;
	int64_t j = big_frame(&r, pol, 30000, &from);
	uint32_t seq[2] = {0, 0};
	size_t out = in_frame(&r, from, j, seq);
	check_wire(&r, from, txlog.n);
	assert_true(out > 0 && out < PER_FLOW); /* b had nothing sent */
	print_message("push: a driver taking 32 a call at 30 us a call: %zu of %u sent before the "
		      "guard band, the "
		      "rest %s\n",
		      out, 2 * PER_FLOW,
		      pol == LATE_DROP ? "dropped (tx_drop)" : "carried (tx_carried)");
	struct flow_stats a, b;
	engine_flow_stats(r.e, 0, &a);
	engine_flow_stats(r.e, 1, &b);
	assert_int_equal(a.sent, out);
	assert_int_equal(b.sent, 0);
	if (pol == LATE_DROP) {
		assert_int_equal(a.tx_drop, PER_FLOW - out);
		assert_int_equal(b.tx_drop, PER_FLOW);
		assert_int_equal(a.tx_carried + b.tx_carried, 0);
	} else {
		assert_int_equal(a.tx_carried, PER_FLOW - out);
		assert_int_equal(b.tx_carried, PER_FLOW);
		assert_int_equal(a.tx_drop + b.tx_drop, 0);
	}
	assert_int_equal(a.late_frames, 1);
	assert_int_equal(b.late_frames, 1);
	struct port_stats ps;
	engine_port_stats(r.e, 0, &ps);
	assert_int_equal(ps.frames, 0);
	assert_int_equal(ps.late_frames, 1);
	counters_agree(&r);

	/* the next reserved frame, with a driver that keeps up */
	txlog.call_ns = 0;
	fill(&r, 0, (uint32_t)out);
	fill(&r, 1, 0);
	from = txlog.n;
	if (pol == LATE_DROP)
		seq[0] = PER_FLOW; /* the rest of a's were dropped */
	int64_t j2 = step_to_row(&r);
	assert_int_equal(j2, j + 2);
	size_t out2 = in_frame(&r, from, j2, seq); /* carried ones first: seq runs on */
	check_wire(&r, from, txlog.n);
	engine_flow_stats(r.e, 0, &a);
	engine_flow_stats(r.e, 1, &b);
	if (pol == LATE_DROP) {
		/* a's queue held out packets, b's none */
		assert_int_equal(out2, out);
		assert_int_equal(b.unused, PER_FLOW);
	} else {
		/* a: its carried packets, then as many new ones as were sent */
		assert_int_equal(out2, 2 * PER_FLOW);
		assert_int_equal(seq[0], PER_FLOW + out);
		assert_int_equal(seq[1], PER_FLOW);
		assert_int_equal(a.sent + b.sent, 2 * PER_FLOW + out);
	}
	counters_agree(&r);
	drain_all(&r);
	rig_down(&r);
}

static void unsent_dropped(void **state)
{
	(void)state;
	unsent_follow_the_late_policy(LATE_DROP);
}

static void unsent_carried(void **state)
{
	(void)state;
	unsent_follow_the_late_policy(LATE_CARRY);
}

TDP_TEST_MAIN(cmocka_unit_test(whole_frame_through_a_small_ring), cmocka_unit_test(unsent_dropped),
	      cmocka_unit_test(unsent_carried))
