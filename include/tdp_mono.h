/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CLOCK_MONOTONIC in nanoseconds: the one clock for timeouts, deadlines and
 * durations in every part of tdp (never the common time reference, which is
 * tdp_time.h's and a time source's). Header only, below every library.
 */
#ifndef TDP_MONO_H
#define TDP_MONO_H

#include <stdint.h>
#include <time.h>

static inline int64_t tdp_mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

#endif
