/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The frame engine against the sim timebase and in-memory DPDK ports (the
 * rig, rig.h): the tests check, exactly, in which frame each packet left and
 * how long it occupied the wire. No wall-clock time is involved anywhere.
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

#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "bc635_sim.h"
#include "dpdk_env.h"
#include "engine.h"
#include "frame.h"
#include "rig.h"
#include "testutil.h"

static const char table_multi[] =
	"tdp-schedule 1\ntf 100us\nk 100\nguard 2us\n"
	"port out rate 1Gbit/s\n"
	"port aux rate 100Mbit/s\n"
	"flow a port out size 200 udp-dport 1\n"
	"flow b port out size 1000 udp-dport 2\n"
	"flow c port aux size 100 udp-dport 3\n"
	"frames 0-98/2: a 3\n"
	"frames 0-90/10: b 2\n"        /* frames 0, 10, ...: a and b share the row */
	"frames 5,6,7: c 2\n"
	"frames 50: a 1, c 1\n";

/* Over 10^5 frames every reserved packet leaves in exactly the frames the
 * table gives its flow, n per frame, in order; best effort never crosses a
 * guard band or a frame start. */
static void every_packet_in_its_frame(void **state)
{
	struct rig r;
	/* start 300 us before a second: the first frame pushed has tfc 98 */
	rig_up(&r, table_multi, LATE_DROP, 1000 * TDP_NS_PER_S - 300000, 20000, 64);
	const uint32_t be_sizes[] = {60, 1514, 400, 1000, 64, 1500, 800};
	const uint32_t frames = 100000;
	uint32_t next_seq[3] = {0, 0, 0};
	uint64_t be_seen = 0;
	const struct frame_geom *g = engine_geom(r.e);
	for (uint32_t i = 0; i < frames; i++) {
		top_up(&r, 8, 24, be_sizes, 7);
		size_t from = txlog.n;
		int64_t j = engine_step(r.e);
		drain_all(&r);
		check_wire(&r, from, txlog.n);
		uint32_t tfc = frame_tfc(g, j);
		uint32_t got[3] = {0, 0, 0};
		for (size_t x = from; x < txlog.n; x++) {
			const struct txrec *t = &txlog.v[x];
			if (t->flow < 0) {
				be_seen++;
				continue;
			}
			assert_int_equal(frame_index(g, tdp_time(t->t)), j);
			assert_int_equal(t->seq, next_seq[t->flow]);
			next_seq[t->flow]++;
			got[t->flow]++;
		}
		for (uint32_t f = 0; f < 3; f++)
			if (got[f] != row_n(r.t, tfc, f))
				fail_msg("frame %lld (tfc %u): flow %u sent %u, table says %u", (long long)j, tfc, f,
					 got[f], row_n(r.t, tfc, f));
	}
	/* a: 50 frames x 3 + 1 per cycle; b: 10 x 2; c: 3 x 2 + 1 -- per 100 frames */
	struct flow_stats fs;
	engine_flow_stats(r.e, 0, &fs);
	assert_int_equal(fs.sent, frames / 100 * 151);
	assert_int_equal(fs.reserved, fs.sent);
	assert_int_equal(fs.unused + fs.late_dropped + fs.late_carried + fs.tx_drop, 0);
	engine_flow_stats(r.e, 1, &fs);
	assert_int_equal(fs.sent, frames / 100 * 20);
	engine_flow_stats(r.e, 2, &fs);
	assert_int_equal(fs.sent, frames / 100 * 7);
	struct eng_stats es;
	engine_stats(r.e, &es);
	assert_int_equal(es.frames, frames);
	assert_int_equal(es.late_frames, 0);
	/* best effort did flow, and filled more than one packet per frame */
	assert_true(be_seen > frames);
	struct port_stats ps;
	engine_port_stats(r.e, 0, &ps);
	assert_int_equal(ps.be_too_big, 0);
	assert_int_equal(ps.frames, frames / 100 * 50);   /* frames with a reservation on out */
	/* the frame-start error: the sim costs 20 ns per read, nothing oversleeps */
	const struct hist *h = engine_error_hist(r.e);
	assert_int_equal(h->count, frames);
	assert_true(h->min >= 0);
	assert_true(h->max <= 40);
	rig_down(&r);
}

