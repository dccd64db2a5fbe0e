/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The host clock as TAI: CLOCK_TAI when the kernel knows the UTC-TAI offset
 * (ptp4l/phc2sys or chrony set it), else CLOCK_REALTIME plus a configured
 * offset; polled through the TSC mapped onto it when the TSC is invariant and
 * the kernel's clocksource, else through clock_gettime. No sync state and no
 * threads: the system time source adds the kernel's view of the discipline,
 * tdp-probe uses it as it is.
 *
 * Threads: now(), fast_now() and sleep_until() from any thread; anchor() from
 * one thread at a time (it re-fits the TSC mapping, which the others read
 * through a sequence lock).
 */
#ifndef TDP_HOSTCLOCK_H
#define TDP_HOSTCLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "tdp_time.h"
#include "tscclock.h"

enum {
	HC_CLOCK_AUTO,
	HC_CLOCK_TAI,
	HC_CLOCK_REALTIME
};
enum {
	HC_FAST_AUTO,
	HC_FAST_TSC,
	HC_FAST_OS
};

/* The offset used when neither the kernel nor the configuration gives one
 * (TAI - UTC since 2017-01-01). */
#define HC_UTC_TAI_DEFAULT_S 37

struct hostclock {
	clockid_t clk;
	int64_t add_ns; /* added to the clock to get TAI */
	int kernel_tai; /* the kernel's UTC-TAI offset, s; 0: not set */
	bool use_tsc;
	const char *tsc_why; /* why the TSC is not polled, or NULL */
	struct tscclock tsc;
};

/* which: HC_CLOCK_*; utc_tai_s: the offset for REALTIME when the kernel has
 * none; fast: HC_FAST_*. 0, or -errno with a message in err (fast TSC asked
 * for and not usable). */
int hostclock_init(struct hostclock *h, int which, int utc_tai_s, int fast, char *err,
		   size_t errlen);
tdp_time_t hostclock_now(const struct hostclock *h);
tdp_time_t hostclock_fast_now(const struct hostclock *h);
/* An absolute sleep; 0 or -errno (EINTR: a signal ended it early). */
int hostclock_sleep_until(const struct hostclock *h, tdp_time_t t);
/* Re-anchors the TSC mapping (one thread at a time). */
void hostclock_anchor(struct hostclock *h);
/* One line: which clock, which offset, how it is polled. */
void hostclock_describe(const struct hostclock *h, char *buf, size_t len);

#endif
