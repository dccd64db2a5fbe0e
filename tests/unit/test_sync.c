/* SPDX-License-Identifier: BSD-3-Clause */
/* The sync state machine: locking, holdover, its budget, timeouts, steps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "../tdp_test.h"

#include "sync.h"

#define MS 1000000LL

static struct sync_cfg cfg(void)
{
	return (struct sync_cfg){.lock_ns = 1000,
				 .lock_samples = 4,
				 .sample_timeout_ns = 3000 * MS,
				 .holdover_ns = 10000 * MS,
				 .drift_ppb = 500,
				 .step_ns = 10000};
}

static tdp_time_t T(int64_t ms)
{
	return tdp_time(1700000000 * TDP_NS_PER_S + ms * MS);
}

/* n good samples at 1 s intervals from ms; returns the ms after */
/* s set up with cfg() at T(0), whose settings it returns */
static struct sync_cfg fresh(struct sync *s)
{
	struct sync_cfg c = cfg();
	assert_int_equal(sync_init(s, &c, T(0), NULL), 0);
	return c;
}

static int64_t feed(struct sync *s, int64_t ms, int n, int64_t off, int64_t err, int *changes)
{
	for (int i = 0; i < n; i++, ms += 1000)
		*changes += sync_sample(s, T(ms), off, err);
	return ms;
}

static void locks_after_lock_samples(void **st)
{
	(void)st;
	struct sync s;
	struct sync_cfg c = cfg();
	assert_int_equal(sync_init(&s, &c, T(0), NULL), 0);
	assert_int_equal(s.state, TB_UNLOCKED);
	int ch = 0;
	int64_t ms = feed(&s, 0, 3, 200, 200, &ch);
	assert_int_equal(s.state, TB_UNLOCKED);
	assert_int_equal(ch, 0);
	/* a bad sample restarts the count */
	assert_false(sync_sample(&s, T(ms), 5000, 5000));
	ms = feed(&s, ms + 1000, 3, 200, -900, &ch);
	assert_int_equal(s.state, TB_UNLOCKED);
	assert_true(sync_sample(&s, T(ms), 200, 1000)); /* error == lock_ns is good */
	assert_int_equal(s.state, TB_LOCKED);
	assert_non_null(strstr(s.reason, "4 samples within 1000 ns"));
	struct tb_sync out;
	sync_get(&s, T(ms), &out);
	assert_int_equal(out.state, TB_LOCKED);
	assert_int_equal(out.offset_ns, 200);
	assert_int_equal(out.uncertainty_ns, 1000);
	assert_int_equal(out.last_good.ns, T(ms).ns);
	assert_int_equal(out.since.ns, T(ms).ns);
	assert_int_equal(out.transitions, 1);
	assert_int_equal(out.samples, 8);
	assert_int_equal(out.bad_samples, 1);
}

static void bad_run_unlocks_outlier_does_not(void **st)
{
	(void)st;
	struct sync s;
	fresh(&s);
	int ch = 0;
	int64_t ms = feed(&s, 0, 4, 0, 0, &ch);
	assert_int_equal(s.state, TB_LOCKED);
	/* three outliers, then a good one: still locked */
	ms = feed(&s, ms, 3, 0, 50000, &ch);
	assert_false(sync_sample(&s, T(ms), 0, 10));
	ms += 1000;
	assert_int_equal(s.state, TB_LOCKED);
	ms = feed(&s, ms, 3, 0, 50000, &ch);
	assert_int_equal(s.state, TB_LOCKED);
	assert_true(sync_sample(&s, T(ms), 0, -50000));
	assert_int_equal(s.state, TB_UNLOCKED);
	assert_non_null(strstr(s.reason, "beyond 1000 ns"));
	assert_int_equal(s.bad_samples, 7);
}

static void fault_holdover_budget(void **st)
{
	(void)st;
	struct sync s;
	fresh(&s);
	int ch = 0;
	int64_t ms = feed(&s, 0, 4, 300, 100, &ch);
	int64_t last = ms - 1000;
	assert_true(sync_fault(&s, T(ms), "grandmaster lost"));
	assert_int_equal(s.state, TB_HOLDOVER);
	assert_string_equal(s.reason, "grandmaster lost");
	/* the budget: 10 s from the fault; polling inside it changes nothing */
	assert_false(sync_poll(&s, T(ms + 10000)));
	struct tb_sync out;
	sync_get(&s, T(ms + 10000), &out);
	/* 100 ns of sample error plus 500 ppb over the 11 s since the last good sample */
	assert_int_equal(out.uncertainty_ns, 100 + 5500);
	assert_int_equal(out.last_good.ns, T(last).ns);
	assert_true(sync_poll(&s, T(ms + 10001)));
	assert_int_equal(s.state, TB_UNLOCKED);
	assert_non_null(strstr(s.reason, "holdover budget of 10000 ms spent"));
	/* a fault while unlocked is counted, changes nothing */
	assert_false(sync_fault(&s, T(ms + 12000), "socket gone"));
	assert_int_equal(s.faults, 2);
	assert_string_equal(s.reason, "socket gone");
}