static const char table_late[] =
	"tdp-schedule 1\ntf 1ms\nk 10\nguard 10us\n"
	"port out rate 10Mbit/s\n"
	"flow a port out size 100 udp-dport 1\n"
	"flow b port out size 100 udp-dport 2\n"
	"frames 0: a 2\n"
	"frames 2: b 1\n"
	"frames 4: a 1\n";

/* Runs until the frame to push next has this tfc. */
static void run_to_tfc(struct rig *r, uint32_t tfc)
{
	for (int i = 0; i < 20 && frame_tfc(engine_geom(r->e), engine_next_frame(r->e)) != tfc; i++) {
		top_up(r, 4, 0, NULL, 0);
		engine_step(r->e);
		drain_all(r);
	}
	assert_int_equal(frame_tfc(engine_geom(r->e), engine_next_frame(r->e)), tfc);
}

/* The log of one flow's sequence numbers, with the tfc each left in. */
static size_t seqs_of(const struct rig *r, int32_t flow, size_t from, uint32_t *seq, uint32_t *tfc, size_t max)
{
	size_t n = 0;
	for (size_t i = from; i < txlog.n && n < max; i++)
		if (txlog.v[i].flow == flow) {
			seq[n] = txlog.v[i].seq;
			tfc[n] = frame_tfc(engine_geom(r->e), frame_index(engine_geom(r->e), tdp_time(txlog.v[i].t)));
			n++;
		}
	return n;
}

static void late_wakeup(struct rig *r, int64_t stall_ns)
{
	/* the next sleep ends stall_ns after the predicted wake-up */
	tb_sim_stall(r->tb, stall_ns);
	top_up(r, 4, 0, NULL, 0);
	engine_step(r->e);
	drain_all(r);
}

static void late_frame_dropped(void **state)
{
	struct rig r;
	rig_up(&r, table_late, LATE_DROP, 1000 * TDP_NS_PER_S + 500000, 0, 16);
	run_to_tfc(&r, 0);
	size_t from = txlog.n;
	/* wakes 1.5 frames late: frame tfc 0 and tfc 1 are late; a's 2 packets dropped */
	late_wakeup(&r, 1500000);
	struct flow_stats fs;
	engine_flow_stats(r.e, 0, &fs);
	assert_int_equal(fs.late_dropped, 2);
	assert_int_equal(fs.late_frames, 1);
	struct eng_stats es;
	engine_stats(r.e, &es);
	assert_int_equal(es.late_frames, 1);
	assert_int_equal(es.skipped_frames, 1);
	/* continue one full cycle */
	for (int i = 0; i < 12; i++) {
		top_up(&r, 4, 0, NULL, 0);
		engine_step(r.e);
		drain_all(&r);
	}
	check_wire(&r, from, txlog.n);
	uint32_t seq[16], tfc[16];
	size_t n = seqs_of(&r, 0, from, seq, tfc, 16);
	assert_true(n >= 3);
	/* the dropped pair never shows up; what follows left in a's own frames */
	uint32_t first = seq[0];
	assert_int_equal(tfc[0], 4);
	for (size_t i = 0; i < n; i++) {
		assert_true(tfc[i] == 0 || tfc[i] == 4);
		if (i)
			assert_true(seq[i] == seq[i - 1] + 1);
	}
	/* a's frame-0 packets (queued first) were the two dropped */
	engine_flow_stats(r.e, 0, &fs);
	assert_int_equal(fs.sent + fs.late_dropped + rte_ring_count(engine_flow_ring(r.e, 0)), r.seq[0]);
	(void)first;
	rig_down(&r);
}

