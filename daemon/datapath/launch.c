/* SPDX-License-Identifier: BSD-3-Clause */
/* The CTR-to-device-clock map of a launch-time port (launch.h). */
#include <string.h>

#include "launch.h"

void launch_clock_init(struct launch_clock *lc, int (*read)(void *arg, uint64_t *dev), void *arg,
		       int64_t max_bracket_ns)
{
	memset(lc, 0, sizeof(*lc));
	lc->read = read;
	lc->arg = arg;
	lc->max_bracket_ns = max_bracket_ns;
	pthread_mutex_init(&lc->st_mu, NULL);
}

void launch_clock_fini(struct launch_clock *lc)
{
	pthread_mutex_destroy(&lc->st_mu);
}

static void publish(struct launch_clock *lc, int64_t ctr0, int64_t dev0, int64_t mult)
{
	seq3_publish(&lc->map, ctr0, dev0, mult);
}

bool launch_map_get(const struct launch_clock *lc, struct launch_map *m)
{
	seq3_read(&lc->map, &m->ctr0, &m->dev0, &m->mult);
	return m->mult > 0;
}

void launch_clock_stats(const struct launch_clock *lc, struct launch_stats *out)
{
	pthread_mutex_lock((pthread_mutex_t *)&lc->st_mu);
	*out = lc->st;
	pthread_mutex_unlock((pthread_mutex_t *)&lc->st_mu);
}

/* The narrowest of three tries: the device read between two CTR reads. */
static int bracket(struct launch_clock *lc, tdp_time_t (*now)(void *), void *now_arg, int64_t *ctr,
		   int64_t *dev, int64_t *width)
{
	int got = -1;
	for (int i = 0; i < 3; i++) {
		uint64_t d;
		tdp_time_t t1 = now(now_arg);
		int rc = lc->read(lc->arg, &d);
		tdp_time_t t2 = now(now_arg);
		if (rc != 0)
			return -2;
		int64_t w = tdp_time_diff(t2, t1);
		if (got < 0 || w < *width) {
			*width = w;
			*ctr = t1.ns + w / 2;
			*dev = (int64_t)d;
			got = 0;
		}
	}
	return got;
}

int launch_clock_sample(struct launch_clock *lc, tdp_time_t (*now)(void *), void *now_arg)
{
	int64_t ctr = 0, dev = 0, width = 0;
	int rc = bracket(lc, now, now_arg, &ctr, &dev, &width);
	pthread_mutex_lock(&lc->st_mu);
	struct launch_stats *st = &lc->st;
	if (rc == -2) {
		st->failed++;
		pthread_mutex_unlock(&lc->st_mu);
		return -1;
	}
	st->last_bracket_ns = width;
	if (width > lc->max_bracket_ns) {
		st->wide++;
		pthread_mutex_unlock(&lc->st_mu);
		return -1;
	}
	st->samples++;
	struct launch_map old;
	bool had = launch_map_get(lc, &old);
	int64_t mult = lc->last_mult;
	if (had) {
		st->last_miss_ns = launch_ctr(&old, (uint64_t)dev) - ctr;
		if (st->last_miss_ns > LAUNCH_STEP_NS || st->last_miss_ns < -LAUNCH_STEP_NS) {
			/* a step of either clock: neither the origin nor a rate across it holds */
			st->steps++;
			lc->anchored = false;
			mult = 0;
			lc->last_mult = 0;
		}
	}
	if (!lc->anchored) {
		lc->anchored = true;
		lc->a_ctr = ctr;
		lc->a_dev = dev;
	} else if (ctr - lc->a_ctr >= LAUNCH_RATE_SPAN_NS) {
		int64_t span = ctr - lc->a_ctr;
		mult = (int64_t)((((launch_i128)(dev - lc->a_dev) << 32) + span / 2) / span);
		lc->last_mult = mult;
		if (ctr - lc->a_ctr >= LAUNCH_ANCHOR_NS) {
			lc->a_ctr = ctr;
			lc->a_dev = dev;
		}
	}
	publish(lc, ctr, dev, mult);
	st->ready = mult > 0;
	st->rate_ppb =
		mult > 0 ? (int64_t)(((launch_i128)(mult - (1LL << 32)) * 1000000000) >> 32) : 0;
	pthread_mutex_unlock(&lc->st_mu);
	return 0;
}
