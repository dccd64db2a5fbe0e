/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Typed time on the common time reference (CTR): TAI nanoseconds since
 * 1970-01-01 00:00:00 TAI, wrapped in a one-member struct so that absolute
 * times, durations and counter ticks cannot be mixed up. Durations are plain
 * int64_t nanoseconds and always carry an _ns suffix.
 */
#ifndef TDP_TIME_H
#define TDP_TIME_H

#include <stdint.h>

#include "tdp_mono.h"

typedef struct {
	int64_t ns;
} tdp_time_t;

#define TDP_NS_PER_S 1000000000LL

static inline tdp_time_t tdp_time(int64_t ns)
{
	return (tdp_time_t){ns};
}

static inline tdp_time_t tdp_time_add(tdp_time_t t, int64_t d_ns)
{
	return (tdp_time_t){t.ns + d_ns};
}

/* a - b in nanoseconds */
static inline int64_t tdp_time_diff(tdp_time_t a, tdp_time_t b)
{
	return a.ns - b.ns;
}

static inline int tdp_time_before(tdp_time_t a, tdp_time_t b)
{
	return a.ns < b.ns;
}

static inline tdp_time_t tdp_time_max(tdp_time_t a, tdp_time_t b)
{
	return a.ns < b.ns ? b : a;
}

/* d * ppb / 10^9 without overflow for |ppb| < 9 * 10^9 */
static inline int64_t tdp_ppb_of(int64_t d_ns, int64_t ppb)
{
	return d_ns / TDP_NS_PER_S * ppb + d_ns % TDP_NS_PER_S * ppb / TDP_NS_PER_S;
}

#endif
