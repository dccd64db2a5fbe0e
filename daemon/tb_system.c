/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The system source: CLOCK_TAI when the kernel knows the UTC-TAI offset
 * (ptp4l/phc2sys or chrony set it), else CLOCK_REALTIME plus a configured
 * offset. Either way the clock is disciplined by something else (phc2sys,
 * chrony, ntpd). With system-sync adjtimex (the default) the sync state follows
 * the kernel's own view: STA_UNSYNC set means nothing disciplines the clock
 * (unlocked), clear means locked with the kernel's estimated error as the
 * uncertainty; it is read at start and at every refresh. With assume-locked
 * the clock is taken as locked.
 * Polling goes through the TSC mapped onto the clock when the TSC is
 * invariant and the kernel's clocksource, else through clock_gettime.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timex.h>
#include <time.h>

#include "log.h"
#include "timebase.h"
#include "tscclock.h"

struct tb_system {
	struct timebase base;
	clockid_t clk;
	int64_t add_ns;           /* added to the clock to get TAI */
	int kernel_tai;           /* the kernel's UTC-TAI offset, s */
	int use_tsc;
	const char *tsc_why;
	struct tscclock tsc;
	tdp_time_t last_anchor;
	int sync_mode;
	pthread_mutex_t lock;     /* guards sy: refresh (engine) against sync (control) */
	struct sync sy;
};

extern const struct timebase_ops tb_system_ops;

#define SYS(tb) ((struct tb_system *)(tb))

static int64_t read_clock(void *arg)
{
	struct tb_system *s = arg;
	struct timespec ts;
	clock_gettime(s->clk, &ts);
	return (int64_t)ts.tv_sec * TDP_NS_PER_S + ts.tv_nsec + s->add_ns;
}

static tdp_time_t sys_now(struct timebase *tb)
{
	return tdp_time(read_clock(tb));
}

static tdp_time_t sys_fast_now(struct timebase *tb)
{
	struct tb_system *s = SYS(tb);
	if (s->use_tsc)
		return tsc_to_time(&s->tsc, tsc_read());
	return tdp_time(read_clock(s));
}

static int sys_sleep_until(struct timebase *tb, tdp_time_t t)
{
	struct tb_system *s = SYS(tb);
	int64_t ns = t.ns - s->add_ns;
	struct timespec ts = {ns / TDP_NS_PER_S, ns % TDP_NS_PER_S};
	/* EINTR (a stop signal) returns early on purpose: the engine then polls */
	return -clock_nanosleep(s->clk, TIMER_ABSTIME, &ts, NULL);
}

/* The kernel's view of the clock's discipline. */
static void sys_poll_sync(struct tb_system *s)
{
	tdp_time_t now = tdp_time(read_clock(s));
	enum tb_state st = TB_LOCKED;
	const char *why = "assumed locked (system-sync assume-locked)";
	int64_t err_ns = 0;
	if (s->sync_mode == TB_SYSSYNC_ADJTIMEX) {
		struct timex tx = {0};
		if (adjtimex(&tx) < 0) {
			st = TB_UNLOCKED;
			why = "adjtimex failed";
		} else if (tx.status & STA_UNSYNC) {
			st = TB_UNLOCKED;
			why = "the kernel reports the clock unsynchronised (STA_UNSYNC): nothing disciplines it";
		} else {
			err_ns = (int64_t)tx.esterror * 1000;
			why = "the kernel reports the clock synchronised (STA_UNSYNC clear)";
		}
	}
	/* refresh runs on the engine's thread: never wait for a reader of the state */
	if (pthread_mutex_trylock(&s->lock) != 0)
		return;
	bool changed = sync_force(&s->sy, now, st, 0, err_ns, why);
	pthread_mutex_unlock(&s->lock);
	tb_set_state(&s->base, st);
	if (changed)
		log_debug("system clock %s: %s", tb_state_name(st), why);
}

