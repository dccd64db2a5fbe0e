/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The frame engine against the sim timebase, frame by frame: every packet in
 * its frame, the late policy (dropped, carried, late within the frame),
 * skipped frames, best effort that is too big or held, a row still being
 * staged at its frame's start.
 */
#include <errno.h>
#include <inttypes.h>
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

static const char table_multi[] =
	"tdp-schedule 1\ntf 100us\nk 100\nguard 2us\n"
	"port out rate 1Gbit/s\n"
	"port aux rate 100Mbit/s\n"
	"flow a port out size 200 udp-dport 1\n"
	"flow b port out size 1000 udp-dport 2\n"
	"flow c port aux size 100 udp-dport 3\n"
	"frames 0-98/2: a 3\n"
	"frames 0-90/10: b 2\n" /* frames 0, 10, ...: a and b share the row */
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
				fail_msg("frame %lld (tfc %u): flow %u sent %u, table says %u",
					 (long long)j, tfc, f, got[f], row_n(r.t, tfc, f));
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
	assert_int_equal(ps.frames, frames / 100 * 50); /* frames with a reservation on out */
	/* the frame-start error: the sim costs 20 ns per read, nothing oversleeps */
	const struct hist *h = engine_error_hist(r.e);
	assert_int_equal(h->count, frames);
	assert_true(h->min >= 0);
	assert_true(h->max <= 40);
	rig_down(&r);
}

/* Runs until the frame to push next has this tfc. */
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
	assert_int_equal(fs.sent + fs.late_dropped + flowq_count(engine_flow_rx(r.e, 0)), r.seq[0]);
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
		rig_up(&r, table_late, pol ? LATE_CARRY : LATE_DROP, 1000 * TDP_NS_PER_S + 500000,
		       0, 16);
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

/* A row of 32 flows, a packet each, in every frame of a cycle of one. */
static char *table_row32(void)
{
	static char t[4096];
	size_t n = (size_t)snprintf(
		t, sizeof(t), "tdp-schedule 1\ntf 1ms\nk 1\nguard 2us\nport out rate 10Gbit/s\n");
	for (int f = 0; f < 32; f++)
		n += (size_t)snprintf(t + n, sizeof(t) - n,
				      "flow f%d port out size 100 udp-dport %d\n", f, f + 1);
	for (int f = 0; f < 32; f++)
		n += (size_t)snprintf(t + n, sizeof(t) - n, "%s f%d 1%s", f ? "," : "frames 0:", f,
				      f == 31 ? "\n" : "");
	return t;
}

/*
 * A row still being staged at its frame's start. Every read of the sim clock
 * costs 40 us here, so staging, between its two reads, takes 40 us, and a row
 * begun less than that before the start ends past it: counted, with its
 * entries, its time and how early it was begun, and apart from the other
 * frames; the skips right after it counted as such. Every frame's packets are
 * sent or counted.
 */
static void row_staged_past_its_start(void **state)
{
	struct rig r;
	rig_up(&r, table_row32(), LATE_DROP, 1000 * TDP_NS_PER_S + 500000, 100000, 16);
	tb_sim_set_poll(r.tb, 40000);
	const int frames = 200;
	for (int i = 0; i < frames; i++) {
		top_up(&r, 2, 0, NULL, 0);
		engine_step(r.e);
		drain_all(&r);
	}
	struct eng_stats es;
	engine_stats(r.e, &es);
	uint64_t sent = 0, late = 0;
	for (uint32_t f = 0; f < 32; f++) {
		struct flow_stats fs;
		engine_flow_stats(r.e, f, &fs);
		sent += fs.sent;
		late += fs.late_dropped;
	}
	printf("# %" PRIu64 " of %d frames staged past their start, %" PRIu64
	       " skips right after one; %" PRIu64 " packets sent, %" PRIu64 " dropped late\n",
	       es.stage_overruns, frames, es.overrun_skips, sent, late);
	assert_true(es.stage_overruns > 0 && es.stage_overruns < (uint64_t)frames);
	assert_int_equal(es.last_overrun_entries, 32);
	assert_int_equal(es.last_overrun_ns, 40000);
	assert_in_range(es.last_overrun_lead_ns, 1, 40000);
	assert_true(es.overrun_skips <= es.skip_events);
	assert_int_equal(sent + late, 32 * (uint64_t)es.frames);
	rig_down(&r);
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

TDP_TEST_MAIN(cmocka_unit_test(every_packet_in_its_frame), cmocka_unit_test(late_frame_dropped),
	      cmocka_unit_test(late_frame_carried),
	      cmocka_unit_test(late_on_the_port_within_the_frame),
	      cmocka_unit_test(skipped_frames_accounted),
	      cmocka_unit_test(best_effort_too_big_and_held),
	      cmocka_unit_test(row_staged_past_its_start))
