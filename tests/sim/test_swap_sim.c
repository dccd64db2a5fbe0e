/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Table swaps: at the cycle boundary, across a stall, to a million frames, and
 * refused.
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

static const char swap_t1[] = "tdp-schedule 1\ntf 100us\nk 10\nguard 2us\n"
			      "port out rate 1Gbit/s\n"
			      "flow a port out size 200 udp-dport 1\n"
			      "flow b port out size 300 udp-dport 2\n"
			      "flow c port out size 100 udp-dport 3\n"
			      "frames 0-9/2: a 1\n"
			      "frames 3: b 2\n"
			      "frames 7: c 1\n";

/* k 20, the flows in another order, a with more per frame (its carry array
 * grows), c gone, d new */
static const char swap_t2[] = "tdp-schedule 1\ntf 100us\nk 20\nguard 2us\n"
			      "port out rate 1Gbit/s\n"
			      "flow b port out size 300 udp-dport 2\n"
			      "flow a port out size 200 udp-dport 1\n"
			      "flow d port out size 150 udp-dport 4\n"
			      "frames 1-19/2: a 2\n"
			      "frames 0: b 1\n"
			      "frames 5,15: d 3\n";

/* flows are tagged by name across tables: a=0, b=1, ... */
static uint32_t gid(const struct sched_table *t, uint32_t f)
{
	return (uint32_t)(t->flows[f].name[0] - 'a');
}

static void swap_top_up(struct rig *r, uint32_t want)
{
	const struct sched_table *t = engine_table_sched(engine_table_current(r->e));
	for (uint32_t f = 0; f < t->nflows; f++) {
		struct flow_rx *q = engine_flow_rx(r->e, f);
		uint32_t g = gid(t, f);
		while (flowq_count(q) < want) {
			struct rte_mbuf *m = mk((int32_t)g, r->seq[g]++, t->flows[f].size);
			assert_int_equal(flowq_enqueue(q, &m, 1), 1);
		}
	}
}

/* What the table says flow g (by name) gets in frame j. */
static uint32_t want_n(const struct sched_table *t, const struct frame_geom *g, int64_t j,
		       uint32_t id)
{
	uint32_t tfc = (uint32_t)(((j % t->k) + t->k) % t->k);
	(void)g;
	for (uint32_t f = 0; f < t->nflows; f++)
		if (gid(t, f) == id)
			return row_n(t, tfc, f);
	return 0;
}

/* Steps n frames; each must be the one after the last, and carry exactly the
 * packets of the table in force for it: t1 before frame J, t2 from J on. */
static int64_t swap_run(struct rig *r, int n, int64_t last, int64_t J, const struct sched_table *t1,
			const struct sched_table *t2, uint32_t *next_seq, uint64_t *sent)
{
	const struct frame_geom *g = engine_geom(r->e);
	for (int i = 0; i < n; i++) {
		swap_top_up(r, 8);
		size_t from = txlog.n;
		int64_t j = engine_step(r->e);
		drain_all(r);
		if (last != INT64_MIN && j != last + 1)
			fail_msg("frame %lld after %lld: a frame was missed or served twice",
				 (long long)j, (long long)last);
		last = j;
		uint32_t got[8] = {0};
		for (size_t x = from; x < txlog.n; x++) {
			const struct txrec *t = &txlog.v[x];
			if (t->flow < 0)
				continue;
			assert_int_equal(frame_index(g, tdp_time(t->t)), j);
			assert_int_equal(t->seq, next_seq[t->flow]);
			next_seq[t->flow]++;
			got[t->flow]++;
			sent[t->flow]++;
		}
		const struct sched_table *t = j < J ? t1 : t2;
		for (uint32_t id = 0; id < 8; id++)
			if (got[id] != want_n(t, g, j, id))
				fail_msg("frame %lld (%s, adoption at %lld): flow %c sent %u, the "
					 "table says %u",
					 (long long)j, j < J ? "old table" : "new table",
					 (long long)J, 'a' + id, got[id], want_n(t, g, j, id));
	}
	return last;
}