static void sys_refresh(struct timebase *tb)
{
	struct tb_system *s = SYS(tb);
	if (s->use_tsc)
		tscclock_anchor(&s->tsc, read_clock, s);
	sys_poll_sync(s);
}

static void sys_sync(struct timebase *tb, struct tb_sync *out)
{
	struct tb_system *s = SYS(tb);
	pthread_mutex_lock(&s->lock);
	sync_get(&s->sy, sys_now(tb), out);
	pthread_mutex_unlock(&s->lock);
}

static void sys_describe(struct timebase *tb, char *buf, size_t len)
{
	struct tb_system *s = SYS(tb);
	if (s->clk == CLOCK_TAI)
		snprintf(buf, len, "CLOCK_TAI (kernel UTC-TAI offset %d s)", s->kernel_tai);
	else
		snprintf(buf, len, "CLOCK_REALTIME + %lld s as TAI%s", (long long)(s->add_ns / TDP_NS_PER_S),
			 s->kernel_tai ? "" : " (the kernel's UTC-TAI offset is not set)");
	size_t n = strlen(buf);
	snprintf(buf + n, len - n, "; sync from %s", s->sync_mode == TB_SYSSYNC_ADJTIMEX ? "adjtimex" : "nothing (assume-locked)");
	n = strlen(buf);
	if (s->use_tsc)
		snprintf(buf + n, len - n, "; polling the TSC at %.6f GHz mapped onto it", (double)s->tsc.hz / 1e9);
	else
		snprintf(buf + n, len - n, "; polling clock_gettime (%s)", s->tsc_why ? s->tsc_why : "TSC off");
}

static void sys_destroy(struct timebase *tb)
{
	pthread_mutex_destroy(&SYS(tb)->lock);
	free(tb);
}

static int sys_create(struct timebase **out, const struct tb_params *p, char *err, size_t errlen)
{
	struct tb_system *s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	s->base.ops = &tb_system_ops;
	struct timex tx = {0};
	if (adjtimex(&tx) >= 0)
		s->kernel_tai = tx.tai;
	int mode = p->system_clock;
	if (mode == TB_CLOCK_AUTO)
		mode = s->kernel_tai > 0 ? TB_CLOCK_TAI : TB_CLOCK_REALTIME;
	if (mode == TB_CLOCK_TAI) {
		s->clk = CLOCK_TAI;
	} else {
		s->clk = CLOCK_REALTIME;
		s->add_ns = (int64_t)(s->kernel_tai > 0 ? s->kernel_tai : p->utc_tai_offset_s) * TDP_NS_PER_S;
	}
	if (p->fast_clock != TB_FAST_OS) {
		const char *why = NULL;
		bool ok = tsc_usable(&why);
		if (!ok && p->fast_clock == TB_FAST_TSC) {
			snprintf(err, errlen, "fast-clock tsc: %s", why);
			free(s);
			return -ENOTSUP;
		}
		if (ok && tscclock_init(&s->tsc, read_clock, s, 20000000) == 0)
			s->use_tsc = 1;
		s->tsc_why = why;
	} else {
		s->tsc_why = "fast-clock os";
	}
	pthread_mutex_init(&s->lock, NULL);
	s->sync_mode = p->system_sync;
	struct sync_cfg sc = p->sync;
	if (sc.lock_ns <= 0)
		tb_sync_defaults(&sc);
	sync_init(&s->sy, &sc, tdp_time(read_clock(s)), "not read yet");
	sys_poll_sync(s);
	*out = &s->base;
	return 0;
}

const struct timebase_ops tb_system_ops = {
	.name = "system",
	.doc = "the host clock (CLOCK_TAI, or CLOCK_REALTIME plus the UTC-TAI offset), disciplined by phc2sys or chrony",
	.create = sys_create,
	.destroy = sys_destroy,
	.now = sys_now,
	.fast_now = sys_fast_now,
	.sleep_until = sys_sleep_until,
	.refresh = sys_refresh,
	.sync = sys_sync,
	.describe = sys_describe,
};
