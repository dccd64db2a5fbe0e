/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Pipelined flows (alpha): each packet in upstream frame + alpha, late
 * arrivals dropped or carried, and a swap that makes a flow pipelined.
 */
#include <errno.h>
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

#include "bc635_sim.h"
#include "dpdk_env.h"
#include "engine.h"
#include "frame.h"
#include "rig.h"
#include "testutil.h"

static const char table_pipe[] = "tdp-schedule 1\ntf 100us\nk 10\n"
				 "port out rate 1Gbit/s\n"
				 "flow p port out size 200 alpha 2 delay 10us udp-dport 1\n"
				 "frames 0, 3, 4: p 2\n";

/* Two packets the upstream sent in frame u, due in u + 2 as RX marks them;
 * the sequence number says u. */
static void pipe_send(struct rig *r, int64_t u)
{
	for (uint32_t i = 0; i < 2; i++) {
		struct rte_mbuf *m = mk(0, (uint32_t)(u * 2 + i), 200);
		engine_pkt_set_due(m, u + 2);
		assert_int_equal(flowq_enqueue(engine_flow_rx(r->e, 0), &m, 1), 1);
	}
}

/*
 * 40 cycles. Upstream frame u's packets are queued one frame before they are
 * due, so those of u = 2 wait behind the frame-3 staging. In cycle 4 the
 * upstream sends nothing in frame 1: frame 3 stays empty and u = 2's packets
 * still wait for frame 4 (served in order, they would have gone in frame 3).
 * In cycle 3 the packets of u = 8 come only after their frame (0 of cycle 4)
 * was staged: late on arrival, dropped or carried per the policy; carried, they
 * take the slots cycle 4's frame 3 leaves free, never an on-time packet's.
 */
static void pipelined(enum late_policy pol)
{
	struct rig r;
	rig_up(&r, table_pipe, pol, 1000 * TDP_NS_PER_S + 500000, 0, 64);
	const struct frame_geom *g = engine_geom(r.e);
	int64_t c0 = engine_next_frame(r.e) / 10 + 1, late_u = (c0 + 3) * 10 + 8,
		lost_u = (c0 + 4) * 10 + 1;
	size_t from = txlog.n;
	while (engine_next_frame(r.e) < (c0 + 40) * 10) {
		int64_t j = engine_next_frame(r.e), u = j - 1;
		uint32_t t = frame_tfc(g, u);
		if (u >= c0 * 10 && (t == 8 || t == 1 || t == 2) && u != late_u && u != lost_u)
			pipe_send(&r, u);
		engine_step(r.e);
		if (j == late_u + 2)
			pipe_send(&r, late_u); /* after frame late_u + 2 was staged */
	}
	check_wire(&r, from, txlog.n);
	size_t seen = 0, late_seen = 0;
	for (size_t i = from; i < txlog.n; i++) {
		const struct txrec *x = &txlog.v[i];
		int64_t u = x->seq / 2, f = frame_index(g, tdp_time(x->t));
		if (u == late_u) {
			assert_int_equal(f, lost_u + 2); /* the slots nobody else wanted */
			late_seen++;
			continue;
		}
		if (f != u + 2)
			fail_msg("packet of upstream frame %lld left in frame %lld, not %lld",
				 (long long)u, (long long)f, (long long)(u + 2));
		seen++;
	}
	/* all but the late, the lost and the last u = 8 pair (due after the run) */
	assert_int_equal(seen, 40 * 6 - 2 - 2 - 2);
	struct flow_stats fs;
	engine_flow_stats(r.e, 0, &fs);
	if (pol == LATE_DROP) {
		assert_int_equal(late_seen, 0);
		assert_int_equal(fs.arr_late_dropped, 2);
		assert_int_equal(fs.arr_late_carried, 0);
		assert_int_equal(fs.unused,
				 2 + 2 + 2); /* + frame 0 of the first cycle: nothing came */
	} else {
		assert_int_equal(late_seen, 2);
		assert_int_equal(fs.arr_late_carried, 2);
		assert_int_equal(fs.arr_late_dropped, 0);
		assert_int_equal(fs.unused, 2 + 2);
	}
	assert_int_equal(fs.late_frames, 0);
	drain_all(&r);
	rig_down(&r);
}

/*
 * A swap that makes a kept flow pipelined: the packets RX queued before it
 * carry no due frame (ENGINE_DUE_NONE, as RX marks an in-order flow's) and go
 * out in the flow's next frames under the new table, in order, none taken
 * for a late arrival.
 */
static void swap_to_pipelined_keeps_queued(void **state)
{
	static const char table_inorder[] = "tdp-schedule 1\ntf 100us\nk 10\n"
					    "port out rate 1Gbit/s\n"
					    "flow p port out size 200 udp-dport 1\n"
					    "frames 0, 3, 4: p 2\n";
	struct rig r;
	/* frame 5 of a cycle: no reservation before the next cycle */
	rig_up(&r, table_inorder, LATE_DROP, 1000 * TDP_NS_PER_S + 550000, 0, 16);
	engine_start(r.e);
	struct flow_rx *q = engine_flow_rx(r.e, 0);
	for (uint32_t i = 0; i < 6; i++) {
		struct rte_mbuf *m = mk(0, r.seq[0]++, 200);
		engine_pkt_set_due(m, ENGINE_DUE_NONE);
		assert_int_equal(flowq_enqueue(q, &m, 1), 1);
	}
	char err[256];
	struct eng_table *nt = engine_table_build(r.e, parse_ok(table_pipe), err, sizeof(err));
	assert_non_null(nt);
	int64_t at = engine_table_boundary(r.e, nt, engine_next_frame(r.e) + 2);
	assert_int_equal(engine_table_offer(r.e, nt, at, err, sizeof(err)), 0);
	size_t from = txlog.n;
	while (engine_next_frame(r.e) <= at + 4)
		engine_step(r.e);
	assert_int_equal(engine_table_adopted(nt), at);
	const struct frame_geom *g = engine_geom(r.e);
	uint32_t seq = 0;
	for (size_t i = from; i < txlog.n; i++) {
		assert_int_equal(txlog.v[i].flow, 0);
		assert_int_equal(txlog.v[i].seq, seq);
		int64_t f = frame_index(g, tdp_time(txlog.v[i].t));
		assert_true(f == at || f == at + 3 || f == at + 4);
		seq++;
	}
	assert_int_equal(seq, 6);
	struct flow_stats fs;
	engine_flow_stats(r.e, 0, &fs);
	assert_int_equal(fs.arr_late_dropped + fs.arr_late_carried, 0);
	engine_table_retire(r.e, nt);
	drain_all(&r);
	rig_down(&r);
}

static void pipelined_dropping_late_arrivals(void **state)
{
	pipelined(LATE_DROP);
}

static void pipelined_carrying_late_arrivals(void **state)
{
	pipelined(LATE_CARRY);
}

TDP_TEST_MAIN(cmocka_unit_test(swap_to_pipelined_keeps_queued),
	      cmocka_unit_test(pipelined_dropping_late_arrivals),
	      cmocka_unit_test(pipelined_carrying_late_arrivals))
