/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The frame engine's clock: steps of the reference forward and back, drift,
 * the sync actions (serve, alarm, demote), and frames driven by the bc635
 * source's tick over the card's simulator.
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

static int64_t run_checked(struct rig *r, int n, int64_t last, uint32_t *next_seq)
{
	const struct frame_geom *g = engine_geom(r->e);
	for (int i = 0; i < n; i++) {
		top_up(r, 4, 4, (const uint32_t[]){300}, 1);
		size_t from = txlog.n;
		int64_t j = step(r);
		drain_all(r);
		check_wire(r, from, txlog.n);
		assert_true(j > last);
		last = j;
		for (size_t x = from; x < txlog.n; x++) {
			const struct txrec *t = &txlog.v[x];
			if (t->flow < 0)
				continue;
			int64_t f = frame_index(g, tdp_time(t->t));
			assert_int_equal(f, j);
			assert_true(row_n(r->t, frame_tfc(g, f), (uint32_t)t->flow) > 0);
			assert_int_equal(t->seq, next_seq[t->flow]);
			next_seq[t->flow]++;
		}
	}
	return last;
}

/* The reference steps forward 3.5 frames between two frames: the frames passed
 * over are skipped and counted once, as one event; nothing leaves out of its
 * frame. */
static void step_forward_skips(void **state)
{
	struct rig r;
	rig_up(&r, table_late, LATE_CARRY, 1000 * TDP_NS_PER_S + 500000, 0, 16);
	uint32_t seq[2] = {0, 0};
	int64_t last = run_checked(&r, 15, INT64_MIN, seq);
	tb_sim_advance(r.tb, 3500000);
	last = run_checked(&r, 1, last, seq);
	struct eng_stats es;
	engine_stats(r.e, &es);
	/* pushed j-1 just after its start; 3.5 frames on is half-way into j+2 */
	assert_int_equal(es.skip_events, 1);
	assert_int_equal(es.skipped_frames, 2);
	assert_int_equal(es.last_jump_frames, 2);
	assert_int_equal(es.back_steps, 0);
	run_checked(&r, 30, last, seq);
	engine_stats(r.e, &es);
	assert_int_equal(es.skip_events, 1);
	assert_int_equal(es.repeated_frames, 0);
	rig_down(&r);
}

/* The reference steps back 3.5 frames: the starts of the last four frames
 * pushed come round again. Their rows are not sent twice: the next frame pushed
 * is the first not yet pushed, at its start on the new time line. */
static void step_back_repeats_no_row(void **state)
{
	for (int be_poll = 0; be_poll < 2; be_poll++) {
		struct rig r;
		rig_up(&r, table_late, LATE_DROP, 1000 * TDP_NS_PER_S + 500000,
		       be_poll ? 100000 : 0, 16);
		uint32_t seq[2] = {0, 0};
		int64_t last = run_checked(&r, 15, INT64_MIN, seq);
		tb_sim_advance(r.tb, -3500000);
		size_t from = txlog.n;
		int64_t j = engine_step(r.e);
		drain_all(&r);
		assert_int_equal(j, last + 1);
		struct eng_stats es;
		engine_stats(r.e, &es);
		assert_int_equal(es.back_steps, 1);
		assert_int_equal(es.repeated_frames, 4);
		assert_int_equal(es.last_jump_frames, -4);
		assert_int_equal(es.skipped_frames, 0);
		assert_int_equal(es.late_frames, 0);
		/* whatever left in frame j left at its start, none before */
		const struct frame_geom *g = engine_geom(r.e);
		for (size_t x = from; x < txlog.n; x++)
			if (txlog.v[x].flow >= 0)
				assert_int_equal(frame_index(g, tdp_time(txlog.v[x].t)), j);
		/* the lost sequence numbers: none; flows go on where they were */
		for (size_t x = from; x < txlog.n; x++)
			if (txlog.v[x].flow >= 0)
				seq[txlog.v[x].flow]++;
		run_checked(&r, 30, j, seq);
		struct flow_stats fs;
		engine_flow_stats(r.e, 0, &fs);
		assert_int_equal(fs.late_dropped, 0);
		assert_int_equal(fs.sent, seq[0]);
		rig_down(&r);
	}
}

/* An oscillator 200 ppm fast or slow: sleeps end early or late, the poll to
 * the boundary takes up the difference; no frame is late or skipped. */
static void drift_keeps_frames(void **state)
{
	for (int sign = -1; sign <= 1; sign += 2) {
		struct rig r;
		rig_up(&r, table_late, LATE_DROP, 1000 * TDP_NS_PER_S + 500000, 0, 16);
		tb_sim_set_drift(r.tb, sign * 200000);
		uint32_t seq[2] = {0, 0};
		run_checked(&r, 2000, INT64_MIN, seq);
		struct eng_stats es;
		engine_stats(r.e, &es);
		assert_int_equal(es.late_frames + es.skipped_frames + es.repeated_frames, 0);
		struct flow_stats fs;
		engine_flow_stats(r.e, 0, &fs);
		assert_int_equal(fs.sent, 600); /* a: 3 per cycle of 10 frames */
		assert_int_equal(seq[0], 600);
		rig_down(&r);
	}
}