/* A swap at the next cycle boundary of both tables (lcm of 10 and 20): frames
 * before it served by the old table, from it by the new, none missed or
 * twice; kept flows keep their queue, order and counters; the removed flow's
 * queued packets are dropped and counted when the old table is retired. */
static void swap_at_the_cycle_boundary(void **state)
{
	struct rig r;
	rig_up(&r, swap_t1, LATE_CARRY, 1000 * TDP_NS_PER_S + 1234567, 20000, 64);
	engine_start(r.e);
	uint32_t next_seq[8] = {0};
	uint64_t sent[8] = {0};
	struct sched_table *t1 = parse_ok(swap_t1);
	int64_t last = swap_run(&r, 23, INT64_MIN, INT64_MAX, t1, t1, next_seq, sent);

	char err[256];
	struct sched_table *t2 = parse_ok(swap_t2);
	const struct sched_table *t2_view = t2;
	struct eng_table *nt = engine_table_build(r.e, t2, err, sizeof(err));
	if (!nt)
		fail_msg("build: %s", err);
	int64_t next = engine_next_frame(r.e);
	/* too close: the engine may be staging it */
	assert_int_equal(engine_table_offer(r.e, nt, next + 1, err, sizeof(err)), -EAGAIN);
	assert_non_null(strstr(err, "too close"));
	int64_t J = engine_table_boundary(r.e, nt, next + 2);
	assert_true(J >= next + 2 && J < next + 2 + 20);
	assert_int_equal(J % 20, 0);
	/* a frame in the middle of a cycle moves to the next common boundary */
	assert_int_equal(engine_table_boundary(r.e, nt, J + 1), J + 20);
	assert_int_equal(engine_table_boundary(r.e, nt, J), J);
	assert_int_equal(engine_table_offer(r.e, nt, J, err, sizeof(err)), 0);
	assert_ptr_equal(engine_table_pending(r.e), nt);
	/* one swap at a time */
	struct sched_table *t3 = parse_ok(swap_t2);
	assert_null(engine_table_build(r.e, t3, err, sizeof(err)));
	assert_non_null(strstr(err, "already waiting"));
	sched_free(t3);
	assert_int_equal(engine_table_adopted(nt), INT64_MIN);

	last = swap_run(&r, (int)(J - next) + 45, last, J, t1, t2_view, next_seq, sent);
	assert_int_equal(engine_table_adopted(nt), J);
	assert_ptr_equal(engine_table_current(r.e), nt);
	assert_null(engine_table_pending(r.e));
	struct eng_stats es;
	engine_stats(r.e, &es);
	assert_int_equal(es.swaps, 1);
	assert_int_equal(es.late_swaps, 0);
	assert_int_equal(es.last_swap_frame, J);
	assert_int_equal(es.late_frames, 0);
	/* counters of kept flows carry on across the swap: every packet of a and
	 * b ever sent; d counts from J */
	struct flow_stats fs;
	engine_flow_stats(r.e, 1, &fs); /* a, index 1 in t2 */
	assert_int_equal(fs.sent, sent[0]);
	assert_int_equal(fs.reserved, sent[0]);
	engine_flow_stats(r.e, 0, &fs); /* b */
	assert_int_equal(fs.sent, sent[1]);
	engine_flow_stats(r.e, 2, &fs); /* d */
	assert_int_equal(fs.sent, sent[3]);
	assert_true(sent[3] >= 6);
	/* c was topped up to 8 before the swap: those 8 go when the old table is retired */
	assert_true(engine_table_retirable(nt));
	assert_int_equal(engine_table_retire(r.e, nt), 8);
	assert_false(engine_table_retirable(nt));
	last = swap_run(&r, 40, last, J, t1, t2_view, next_seq, sent);
	(void)last;
	sched_free(t1);
	rig_down(&r);
}

/* The engine is away across the adoption frame: the frame before it is late
 * under the old table, the frames skipped from J on are accounted under the
 * new one, and the swap still took effect at J. */
