/* SPDX-License-Identifier: BSD-3-Clause */
/* Frame math, the latency histogram, the predictive wait and the TSC fit:
 * pure code, no clock. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <sys/timex.h>
#include <stdbool.h>
#include <string.h>
#include <cmocka.h>

#include "frame.h"
#include "hist.h"
#include "pw.h"
#include "tb_system.h"
#include "tb_sim.h"
#include "tscclock.h"

static void frame_index_and_tfc(void **state)
{
	struct frame_geom g = {.tf_ns = 100000, .epoch_ns = 0, .k = 100};
	/* k*TF = 10 ms divides a second: tfc is 0 at every second */
	tdp_time_t t = tdp_time(1700000000LL * TDP_NS_PER_S);
	int64_t i = frame_index(&g, t);
	assert_int_equal(frame_tfc(&g, i), 0);
	assert_int_equal(frame_start(&g, i).ns, t.ns);
	assert_int_equal(frame_index(&g, tdp_time_add(t, 99999)), i);
	assert_int_equal(frame_index(&g, tdp_time_add(t, 100000)), i + 1);
	assert_int_equal(frame_index(&g, tdp_time_add(t, -1)), i - 1);
	assert_int_equal(frame_tfc(&g, i - 1), 99);
	/* floor, not truncation, below zero */
	assert_int_equal(frame_index(&g, tdp_time(-1)), -1);
	assert_int_equal(frame_tfc(&g, -1), 99);
	/* an epoch shifts every boundary */
	struct frame_geom h = {.tf_ns = 1000000, .epoch_ns = 250000, .k = 10};
	assert_int_equal(frame_start(&h, 0).ns, 250000);
	assert_int_equal(frame_index(&h, tdp_time(249999)), -1);
	assert_int_equal(frame_index(&h, tdp_time(TDP_NS_PER_S + 250000)), 1000);
	assert_int_equal(frame_tfc(&h, 1000), 0);
}

static void hist_bins_cover_exactly(void **state)
{
	/* every bin's range starts where the previous one ended, and values land
	 * in the bin whose range holds them */
	for (unsigned b = 1; b < HIST_NBINS; b++)
		assert_int_equal(hist_bin_lo(b), hist_bin_hi(b - 1));
	assert_int_equal(hist_bin_hi(HIST_NBINS - 1), HIST_MAX_NS);
	int64_t probes[] = {0, 1, 63, 64, 65, 127, 128, 1000, 4095, 4096, 99999, 1000000, HIST_MAX_NS - 1};
	for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
		unsigned b = hist_bin_of(probes[i]);
		assert_true(b < HIST_NBINS);
		assert_true(hist_bin_lo(b) <= probes[i]);
		assert_true(probes[i] < hist_bin_hi(b));
		/* relative width at most 1/32 above 64 ns */
		if (probes[i] >= 64)
			assert_true((hist_bin_hi(b) - hist_bin_lo(b)) * 32 <= hist_bin_lo(b));
	}
}

static void hist_quantiles_and_overflow(void **state)
{
	struct hist h;
	hist_init(&h);
	for (int v = 1; v <= 100; v++)
		hist_add(&h, v);       /* exact up to 63, 2 ns bins up to 127 */
	assert_int_equal(h.count, 100);
	assert_int_equal(hist_quantile(&h, 0.5), 50);
	assert_int_equal(hist_quantile(&h, 0.01), 1);
	assert_int_equal(hist_quantile(&h, 1.0), 100);
	int64_t p99 = hist_quantile(&h, 0.99);
	assert_true(p99 >= 99 && p99 <= 100);
	hist_add(&h, -5);
	hist_add(&h, HIST_MAX_NS);
	hist_add(&h, 5 * HIST_MAX_NS);
	assert_int_equal(h.under, 1);
	assert_int_equal(h.over, 2);
	assert_int_equal(h.min, -5);
	assert_int_equal(h.max, 5 * HIST_MAX_NS);
	assert_int_equal(hist_quantile(&h, 0), -5);
	assert_int_equal(hist_quantile(&h, 1.0), 5 * HIST_MAX_NS);
	struct hist m;
	hist_init(&m);
	hist_merge(&m, &h);
	assert_int_equal(m.count, h.count);
	assert_int_equal(hist_quantile(&m, 0.5), hist_quantile(&h, 0.5));
}

static struct pw_config pwc(void)
{
	return (struct pw_config){.tf_ns = 1000000, .spin_below_ns = 50000, .min_sleep_ns = 5000,
				  .margin_ns = 1000, .window = 4, .decay_pct = 50, .book_init_ns = 200};
}