/* What the engine does in each sync state, as configured. */
static void sync_actions(void **state)
{
	struct rig r;
	struct rig_opts o = {.hold = SA_SERVE, .unl = SA_ALARM};
	rig_up_with(&r, table_late, LATE_DROP, 1000 * TDP_NS_PER_S + 500000, 0, 16, &o);
	uint32_t seq[2] = {0, 0};
	int64_t last = run_checked(&r, 10, INT64_MIN, seq);
	tb_sim_set_state(r.tb, TB_HOLDOVER, "test");
	last = run_checked(&r, 10, last, seq);
	tb_sim_set_state(r.tb, TB_UNLOCKED, "test");
	run_checked(&r, 10, last, seq);
	struct eng_stats es;
	engine_stats(r.e, &es);
	assert_int_equal(es.holdover_frames, 10);
	assert_int_equal(es.unlocked_frames, 10);
	assert_int_equal(es.alarm_frames, 10);
	assert_int_equal(es.demoted_frames, 0);
	struct flow_stats fs;
	engine_flow_stats(r.e, 0, &fs);
	assert_int_equal(fs.sent, 9); /* served all along: 3 cycles x 3 */
	rig_down(&r);

	/* demote when unlocked: no row staged; reserved packets leave as best
	 * effort within the guard bands; locked again, the rows come back */
	o.unl = SA_DEMOTE;
	rig_up_with(&r, table_late, LATE_DROP, 1000 * TDP_NS_PER_S + 500000, 0, 16, &o);
	memset(seq, 0, sizeof(seq));
	last = run_checked(&r, 10, INT64_MIN, seq);
	engine_flow_stats(r.e, 0, &fs);
	uint64_t reserved0 = fs.reserved;
	tb_sim_set_state(r.tb, TB_UNLOCKED, "test");
	uint64_t demoted_seen = 0;
	for (int i = 0; i < 10; i++) {
		/* no best effort of the port's own: demoted packets go behind it */
		top_up(&r, 4, 0, NULL, 0);
		size_t from = txlog.n;
		last = engine_step(r.e);
		drain_all(&r);
		check_wire(&r, from, txlog.n);
		for (size_t x = from; x < txlog.n; x++)
			if (txlog.v[x].flow >= 0) {
				assert_int_equal(txlog.v[x].seq, seq[txlog.v[x].flow]);
				seq[txlog.v[x].flow]++;
				demoted_seen++;
			}
	}
	engine_flow_stats(r.e, 0, &fs);
	struct flow_stats fb;
	engine_flow_stats(r.e, 1, &fb);
	assert_int_equal(fs.reserved, reserved0); /* no reservation served */
	assert_true(demoted_seen > 10);		  /* far more than the rows would have sent */
	assert_int_equal(fs.demoted + fb.demoted, demoted_seen);
	engine_stats(r.e, &es);
	assert_int_equal(es.demoted_frames, 10);
	struct port_stats ps;
	engine_port_stats(r.e, 0, &ps);
	assert_true(ps.be_pkts >= demoted_seen);
	tb_sim_set_state(r.tb, TB_LOCKED, "test");
	/* drain what demotion left queued or held, then rows as before */
	for (int i = 0; i < 3; i++) {
		engine_step(r.e);
		drain_all(&r);
	}
	for (size_t x = 0; x < txlog.n; x++)
		if (txlog.v[x].flow >= 0 && txlog.v[x].seq >= seq[txlog.v[x].flow])
			seq[txlog.v[x].flow] = txlog.v[x].seq + 1;
	run_checked(&r, 20, engine_next_frame(r.e) - 1, seq);
	engine_flow_stats(r.e, 0, &fs);
	assert_true(fs.reserved > reserved0);
	rig_down(&r);
}

/* The sync budget: a quarter of the guard band (10 us: 2.5 us) without a
 * sync-error, the sync-error with one, none without either. Locked, an
 * uncertainty past it counts the frame over budget and applies the budget
 * action (alarm: still served; demote: no row staged); within it, nothing. */
