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
#include "hostclock.h"

struct tb_system {
	struct timebase base;
	struct hostclock hc;
	int sync_mode;
	pthread_mutex_t lock;     /* guards sy: refresh (engine) against sync (control) */
	struct sync sy;
};

extern const struct timebase_ops tb_system_ops;

#define SYS(tb) ((struct tb_system *)(tb))

static tdp_time_t sys_now(struct timebase *tb)
{
	return hostclock_now(&SYS(tb)->hc);
}

static tdp_time_t sys_fast_now(struct timebase *tb)
{
	return hostclock_fast_now(&SYS(tb)->hc);
}

static int sys_sleep_until(struct timebase *tb, tdp_time_t t)
{
	/* EINTR (a stop signal) returns early on purpose: the engine then polls */
	return hostclock_sleep_until(&SYS(tb)->hc, t);
}

/* The kernel's view of the clock's discipline. */
static void sys_poll_sync(struct tb_system *s)
{
	tdp_time_t now = hostclock_now(&s->hc);
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
	hostclock_anchor(&s->hc);
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
	char hc[200];
	hostclock_describe(&s->hc, hc, sizeof(hc));
	snprintf(buf, len, "%s; sync from %s", hc,
		 s->sync_mode == TB_SYSSYNC_ADJTIMEX ? "adjtimex" : "nothing (assume-locked)");
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
	int rc = hostclock_init(&s->hc, p->system_clock, p->utc_tai_offset_s, p->fast_clock, err, errlen);
	if (rc) {
		free(s);
		return rc;
	}
	pthread_mutex_init(&s->lock, NULL);
	s->sync_mode = p->system_sync;
	struct sync_cfg sc = p->sync;
	if (sc.lock_ns <= 0)
		tb_sync_defaults(&sc);
	sync_init(&s->sy, &sc, hostclock_now(&s->hc), "not read yet");
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