static void swap_across_a_stall(void **state)
{
	struct rig r;
	rig_up(&r, swap_t1, LATE_DROP, 1000 * TDP_NS_PER_S + 50000, 0, 16);
	engine_start(r.e);
	char err[256];
	struct sched_table *t2 = parse_ok(swap_t2);
	struct eng_table *nt = engine_table_build(r.e, t2, err, sizeof(err));
	assert_non_null(nt);
	int64_t J = engine_table_boundary(r.e, nt, engine_next_frame(r.e) + 2);
	assert_int_equal(engine_table_offer(r.e, nt, J, err, sizeof(err)), 0);
	while (engine_next_frame(r.e) < J - 1) {
		swap_top_up(&r, 4);
		engine_step(r.e);
		drain_all(&r);
	}
	assert_int_equal(engine_table_adopted(nt), INT64_MIN);
	struct flow_stats a0, b0, a1, b1;
	/* by the old table's indexes: a 0, b 1 */
	engine_flow_stats(r.e, 0, &a0);
	engine_flow_stats(r.e, 1, &b0);
	/* away 3.5 frames: J-1 late (tfc 9 of t1: nothing), J..J+2 skipped under t2
	 * (tfc 0: b 1; tfc 1: a 2; tfc 2: nothing) */
	late_wakeup(&r, 350000);
	assert_int_equal(engine_table_adopted(nt), J);
	struct eng_stats es;
	engine_stats(r.e, &es);
	assert_int_equal(es.skipped_frames, 3);
	assert_int_equal(es.late_swaps, 0);
	engine_flow_stats(r.e, 1, &a1); /* t2's indexes: b 0, a 1 */
	engine_flow_stats(r.e, 0, &b1);
	assert_int_equal(a1.reserved - a0.reserved, 2);
	assert_int_equal(b1.reserved - b0.reserved, 1);
	assert_int_equal(b1.late_dropped - b0.late_dropped, 1);
	engine_table_retire(r.e, nt);
	rig_down(&r);
}

/* k = 10^6 (TF 1 us, one cycle a second): a swap from k 4 lands on the second,
 * the only frame that starts a cycle of both; the new rows rule from there. */
static void swap_to_a_million_frames(void **state)
{
	static const char small[] = "tdp-schedule 1\ntf 1us\nk 4\n"
				    "port out rate 10Gbit/s\n"
				    "flow a port out size 60 udp-dport 1\n"
				    "frames 0: a 1\n";
	static const char big[] = "tdp-schedule 1\ntf 1us\nk 1000000\n"
				  "port out rate 10Gbit/s\n"
				  "flow a port out size 60 udp-dport 1\n"
				  "flow e port out size 60 udp-dport 5\n"
				  "frames 0-999999/1000: a 1\n"
				  "frames 7, 999999: e 1\n";
	struct rig r;
	rig_up(&r, small, LATE_DROP, 1000 * TDP_NS_PER_S - 60000, 0, 16);
	engine_start(r.e);
	uint32_t next_seq[8] = {0};
	uint64_t sent[8] = {0};
	struct sched_table *t1 = parse_ok(small);
	int64_t last = swap_run(&r, 5, INT64_MIN, INT64_MAX, t1, t1, next_seq, sent);
	char err[256];
	struct sched_table *t2 = parse_ok(big);
	const struct sched_table *t2v = t2;
	struct eng_table *nt = engine_table_build(r.e, t2, err, sizeof(err));
	assert_non_null(nt);
	int64_t J = engine_table_boundary(r.e, nt, engine_next_frame(r.e) + 2);
	assert_int_equal(J, 1000 * 1000000LL); /* TAI second 1000 */
	assert_int_equal(engine_table_offer(r.e, nt, J, err, sizeof(err)), 0);
	int64_t n = J - engine_next_frame(r.e) + 1000;
	last = swap_run(&r, (int)n, last, J, t1, t2v, next_seq, sent);
	assert_int_equal(engine_table_adopted(nt), J);
	/* a: once in each 4 frames before, at J and J+1000 after; e at J+7 */
	assert_int_equal(want_n(t2v, NULL, J + 7, 4), 1);
	assert_true(sent[4] == 1);
	engine_table_retire(r.e, nt);
	sched_free(t1);
	rig_down(&r);
}

