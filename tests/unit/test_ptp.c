/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The PTP management codec, and the ptp source against a scripted ptp4l: a
 * thread of this test on a UNIX socket that answers GET TIME_STATUS_NP and
 * PORT_DATA_SET with what the test sets, acknowledges SUBSCRIBE_EVENTS_NP,
 * and can send garbage, fall silent or go away. The source's sync state,
 * offset, steps and counters are checked as the script moves on; each wait is
 * bounded and none asserts a time.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "../tdp_test.h"

#include "ptp_mgmt.h"
#include "simptp.h"
#include "tb_ptp.h"
#include "tb_sim.h"
#include "tb_system.h"

static void codec_round_trip(void **st)
{
	(void)st;
	uint8_t b[PTPM_MAX];
	struct ptpm_msg m;
	const char *why;
	int n = ptpm_build_get(b, sizeof(b), 7, 0x1234, 99, PTPM_ID_TIME_STATUS_NP);
	/* what pmc sends for GET TIME_STATUS_NP: 104 bytes, TLV length 52 */
	assert_int_equal(n, 104);
	assert_int_equal(b[0], 0x0d);
	assert_int_equal(b[2] << 8 | b[3], 104);
	assert_int_equal(b[4], 7);
	assert_int_equal(b[32], 4);
	assert_int_equal(b[33], 0x7f);
	assert_int_equal(b[50] << 8 | b[51], 52);
	assert_int_equal(ptpm_parse(b, (size_t)n, &m, &why), 0);
	assert_int_equal(m.action, PTPM_GET);
	assert_int_equal(m.seq, 0x1234);
	assert_int_equal(m.id, PTPM_ID_TIME_STATUS_NP);
	assert_int_equal(m.domain, 7);
	n = ptpm_build_subscribe(b, sizeof(b), 0, 1, 99, 60,
				 1u << PTPM_NOTIFY_PORT_STATE | 1u << PTPM_NOTIFY_TIME_SYNC);
	assert_int_equal(n, 120);
	assert_int_equal(ptpm_parse(b, (size_t)n, &m, &why), 0);
	assert_int_equal(m.action, PTPM_SET);
	assert_int_equal(m.u.sub.duration_s, 60);
	assert_int_equal(m.u.sub.bitmask[0], 3);
	size_t r = response(b, 5, PTPM_ID_TIME_STATUS_NP, -70, 1795312110942109760LL, 1, 0, 0);
	assert_int_equal(ptpm_parse(b, r, &m, &why), 0);
	assert_int_equal(m.action, PTPM_RESPONSE);
	assert_int_equal(m.u.ts.master_offset_ns, -70);
	assert_int_equal(m.u.ts.ingress_time_ns, 1795312110942109760LL);
	assert_int_equal(m.u.ts.gm_present, 1);
	assert_int_equal(m.u.ts.gm_identity[7], 0xab);
	/* CURRENT_DATA_SET as pmc shows it: offsetFromMaster -142.0, meanPathDelay 9310.0 */
	r = response(b, 7, PTPM_ID_CURRENT_DATA_SET, -142, 0, 0, 0, 9310);
	assert_int_equal(r, PTPM_BODY + 6 + PTPM_LEN_CURRENT_DS);
	assert_int_equal(ptpm_parse(b, r, &m, &why), 0);
	assert_int_equal(m.u.cds.steps_removed, 1);
	assert_int_equal(m.u.cds.offset_scaled, -142 * 65536);
	assert_int_equal(m.u.cds.mean_path_delay_scaled, 9310LL * 65536);
	r = response(b, 6, PTPM_ID_PORT_DATA_SET, 0, 0, 0, PTPM_PS_UNCALIBRATED, 0);
	assert_int_equal(ptpm_parse(b, r, &m, &why), 0);
	assert_int_equal(m.u.pds.port_state, PTPM_PS_UNCALIBRATED);
	assert_int_equal(m.u.pds.port_number, 1);
	assert_int_equal(m.u.pds.log_sync_interval, -3);
	assert_string_equal(ptpm_port_state_name(m.u.pds.port_state), "UNCALIBRATED");
	assert_int_equal(ptpm_build_get(b, 50, 0, 0, 0, PTPM_ID_TIME_STATUS_NP), -ENOSPC);
	assert_int_equal(ptpm_build_get(b, sizeof(b), 0, 0, 0, 0x2000), -EINVAL);
}

