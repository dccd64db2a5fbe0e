/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The timebase: where the frame engine gets the common time reference (CTR).
 *
 * Every source implements the same small contract (struct timebase_ops), in
 * the manner of chrony's reference-clock drivers: a source declares its own
 * settings with itself (opts[], which tdpd.conf reads by name into a struct
 * only the source knows, handed over as tb_params.own), reads its device,
 * and pushes what
 * it measured to the shared part below (tb_sample, tb_fault, tb_force,
 * tb_tick_edge); the shared part owns the lock, the sync state machine
 * (sync.h), the tick accounting and what is published to other threads.
 *
 * A source gives, by contract:
 *   - now():         a reference read of the CTR. Any thread.
 *   - fast_now():    a cheap read for polling (the TSC mapped onto the CTR where
 *                    the TSC is invariant; the same as now() otherwise). Any
 *                    thread: what it reads is published through a sequence lock.
 *   - sleep_until(): an absolute sleep towards a CTR time (it may oversleep; the
 *                    engine's predictive wait takes care of that). Any thread.
 *   - refresh():     the source's periodic work: re-anchoring the fast clock,
 *                    measuring a device, polling the kernel. The housekeeping
 *                    thread only (tb_refresh), never the engine's: the engine
 *                    path makes no syscall besides the clock read, the sleep,
 *                    the tick wait and the TX. May be NULL.
 *   - tick_fd():     an fd readable at each frame tick, or -1 (may be NULL).
 *   - tick():        the engine's thread, after tick_fd() became readable: the
 *                    index of the frame whose start the tick marks, or -1 when
 *                    there was no tick to take (may be NULL: no tick).
 *   - describe():    one line on what the source found and uses.
 * The shared part gives every source the same tb_sync() (the state, offset,
 * uncertainty and counters, from any thread), tb_state() (one relaxed load,
 * what the engine reads per frame) and tb_tick_stats().
 * Sources, each with its own header: system (tb_system.h), ptp (tb_ptp.h),
 * phc (tb_phc.h), bc635 and bc635-sim (tb_bc635.h), sim for tests (tb_sim.h).
 */
#ifndef TDP_TIMEBASE_H
#define TDP_TIMEBASE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "frame.h"
#include "hostclock.h"
#include "sync.h"
#include "tdp_time.h"

/* The room of a text setting (a path), as tdpd.conf gives it. */
#define TB_STR 256

/* The sync state machine's settings, as tdpd.conf gives them (sync-*). */
struct tb_sync_params {
	int64_t lock_ns, lock_samples, timeout_ns, holdover_ns, drift_ppb, step_ns;
};

/* A source's own setting, declared with the source (its opts[]): tdpd.conf
 * reads it by name into the source's own settings (a struct of own_size
 * bytes that only the source's files know), off bytes in. */
enum tb_opt_type {
	TB_OPT_STR,
	TB_OPT_INT,
	TB_OPT_DUR,
	TB_OPT_ENUM
};
struct tb_opt {
	const char *name;
	enum tb_opt_type type;
	const char *def; /* as tdpd.conf would give it */
	int64_t min, max;
	const char *const *choices; /* TB_OPT_ENUM: NULL-terminated, stored as the index */
	size_t off;		    /* TB_OPT_STR: char[TB_STR]; the others: int64_t */
	const char *arg, *doc;	    /* the documentation's placeholder and text */
};

struct tb_params {
	/* the host clock every source polls and sleeps on (hostclock.h) */
	int64_t clock;		    /* HC_CLOCK_* */
	int64_t utc_tai_offset_s;   /* with REALTIME when the kernel does not know it */
	int64_t fast;		    /* HC_FAST_* */
	struct tb_sync_params sync; /* all 0: the defaults */
	int64_t tf_ns, epoch_ns;    /* the frame geometry, for sources with a frame tick */
	const void *own;	    /* the source's own settings (its opts[]); NULL: its defaults */
};

struct tb_tick_stats {
	uint64_t ticks;	    /* heartbeats taken */
	uint64_t missed;    /* frames whose tick never came (gaps in the index) */
	uint64_t doubled;   /* a frame's tick again: ignored */
	uint64_t backwards; /* a tick for an earlier frame than the last (the card stepped back) */
	uint64_t off_grid;  /* an edge more than 1 us from a frame start */
	uint64_t spurious;  /* an interrupt that was no heartbeat */
};

struct timebase;

struct timebase_ops {
	const char *name;
	const char *doc;
	/* 0 or -errno with a message in err. */
	int (*create)(struct timebase **out, const struct tb_params *p, char *err, size_t errlen);
	void (*destroy)(struct timebase *tb);
	tdp_time_t (*now)(struct timebase *tb);
	tdp_time_t (*fast_now)(struct timebase *tb);
	int (*sleep_until)(struct timebase *tb, tdp_time_t t);
	void (*refresh)(struct timebase *tb);
	int (*tick_fd)(struct timebase *tb);
	int64_t (*tick)(struct timebase *tb);
	void (*describe)(struct timebase *tb, char *buf, size_t len);
	/* its own settings: their declarations (ended by a NULL name) and size;
	 * NULL and 0: none */
	const struct tb_opt *opts;
	size_t own_size;
};

/* The shared part, first in every source's struct; its fields are the shared
 * part's own (timebase.c), not the source's. */
struct timebase {
	const struct timebase_ops *ops;
	atomic_int state;     /* enum tb_state, published for the engine */
	atomic_llong unc;     /* the uncertainty in ns, published with it */
	int64_t offset_ns;    /* added to every read, taken from every sleep: 0 but where
				     * tdpd sets its time-offset on the source it runs on */
	pthread_mutex_t lock; /* guards sy */
	struct sync sy;
	uint64_t busy;	   /* samples the engine's thread could not hand over (lock held) */
	atomic_bool asked; /* the source wants a refresh now */
	/* the tick accounting: the engine's thread writes, others snapshot */
	struct tb_tick_stats ts;
	int64_t tick_last;
	bool tick_have_last;
	struct frame_geom g;
};

/* NULL-terminated; the first entry is the default. The one list of names
 * (tb_registry.c). */
extern const struct timebase_ops *const timebase_table[];
const struct timebase_ops *timebase_find(const char *name);

/* ---- what the engine and the other threads call ------------------------- */

static inline enum tb_state tb_state(const struct timebase *tb)
{
	return (enum tb_state)atomic_load_explicit(&((struct timebase *)tb)->state,
						   memory_order_relaxed);
}

/* The uncertainty as of the latest sample, fault, force or poll (one
 * relaxed load, what the engine reads per frame). */
static inline int64_t tb_uncertainty(const struct timebase *tb)
{
	return atomic_load_explicit(&((struct timebase *)tb)->unc, memory_order_relaxed);
}

/* The CTR as tdpd uses it: the source's time plus time-offset (a correction
 * the source does not make: a cable's delay, a path's asymmetry). */
static inline tdp_time_t tb_now(struct timebase *tb)
{
	return tdp_time_add(tb->ops->now(tb), tb->offset_ns);
}

static inline tdp_time_t tb_fast_now(struct timebase *tb)
{
	return tdp_time_add(tb->ops->fast_now(tb), tb->offset_ns);
}

static inline int tb_sleep_until(struct timebase *tb, tdp_time_t t)
{
	return tb->ops->sleep_until(tb, tdp_time_add(t, -tb->offset_ns));
}

/* The housekeeping thread's periodic call (the source's refresh, then the
 * state machine's timeouts). */
void tb_refresh(struct timebase *tb);
/* True when the source asked for a refresh before the period is up. */
static inline bool tb_refresh_asked(const struct timebase *tb)
{
	return atomic_load_explicit(&((struct timebase *)tb)->asked, memory_order_relaxed);
}
/* The sync state, offset and counters; any thread. */
void tb_sync(struct timebase *tb, struct tb_sync *out);
/* The tick counters; any thread. */
void tb_tick_stats(struct timebase *tb, struct tb_tick_stats *out);
void tb_destroy(struct timebase *tb);

/* ---- what a source calls ------------------------------------------------- */

/* Sets up the shared part: UNLOCKED with the reason, the sync settings (their
 * defaults where p->sync is all 0) and the frame geometry. 0, or -EINVAL with a
 * message in err when a sync setting is out of range. */
int tb_init(struct timebase *tb, const struct timebase_ops *ops, const struct tb_params *p,
	    tdp_time_t now, const char *reason, char *err, size_t errlen);
void tb_fini(struct timebase *tb);
/* A measurement: the offset from the reference and its error (sync.h). */
void tb_sample(struct timebase *tb, tdp_time_t now, int64_t offset_ns, int64_t err_ns);
/* The same from the engine's thread, which never waits: when a reader holds
 * the lock the sample is not taken, and counted (busy). */
void tb_sample_nowait(struct timebase *tb, tdp_time_t now, int64_t offset_ns, int64_t err_ns);
/* The reference is gone (sync_fault). */
void tb_fault(struct timebase *tb, tdp_time_t now, const char *why);
void tb_fault_nowait(struct timebase *tb, tdp_time_t now, const char *why);
/* The state machine's timeouts (sync_poll); tb_refresh does it too. */
void tb_poll(struct timebase *tb, tdp_time_t now);
/* The engine's thread found work for refresh (a device to measure again):
 * the housekeeping thread refreshes at its next pass instead of waiting for
 * the period. */
static inline void tb_ask_refresh(struct timebase *tb)
{
	atomic_store_explicit(&tb->asked, true, memory_order_relaxed);
}
/* A source that cannot measure sets its state (sync_force). */
void tb_force(struct timebase *tb, tdp_time_t now, enum tb_state st, int64_t offset_ns,
	      int64_t err_ns, const char *why);
/* The sync settings in force (read-only after tb_init). */
static inline const struct sync_cfg *tb_sync_cfg(const struct timebase *tb)
{
	return &tb->sy.cfg;
}
/* A tick's edge at a frame start to the frame's index, counting gaps (missed),
 * repeats (doubled: -1 is returned), steps back and edges off the grid. The
 * engine's thread. */
int64_t tb_tick_edge(struct timebase *tb, tdp_time_t edge);
/* An interrupt with no tick behind it. */
void tb_tick_spurious(struct timebase *tb);

/* The sync settings' defaults (sync.h's SYNC_DEF_*), as tdpd.conf gives
 * them; tb_init takes them when lock_ns and lock_samples are both 0. */
void tb_sync_params_defaults(struct tb_sync_params *p);

#endif
