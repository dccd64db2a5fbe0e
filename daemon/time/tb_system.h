/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The system source: the host clock (hostclock.h) disciplined by something
 * else (phc2sys, chrony, ntpd). With system-sync adjtimex (the default) the
 * sync state follows the kernel's own view: STA_UNSYNC set means nothing
 * disciplines the clock (unlocked), clear means locked with the kernel's
 * estimated error as the uncertainty; read at start and at every refresh.
 * With assume-locked the clock is taken as locked.
 * Settings: tb_params' clock, utc_tai_offset_s, fast and system.
 */
#ifndef TDP_TB_SYSTEM_H
#define TDP_TB_SYSTEM_H

#include "timebase.h"

extern const struct timebase_ops tb_system_ops;

#endif
