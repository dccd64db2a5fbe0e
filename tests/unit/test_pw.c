/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The predictive wait: the max of the window, the cap on the lead, decay,
 * deferred bookkeeping, spinning below the threshold.
 */
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pw_predicts_max_of_window),
		cmocka_unit_test(pw_lead_is_capped),
		cmocka_unit_test(pw_decays_when_it_cannot_sleep),
		cmocka_unit_test(pw_defers_bookkeeping_near_the_boundary),
		cmocka_unit_test(pw_spins_below_threshold),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