static void codec_rejects(void **st)
{
	(void)st;
	uint8_t b[PTPM_MAX], c[PTPM_MAX];
	struct ptpm_msg m;
	const char *why;
	size_t r = response(b, 5, PTPM_ID_TIME_STATUS_NP, 1, 2, 1, 0, 0);
	/* every truncation is refused with a reason */
	for (size_t n = 0; n < r; n++) {
		assert_int_equal(ptpm_parse(b, n, &m, &why), -EBADMSG);
		assert_non_null(why);
	}
	struct {
		size_t at;
		uint8_t v;
		const char *reason;
	} bad[] = {
		{0, 0x0b, "not a management message"},
		{1, 0x01, "not PTP version 2"},
		{2, 0xff, "messageLength does not match the datagram"},
		{46, 0x07, "unknown actionField"},
		{49, 0x09, "not a MANAGEMENT TLV"},
		{50, 0x10, "TLV runs past the message"},
		{51, 0x10, "TLV data shorter than its managementId needs"},
		{54 + 41, 2, "gmPresent neither true nor false"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memcpy(c, b, r);
		c[bad[i].at] = bad[i].v;
		assert_int_equal(ptpm_parse(c, r, &m, &why), -EBADMSG);
		assert_string_equal(why, bad[i].reason);
	}
	r = response(b, 5, PTPM_ID_PORT_DATA_SET, 0, 0, 0, 12, 0);
	assert_int_equal(ptpm_parse(b, r, &m, &why), -EBADMSG);
	assert_string_equal(why, "unknown portState");
	/* an id tdpd does not decode parses, without data */
	r = response(b, 5, PTPM_ID_TIME_STATUS_NP, 0, 0, 1, 0, 0);
	sp_put16(b + 52, 0x2002); /* PARENT_DATA_SET */
	assert_int_equal(ptpm_parse(b, r, &m, &why), -ENOTSUP);
	assert_int_equal(m.id, 0x2002);
	/* MANAGEMENT_ERROR_STATUS */
	sp_put16(b + 48, PTPM_TLV_ERROR_STATUS);
	sp_put16(b + 50, 8);
	sp_put16(b + 52, 0x0002); /* NO_SUCH_ID */
	sp_put16(b + 54, 0xc000);
	assert_int_equal(ptpm_parse(b, r, &m, &why), 0);
	assert_int_equal(m.error_id, 2);
	assert_int_equal(m.id, 0xc000);
}

/* The parser keeps nothing between calls: two threads parsing at once (the
 * source's client and a test's scripted ptp4l, or two sources) share no
 * state, which ThreadSanitizer checks. */
static void *parse_many(void *arg)
{
	(void)arg;
	uint8_t b[PTPM_MAX];
	size_t r = response(b, 7, PTPM_ID_TIME_STATUS_NP, 1234, 5, 1, PTPM_PS_SLAVE, 3300);
	for (int i = 0; i < 2000; i++) {
		struct ptpm_msg m;
		if (ptpm_parse(b, r, &m, NULL) != 0 || m.u.ts.master_offset_ns != 1234)
			return (void *)1;
		if (ptpm_parse(b, 10, &m, NULL) != -EBADMSG)
			return (void *)1;
	}
	return NULL;
}

static void parse_from_two_threads(void **st)
{
	(void)st;
	pthread_t a, b;
	void *ra, *rb;
	assert_int_equal(pthread_create(&a, NULL, parse_many, NULL), 0);
	assert_int_equal(pthread_create(&b, NULL, parse_many, NULL), 0);
	pthread_join(a, &ra);
	pthread_join(b, &rb);
	assert_null(ra);
	assert_null(rb);
}

/* Inputs the fuzzer found, kept in its corpus: each parses to a defined
 * answer with the fuzz target's properties (a reason for a refusal, data
 * within the datagram). */
static void fuzz_regressions(void **st)
{
	(void)st;
	static const char *const files[] = {"regress-e47be051-length-under-datagram"};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char path[512];
		snprintf(path, sizeof(path), "%s/tests/fuzz/corpus/ptp/%s", TDP_SRCDIR, files[i]);
		FILE *f = fopen(path, "rb");
		assert_non_null(f);
		uint8_t b[PTPM_MAX];
		size_t n = fread(b, 1, sizeof(b), f);
		fclose(f);
		assert_true(n > 0);
		struct ptpm_msg m;
		const char *why = NULL;
		int rc = ptpm_parse(b, n, &m, &why);
		if (rc == -EBADMSG)
			assert_non_null(why);
		else
			assert_true((size_t)PTPM_BODY + 4 + m.data_len <= n);
	}
}

