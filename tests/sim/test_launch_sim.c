/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Launch time in simulation. No PMD on this machine offers
 * RTE_ETH_TX_OFFLOAD_SEND_ON_TIMESTAMP, so the rig plays the NIC: its TX
 * callback reads every packet's timestamp field and flag as a PMD would, and
 * a NIC model of this file sends each packet at its launch time, or at once
 * when it has none or it has passed (DPDK's rte_mbuf_dyn.h: "If the specified
 * one is in the past it should be ignored"), in queue order. Checked: every
 * reserved packet leaves exactly at its frame's start plus the wire time of
 * the packets before it in its burst; best effort has no launch time, never
 * delays a reserved packet and never crosses a guard band; a hand-over after
 * start - launch-margin, or a map that is not ready, falls back to the CPU's
 * push at the boundary and is counted; the map is fitted from samples. And
 * what launch time changes: the wire-start error of each frame under the same
 * late wake-ups, with and without it.
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
#include "launch.h"
#include "probe_pkt.h"
#include "rig.h"
#include "testutil.h"

#define LEAD 100000
#define MARGIN 5000
/* the rig's NIC clock ticks about once a ns: a launch time leaves within a
 * tick of the time asked (the map's origin is sampled to the tick) */
#define TICK 1

/* TF 1 ms at 1 Gbit/s: a burst of 5 x 200 + 2 x 1000 bytes, best effort in
 * the rest; frames 8 and 9 have no reservation, only best effort. */
static const char table_l[] = "tdp-schedule 1\ntf 1ms\nk 10\nguard 10us\n"
			      "port out rate 1Gbit/s\n"
			      "flow a port out size 200 udp-dport 1\n"
			      "flow b port out size 1000 udp-dport 2\n"
			      "frames 0-7: a 5\n"
			      "frames 0,5: b 2\n";

static const uint32_t be_sizes[] = {60, 1514, 400, 1000, 64, 1500, 800};

static void up(struct rig *r, bool launch, bool ready)
{
	struct rig_opts o = {.hold = SA_SERVE,
			     .unl = SA_SERVE,
			     .launch = launch,
			     .lead_ns = LEAD,
			     .margin_ns = MARGIN,
			     .launch_unready = !ready};
	rig_up_with(r, table_l, LATE_DROP, 1000 * TDP_NS_PER_S + 500000, 0, 64, &o);
}

struct nic {
	int64_t free_at;
	uint32_t timed, untimed, rsv;
};

/*
 * The NIC over txlog.v[from, to) of one port: each packet starts at its
 * launch time (or at its hand-over when it has none or it has passed), not
 * before the one ahead of it has ended. Fails on a reserved packet that does
 * not start exactly at its launch time, a launch time before the one ahead,
 * best effort with a launch time, a hand-over later than launch - margin,
 * and anything crossing a guard band. Returns the first reserved packet's
 * wire start (INT64_MIN: none).
 */
static int64_t nic_run(const struct rig *r, struct nic *n, size_t from, size_t to)
{
	const struct frame_geom *g = engine_geom(r->e);
	int64_t first = INT64_MIN, last_launch = INT64_MIN;
	for (size_t i = from; i < to; i++) {
		const struct txrec *x = &txlog.v[i];
		int64_t at = x->t;
		if (x->launch != INT64_MIN) {
			assert_true(x->flow >= 0);
			assert_true(x->launch >= last_launch);
			last_launch = x->launch;
			if (x->t > x->launch - MARGIN)
				fail_msg("packet %zu handed over at %lld, its launch time %lld is "
					 "less than the margin away",
					 i, (long long)x->t, (long long)x->launch);
			at = x->launch;
			n->timed++;
		} else if (x->flow >= 0) {
			n->untimed++;
		}
		int64_t start = at > n->free_at ? at : n->free_at;
		if (x->launch != INT64_MIN && start - x->launch > TICK)
			fail_msg("packet %zu (flow %d) launched for %lld starts at %lld: delayed "
				 "by the one ahead",
				 i, x->flow, (long long)x->launch, (long long)start);
		int64_t end = start + engine_wire_ns(r->t->ports[0].rate_bps,
						     r->t->ports[0].overhead, x->len);
		/* a launched packet belongs to the frame it was launched for, to the tick */
		int64_t f = frame_index(g, tdp_time(x->launch != INT64_MIN ? start + TICK : start));
		int64_t limit = frame_start(g, f).ns + g->tf_ns - (int64_t)r->t->guard_ns;
		if (end > limit)
			fail_msg("packet %zu (flow %d, handed over at %lld, launch %lld) on the "
				 "wire %lld..%lld crosses "
				 "the guard band at %lld",
				 i, x->flow, (long long)x->t, (long long)x->launch,
				 (long long)start, (long long)end, (long long)limit);
		if (x->flow >= 0) {
			n->rsv++;
			if (first == INT64_MIN)
				first = start;
		}
		n->free_at = end;
	}
	return first;
}

/* Frame i under best effort, its map sampled every 100 frames (the daemon's
 * 100 ms), through the NIC: the first reserved packet's wire start. */
static int64_t frame_on_nic(struct rig *r, struct nic *n, int i, int64_t *j)
{
	if (r->launch && i % 100 == 0)
		rig_launch_sample(r);
	top_up(r, 8, 24, be_sizes, 7);
	size_t from = txlog.n;
	*j = engine_step(r->e);
	drain_all(r);
	return nic_run(r, n, from, txlog.n);
}

/* Every reserved packet leaves at its launch time: the frame's start plus the
 * wire time of the ones ahead of it in the burst, under best effort. */
static void reserved_leave_at_their_launch_time(void **state)
{
	struct rig r;
	up(&r, true, true);
	const struct frame_geom *g = engine_geom(r.e);
	struct nic n = {.free_at = INT64_MIN};
	uint32_t rows = 0;
	for (int i = 0; i < 2000; i++) {
		size_t from = txlog.n;
		int64_t j, first = frame_on_nic(&r, &n, i, &j);
		if (frame_tfc(g, j) >= 8) {
			assert_true(first == INT64_MIN);
			continue;
		}
		assert_true(first != INT64_MIN);
		assert_true(first - frame_start(g, j).ns >= -TICK &&
			    first - frame_start(g, j).ns <= TICK);
		/* the burst: a's five 200-byte packets, then b's two, back to back */
		int64_t at = frame_start(g, j).ns;
		uint32_t k = 0;
		for (size_t x = from; x < txlog.n; x++) {
			if (txlog.v[x].flow < 0)
				continue;
			assert_true(txlog.v[x].launch - at >= -TICK &&
				    txlog.v[x].launch - at <= TICK);
			at += engine_wire_ns(r.t->ports[0].rate_bps, r.t->ports[0].overhead,
					     txlog.v[x].len);
			k++;
		}
		assert_int_equal(k,
				 row_n(r.t, frame_tfc(g, j), 0) + row_n(r.t, frame_tfc(g, j), 1));
		rows++;
	}
	assert_int_equal(n.untimed, 0);
	struct port_stats ps;
	engine_port_stats(r.e, 0, &ps);
	assert_int_equal(ps.launch_frames, rows);
	assert_int_equal(ps.launch_late + ps.launch_unready, 0);
	assert_int_equal(ps.frames, rows);
	assert_true(ps.be_pkts > 0);
	rig_down(&r);
}

/* A hand-over after start - margin is the CPU's push at the boundary, counted. */
static void late_hand_over_is_pushed_at_the_boundary(void **state)
{
	struct rig r;
	up(&r, true, true);
	const struct frame_geom *g = engine_geom(r.e);
	for (int i = 0; i < 20; i++) {
		top_up(&r, 8, 0, NULL, 0);
		engine_step(r.e);
		drain_all(&r);
	}
	/* the sleep ends 98 us past its aim: past start - 5 us, before start */
	tb_sim_stall(r.tb, 98000);
	top_up(&r, 8, 0, NULL, 0);
	size_t from = txlog.n;
	int64_t j = engine_step(r.e);
	drain_all(&r);
	struct port_stats ps;
	engine_port_stats(r.e, 0, &ps);
	assert_int_equal(ps.launch_late, 1);
	assert_int_equal(ps.late_frames, 0);
	uint32_t k = 0;
	for (size_t x = from; x < txlog.n; x++)
		if (txlog.v[x].flow >= 0) {
			assert_int_equal(txlog.v[x].launch, INT64_MIN);
			assert_true(txlog.v[x].t >= frame_start(g, j).ns);
			assert_int_equal(frame_index(g, tdp_time(txlog.v[x].t)), j);
			k++;
		}
	assert_int_equal(k, row_n(r.t, frame_tfc(g, j), 0) + row_n(r.t, frame_tfc(g, j), 1));
	/* the next frame has its launch times again */
	top_up(&r, 8, 0, NULL, 0);
	from = txlog.n;
	engine_step(r.e);
	drain_all(&r);
	for (size_t x = from; x < txlog.n; x++)
		assert_true(txlog.v[x].flow < 0 || txlog.v[x].launch != INT64_MIN);
	rig_down(&r);
}

/* A map without a measured rate is not used: the CPU pushes, counted. */
static void map_not_ready_pushes_by_cpu(void **state)
{
	struct rig r;
	up(&r, true, false);
	for (int i = 0; i < 10; i++) {
		top_up(&r, 8, 0, NULL, 0);
		size_t from = txlog.n;
		int64_t j = engine_step(r.e);
		drain_all(&r);
		for (size_t x = from; x < txlog.n; x++) {
			assert_int_equal(txlog.v[x].launch, INT64_MIN);
			assert_int_equal(frame_index(engine_geom(r.e), tdp_time(txlog.v[x].t)), j);
		}
	}
	struct port_stats ps;
	engine_port_stats(r.e, 0, &ps);
	/* ten frames, eight of them with a reservation */
	assert_int_equal(ps.launch_unready, 8);
	assert_int_equal(ps.launch_frames, 0);
	assert_int_equal(ps.frames, 8);
	rig_down(&r);
}

static int cmp64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* The same late wake-ups, with and without launch time: the wire-start error
 * of each frame's burst (its first reserved packet against start(j)). */
static void what_launch_time_changes(void **state)
{
	enum {
		FRAMES = 20000
	};
	static int64_t err[2][FRAMES];
	size_t cnt[2] = {0, 0}; /* frames with a reservation */
	uint64_t late[2], fallback = 0;
	for (int mode = 0; mode < 2; mode++) {
		struct rig r;
		up(&r, mode == 1, true);
		const struct frame_geom *g = engine_geom(r.e);
		struct nic n = {.free_at = INT64_MIN};
		uint64_t s = 12345;
		for (int i = 0; i < FRAMES; i++) {
			/* the same stalls for both: most none, 1% 20 us, 0.3% 60 us, 0.1% 300 us */
			s = s * 6364136223846793005ull + 1442695040888963407ull;
			uint32_t u = (uint32_t)(s >> 33) % 10000;
			int64_t st = u < 10 ? 300000 : u < 40 ? 60000 : u < 140 ? 20000 : 0;
			if (st)
				tb_sim_stall(r.tb, st);
			int64_t j, first = frame_on_nic(&r, &n, i, &j);
			if (first != INT64_MIN)
				err[mode][cnt[mode]++] = first - frame_start(g, j).ns;
		}
		struct port_stats ps;
		engine_port_stats(r.e, 0, &ps);
		late[mode] = ps.late_frames;
		if (mode == 1) {
			fallback = ps.launch_late;
			/* every frame is either launched or pushed by the CPU, counted */
			assert_int_equal(ps.launch_frames + ps.launch_late,
					 ps.frames + ps.late_frames);
			assert_true(ps.launch_late > 0);
		}
		rig_down(&r);
		qsort(err[mode], cnt[mode], sizeof(int64_t), cmp64);
	}
	const char *name[2] = {"CPU push", "launch time"};
	assert_int_equal(cnt[0], cnt[1]);
	size_t c = cnt[0];
	print_message("wire-start error over the %zu of %d frames with a reservation, stalls 1%% "
		      "20 us, 0.3%% 60 us, "
		      "0.1%% 300 us; launch-lead %d us, margin %d us\n",
		      c, FRAMES, LEAD / 1000, MARGIN / 1000);
	for (int m = 0; m < 2; m++)
		print_message("  %-12s p50 %lld ns, p99 %lld ns, p99.9 %lld ns, max %lld ns; late "
			      "frames %llu\n",
			      name[m], (long long)err[m][c / 2], (long long)err[m][c * 99 / 100],
			      (long long)err[m][c * 999 / 1000], (long long)err[m][c - 1],
			      (unsigned long long)late[m]);
	print_message("  launch time fell back to the CPU push in %llu frames\n",
		      (unsigned long long)fallback);
	/* launch time: every frame that did not fall back starts on time, to the tick */
	uint64_t exact = 0;
	for (size_t i = 0; i < c; i++)
		exact += err[1][i] >= -TICK && err[1][i] <= TICK;
	assert_true(exact >= c - fallback);
	assert_true(err[1][c * 99 / 100] <= TICK);
	assert_true(err[0][c * 99 / 100] > 0);
}

/* A probe's hop stamp: on a launch-time port the burst's launch time, flagged;
 * on the CPU's push, the push time, unflagged. */
static void stamp_says_launch_time(void **state)
{
	static const char table_s[] =
		"tdp-schedule 1\ntf 1ms\nk 10\nguard 10us\nport out rate 1Gbit/s\n"
		"flow p port out size 200 stamp udp-dport 7350\nframes 0-9: p 1\n";
	for (int launch = 0; launch < 2; launch++) {
		struct rig r;
		struct rig_opts o = {.hold = SA_SERVE,
				     .unl = SA_SERVE,
				     .launch = launch,
				     .lead_ns = LEAD,
				     .margin_ns = MARGIN};
		rig_up_with(&r, table_s, LATE_DROP, 1000 * TDP_NS_PER_S + 500000, 0, 64, &o);
		static struct probe_tmpl t;
		struct probe_addr a = {.family = 4,
				       .sport = PROBE_DEFAULT_PORT,
				       .dport = PROBE_DEFAULT_PORT,
				       .ttl = 64,
				       .vlan = -1,
				       .src = {10, 0, 0, 2},
				       .dst = {10, 0, 2, 2}};
		struct probe_hdr h = {
			.version = PROBE_VERSION, .kind = PROBE_K_PROBE, .tf_ns = 1000000};
		assert_int_equal(
			probe_build(&t, &a, probe_min_size(4, false) + 2 * PROBE_STAMP_LEN, &h), 0);
		int64_t i = engine_next_frame(r.e);
		struct rte_mbuf *m = rte_pktmbuf_alloc(env_pool());
		uint8_t *d = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)t.len);
		memcpy(d, t.buf, t.len);
		probe_stamp(&t, d, 1, i, 0);
		assert_int_equal(flowq_enqueue(engine_flow_rx(r.e, 0), &m, 1), 1);
		assert_int_equal(engine_step(r.e), i);
		struct rte_mbuf *out = NULL;
		assert_int_equal(rte_ring_sc_dequeue(r.tx[0], (void **)&out), 0);
		struct probe_hdr got;
		assert_int_equal(
			probe_decode(rte_pktmbuf_mtod(out, uint8_t *), out->data_len, 0, &got),
			PROBE_OK);
		assert_int_equal(got.hops, 1);
		assert_int_equal(got.stamp[0].dframe, 0);
		if (launch) {
			assert_int_equal(got.stamp[0].flags, PROBE_STAMP_LAUNCH);
			assert_int_equal(got.stamp[0].push_off, 0);
		} else {
			assert_int_equal(got.stamp[0].flags, 0);
			assert_true(got.stamp[0].push_off >= 0);
		}
		rte_pktmbuf_free(out);
		drain_all(&r);
		rig_down(&r);
	}
}

