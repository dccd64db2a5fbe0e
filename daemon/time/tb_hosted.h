/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A time source read through the host clock: its time is the host's plus an
 * offset the source measures (the card's time minus the host's, the PHC's
 * minus the host's), published with one relaxed atomic so that any thread
 * reads a whole value. The bc635 and phc sources stand on it; each measures
 * its offset its own way and sets it here. now, fast_now and sleep_until are
 * inline: they are on the engine's path, as the host's own are.
 */
#ifndef TDP_TB_HOSTED_H
#define TDP_TB_HOSTED_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "timebase.h"

struct tb_hosted {
	struct timebase *host;
	bool own_host;	     /* created here: destroyed by tb_hosted_release */
	_Atomic int64_t off; /* source - host, ns */
};

/* The host as the system clock with its sync state assumed (the source
 * judges sync itself), owned. 0, or -errno with err. */
int tb_hosted_system(struct tb_hosted *h, const struct tb_params *p, char *err, size_t errlen);
void tb_hosted_release(struct tb_hosted *h);

static inline int64_t tb_hosted_off(struct tb_hosted *h)
{
	return atomic_load_explicit(&h->off, memory_order_relaxed);
}

static inline void tb_hosted_set(struct tb_hosted *h, int64_t off)
{
	atomic_store_explicit(&h->off, off, memory_order_relaxed);
}

static inline tdp_time_t tb_hosted_now(struct tb_hosted *h)
{
	return tdp_time_add(tb_now(h->host), tb_hosted_off(h));
}

static inline tdp_time_t tb_hosted_fast_now(struct tb_hosted *h)
{
	return tdp_time_add(tb_fast_now(h->host), tb_hosted_off(h));
}

static inline int tb_hosted_sleep_until(struct tb_hosted *h, tdp_time_t t)
{
	return tb_sleep_until(h->host, tdp_time_add(t, -tb_hosted_off(h)));
}

/* the host's own periodic work (re-anchoring its TSC mapping) */
static inline void tb_hosted_refresh(struct tb_hosted *h)
{
	if (h->host->ops->refresh)
		h->host->ops->refresh(h->host);
}

#endif