static void late_frame_carried(void **state)
{
	struct rig r;
	rig_up(&r, table_late, LATE_CARRY, 1000 * TDP_NS_PER_S + 500000, 0, 16);
	run_to_tfc(&r, 0);
	uint32_t seq[16], tfc[16];
	size_t before = txlog.n;
	/* sequence numbers a had sent so far */
	struct flow_stats fs;
	engine_flow_stats(r.e, 0, &fs);
	uint32_t expect_next = (uint32_t)fs.sent;
	late_wakeup(&r, 1500000);
	engine_flow_stats(r.e, 0, &fs);
	assert_int_equal(fs.late_carried, 2);
	assert_int_equal(fs.late_dropped, 0);
	for (int i = 0; i < 12; i++) {
		top_up(&r, 4, 0, NULL, 0);
		engine_step(r.e);
		drain_all(&r);
	}
	check_wire(&r, before, txlog.n);
	size_t n = seqs_of(&r, 0, before, seq, tfc, 16);
	/* nothing lost: the carried pair goes first, in a's next reserved frame (tfc 4
	 * reserves 1, so one there, the other in tfc 0 of the next cycle) */
	assert_true(n >= 3);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(seq[i], expect_next + i);
		assert_true(tfc[i] == 0 || tfc[i] == 4);
	}
	assert_int_equal(tfc[0], 4);
	assert_int_equal(tfc[1], 0);
	rig_down(&r);
}

static void late_on_the_port_within_the_frame(void **state)
{
	struct rig r;
	rig_up(&r, table_late, LATE_DROP, 1000 * TDP_NS_PER_S + 500000, 0, 16);
	run_to_tfc(&r, 0);
	/* wake inside frame tfc 0, 50 us before its guard band: a's 2 x 100 B need
	 * 2 x 99.2 us at 10 Mbit/s, so they would spill into the guard band */
	int64_t lead = pw_lead_ns(engine_pw(r.e));
	size_t from = txlog.n;
	late_wakeup(&r, lead + 1000000 - 10000 - 50000);
	struct flow_stats fs;
	engine_flow_stats(r.e, 0, &fs);
	assert_int_equal(fs.late_dropped, 2);
	struct port_stats ps;
	engine_port_stats(r.e, 0, &ps);
	assert_int_equal(ps.late_frames, 1);
	struct eng_stats es;
	engine_stats(r.e, &es);
	assert_int_equal(es.skipped_frames, 0);
	for (size_t i = from; i < txlog.n; i++)
		assert_true(txlog.v[i].flow != 0);
	rig_down(&r);
}

static void skipped_frames_accounted(void **state)
{
	for (int pol = 0; pol < 2; pol++) {
		struct rig r;
		rig_up(&r, table_late, pol ? LATE_CARRY : LATE_DROP, 1000 * TDP_NS_PER_S + 500000, 0, 16);
		run_to_tfc(&r, 0);
		/* away for 3.5 frames: tfc 0 late, tfc 1..3 skipped (b's frame 2 among them) */
		late_wakeup(&r, 3500000);
		struct eng_stats es;
		engine_stats(r.e, &es);
		assert_int_equal(es.skipped_frames, 3);
		struct flow_stats fb;
		engine_flow_stats(r.e, 1, &fb);
		assert_int_equal(fb.late_frames, 1);
		if (pol == 0) {
			assert_int_equal(fb.late_dropped, 1);
		} else {
			assert_int_equal(fb.late_dropped, 0);
			assert_int_equal(fb.late_slots, 1);
		}
		/* b's next packet leaves in b's next frame 2, never elsewhere */
		size_t from = txlog.n;
		for (int i = 0; i < 12; i++) {
			top_up(&r, 4, 0, NULL, 0);
			engine_step(r.e);
			drain_all(&r);
		}
		uint32_t seq[16], tfc[16];
		size_t n = seqs_of(&r, 1, from, seq, tfc, 16);
		assert_int_equal(n, 1);
		assert_int_equal(tfc[0], 2);
		rig_down(&r);
	}
}