/* ---- the map from samples ------------------------------------------------ */

struct fake {
	int64_t t;	   /* CTR ns */
	int64_t read_cost; /* CTR time a device read takes */
	int64_t dev_off;   /* added to the device clock (a step) */
	bool fail;
};

/* a 750 MHz counter from an origin of its own */
static uint64_t fake_dev(const struct fake *f, int64_t t)
{
	return (uint64_t)(9000000000LL + f->dev_off + t / 4 * 3 + t % 4 * 3 / 4);
}

static int fake_read(void *arg, uint64_t *dev)
{
	struct fake *f = arg;
	if (f->fail)
		return -1;
	f->t += f->read_cost / 2;
	*dev = fake_dev(f, f->t);
	f->t += f->read_cost - f->read_cost / 2;
	return 0;
}

static tdp_time_t fake_now(void *arg)
{
	/* a read of 30 ns that samples in its middle, as the device read does */
	struct fake *f = arg;
	f->t += 15;
	tdp_time_t r = tdp_time(f->t);
	f->t += 15;
	return r;
}

static void map_fitted_from_samples(void **state)
{
	struct fake f = {.t = 5 * TDP_NS_PER_S, .read_cost = 400};
	struct launch_clock lc;
	launch_clock_init(&lc, fake_read, &f, 2000);
	struct launch_map m;
	struct launch_stats st;
	for (int i = 0; i < 10; i++) {
		assert_int_equal(launch_clock_sample(&lc, fake_now, &f), 0);
		assert_false(launch_map_get(&lc, &m));
		f.t += 100000000;
	}
	assert_int_equal(launch_clock_sample(&lc, fake_now, &f), 0);
	assert_true(launch_map_get(&lc, &m));
	launch_clock_stats(&lc, &st);
	assert_true(st.ready);
	assert_true(st.rate_ppb > -250000000 - 5 && st.rate_ppb < -250000000 + 5);
	/* a frame start 10 ms ahead, to within a few ticks */
	int64_t t = f.t + 10000000;
	int64_t d = (int64_t)launch_dev(&m, tdp_time(t)) - (int64_t)fake_dev(&f, t);
	print_message("map ahead by %lld ticks\n", (long long)d);
	assert_true(d >= -3 && d <= 3);
	assert_true(launch_ctr(&m, fake_dev(&f, t)) - t >= -4 &&
		    launch_ctr(&m, fake_dev(&f, t)) - t <= 4);
	/* a read that takes longer than the bracket allows is not taken */
	f.read_cost = 5000;
	assert_int_equal(launch_clock_sample(&lc, fake_now, &f), -1);
	f.read_cost = 400;
	/* a failed read is counted, the map stays */
	f.fail = true;
	assert_int_equal(launch_clock_sample(&lc, fake_now, &f), -1);
	f.fail = false;
	assert_true(launch_map_get(&lc, &m));
	/* a step of the device clock: the rate starts again */
	f.dev_off = 3000000;
	f.t += 100000000;
	assert_int_equal(launch_clock_sample(&lc, fake_now, &f), 0);
	assert_false(launch_map_get(&lc, &m));
	for (int i = 0; i < 10; i++) {
		f.t += 100000000;
		assert_int_equal(launch_clock_sample(&lc, fake_now, &f), 0);
	}
	assert_true(launch_map_get(&lc, &m));
	t = f.t + 10000000;
	d = (int64_t)launch_dev(&m, tdp_time(t)) - (int64_t)fake_dev(&f, t);
	print_message("after the step, map ahead by %lld ticks\n", (long long)d);
	assert_true(d >= -3 && d <= 3);
	launch_clock_stats(&lc, &st);
	assert_int_equal(st.wide, 1);
	assert_int_equal(st.failed, 1);
	assert_int_equal(st.steps, 1);
	assert_int_equal(st.samples, 22);
	launch_clock_fini(&lc);
}

