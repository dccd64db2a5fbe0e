/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The log-linear histogram: bins, quantiles, overflow.
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

static void hist_bins_cover_exactly(void **state)
{
	/* every bin's range starts where the previous one ended, and values land
	 * in the bin whose range holds them */
	for (unsigned b = 1; b < HIST_NBINS; b++)
		assert_int_equal(hist_bin_lo(b), hist_bin_hi(b - 1));
	assert_int_equal(hist_bin_hi(HIST_NBINS - 1), HIST_MAX_NS);
	int64_t probes[] = {
		0, 1, 63, 64, 65, 127, 128, 1000, 4095, 4096, 99999, 1000000, HIST_MAX_NS - 1};
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
		hist_add(&h, v); /* exact up to 63, 2 ns bins up to 127 */
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

TDP_TEST_MAIN(cmocka_unit_test(hist_bins_cover_exactly),
	      cmocka_unit_test(hist_quantiles_and_overflow))