static void pw_predicts_max_of_window(void **state)
{
	struct pw p;
	struct pw_config c = pwc();
	assert_int_equal(pw_init(&p, &c), 0);
	tdp_time_t b = tdp_time(10000000), to;
	assert_true(pw_plan(&p, tdp_time(9000000), b, &to));
	/* nothing learnt yet: boundary - bookkeeping - margin */
	assert_int_equal(to.ns, b.ns - 200 - 1000);
	int64_t overs[] = {3000, 8000, 2000, 1000, 500, 400};
	int64_t want[] = {3000, 8000, 8000, 8000, 8000, 2000};
	for (int i = 0; i < 6; i++) {
		/* plenty of time left: recorded at once */
		assert_true(pw_woke(&p, tdp_time(100), tdp_time(100 + overs[i]), tdp_time(1000000)));
		assert_int_equal(p.pred_ns, want[i]);
	}
	/* woke early: clamped, counted */
	pw_woke(&p, tdp_time(100), tdp_time(50), tdp_time(1000000));
	assert_int_equal(p.st.early_wakes, 1);
}

/* max-lead caps the poll before a boundary however large the prediction */
static void pw_lead_is_capped(void **state)
{
	struct pw p;
	struct pw_config c = pwc();
	c.max_lead_ns = 50000;
	assert_int_equal(pw_init(&p, &c), 0);
	pw_woke(&p, tdp_time(0), tdp_time(900000), tdp_time(10000000));
	assert_int_equal(p.pred_ns, 900000);
	assert_int_equal(pw_lead_ns(&p), 50000);
	tdp_time_t to;
	assert_true(pw_plan(&p, tdp_time(0), tdp_time(905000), &to));
	assert_int_equal(to.ns, 905000 - 50000);
	c.max_lead_ns = 0;
	assert_int_equal(pw_init(&p, &c), 0);
	pw_woke(&p, tdp_time(0), tdp_time(900000), tdp_time(10000000));
	assert_int_equal(pw_lead_ns(&p), 900000 + 200 + 1000);
}

static void pw_decays_when_it_cannot_sleep(void **state)
{
	struct pw p;
	struct pw_config c = pwc();
	pw_init(&p, &c);
	/* one huge outlier: 900 us predicted, a 1 ms frame leaves no room to sleep */
	pw_woke(&p, tdp_time(0), tdp_time(900000), tdp_time(10000000));
	tdp_time_t to;
	int spins = 0;
	while (!pw_plan(&p, tdp_time(0), tdp_time(905000), &to)) {
		spins++;
		assert_true(spins < 20);
	}
	/* 900k leaves 3.8 us, under min_sleep: spin; halved to 450k it sleeps */
	assert_int_equal(spins, 1);
	assert_int_equal(p.st.spins, (uint64_t)spins);
	assert_int_equal(p.pred_ns, 450000);
	/* without decay it would spin for ever */
	c.decay_pct = 100;
	pw_init(&p, &c);
	pw_woke(&p, tdp_time(0), tdp_time(900000), tdp_time(10000000));
	for (int i = 0; i < 100; i++)
		assert_false(pw_plan(&p, tdp_time(0), tdp_time(905000), &to));
}

static void pw_defers_bookkeeping_near_the_boundary(void **state)
{
	struct pw p;
	struct pw_config c = pwc();
	pw_init(&p, &c);
	/* 150 ns left, bookkeeping predicted at 200: deferred */
	assert_false(pw_woke(&p, tdp_time(1000), tdp_time(4000), tdp_time(4150)));
	assert_true(p.pending);
	assert_int_equal(p.pred_ns, 0);
	assert_true(pw_flush(&p));
	assert_int_equal(p.pred_ns, 3000);
	assert_false(pw_flush(&p));
	assert_int_equal(p.st.deferred, 1);
	/* the EMA follows the measured cost */
	for (int i = 0; i < 200; i++)
		pw_book_cost(&p, 1000);
	assert_true(pw_book_ns(&p) >= 990 && pw_book_ns(&p) <= 1000);
}

static void pw_spins_below_threshold(void **state)
{
	struct pw p;
	struct pw_config c = pwc();
	c.tf_ns = 20000;       /* below spin_below = 50 us */
	pw_init(&p, &c);
	tdp_time_t to;
	assert_false(pw_plan(&p, tdp_time(0), tdp_time(20000), &to));
	c.window = 0;
	assert_int_equal(pw_init(&p, &c), -1);
}

static void tsc_fit_maps_ticks(void **state)
{
	struct tscclock c = {0};
	/* a 2.5 GHz counter: 2.5e9 ticks per second */
	tscclock_fit(&c, 1000, 5 * TDP_NS_PER_S, 1000 + 2500000000ull, 6 * TDP_NS_PER_S);
	assert_int_equal(c.hz, 2500000000ull);
	assert_int_equal(tsc_to_time(&c, 1000 + 2500000000ull).ns, 6 * TDP_NS_PER_S);
	int64_t t = tsc_to_time(&c, 1000 + 2500000000ull + 2500).ns;
	assert_true(t >= 6 * TDP_NS_PER_S + 999 && t <= 6 * TDP_NS_PER_S + 1000);
	/* before the anchor */
	t = tsc_to_time(&c, 1000 + 2500000000ull - 25000).ns;
	assert_true(t >= 6 * TDP_NS_PER_S - 10001 && t <= 6 * TDP_NS_PER_S - 9999);
}

