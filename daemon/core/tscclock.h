/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The TSC mapped onto a clock: ns = base_ns + (tsc - base_tsc) * mult >> 32.
 * Anchors are taken as (clock, TSC) pairs bracketed by two TSC reads, keeping
 * the tightest of a few tries; the slope comes from two anchors some
 * milliseconds apart and is refined at every re-anchor. Pure arithmetic apart
 * from tsc_read() and the caller-supplied clock read.
 *
 * One thread anchors (the housekeeping thread, through the time source's
 * refresh); any thread maps, reading the mapping through a sequence lock, so
 * that a re-anchor never gives a poller half of an old mapping and half of a
 * new one.
 */
#ifndef TDP_TSCCLOCK_H
#define TDP_TSCCLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "seqlock.h"
#include "tdp_time.h"

__extension__ typedef __int128 tsc_i128;
__extension__ typedef unsigned __int128 tsc_u128;

struct tscclock {
	/* the anchoring thread's own */
	uint64_t base_tsc;
	int64_t base_ns;
	uint64_t mult; /* ns per tick, 32.32 fixed point */
	uint64_t anchors;
	_Atomic uint64_t hz; /* estimated TSC frequency */
	/* the mapping readers use, published after every anchor */
	struct seq3 pub; /* base_tsc, base_ns, mult */
};

static inline uint64_t tsc_read(void)
{
#if defined(__x86_64__) || defined(__i386__)
	uint32_t lo, hi;
	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
#else
	return 0;
#endif
}

/* The TSC value on the clock, from any thread. */
static inline tdp_time_t tsc_to_time(const struct tscclock *c, uint64_t tsc)
{
	int64_t base_tsc, base_ns, mult;
	seq3_read(&c->pub, &base_tsc, &base_ns, &mult);
	int64_t d = (int64_t)(tsc - (uint64_t)base_tsc);
	tsc_i128 v = (tsc_i128)d * (tsc_i128)(uint64_t)mult;
	return tdp_time(base_ns + (int64_t)(v >> 32));
}

/* True when this CPU's TSC is invariant (constant_tsc and nonstop_tsc) and the
 * kernel uses it as its clocksource, i.e. it is safe to poll. Says why not. */
bool tsc_usable(const char **why);

typedef int64_t (*tsc_clock_fn)(void *arg);

/* Calibrates against clk over about span_ns. Returns 0 or -1. */
int tscclock_init(struct tscclock *c, tsc_clock_fn clk, void *arg, int64_t span_ns);
/* Takes a new anchor and refines the slope from the previous one. */
void tscclock_anchor(struct tscclock *c, tsc_clock_fn clk, void *arg);

/* Pure: the mapping through two (tsc, ns) anchors. For tests. */
void tscclock_fit(struct tscclock *c, uint64_t tsc0, int64_t ns0, uint64_t tsc1, int64_t ns1);

#endif