static void best_effort_too_big_and_held(void **state)
{
	struct rig r;
	rig_up(&r, table_late, LATE_DROP, 1000 * TDP_NS_PER_S + 500000, 0, 16);
	/* at 10 Mbit/s a frame leaves 990 us: 1514 B (1230 us) can never fit */
	const uint32_t sizes[] = {1514, 200, 1000};
	top_up(&r, 0, 3, sizes, 3);
	size_t from = txlog.n;
	for (int i = 0; i < 30; i++) {
		engine_step(r.e);
		drain_all(&r);
		if (i < 20)
			top_up(&r, 0, 3, sizes, 3);
	}
	check_wire(&r, from, txlog.n);
	struct port_stats ps;
	engine_port_stats(r.e, 0, &ps);
	assert_true(ps.be_too_big > 0);
	for (size_t i = from; i < txlog.n; i++)
		assert_true(txlog.v[i].len != 1514);
	/* 200 + 1000 B = 1.0 ms of wire with overhead: never both in one frame */
	const struct frame_geom *g = engine_geom(r.e);
	for (size_t i = from + 1; i < txlog.n; i++)
		if (txlog.v[i].len == 1000 && txlog.v[i - 1].len == 200)
			assert_true(frame_index(g, tdp_time(txlog.v[i].t)) !=
				    frame_index(g, tdp_time(txlog.v[i - 1].t)));
	assert_int_equal(ps.be_pkts, txlog.n - from);
	rig_down(&r);
}


/* One frame; on the bc635 path the card's edges up to now happen first. */
/* Steps one frame at a time for n frames with every queue topped up; checks
 * that each reserved packet leaves in a frame its flow owns, in order, and that
 * no frame index is pushed twice. Returns the last frame pushed. */
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
		rig_up(&r, table_late, LATE_DROP, 1000 * TDP_NS_PER_S + 500000, be_poll ? 100000 : 0, 16);
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
		assert_int_equal(fs.sent, 600);     /* a: 3 per cycle of 10 frames */
		assert_int_equal(seq[0], 600);
		rig_down(&r);
	}
}

/* What the engine does in each sync state, as configured. */
static void sync_actions(void **state)
{
	struct rig r;
	rig_hold = SA_SERVE;
	rig_unl = SA_ALARM;
	rig_up(&r, table_late, LATE_DROP, 1000 * TDP_NS_PER_S + 500000, 0, 16);
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
	assert_int_equal(fs.sent, 9);           /* served all along: 3 cycles x 3 */
	rig_down(&r);

	/* demote when unlocked: no row staged; reserved packets leave as best
	 * effort within the guard bands; locked again, the rows come back */
	rig_unl = SA_DEMOTE;
	rig_up(&r, table_late, LATE_DROP, 1000 * TDP_NS_PER_S + 500000, 0, 16);
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
	assert_int_equal(fs.reserved, reserved0);     /* no reservation served */
	assert_true(demoted_seen > 10);               /* far more than the rows would have sent */
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
	rig_hold = rig_unl = SA_SERVE;
}

/* The tick-driven engine: the bc635 heartbeat (simulated, on the sim clock)
 * gives each frame's tick; every frame is still exact. A lost interrupt is a
 * tick timeout for one frame and a missed tick for the source, a doubled one
 * is ignored; neither moves a packet out of its frame. */