static void sim_timebase_moves_only_when_used(void **state)
{
	struct timebase *tb = tb_sim_new(tdp_time(1000), 10);
	assert_string_equal(tb->ops->name, "sim");
	assert_int_equal(tb_now(tb).ns, 1010);
	assert_int_equal(tb_fast_now(tb).ns, 1020);
	tb_sim_set_oversleep(tb, 500);
	tb_sleep_until(tb, tdp_time(5000));
	assert_int_equal(tb_now(tb).ns, 5510);
	tb_sim_stall(tb, 100000);
	tb_sleep_until(tb, tdp_time(6000));
	assert_int_equal(tb_now(tb).ns, 106510);
	tb_sleep_until(tb, tdp_time(200000));
	assert_int_equal(tb_now(tb).ns, 200510);
	assert_int_equal(tb_sim_sleeps(tb), 3);
	assert_ptr_equal(timebase_find("sim"), tb->ops);
	assert_ptr_equal(timebase_find("system"), timebase_table[0]);
	assert_null(timebase_find("gps"));
	tb->ops->destroy(tb);
}

static void system_timebase_reads_tai(void **state)
{
	const struct timebase_ops *ops = timebase_find("system");
	struct timebase *tb;
	char err[128];
	struct tb_params p = {.clock = HC_CLOCK_REALTIME, .utc_tai_offset_s = 37, .fast = HC_FAST_OS};
	assert_int_equal(ops->create(&tb, &p, err, sizeof(err)), 0);
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	int64_t rt = ts.tv_sec * TDP_NS_PER_S + ts.tv_nsec;
	int64_t d = tb_now(tb).ns - rt;
	/* REALTIME + 37 s (or the kernel's own offset when it knows it) */
	assert_true(d >= 30 * TDP_NS_PER_S && d < 40 * TDP_NS_PER_S);
	tdp_time_t a = tb_fast_now(tb), b = tb_fast_now(tb);
	assert_true(b.ns >= a.ns);
	ops->destroy(tb);
}

/* The system source's sync state is the kernel's: STA_UNSYNC set, unlocked;
 * clear, locked. assume-locked takes it as locked whatever the kernel says. */
static void system_timebase_sync_from_kernel(void **state)
{
	(void)state;
	struct timex tx = {0};
	assert_true(adjtimex(&tx) >= 0);
	bool unsync = tx.status & STA_UNSYNC;
	const struct timebase_ops *ops = timebase_find("system");
	struct tb_params p = {.fast = HC_FAST_OS, .utc_tai_offset_s = 37, .system = {.sync_mode = TB_SYSSYNC_ADJTIMEX}};
	struct timebase *tb;
	char err[128];
	assert_int_equal(ops->create(&tb, &p, err, sizeof(err)), 0);
	struct tb_sync s;
	tb_sync(tb, &s);
	assert_int_equal(s.state, unsync ? TB_UNLOCKED : TB_LOCKED);
	assert_int_equal(tb_state(tb), s.state);
	assert_non_null(strstr(s.reason, unsync ? "unsynchronised (STA_UNSYNC)" : "synchronised (STA_UNSYNC clear)"));
	tb->ops->destroy(tb);
	p.system.sync_mode = TB_SYSSYNC_ASSUME;
	assert_int_equal(ops->create(&tb, &p, err, sizeof(err)), 0);
	tb_sync(tb, &s);
	assert_int_equal(s.state, TB_LOCKED);
	assert_non_null(strstr(s.reason, "assume-locked"));
	tb->ops->destroy(tb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(frame_index_and_tfc),
		cmocka_unit_test(hist_bins_cover_exactly),
		cmocka_unit_test(hist_quantiles_and_overflow),
		cmocka_unit_test(pw_predicts_max_of_window),
		cmocka_unit_test(pw_decays_when_it_cannot_sleep),
		cmocka_unit_test(pw_lead_is_capped),
		cmocka_unit_test(pw_defers_bookkeeping_near_the_boundary),
		cmocka_unit_test(pw_spins_below_threshold),
		cmocka_unit_test(tsc_fit_maps_ticks),
		cmocka_unit_test(sim_timebase_moves_only_when_used),
		cmocka_unit_test(system_timebase_reads_tai),
		cmocka_unit_test(system_timebase_sync_from_kernel),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