static void sync_budget_actions(void **state)
{
	(void)state;
	struct rig r;
	struct rig_opts o = {.hold = SA_SERVE, .unl = SA_SERVE, .budget = SA_ALARM};
	rig_up_with(&r, table_late, LATE_DROP, 1000 * TDP_NS_PER_S + 500000, 0, 16, &o);
	uint32_t seq[2] = {0, 0};
	int64_t last = run_checked(&r, 10, INT64_MIN, seq);
	tb_force(r.tb, tb_sim_time(r.tb), TB_LOCKED, 0, 2500,
		 "within: a quarter of the guard band");
	last = run_checked(&r, 10, last, seq);
	struct eng_stats es;
	engine_stats(r.e, &es);
	assert_int_equal(es.over_budget_frames, 0);
	tb_force(r.tb, tb_sim_time(r.tb), TB_LOCKED, 0, 2501, "past it");
	run_checked(&r, 10, last, seq);
	engine_stats(r.e, &es);
	assert_int_equal(es.over_budget_frames, 10);
	assert_int_equal(es.alarm_frames, 0); /* the state's own action: locked */
	assert_int_equal(es.demoted_frames, 0);
	struct flow_stats fs;
	engine_flow_stats(r.e, 0, &fs);
	assert_int_equal(fs.sent, 9); /* served all along: 3 cycles x 3 */
	rig_down(&r);

	o.budget = SA_DEMOTE;
	rig_up_with(&r, table_late, LATE_DROP, 1000 * TDP_NS_PER_S + 500000, 0, 16, &o);
	memset(seq, 0, sizeof(seq));
	run_checked(&r, 10, INT64_MIN, seq);
	engine_flow_stats(r.e, 0, &fs);
	uint64_t reserved0 = fs.reserved;
	tb_force(r.tb, tb_sim_time(r.tb), TB_LOCKED, 0, 40000, "far past it");
	for (int i = 0; i < 10; i++) {
		engine_step(r.e);
		drain_all(&r);
	}
	engine_stats(r.e, &es);
	engine_flow_stats(r.e, 0, &fs);
	assert_int_equal(es.over_budget_frames, 10);
	assert_int_equal(es.demoted_frames, 10);
	assert_int_equal(fs.reserved, reserved0); /* no reservation served */
	rig_down(&r);

	/* the table's sync-error is the budget; a table with neither has none */
	static const char with_sync[] =
		"tdp-schedule 1\ntf 1ms\nk 10\nguard 10us\nsync-error 1us\n"
		"port out rate 10Mbit/s\nflow a port out size 100 udp-dport 1\n"
		"flow b port out size 100 udp-dport 2\nframes 0: a 1\n";
	static const char no_band[] =
		"tdp-schedule 1\ntf 1ms\nk 10\nport out rate 10Mbit/s\n"
		"flow a port out size 100 udp-dport 1\nflow b port out size 100 udp-dport 2\n"
		"frames 0: a 1\n";
	const char *tabs[] = {with_sync, no_band};
	const uint64_t want[] = {10, 0};
	o.budget = SA_ALARM;
	for (int i = 0; i < 2; i++) {
		rig_up_with(&r, tabs[i], LATE_DROP, 1000 * TDP_NS_PER_S + 500000, 0, 16, &o);
		tb_force(r.tb, tb_sim_time(r.tb), TB_LOCKED, 0, 1500, "1.5 us");
		for (int n = 0; n < 10; n++) {
			engine_step(r.e);
			drain_all(&r);
		}
		engine_stats(r.e, &es);
		assert_int_equal(es.over_budget_frames, want[i]);
		rig_down(&r);
	}
}

/* The tick-driven engine: the bc635 heartbeat (simulated, on the sim clock)
 * gives each frame's tick; every frame is still exact. A lost interrupt is a
 * tick timeout for one frame and a missed tick for the source, a doubled one
 * is ignored; neither moves a packet out of its frame. */
static void tick_driven_frames(void **state)
{
	struct rig r;
	struct rig_opts o = {.hold = SA_SERVE, .unl = SA_SERVE, .bc635 = true};
	rig_up_with(&r, table_late, LATE_DROP, 1000 * TDP_NS_PER_S + 500000, 0, 16, &o);
	uint32_t seq[2] = {0, 0};
	int64_t last = run_checked(&r, 200, INT64_MIN, seq);
	struct eng_stats es;
	engine_stats(r.e, &es);
	assert_int_equal(es.ticks, 200);
	assert_int_equal(es.tick_timeouts, 0);
	assert_int_equal(es.late_frames + es.skipped_frames, 0);
	assert_int_equal(tb_state(r.bctb), TB_LOCKED);
	/* each tick is taken after the start of its frame, never before */
	const struct hist *th = engine_tick_hist(r.e);
	assert_true(th->count >= 199); /* the first tick came before the engine started */
	assert_true(th->min >= 0);
	bcsim_lose(r.sim, 1);
	last = run_checked(&r, 10, last, seq);
	bcsim_double(r.sim, 1);
	run_checked(&r, 10, last, seq);
	engine_stats(r.e, &es);
	assert_int_equal(es.tick_timeouts, 1);
	assert_int_equal(es.ticks, 219);
	assert_int_equal(es.late_frames + es.skipped_frames, 0);
	struct tb_tick_stats ts;
	tb_tick_stats(r.bctb, &ts);
	assert_int_equal(ts.missed, 1);
	/* the doubled interrupt may merge with the next edge's (one eventfd read) */
	assert_true(ts.doubled <= 1);
	struct flow_stats fs;
	engine_flow_stats(r.e, 0, &fs);
	assert_int_equal(fs.sent, seq[0]);
	assert_int_equal(fs.sent, 66); /* a: 3 per 10 frames over 220 frames */
	rig_down(&r);
}

/* ---- table swap -------------------------------------------------------- */

TDP_TEST_MAIN(cmocka_unit_test(step_forward_skips), cmocka_unit_test(step_back_repeats_no_row),
	      cmocka_unit_test(drift_keeps_frames), cmocka_unit_test(sync_actions),
	      cmocka_unit_test(sync_budget_actions), cmocka_unit_test(tick_driven_frames))
