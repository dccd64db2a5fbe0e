/* SPDX-License-Identifier: BSD-3-Clause */
/* The system source (tb_system.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timex.h>
#include <time.h>

#include "hostclock.h"
#include "tb_system.h"

struct tb_system {
	struct timebase base;
	struct hostclock hc;
	int64_t sync_mode;
};

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

enum tb_state tb_system_judge(int status, long maxerror_us, long esterror_us, int64_t *err_ns,
			      const char **why)
{
	if (status & STA_UNSYNC) {
		*err_ns = 0;
		*why = "the kernel reports the clock unsynchronised (STA_UNSYNC): nothing "
		       "disciplines it";
		return TB_UNLOCKED;
	}
	if (esterror_us < TB_SYSTEM_NO_ESTIMATE_US) {
		*err_ns = (int64_t)esterror_us * 1000;
		*why = "the kernel reports the clock synchronised (STA_UNSYNC clear), its "
		       "estimated error the uncertainty";
		return TB_LOCKED;
	}
	/* ptp4l and phc2sys set the status and maxerror only (linuxptp's
	 * sysclk_set_sync: ADJ_STATUS | ADJ_MAXERROR, maxerror 0): the
	 * estimate stays at the kernel's initial 16 s (ntp_clear), while the
	 * maximum error grows by 500 us each second without an update
	 * (second_overflow, MAXFREQ) */
	*err_ns = (int64_t)(maxerror_us < 0 ? 0 : maxerror_us) * 1000;
	*why = "the kernel reports the clock synchronised (STA_UNSYNC clear); no estimated "
	       "error (ptp4l and phc2sys set none), its maximum error, grown since the last "
	       "update, the uncertainty";
	return TB_LOCKED;
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
		} else {
			st = tb_system_judge(tx.status, tx.maxerror, tx.esterror, &err_ns, &why);
		}
	}
	tb_force(&s->base, now, st, 0, err_ns, why);
}

static void sys_refresh(struct timebase *tb)
{
	struct tb_system *s = SYS(tb);
	hostclock_anchor(&s->hc);
	sys_poll_sync(s);
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
	tb_fini(tb);
	free(tb);
}

static int sys_create(struct timebase **out, const struct tb_params *p, char *err, size_t errlen)
{
	struct tb_system *s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	int rc = hostclock_init(&s->hc, (int)p->clock, (int)p->utc_tai_offset_s, (int)p->fast, err,
				errlen);
	if (rc == 0)
		rc = tb_init(&s->base, &tb_system_ops, p, hostclock_now(&s->hc), "not read yet",
			     err, errlen);
	if (rc) {
		free(s);
		return rc;
	}
	const struct tb_system_params *own = p->own;
	s->sync_mode = own ? own->sync_mode : TB_SYSSYNC_ADJTIMEX;
	sys_poll_sync(s);
	*out = &s->base;
	return 0;
}

static const char *const syssync_names[] = {"adjtimex", "assume-locked", NULL};
static const struct tb_opt sys_opts[] = {
	{"system-sync", TB_OPT_ENUM, "adjtimex", 0, 0, syssync_names,
	 offsetof(struct tb_system_params, sync_mode), "adjtimex|assume-locked",
	 "system timebase: take the sync state from the kernel (STA_UNSYNC, set until chronyd, "
	 "ntpd or phc2sys discipline the clock), or assume it locked"},
	{NULL, TB_OPT_STR, NULL, 0, 0, NULL, 0, NULL, NULL},
};
_Static_assert(sizeof(sys_opts) / sizeof(sys_opts[0]) - 1 == TB_SYSTEM_NOPTS,
	       "TB_SYSTEM_NOPTS counts sys_opts[]");

const struct timebase_ops tb_system_ops = {
	.name = "system",
	.doc = "the host clock (CLOCK_TAI, or CLOCK_REALTIME plus the UTC-TAI offset), disciplined "
	       "by phc2sys or chrony",
	.create = sys_create,
	.destroy = sys_destroy,
	.now = sys_now,
	.fast_now = sys_fast_now,
	.sleep_until = sys_sleep_until,
	.refresh = sys_refresh,
	.describe = sys_describe,
	.opts = sys_opts,
	.own_size = sizeof(struct tb_system_params),
};