static void holdover_relocks(void **st)
{
	(void)st;
	struct sync s;
	fresh(&s);
	int ch = 0;
	int64_t ms = feed(&s, 0, 4, 0, 0, &ch);
	sync_fault(&s, T(ms), "lost");
	ch = 0;
	ms = feed(&s, ms + 1000, 4, 0, 0, &ch);
	assert_int_equal(ch, 1);
	assert_int_equal(s.state, TB_LOCKED);
	assert_int_equal(s.transitions, 3);
}

static void sample_timeout_is_holdover(void **st)
{
	(void)st;
	struct sync s;
	struct sync_cfg c = fresh(&s);
	int ch = 0;
	int64_t ms = feed(&s, 0, 4, 0, 0, &ch);
	int64_t last = ms - 1000;
	assert_false(sync_poll(&s, T(last + 3000)));
	assert_true(sync_poll(&s, T(last + 3001)));
	assert_int_equal(s.state, TB_HOLDOVER);
	assert_non_null(strstr(s.reason, "no sample for 3001 ms"));
	/* a zero budget goes on to unlocked at the next poll after it */
	c.holdover_ns = 0;
	sync_init(&s, &c, T(0), NULL);
	feed(&s, 0, 4, 0, 0, &ch);
	assert_true(sync_poll(&s, T(7000)));
	assert_true(sync_poll(&s, T(7001)));
	assert_int_equal(s.state, TB_UNLOCKED);
}

static void steps_are_counted(void **st)
{
	(void)st;
	struct sync s;
	fresh(&s);
	int ch = 0;
	int64_t ms = feed(&s, 0, 4, 1000000, 0, &ch);
	assert_int_equal(s.steps, 0);
	sync_sample(&s, T(ms), 1000000 + 10000, 0); /* == step_ns: not a step */
	assert_int_equal(s.steps, 0);
	sync_sample(&s, T(ms + 1000), 1000000 - 250000, 0);
	assert_int_equal(s.steps, 1);
	assert_int_equal(s.last_step_ns, -260000);
	struct tb_sync out;
	sync_get(&s, T(ms + 1000), &out);
	assert_int_equal(out.steps, 1);
	assert_int_equal(out.last_step_ns, -260000);
	assert_int_equal(out.offset_ns, 750000);
}

static void force_and_bad_settings(void **st)
{
	(void)st;
	struct sync s;
	fresh(&s);
	assert_true(sync_force(&s, T(1), TB_LOCKED, 0, 2000, "kernel says synchronised"));
	assert_false(sync_force(&s, T(2), TB_LOCKED, 0, 2000, "still synchronised"));
	/* the reason is the latest, even without a change of state */
	assert_string_equal(s.reason, "still synchronised");
	assert_true(sync_force(&s, T(3), TB_UNLOCKED, 0, 0, "STA_UNSYNC"));
	struct sync_cfg bad[6];
	for (int i = 0; i < 6; i++)
		bad[i] = cfg();
	bad[0].lock_ns = 0;
	bad[1].lock_samples = 0;
	bad[2].sample_timeout_ns = 0;
	bad[3].holdover_ns = -1;
	bad[4].drift_ppb = -1;
	bad[5].step_ns = 0;
	for (int i = 0; i < 6; i++)
		assert_int_equal(sync_init(&s, &bad[i], T(0), NULL), -22);
	assert_string_equal(tb_state_name(TB_HOLDOVER), "holdover");
}

TDP_TEST_MAIN(cmocka_unit_test(locks_after_lock_samples),
	      cmocka_unit_test(bad_run_unlocks_outlier_does_not),
	      cmocka_unit_test(fault_holdover_budget), cmocka_unit_test(holdover_relocks),
	      cmocka_unit_test(sample_timeout_is_holdover), cmocka_unit_test(steps_are_counted),
	      cmocka_unit_test(force_and_bad_settings))