static void tick_driven_frames(void **state)
{
	struct rig r;
	rig_bc635 = true;
	rig_up(&r, table_late, LATE_DROP, 1000 * TDP_NS_PER_S + 500000, 0, 16);
	uint32_t seq[2] = {0, 0};
	int64_t last = run_checked(&r, 200, INT64_MIN, seq);
	struct eng_stats es;
	engine_stats(r.e, &es);
	assert_int_equal(es.ticks, 200);
	assert_int_equal(es.tick_timeouts, 0);
	assert_int_equal(es.late_frames + es.skipped_frames, 0);
	assert_int_equal(tb_state(rig_bctb), TB_LOCKED);
	/* each tick is taken after the start of its frame, never before */
	const struct hist *th = engine_tick_hist(r.e);
	assert_true(th->count >= 199); /* the first tick came before the engine started */
	assert_true(th->min >= 0);
	bcsim_lose(rig_sim, 1);
	last = run_checked(&r, 10, last, seq);
	bcsim_double(rig_sim, 1);
	run_checked(&r, 10, last, seq);
	engine_stats(r.e, &es);
	assert_int_equal(es.tick_timeouts, 1);
	assert_int_equal(es.ticks, 219);
	assert_int_equal(es.late_frames + es.skipped_frames, 0);
	struct tb_tick_stats ts;
	tb_tick_stats(rig_bctb, &ts);
	assert_int_equal(ts.missed, 1);
	/* the doubled interrupt may merge with the next edge's (one eventfd read) */
	assert_true(ts.doubled <= 1);
	struct flow_stats fs;
	engine_flow_stats(r.e, 0, &fs);
	assert_int_equal(fs.sent, seq[0]);
	assert_int_equal(fs.sent, 66); /* a: 3 per 10 frames over 220 frames */
	rig_down(&r);
	rig_bc635 = false;
}

/* ---- table swap -------------------------------------------------------- */

static const char swap_t1[] =
	"tdp-schedule 1\ntf 100us\nk 10\nguard 2us\n"
	"port out rate 1Gbit/s\n"
	"flow a port out size 200 udp-dport 1\n"
	"flow b port out size 300 udp-dport 2\n"
	"flow c port out size 100 udp-dport 3\n"
	"frames 0-9/2: a 1\n"
	"frames 3: b 2\n"
	"frames 7: c 1\n";

/* k 20, the flows in another order, a with more per frame (its carry array
 * grows), c gone, d new */
static const char swap_t2[] =
	"tdp-schedule 1\ntf 100us\nk 20\nguard 2us\n"
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
		struct rte_ring *q = engine_flow_ring(r->e, f);
		uint32_t g = gid(t, f);
		while (rte_ring_count(q) < want)
			assert_int_equal(rte_ring_sp_enqueue(q, mk((int32_t)g, r->seq[g]++, t->flows[f].size)), 0);
	}
}

/* What the table says flow g (by name) gets in frame j. */
static uint32_t want_n(const struct sched_table *t, const struct frame_geom *g, int64_t j, uint32_t id)
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
			fail_msg("frame %lld after %lld: a frame was missed or served twice", (long long)j, (long long)last);
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
				fail_msg("frame %lld (%s, adoption at %lld): flow %c sent %u, the table says %u", (long long)j,
					 j < J ? "old table" : "new table", (long long)J, 'a' + id, got[id],
					 want_n(t, g, j, id));
	}
	return last;
}

static struct sched_table *parse_copy(const char *text)
{
	return parse_ok(text);
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
	struct sched_table *t1 = parse_copy(swap_t1);
	int64_t last = swap_run(&r, 23, INT64_MIN, INT64_MAX, t1, t1, next_seq, sent);