/* ---- the scripted ptp4l ---------------------------------------------------- */

static struct fake {
	char path[108];
	int fd;
	pthread_t th;
	atomic_int stop;
	atomic_llong offset; /* master offset answered */
	atomic_int gm;	     /* gmPresent */
	atomic_int port_state;
	atomic_int mode;    /* 0 answer, 1 garbage, 2 silent */
	atomic_llong delay; /* meanPathDelay answered, ns; 0 as ptp4l before a delay response */
	atomic_int still;   /* offsets exactly as set, with none of a measurement's noise */
	atomic_int subs, gets;
	atomic_llong ingress;
	bool up; /* the thread runs */
} fk;

static int64_t fake_offset(void)
{
	return atomic_load(&fk.offset);
}

/* What ptp4l answers: the offset with a measurement's noise of a few ns */
static int64_t fake_measured(int64_t ingress)
{
	return fake_offset() + (atomic_load(&fk.still) ? 0 : ingress / 125000000 % 5 - 2);
}

static void *fake_thread(void *arg)
{
	(void)arg;
	uint8_t in[PTPM_MAX], out[PTPM_MAX];
	while (!atomic_load(&fk.stop)) {
		struct sockaddr_un from;
		socklen_t fl = sizeof(from);
		struct timeval tv = {0, 20000};
		setsockopt(fk.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		ssize_t n = recvfrom(fk.fd, in, sizeof(in), 0, (struct sockaddr *)&from, &fl);
		if (n <= 0)
			continue;
		struct ptpm_msg m;
		if (ptpm_parse(in, (size_t)n, &m, NULL) != 0)
			continue;
		int mode = atomic_load(&fk.mode);
		if (mode == 2)
			continue;
		size_t r;
		if (m.id == PTPM_ID_SUBSCRIBE_EVENTS_NP) {
			atomic_fetch_add(&fk.subs, 1);
			memcpy(out, in, (size_t)n);
			out[46] = PTPM_RESPONSE;
			r = (size_t)n;
		} else {
			atomic_fetch_add(&fk.gets, 1);
			int64_t ing = m.id == PTPM_ID_TIME_STATUS_NP
					      ? atomic_fetch_add(&fk.ingress, 125000000)
					      : atomic_load(&fk.ingress);
			r = response(out, m.seq, m.id, fake_measured(ing), ing, atomic_load(&fk.gm),
				     (uint8_t)atomic_load(&fk.port_state), atomic_load(&fk.delay));
		}
		if (mode == 1) {
			out[1] = 9; /* wrong version */
			sendto(fk.fd, out, r, 0, (struct sockaddr *)&from, fl);
			sendto(fk.fd, out, 10, 0, (struct sockaddr *)&from, fl);
			continue;
		}
		sendto(fk.fd, out, r, 0, (struct sockaddr *)&from, fl);
	}
	return NULL;
}

static void fake_up(void)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	memcpy(a.sun_path, fk.path, sizeof(a.sun_path));
	unlink(fk.path);
	fk.fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	assert_int_equal(bind(fk.fd, (struct sockaddr *)&a, sizeof(a)), 0);
	atomic_store(&fk.stop, 0);
	assert_int_equal(pthread_create(&fk.th, NULL, fake_thread, NULL), 0);
	fk.up = true;
}

static void fake_down(void)
{
	atomic_store(&fk.stop, 1);
	pthread_join(fk.th, NULL);
	fk.up = false;
	close(fk.fd);
	unlink(fk.path);
}

/* after each test: a failed one leaves its fake ptp4l running, which the
 * next one's would race with */
static int fake_teardown(void **st)
{
	(void)st;
	if (fk.up)
		fake_down();
	return 0;
}