/* A table for another frame grid or other ports is refused with the reason;
 * the engine keeps the one it has. */
static void swap_refused(void **state)
{
	struct rig r;
	rig_up(&r, swap_t1, LATE_DROP, 1000 * TDP_NS_PER_S, 0, 16);
	engine_start(r.e);
	char err[256];
	struct sched_table *tf = parse_ok("tdp-schedule 1\ntf 200us\nk 10\nport out rate 1Gbit/s\n"
					  "flow a port out size 200 udp-dport 1\nframes 0: a 1\n");
	assert_null(engine_table_build(r.e, tf, err, sizeof(err)));
	assert_non_null(strstr(err, "needs a restart"));
	sched_free(tf);
	struct sched_table *pt = parse_ok("tdp-schedule 1\ntf 100us\nk 10\nport west rate 1Gbit/s\n"
					  "flow a port west size 200 udp-dport 1\nframes 0: a 1\n");
	assert_null(engine_table_build(r.e, pt, err, sizeof(err)));
	assert_non_null(strstr(err, "ports change only with a restart"));
	sched_free(pt);
	/* built, then thrown away without being offered: the engine is untouched */
	struct eng_table *nt = engine_table_build(r.e, parse_ok(swap_t2), err, sizeof(err));
	assert_non_null(nt);
	engine_table_discard(r.e, nt);
	for (int i = 0; i < 30; i++) {
		top_up(&r, 4, 0, NULL, 0);
		engine_step(r.e);
		drain_all(&r);
	}
	struct eng_stats es;
	engine_stats(r.e, &es);
	assert_int_equal(es.swaps, 0);
	assert_ptr_equal(engine_table_sched(engine_table_current(r.e)), r.t);
	/* offered, then withdrawn before its frame: never adopted, and the next
	 * offer goes through; one the engine has taken cannot be withdrawn */
	nt = engine_table_build(r.e, parse_ok(swap_t2), err, sizeof(err));
	assert_non_null(nt);
	int64_t at = engine_table_boundary(r.e, nt, engine_next_frame(r.e) + 2);
	assert_int_equal(engine_table_offer(r.e, nt, at, err, sizeof(err)), 0);
	assert_int_equal(engine_table_withdraw(r.e, nt), 0);
	assert_null(engine_table_pending(r.e));
	while (engine_next_frame(r.e) <= at + 10) {
		top_up(&r, 4, 0, NULL, 0);
		engine_step(r.e);
		drain_all(&r);
	}
	engine_stats(r.e, &es);
	assert_int_equal(es.swaps, 0);
	assert_ptr_equal(engine_table_sched(engine_table_current(r.e)), r.t);
	nt = engine_table_build(r.e, parse_ok(swap_t2), err, sizeof(err));
	assert_non_null(nt);
	at = engine_table_boundary(r.e, nt, engine_next_frame(r.e) + 2);
	assert_int_equal(engine_table_offer(r.e, nt, at, err, sizeof(err)), 0);
	while (engine_table_adopted(nt) == INT64_MIN) {
		top_up(&r, 4, 0, NULL, 0);
		engine_step(r.e);
		drain_all(&r);
	}
	assert_int_equal(engine_table_withdraw(r.e, nt), -EALREADY);
	assert_int_equal(engine_table_adopted(nt), at);
	engine_table_retire(r.e, nt);
	rig_down(&r);
}

/* ---- pipelined flows ------------------------------------------------------ */

/* alpha 2: what the upstream node sends in frames 8, 1 and 2 of its cycle
 * goes out here in frames 0, 3 and 4 (two packets each). */

TDP_TEST_MAIN(cmocka_unit_test(swap_at_the_cycle_boundary), cmocka_unit_test(swap_across_a_stall),
	      cmocka_unit_test(swap_to_a_million_frames), cmocka_unit_test(swap_refused))
