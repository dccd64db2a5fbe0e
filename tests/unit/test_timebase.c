/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The sim and system time sources behind the contract.
 */
#include <pthread.h>
#include <unistd.h>
#include <stdio.h>
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
#include "log.h"
#include "tb_system.h"
#include "tb_sim.h"
#include "tscclock.h"

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
	struct tb_params p = {
		.clock = HC_CLOCK_REALTIME, .utc_tai_offset_s = 37, .fast = HC_FAST_OS};
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
	struct tb_system_params sp = {.sync_mode = TB_SYSSYNC_ADJTIMEX};
	struct tb_params p = {.fast = HC_FAST_OS, .utc_tai_offset_s = 37, .own = &sp};
	struct timebase *tb;
	char err[128];
	assert_int_equal(ops->create(&tb, &p, err, sizeof(err)), 0);
	struct tb_sync s;
	tb_sync(tb, &s);
	assert_int_equal(s.state, unsync ? TB_UNLOCKED : TB_LOCKED);
	assert_int_equal(tb_state(tb), s.state);
	assert_non_null(strstr(s.reason, unsync ? "unsynchronised (STA_UNSYNC)"
						: "synchronised (STA_UNSYNC clear)"));
	tb->ops->destroy(tb);
	sp.sync_mode = TB_SYSSYNC_ASSUME;
	assert_int_equal(ops->create(&tb, &p, err, sizeof(err)), 0);
	tb_sync(tb, &s);
	assert_int_equal(s.state, TB_LOCKED);
	assert_non_null(strstr(s.reason, "assume-locked"));
	tb->ops->destroy(tb);
}

/* The kernel's NTP variables as ptp4l or phc2sys leave them (status and
 * maxerror set, esterror still the kernel's initial 16 s) give the maximum
 * error as the uncertainty: 0 just after an update, growing by 500 us a
 * second without one. Taking the 16 s estimate put every frame past any
 * sync budget. A daemon that sets the estimate (chronyd) gives that. */
static void system_uncertainty_from_the_kernel(void **state)
{
	(void)state;
	int64_t err = -1;
	const char *why = NULL;
	assert_int_equal(tb_system_judge(STA_UNSYNC, 16000000, 16000000, &err, &why), TB_UNLOCKED);
	assert_non_null(strstr(why, "unsynchronised (STA_UNSYNC)"));
	/* ptp4l just updated it; then 3 s without an update */
	assert_int_equal(tb_system_judge(STA_PLL, 0, TB_SYSTEM_NO_ESTIMATE_US, &err, &why),
			 TB_LOCKED);
	assert_int_equal(err, 0);
	assert_non_null(strstr(why, "its maximum error"));
	assert_int_equal(tb_system_judge(STA_PLL, 1500, TB_SYSTEM_NO_ESTIMATE_US, &err, &why),
			 TB_LOCKED);
	assert_int_equal(err, 1500000);
	/* chronyd's estimate */
	assert_int_equal(tb_system_judge(STA_PLL, 40000, 120, &err, &why), TB_LOCKED);
	assert_int_equal(err, 120000);
	assert_non_null(strstr(why, "estimated error"));
}

/* The shared part: a sample from the engine's thread never waits for a
 * reader of the state; one not taken is counted, and the next is taken. */
static void engine_sample_never_waits(void **state)
{
	(void)state;
	struct timebase *tb = tb_sim_new(tdp_time(1000), 10);
	struct tb_sync s;
	tb_sync(tb, &s);
	uint64_t before = s.samples;
	pthread_mutex_lock(&tb->lock); /* a reader holds the state */
	tb_sample_nowait(tb, tdp_time(2000), 5, 5);
	tb_fault_nowait(tb, tdp_time(2000), "gone");
	pthread_mutex_unlock(&tb->lock);
	tb_sync(tb, &s);
	assert_int_equal(s.busy, 2);
	assert_int_equal(s.samples, before);
	assert_int_equal(s.faults, 0);
	tb_sample_nowait(tb, tdp_time(3000), 5, 5);
	tb_sync(tb, &s);
	assert_int_equal(s.samples, before + 1);
	assert_int_equal(s.busy, 2);
	tb_destroy(tb);
}

/* stderr into a file while the sim source changes state from the engine's
 * thread (nowait: no log line may be written there) and from another */
static void transitions_said_off_the_engine_thread(void **state)
{
	(void)state;
	struct timebase *tb = tb_sim_new(tdp_time(1000), 10);
	int was = tdp_log_level;
	tdp_log_level = LOG_DEBUG;
	char path[] = "/tmp/tdp-test-tb-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	fflush(stderr);
	int saved = dup(2);
	dup2(fd, 2);
	tb_fault_nowait(tb, tdp_time(2000), "engine-side fault");
	fflush(stderr);
	off_t after_engine = lseek(fd, 0, SEEK_END);
	tb_force(tb, tdp_time(3000), TB_LOCKED, 0, 0, "housekeeping-side relock");
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	char buf[1024] = "";
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	close(fd);
	unlink(path);
	tdp_log_level = was;
	assert_int_equal(tb_state(tb), TB_LOCKED);
	assert_int_equal(after_engine, 0);
	assert_true(n > 0 && strstr(buf, "timebase sim: locked: housekeeping-side relock"));
	tb_destroy(tb);
}

TDP_TEST_MAIN(cmocka_unit_test(sim_timebase_moves_only_when_used),
	      cmocka_unit_test(engine_sample_never_waits),
	      cmocka_unit_test(transitions_said_off_the_engine_thread),
	      cmocka_unit_test(system_timebase_reads_tai),
	      cmocka_unit_test(system_uncertainty_from_the_kernel),
	      cmocka_unit_test(system_timebase_sync_from_kernel))
