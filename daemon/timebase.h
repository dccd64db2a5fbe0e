/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The timebase: where the frame engine gets the common time reference (CTR).
 *
 * Every source implements the same small contract (struct timebase_ops) and is
 * picked by name from timebase_table[]; the engine only ever calls through it.
 * A source gives
 *   - now():        a reference read of the CTR (may cost a syscall or a bus read),
 *   - fast_now():   a cheap read for polling (the TSC mapped onto the CTR where the
 *                   TSC is invariant; the same as now() otherwise),
 *   - sleep_until(): an absolute sleep towards a CTR time (it may oversleep; the
 *                   engine's predictive wait takes care of that),
 *   - refresh():    housekeeping, e.g. re-anchoring the fast clock (may be NULL),
 *   - sync():       the sync state (locked / holdover / unlocked, offset, uncertainty),
 *   - tick_fd():    an fd readable at each frame tick, or -1 (may be NULL).
 * Sources: system (here), sim (tests); ptp, phc and bc635 slot in the same way.
 */
#ifndef TDP_TIMEBASE_H
#define TDP_TIMEBASE_H

#include <stddef.h>
#include <stdint.h>

#include "tdp_time.h"

enum tb_state { TB_UNLOCKED, TB_HOLDOVER, TB_LOCKED };

struct tb_sync {
	enum tb_state state;
	int64_t offset_ns;        /* estimated offset of the CTR from the reference */
	int64_t uncertainty_ns;
	tdp_time_t last_good;     /* time of the last good sample */
	const char *reason;       /* why the source is in this state */
};

/* Settings a source may use; each source reads only its own. */
struct tb_params {
	int system_clock;         /* TB_CLOCK_* */
	int utc_tai_offset_s;     /* used with REALTIME when the kernel does not know it */
	int fast_clock;           /* TB_FAST_* */
};

enum { TB_CLOCK_AUTO, TB_CLOCK_TAI, TB_CLOCK_REALTIME };
enum { TB_FAST_AUTO, TB_FAST_TSC, TB_FAST_OS };

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
	void (*sync)(struct timebase *tb, struct tb_sync *s);
	int (*tick_fd)(struct timebase *tb);
	/* one line on what the source found and uses, for the start-up log */
	void (*describe)(struct timebase *tb, char *buf, size_t len);
};

struct timebase {
	const struct timebase_ops *ops;
};

/* NULL-terminated; the first entry is the default. */
extern const struct timebase_ops *const timebase_table[];
const struct timebase_ops *timebase_find(const char *name);

static inline tdp_time_t tb_now(struct timebase *tb)
{
	return tb->ops->now(tb);
}

static inline tdp_time_t tb_fast_now(struct timebase *tb)
{
	return tb->ops->fast_now(tb);
}

static inline int tb_sleep_until(struct timebase *tb, tdp_time_t t)
{
	return tb->ops->sleep_until(tb, t);
}

const char *tb_state_name(enum tb_state s);

/* ---- the sim source's own controls (tests) ----------------------------- */

/* Every read advances the sim clock by poll_ns, so polling loops end. */
struct timebase *tb_sim_new(tdp_time_t start, int64_t poll_ns);
/* Oversleep added to every sleep. */
void tb_sim_set_oversleep(struct timebase *tb, int64_t ns);
/* The next sleep oversleeps by ns more (a descheduled engine). */
void tb_sim_stall(struct timebase *tb, int64_t ns);
/* Moves the clock (a phase step of the reference when negative or large). */
void tb_sim_advance(struct timebase *tb, int64_t ns);
uint64_t tb_sim_sleeps(struct timebase *tb);
/* The sim time, without the cost of a read. */
tdp_time_t tb_sim_time(struct timebase *tb);

#endif