/* A lead the frame cannot hold, or a margin not below the lead, is refused;
 * the default lead is cut to what the frame holds. */
static void lead_out_of_range_refused(void **state)
{
	assert_int_equal(env_eal_init(), 0);
	struct sched_table *t = parse_ok(table_l);
	struct timebase *tb = tb_sim_new(tdp_time(TDP_NS_PER_S), 20);
	struct launch_clock lc;
	launch_clock_init(&lc, fake_read, NULL, 1000);
	struct eng_port_cfg pc = {.dpdk_port = 0, .rate_bps = 0, .overhead = 24, .launch = &lc};
	const int64_t bad[][2] = {{600000, 5000}, {100000, 100000}, {100000, -1}};
	for (size_t i = 0; i < 3; i++) {
		struct eng_config c = {.t = t,
				       .tb = tb,
				       .flow_depth = 8,
				       .be_depth = 8,
				       .ports = &pc,
				       .launch_lead_ns = bad[i][0],
				       .launch_margin_ns = bad[i][1],
				       .pw = {.min_sleep_ns = 1000,
					      .margin_ns = 500,
					      .window = 16,
					      .decay_pct = 90}};
		char err[256] = "";
		assert_null(engine_create(&c, err, sizeof(err)));
		assert_non_null(strstr(err, "launch-lead"));
	}
	/* the default lead, 600 us, is cut to half the TF; without a launch-time port there is none */
	struct eng_config c = {
		.t = t,
		.tb = tb,
		.flow_depth = 8,
		.be_depth = 8,
		.ports = &pc,
		.launch_lead_ns = 600000,
		.launch_lead_default = true,
		.launch_margin_ns = 5000,
		.pw = {.min_sleep_ns = 1000, .margin_ns = 500, .window = 16, .decay_pct = 90}};
	char err[256] = "";
	struct engine *e = engine_create(&c, err, sizeof(err));
	assert_non_null(e);
	assert_int_equal(engine_launch_lead(e), 500000);
	engine_destroy(e);
	pc.launch = NULL;
	e = engine_create(&c, err, sizeof(err));
	assert_non_null(e);
	assert_int_equal(engine_launch_lead(e), 0);
	engine_destroy(e);
	launch_clock_fini(&lc);
	tb_destroy(tb);
	sched_free(t);
}

TDP_TEST_MAIN(cmocka_unit_test(reserved_leave_at_their_launch_time),
	      cmocka_unit_test(late_hand_over_is_pushed_at_the_boundary),
	      cmocka_unit_test(map_not_ready_pushes_by_cpu),
	      cmocka_unit_test(what_launch_time_changes), cmocka_unit_test(stamp_says_launch_time),
	      cmocka_unit_test(map_fitted_from_samples),
	      cmocka_unit_test(lead_out_of_range_refused))
