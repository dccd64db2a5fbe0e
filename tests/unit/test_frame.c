/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Frame math and the TSC mapping: pure.
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

#include "../tdp_test.h"

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

TDP_TEST_MAIN(cmocka_unit_test(frame_index_and_tfc), cmocka_unit_test(tsc_fit_maps_ticks))