	char err[256];
	struct sched_table *t2 = parse_copy(swap_t2);
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
	struct sched_table *t3 = parse_copy(swap_t2);
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
	struct sched_table *t2 = parse_copy(swap_t2);
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
	static const char small[] =
		"tdp-schedule 1\ntf 1us\nk 4\n"
		"port out rate 10Gbit/s\n"
		"flow a port out size 60 udp-dport 1\n"
		"frames 0: a 1\n";
	static const char big[] =
		"tdp-schedule 1\ntf 1us\nk 1000000\n"
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
	struct sched_table *t1 = parse_copy(small);
	int64_t last = swap_run(&r, 5, INT64_MIN, INT64_MAX, t1, t1, next_seq, sent);
	char err[256];
	struct sched_table *t2 = parse_copy(big);
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
	struct sched_table *tf = parse_copy("tdp-schedule 1\ntf 200us\nk 10\nport out rate 1Gbit/s\n"
					    "flow a port out size 200 udp-dport 1\nframes 0: a 1\n");
	assert_null(engine_table_build(r.e, tf, err, sizeof(err)));
	assert_non_null(strstr(err, "needs a restart"));
	sched_free(tf);
	struct sched_table *pt = parse_copy("tdp-schedule 1\ntf 100us\nk 10\nport west rate 1Gbit/s\n"
					    "flow a port west size 200 udp-dport 1\nframes 0: a 1\n");
	assert_null(engine_table_build(r.e, pt, err, sizeof(err)));
	assert_non_null(strstr(err, "ports change only with a restart"));
	sched_free(pt);
	/* built, then thrown away without being offered: the engine is untouched */
	struct eng_table *nt = engine_table_build(r.e, parse_copy(swap_t2), err, sizeof(err));
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
	nt = engine_table_build(r.e, parse_copy(swap_t2), err, sizeof(err));
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
	nt = engine_table_build(r.e, parse_copy(swap_t2), err, sizeof(err));
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
static const char table_pipe[] =
	"tdp-schedule 1\ntf 100us\nk 10\n"
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
		assert_int_equal(rte_ring_sp_enqueue(engine_flow_ring(r->e, 0), m), 0);
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
	int64_t c0 = engine_next_frame(r.e) / 10 + 1, late_u = (c0 + 3) * 10 + 8, lost_u = (c0 + 4) * 10 + 1;
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
			fail_msg("packet of upstream frame %lld left in frame %lld, not %lld", (long long)u, (long long)f,
				 (long long)(u + 2));
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
		assert_int_equal(fs.unused, 2 + 2 + 2); /* + frame 0 of the first cycle: nothing came */
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
	static const char table_inorder[] =
		"tdp-schedule 1\ntf 100us\nk 10\n"
		"port out rate 1Gbit/s\n"
		"flow p port out size 200 udp-dport 1\n"
		"frames 0, 3, 4: p 2\n";
	struct rig r;
	/* frame 5 of a cycle: no reservation before the next cycle */
	rig_up(&r, table_inorder, LATE_DROP, 1000 * TDP_NS_PER_S + 550000, 0, 16);
	engine_start(r.e);
	struct rte_ring *q = engine_flow_ring(r.e, 0);
	for (uint32_t i = 0; i < 6; i++) {
		struct rte_mbuf *m = mk(0, r.seq[0]++, 200);
		engine_pkt_set_due(m, ENGINE_DUE_NONE);
		assert_int_equal(rte_ring_sp_enqueue(q, m), 0);
	}
	char err[256];
	struct eng_table *nt = engine_table_build(r.e, parse_copy(table_pipe), err, sizeof(err));
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_packet_in_its_frame),
		cmocka_unit_test(late_frame_dropped),
		cmocka_unit_test(late_frame_carried),
		cmocka_unit_test(late_on_the_port_within_the_frame),
		cmocka_unit_test(skipped_frames_accounted),
		cmocka_unit_test(best_effort_too_big_and_held),
		cmocka_unit_test(step_forward_skips),
		cmocka_unit_test(step_back_repeats_no_row),
		cmocka_unit_test(drift_keeps_frames),
		cmocka_unit_test(sync_actions),
		cmocka_unit_test(tick_driven_frames),
		cmocka_unit_test(swap_at_the_cycle_boundary),
		cmocka_unit_test(swap_across_a_stall),
		cmocka_unit_test(swap_to_a_million_frames),
		cmocka_unit_test(swap_refused),
		cmocka_unit_test(pipelined_dropping_late_arrivals),
		cmocka_unit_test(pipelined_carrying_late_arrivals),
		cmocka_unit_test(swap_to_pipelined_keeps_queued),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
