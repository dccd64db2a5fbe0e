/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The shared part of every time source: the sync state machine under one lock,
 * the state published for the engine, the tick accounting. The list of
 * sources is tb_registry.c's, above them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "counters.h"
#include "log.h"
#include "timebase.h"

void tb_sync_params_defaults(struct tb_sync_params *p)
{
	*p = (struct tb_sync_params){.lock_ns = SYNC_DEF_LOCK_NS,
				     .lock_samples = SYNC_DEF_LOCK_SAMPLES,
				     .timeout_ns = SYNC_DEF_TIMEOUT_NS,
				     .holdover_ns = SYNC_DEF_HOLDOVER_NS,
				     .drift_ppb = SYNC_DEF_DRIFT_PPB,
				     .step_ns = SYNC_DEF_STEP_NS};
}

int tb_init(struct timebase *tb, const struct timebase_ops *ops, const struct tb_params *p,
	    tdp_time_t now, const char *reason, char *err, size_t errlen)
{
	tb->ops = ops;
	struct tb_sync_params defaults;
	const struct tb_sync_params *s = &p->sync;
	if (s->lock_ns == 0 && s->lock_samples == 0) {
		tb_sync_params_defaults(&defaults);
		s = &defaults;
	}
	struct sync_cfg c = {.lock_ns = s->lock_ns,
			     .lock_samples = (uint32_t)s->lock_samples,
			     .sample_timeout_ns = s->timeout_ns,
			     .holdover_ns = s->holdover_ns,
			     .drift_ppb = s->drift_ppb,
			     .step_ns = s->step_ns};
	if (s->lock_samples < 1 || s->lock_samples > UINT32_MAX ||
	    sync_init(&tb->sy, &c, now, reason) != 0) {
		snprintf(err, errlen, "sync settings out of range");
		return -EINVAL;
	}
	tb->g = (struct frame_geom){p->tf_ns > 0 ? p->tf_ns : 1000000, p->epoch_ns, 1};
	pthread_mutex_init(&tb->lock, NULL);
	atomic_store_explicit(&tb->state, TB_UNLOCKED, memory_order_relaxed);
	atomic_store_explicit(&tb->unc, 0, memory_order_relaxed);
	tb->offset_ns = 0;
	return 0;
}

void tb_fini(struct timebase *tb)
{
	pthread_mutex_destroy(&tb->lock);
}

void tb_destroy(struct timebase *tb)
{
	if (tb)
		tb->ops->destroy(tb);
}

/* The lock: waited for, or, from the engine's thread, only tried (a miss is
 * counted: busy). */
static bool lock(struct timebase *tb, bool wait)
{
	if (wait) {
		pthread_mutex_lock(&tb->lock);
		return true;
	}
	if (pthread_mutex_trylock(&tb->lock) == 0)
		return true;
	__atomic_fetch_add(&tb->busy, 1, __ATOMIC_RELAXED);
	return false;
}

/* Lock held: publishes the state and unlocks. A change is said, except from
 * the engine's thread (!wait), which writes no log line; the housekeeping
 * thread reports every transition it sees anyway. */
static void publish_unlock(struct timebase *tb, tdp_time_t now, bool changed, bool wait)
{
	atomic_store_explicit(&tb->state, (int)tb->sy.state, memory_order_relaxed);
	atomic_store_explicit(&tb->unc, sync_uncertainty(&tb->sy, now), memory_order_relaxed);
	if (changed && wait)
		log_debug("timebase %s: %s: %s", tb->ops->name, tb_state_name(tb->sy.state),
			  tb->sy.reason);
	pthread_mutex_unlock(&tb->lock);
}

static void sample(struct timebase *tb, tdp_time_t now, int64_t offset_ns, int64_t err_ns,
		   bool wait)
{
	if (lock(tb, wait))
		publish_unlock(tb, now, sync_sample(&tb->sy, now, offset_ns, err_ns), wait);
}

static void fault(struct timebase *tb, tdp_time_t now, const char *why, bool wait)
{
	if (lock(tb, wait))
		publish_unlock(tb, now, sync_fault(&tb->sy, now, why), wait);
}

void tb_sample(struct timebase *tb, tdp_time_t now, int64_t offset_ns, int64_t err_ns)
{
	sample(tb, now, offset_ns, err_ns, true);
}

void tb_sample_nowait(struct timebase *tb, tdp_time_t now, int64_t offset_ns, int64_t err_ns)
{
	sample(tb, now, offset_ns, err_ns, false);
}

void tb_fault(struct timebase *tb, tdp_time_t now, const char *why)
{
	fault(tb, now, why, true);
}

void tb_fault_nowait(struct timebase *tb, tdp_time_t now, const char *why)
{
	fault(tb, now, why, false);
}

void tb_force(struct timebase *tb, tdp_time_t now, enum tb_state st, int64_t offset_ns,
	      int64_t err_ns, const char *why)
{
	lock(tb, true);
	publish_unlock(tb, now, sync_force(&tb->sy, now, st, offset_ns, err_ns, why), true);
}

void tb_poll(struct timebase *tb, tdp_time_t now)
{
	lock(tb, true);
	publish_unlock(tb, now, sync_poll(&tb->sy, now), true);
}

void tb_refresh(struct timebase *tb)
{
	atomic_store_explicit(&tb->asked, false, memory_order_relaxed);
	if (tb->ops->refresh)
		tb->ops->refresh(tb);
	tb_poll(tb, tb_now(tb));
}

void tb_sync(struct timebase *tb, struct tb_sync *out)
{
	tdp_time_t now = tb_now(tb);
	pthread_mutex_lock(&tb->lock);
	sync_get(&tb->sy, now, out);
	pthread_mutex_unlock(&tb->lock);
	out->busy = __atomic_load_n(&tb->busy, __ATOMIC_RELAXED);
}

int64_t tb_tick_edge(struct timebase *tb, tdp_time_t edge)
{
	const struct frame_geom *g = &tb->g;
	struct tb_tick_stats *st = &tb->ts;
	int64_t f = frame_index(g, tdp_time_add(edge, g->tf_ns / 2)); /* the nearest frame start */
	if (tb->tick_have_last && f == tb->tick_last) {
		CTR_ADD(st->doubled, 1);
		return -1;
	}
	if (tb->tick_have_last && f > tb->tick_last + 1)
		CTR_ADD(st->missed, (uint64_t)(f - tb->tick_last - 1));
	if (tb->tick_have_last && f < tb->tick_last)
		CTR_ADD(st->backwards, 1);
	int64_t from_start = tdp_time_diff(edge, frame_start(g, f));
	if (from_start > 1000 || from_start < -1000)
		CTR_ADD(st->off_grid, 1);
	tb->tick_last = f;
	tb->tick_have_last = true;
	CTR_ADD(st->ticks, 1);
	return f;
}

void tb_tick_spurious(struct timebase *tb)
{
	CTR_ADD(tb->ts.spurious, 1);
}

void tb_tick_stats(struct timebase *tb, struct tb_tick_stats *out)
{
	ctr_snapshot(out, &tb->ts, sizeof(*out));
}
