/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The system source: the host clock (hostclock.h) disciplined by something
 * else (phc2sys, chrony, ntpd). With system-sync adjtimex (the default) the
 * sync state follows the kernel's own view: STA_UNSYNC set means nothing
 * disciplines the clock (unlocked), clear means locked with the kernel's
 * estimated error as the uncertainty (its maximum error where no estimate
 * was ever set); read at start and at every refresh.
 * With assume-locked the clock is taken as locked.
 * Settings: tb_params' clock, utc_tai_offset_s and fast, and its own
 * (system-sync, declared in tb_system.c).
 */
#ifndef TDP_TB_SYSTEM_H
#define TDP_TB_SYSTEM_H

#include "timebase.h"

extern const struct timebase_ops tb_system_ops;

/* Its own settings (tb_params.own; NULL: system-sync adjtimex). */
#define TB_SYSTEM_NOPTS 1 /* its opts[] (tb_system.c checks) */
struct tb_system_params {
	int64_t sync_mode; /* TB_SYSSYNC_* */
};
enum {
	TB_SYSSYNC_ADJTIMEX,
	TB_SYSSYNC_ASSUME
};

/* The kernel's estimated error before anything sets one: NTP_PHASE_LIMIT,
 * 16 s in microseconds (kernel/time/ntp.c, ntp_clear). */
#define TB_SYSTEM_NO_ESTIMATE_US 16000000L

/* The state adjtimex's status, maxerror and esterror (in us) give:
 * STA_UNSYNC set, unlocked; clear, locked with the estimated error as the
 * uncertainty, or, where none was ever set (ptp4l and phc2sys set only the
 * status and the maximum error), the maximum error, which the kernel grows
 * by 500 us a second until the next update. *err_ns the uncertainty, *why
 * the reason. */
enum tb_state tb_system_judge(int status, long maxerror_us, long esterror_us, int64_t *err_ns,
			      const char **why);

#endif