static void nap(int ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

/* tb's time against the system clock's: want, within tol. The two system
 * reads go around tb's, so a preemption between them widens the bracket but
 * never the error, however slow the machine. */
static void assert_ctr_off(struct timebase *tb, struct timebase *sys, int64_t want, int64_t tol)
{
	tdp_time_t s0 = tb_now(sys), t = tb_now(tb), s1 = tb_now(sys);
	assert_true(tdp_time_diff(t, s0) > want - tol);
	assert_true(tdp_time_diff(t, s1) < want + tol);
}

/* Waits up to 10 s for the state. */
static bool wait_state(struct timebase *tb, enum tb_state s)
{
	for (int i = 0; i < 1000; i++) {
		if (tb_state(tb) == s)
			return true;
		nap(10);
	}
	return false;
}

static void source_follows_scripted_ptp4l(void **st)
{
	(void)st;
	snprintf(fk.path, sizeof(fk.path), "/tmp/tdp-test-ptp4l.%d", (int)getpid());
	atomic_store(&fk.offset, 5000000); /* the local clock is 5 ms ahead of the master */
	atomic_store(&fk.gm, 1);
	atomic_store(&fk.port_state, PTPM_PS_UNCALIBRATED);
	atomic_store(&fk.ingress, 1);
	atomic_store(&fk.delay, 3300);
	atomic_store(&fk.still, 0);
	fake_up();
	const struct timebase_ops *ops = timebase_find("ptp");
	assert_non_null(ops);
	struct tb_ptp_params pp = {.mode = TB_PTP_OFFSET, .poll_ns = 10000000};
	struct tb_params p = {.fast = HC_FAST_OS, .own = &pp};
	snprintf(pp.socket, sizeof(pp.socket), "%s", fk.path);
	tb_sync_params_defaults(&p.sync);
	p.sync.lock_ns = 100000;
	p.sync.timeout_ns = 200000000;
	p.sync.holdover_ns = 300000000;
	p.sync.step_ns = 1000000;
	struct timebase *tb = NULL, *sys = NULL;
	char err[256];
	assert_int_equal(ops->create(&tb, &p, err, sizeof(err)), 0);
	struct tb_params sp = p;
	struct tb_system_params assume = {.sync_mode = TB_SYSSYNC_ASSUME};
	sp.own = &assume;
	assert_int_equal(timebase_find("system")->create(&sys, &sp, err, sizeof(err)), 0);

	/* locked on ptp4l's offset; the CTR is the system clock minus it */
	assert_true(wait_state(tb, TB_LOCKED));
	assert_ctr_off(tb, sys, -5000000, 100000);
	struct tb_sync s;
	tb_sync(tb, &s);
	assert_true(s.offset_ns >= 5000000 - 2 && s.offset_ns <= 5000000 + 2);
	assert_true(atomic_load(&fk.subs) >= 1);
	/* sleeping to a CTR time wakes at that CTR time, not 5 ms off */
	/* (never before it; 5 ms late every time were the offset applied twice,
	 * while a stall of the machine makes one wake late, not five) */
	bool near = false;
	for (int i = 0; i < 5 && !near; i++) {
		tdp_time_t to = tdp_time_add(tb_now(tb), 20000000);
		tb_sleep_until(tb, to);
		int64_t late = tdp_time_diff(tb_now(tb), to);
		assert_true(late >= 0);
		near = late < 4000000;
	}
	assert_true(near);

	/* the grandmaster goes: holdover, then unlocked when the budget is spent */
	atomic_store(&fk.gm, 0);
	assert_true(wait_state(tb, TB_HOLDOVER));
	tb_sync(tb, &s);
	assert_non_null(strstr(s.reason, "no grandmaster"));
	assert_true(wait_state(tb, TB_UNLOCKED));
	tb_sync(tb, &s);
	/* the reason is the latest: the budget was spent, or the grandmaster still missing */
	assert_true(strstr(s.reason, "holdover budget") || strstr(s.reason, "no grandmaster"));
	/* back, with the reference stepped by 3 ms: relocks, one step, the CTR moves */
	atomic_store(&fk.offset, 8000000);
	atomic_store(&fk.gm, 1);
	assert_true(wait_state(tb, TB_LOCKED));
	tb_sync(tb, &s);
	assert_int_equal(s.steps, 1);
	assert_true(s.last_step_ns >= 3000000 - 4 && s.last_step_ns <= 3000000 + 4);
	assert_ctr_off(tb, sys, -8000000, 100000);

	/* a drifting oscillator is followed on the simulated clock
	 * (client_on_simulated_clock), where no wall-clock bound can fail */

	/* garbage for a while: counted, then holdover for want of samples */
	struct tb_ptp_counters c;
	atomic_store(&fk.mode, 1);
	if (!wait_state(tb, TB_HOLDOVER)) {
		tb_sync(tb, &s);
		fail_msg("state %s: %s", tb_state_name(s.state), s.reason);
	}
	tb_ptp_counters(tb, &c);
	assert_true(c.malformed >= 4);
	atomic_store(&fk.mode, 0);
	assert_true(wait_state(tb, TB_LOCKED));

	/* a port that stops syncing is a fault */
	atomic_store(&fk.port_state, PTPM_PS_LISTENING);
	if (!wait_state(tb, TB_HOLDOVER)) {
		tb_sync(tb, &s);
		fail_msg("state %s: %s (%d gets)", tb_state_name(s.state), s.reason,
			 atomic_load(&fk.gets));
	}
	tb_sync(tb, &s);
	assert_non_null(strstr(s.reason, "LISTENING"));
	atomic_store(&fk.port_state, PTPM_PS_SLAVE);
	assert_true(wait_state(tb, TB_LOCKED));

	/* ptp4l goes away (its socket with it) and comes back: send errors,
	 * holdover, unlocked; then a reconnect and a new subscription */
	int subs = atomic_load(&fk.subs);
	fake_down();
	assert_true(wait_state(tb, TB_UNLOCKED));
	tb_ptp_counters(tb, &c);
	assert_true(c.send_errors >= 1);
	tb_sync(tb, &s);
	assert_true(s.faults >= 1);
	fake_up();
	assert_true(wait_state(tb, TB_LOCKED));
	tb_ptp_counters(tb, &c);
	assert_true(c.reconnects >= 1);
	assert_true(atomic_load(&fk.subs) > subs);
	tb->ops->destroy(tb);
	sys->ops->destroy(sys);
	fake_down();
}

/* Disciplined mode: the clock is the system's; locking needs SLAVE and a
 * small master offset, as phc2sys and ptp4l leave it when they have converged. */
static void disciplined_mode(void **st)
{
	(void)st;
	snprintf(fk.path, sizeof(fk.path), "/tmp/tdp-test-ptp4l-d.%d", (int)getpid());
	atomic_store(&fk.offset, 5000000);
	atomic_store(&fk.gm, 1);
	atomic_store(&fk.port_state, PTPM_PS_UNCALIBRATED);
	atomic_store(&fk.mode, 0);
	atomic_store(&fk.gets, 0);
	atomic_store(&fk.delay, 3300);
	fake_up();
	struct tb_ptp_params pp = {
		.mode = TB_PTP_DISCIPLINED, .poll_ns = 10000000, .subscribe_s = 1};
	struct tb_params p = {.fast = HC_FAST_OS, .own = &pp};
	snprintf(pp.socket, sizeof(pp.socket), "%s", fk.path);
	atomic_store(&fk.subs, 0);
	tb_sync_params_defaults(&p.sync);
	p.sync.lock_ns = 100000;
	struct timebase *tb = NULL, *sys = NULL;
	char err[256];
	assert_int_equal(timebase_find("ptp")->create(&tb, &p, err, sizeof(err)), 0);
	struct tb_params sp = p;
	struct tb_system_params assume = {.sync_mode = TB_SYSSYNC_ASSUME};
	sp.own = &assume;
	assert_int_equal(timebase_find("system")->create(&sys, &sp, err, sizeof(err)), 0);
	/* UNCALIBRATED is not enough here */
	while (atomic_load(&fk.gets) < 40)
		nap(10);
	struct tb_sync s;
	tb_sync(tb, &s);
	assert_int_equal(s.state, TB_UNLOCKED);
	assert_non_null(strstr(s.reason, "UNCALIBRATED"));
	/* SLAVE but 5 ms off: every sample bad */
	atomic_store(&fk.port_state, PTPM_PS_SLAVE);
	int g = atomic_load(&fk.gets);
	while (atomic_load(&fk.gets) < g + 40)
		nap(10);
	tb_sync(tb, &s);
	assert_int_equal(s.state, TB_UNLOCKED);
	assert_true(s.bad_samples >= 4);
	/* converged */
	atomic_store(&fk.offset, -40);
	assert_true(wait_state(tb, TB_LOCKED));
	/* the CTR is the system clock itself */
	assert_ctr_off(tb, sys, 0, 1000000);
	/* a 1 s subscription is renewed every half second, before it expires */
	for (int i = 0; i < 1000 && atomic_load(&fk.subs) < 3; i++)
		nap(10);
	assert_true(atomic_load(&fk.subs) >= 3);
	struct tb_ptp_counters c;
	tb_ptp_counters(tb, &c);
	assert_true(c.subscriptions >= 3); /* ptp4l's answers to them */
	tb->ops->destroy(tb);
	sys->ops->destroy(sys);
	fake_down();
}

/* Waits for n more answers of the scripted ptp4l. */
static void answers(int n)
{
	int g = atomic_load(&fk.gets);
	for (int i = 0; i < 1000 && atomic_load(&fk.gets) < g + n; i++)
		nap(10);
}

/*
 * What is not evidence of lock, as real ptp4l shows it on a UDPv4 port with no
 * IPv4 address: Sync arrives (the ingress time moves), no Delay_Req can go
 * out, so meanPathDelay stays 0 and the offset 0. Then a measured path delay
 * with an offset that never varies; then a real measurement, which locks.
 * Disciplined mode: SLAVE with a small offset but no path delay does not lock.
 */
static void no_lock_without_evidence(void **st)
{
	(void)st;
	snprintf(fk.path, sizeof(fk.path), "/tmp/tdp-test-ptp4l-e.%d", (int)getpid());
	atomic_store(&fk.offset, 0);
	atomic_store(&fk.gm, 1);
	atomic_store(&fk.port_state, PTPM_PS_UNCALIBRATED);
	atomic_store(&fk.mode, 0);
	atomic_store(&fk.delay, 0);
	atomic_store(&fk.still, 1);
	fake_up();
	struct tb_ptp_params pp = {.mode = TB_PTP_OFFSET, .poll_ns = 10000000};
	struct tb_params p = {.fast = HC_FAST_OS, .own = &pp};
	snprintf(pp.socket, sizeof(pp.socket), "%s", fk.path);
	tb_sync_params_defaults(&p.sync);
	p.sync.lock_ns = 100000;
	struct timebase *tb = NULL;
	char err[256];
	assert_int_equal(timebase_find("ptp")->create(&tb, &p, err, sizeof(err)), 0);
	struct tb_sync s;
	answers(60);
	tb_sync(tb, &s);
	assert_int_equal(s.state, TB_UNLOCKED);
	assert_int_equal(s.samples, 0);
	assert_non_null(strstr(s.reason, "no path delay"));
	/* a path delay, but the offset is the same sample after sample */
	atomic_store(&fk.offset, 700);
	atomic_store(&fk.delay, 3300);
	answers(60);
	tb_sync(tb, &s);
	assert_int_equal(s.state, TB_UNLOCKED);
	assert_true(s.samples <= 1);
	assert_non_null(strstr(s.reason, "700 ns sample after sample"));
	/* a measurement: it varies */
	atomic_store(&fk.still, 0);
	assert_true(wait_state(tb, TB_LOCKED));
	/* the path delay gone again: a fault, holdover */
	atomic_store(&fk.delay, 0);
	assert_true(wait_state(tb, TB_HOLDOVER));
	tb->ops->destroy(tb);

	pp.mode = TB_PTP_DISCIPLINED;
	atomic_store(&fk.port_state, PTPM_PS_SLAVE);
	atomic_store(&fk.offset, -40);
	assert_int_equal(timebase_find("ptp")->create(&tb, &p, err, sizeof(err)), 0);
	answers(60);
	tb_sync(tb, &s);
	assert_int_equal(s.state, TB_UNLOCKED);
	assert_non_null(strstr(s.reason, "no path delay"));
	atomic_store(&fk.delay, 3300);
	assert_true(wait_state(tb, TB_LOCKED));
	tb->ops->destroy(tb);
	fake_down();
}

/* ---- the client on the simulated clock (simptp.h) ----------------------- */

static void client_on_simulated_clock(void **st)
{
	(void)st;
	memset(&sp4, 0, sizeof(sp4));
	sp4.clk = tb_sim_new(tdp_time(1000 * TDP_NS_PER_S), 1);
	sp4.offset = 5000000;
	sp4.delay = 3300;
	sp4.gm = 1;
	sp4.port_state = PTPM_PS_UNCALIBRATED;
	struct tb_ptp_params pp = {.mode = TB_PTP_OFFSET, .poll_ns = 10000000};
	struct tb_params p = {.own = &pp};
	tb_sync_params_defaults(&p.sync);
	p.sync.lock_ns = 100000;
	p.sync.timeout_ns = 200000000;
	p.sync.holdover_ns = 300000000;
	p.sync.step_ns = 1000000;
	struct tb_ptp_io io = {.send = sim_send, .recv = sim_recv, .wait = sim_wait};
	char err[256];
	struct timebase *tb = tb_ptp_new(&io, sp4.clk, &p, false, err, sizeof(err));
	assert_non_null(tb);
	assert_int_equal(tb_state(tb), TB_UNLOCKED);

	/* four samples lock it; the CTR is the host clock minus ptp4l's offset */
	sim_run(tb, 6);
	assert_int_equal(tb_state(tb), TB_LOCKED);
	int64_t d = tdp_time_diff(tb_now(tb), tb_sim_time(sp4.clk));
	assert_true(d < -4999990 && d > -5000010);
	assert_true(sp4.subs >= 1);

	/* the grandmaster goes: holdover at once, unlocked when 300 ms are spent */
	sp4.gm = 0;
	sim_run(tb, 1);
	assert_int_equal(tb_state(tb), TB_HOLDOVER);
	sim_run(tb, 25);
	assert_int_equal(tb_state(tb), TB_HOLDOVER);
	sim_run(tb, 10);
	assert_int_equal(tb_state(tb), TB_UNLOCKED);

	/* back, with the reference stepped by 3 ms: the step persists, the line
	 * restarts, the CTR moves with it, and one step is counted */
	sp4.gm = 1;
	sp4.offset = 8000000;
	sim_run(tb, 10);
	assert_int_equal(tb_state(tb), TB_LOCKED);
	struct tb_sync s;
	tb_sync(tb, &s);
	assert_int_equal(s.steps, 1);
	d = tdp_time_diff(tb_now(tb), tb_sim_time(sp4.clk));
	assert_true(d < -7999990 && d > -8000010);

	/* an oscillator 500 ppm off: the offset moves 5 us per 10 ms poll, and
	 * the line through the samples follows it between them (a mean of the
	 * last 16 would lag some 40 us) */
	sp4.drift_t0 = tb_sim_time(sp4.clk).ns;
	sp4.drift_ppm = 500;
	sim_run(tb, 40);
	for (int i = 0; i < 5; i++) {
		tb_sim_advance(sp4.clk, 3700000); /* between two polls */
		int64_t want = -(sp4.offset + sim_drift());
		int64_t got = tdp_time_diff(tb_now(tb), tb_sim_time(sp4.clk));
		if (got - want > 3000 || got - want < -3000)
			fail_msg("drifting offset: the source is %lld ns off",
				 (long long)(got - want));
		sim_run(tb, 1);
	}
	assert_int_equal(tb_state(tb), TB_LOCKED);
	sp4.offset += sim_drift();
	sp4.drift_ppm = 0;
	sim_run(tb, 30);
	assert_int_equal(tb_state(tb), TB_LOCKED);

	/* ptp4l stops answering: after three unanswered polls a fault, holdover */
	sp4.silent = 1;
	sim_run(tb, 3);
	assert_int_equal(tb_state(tb), TB_LOCKED);
	sim_run(tb, 3);
	assert_int_equal(tb_state(tb), TB_HOLDOVER);
	tb_sync(tb, &s);
	assert_non_null(strstr(s.reason, "does not answer"));
	struct tb_ptp_counters c;
	tb_ptp_counters(tb, &c);
	assert_int_equal(c.requests, sp4.sent);
	assert_int_equal(c.send_errors, 0);
	tb_destroy(tb);
	tb_destroy(sp4.clk);
}

TDP_TEST_MAIN(cmocka_unit_test(codec_round_trip), cmocka_unit_test(codec_rejects),
	      cmocka_unit_test(fuzz_regressions), cmocka_unit_test(parse_from_two_threads),
	      cmocka_unit_test_teardown(client_on_simulated_clock, fake_teardown),
	      cmocka_unit_test_teardown(source_follows_scripted_ptp4l, fake_teardown),
	      cmocka_unit_test_teardown(disciplined_mode, fake_teardown),
	      cmocka_unit_test_teardown(no_lock_without_evidence, fake_teardown))
