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
 *   - sync():       the sync state (locked / holdover / unlocked, offset, uncertainty,
 *                   counters); the engine reads only the state, through
 *                   tb_state(), one relaxed atomic load per frame,
 *   - tick_fd():    an fd readable at each frame tick, or -1 (may be NULL),
 *   - tick():       after tick_fd() became readable: the index of the frame whose
 *                   start the tick marks, or -1 when there was no tick to take
 *                   (may be NULL when there is no tick).
 * Sources: system, ptp, phc, bc635, bc635-sim, sim (tests). Sources that do
 * I/O of their own (ptp) run it on their own thread and log their transitions;
 * the engine never waits on them.
 */
#ifndef TDP_TIMEBASE_H
#define TDP_TIMEBASE_H

#include <stddef.h>
#include <stdint.h>

#include <stdatomic.h>

#include "hostclock.h"
#include "sync.h"
#include "tdp_time.h"

/* Settings a source may use; each source reads only its own. */
struct tb_params {
	int system_clock;         /* HC_CLOCK_* (hostclock.h) */
	int utc_tai_offset_s;     /* used with REALTIME when the kernel does not know it */
	int fast_clock;           /* HC_FAST_* (hostclock.h) */
	int system_sync;          /* TB_SYSSYNC_* */
	struct sync_cfg sync;     /* thresholds and budgets of the sync state machine */
	int64_t tf_ns, epoch_ns;  /* the frame geometry, for sources with a frame tick */
	const char *ptp_socket;   /* ptp4l's management socket */
	int ptp_domain;
	int ptp_mode;             /* TB_PTP_* */
	int64_t ptp_poll_ns;      /* how often to ask TIME_STATUS_NP */
	int ptp_subscribe_s;      /* SUBSCRIBE_EVENTS_NP duration, renewed at half; 0: 60 s */
	const char *phc_device;   /* /dev/ptpN */
	int phc_out_pin, phc_in_pin; /* the frame tick: PEROUT pin wired to EXTTS pin; -1: no tick */
	const char *bc635_device; /* uio name, /dev/uioN or a PCI address (VFIO) */
	int bc635_bars;           /* TB_BARS_* */
};

enum { TB_SYSSYNC_ADJTIMEX, TB_SYSSYNC_ASSUME };
enum { TB_PTP_DISCIPLINED, TB_PTP_OFFSET };
enum { TB_BARS_AUTO, TB_BARS_0_1, TB_BARS_1_0, TB_BARS_0_0 };

struct tb_tick_stats {
	uint64_t ticks;           /* heartbeats taken */
	uint64_t missed;          /* frames whose tick never came (gaps in the index) */
	uint64_t doubled;         /* a frame's tick again: ignored */
	uint64_t backwards;       /* a tick for an earlier frame than the last (the card stepped back) */
	uint64_t off_grid;        /* an edge more than 1 us from a frame start */
	uint64_t spurious;        /* an interrupt that was no heartbeat */
};

/* Frame-index bookkeeping of a source with a tick (pure). */
struct tb_tick_track {
	int64_t last;
	int have_last;
};
struct frame_geom;
/* The edge at a frame start to the frame's index, counting gaps (missed),
 * repeats (doubled: -1 is returned), steps back and edges off the grid. */
int64_t tb_tick_account(struct tb_tick_track *tt, const struct frame_geom *g, tdp_time_t edge,
			struct tb_tick_stats *st);
/* A spurious interrupt (no tick behind it). */
void tb_tick_spurious(struct tb_tick_stats *st);
/* A snapshot for another thread (relaxed atomic reads). */
void tb_tick_stats_copy(const struct tb_tick_stats *st, struct tb_tick_stats *out);

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
	int64_t (*tick)(struct timebase *tb);
	void (*tick_stats)(struct timebase *tb, struct tb_tick_stats *out);
	/* one line on what the source found and uses, for the start-up log */
	void (*describe)(struct timebase *tb, char *buf, size_t len);
	/* a read of the CTR that another thread may make while the engine runs
	 * (RX's arrival times; a microsecond is good enough); NULL: now() is safe */
	tdp_time_t (*rx_now)(struct timebase *tb);
};

struct timebase {
	const struct timebase_ops *ops;
	atomic_int state;         /* enum tb_state, written by the source */
};

static inline enum tb_state tb_state(const struct timebase *tb)
{
	return (enum tb_state)atomic_load_explicit(&tb->state, memory_order_relaxed);
}

static inline void tb_set_state(struct timebase *tb, enum tb_state s)
{
	atomic_store_explicit(&tb->state, (int)s, memory_order_relaxed);
}

/* NULL-terminated; the first entry is the default. */
extern const struct timebase_ops *const timebase_table[];
const struct timebase_ops *timebase_find(const char *name);

static inline tdp_time_t tb_now(struct timebase *tb)
{
	return tb->ops->now(tb);
}

static inline tdp_time_t tb_rx_now(struct timebase *tb)
{
	return tb->ops->rx_now ? tb->ops->rx_now(tb) : tb->ops->now(tb);
}

static inline tdp_time_t tb_fast_now(struct timebase *tb)
{
	return tb->ops->fast_now(tb);
}

static inline int tb_sleep_until(struct timebase *tb, tdp_time_t t)
{
	return tb->ops->sleep_until(tb, t);
}

/* The default sync settings (sync.h's SYNC_DEF_*). */
void tb_sync_defaults(struct sync_cfg *c);

/* ---- the ptp source's own --------------------------------------------- */

struct tb_ptp_counters {
	uint64_t requests, replies, notifications;
	uint64_t malformed;       /* replies that do not parse */
	uint64_t unexpected;      /* parse, but nobody asked (action, domain, id) */
	uint64_t mgmt_errors;     /* MANAGEMENT_ERROR_STATUS answers */
	uint64_t send_errors;     /* ptp4l's socket not reachable */
	uint64_t reconnects;
	uint64_t subscriptions;   /* SUBSCRIBE_EVENTS_NP acknowledged */
};
void tb_ptp_counters(struct timebase *tb, struct tb_ptp_counters *out);

/* ---- the bc635 sources' own ------------------------------------------- */

struct bc_bus;
/* The bc635 source over any bus and host clock (tests: the simulator on the
 * sim clock); owns neither. NULL with a message in err. */
struct timebase *tb_bc635_new(struct bc_bus *bus, struct timebase *host, const struct tb_params *p, char *err,
			      size_t errlen);

/* ---- the phc source's own ---------------------------------------------- */

struct phc_io;
/* The phc source over any ioctl layer and host clock (tests); owns neither. */
struct timebase *tb_phc_new(const struct phc_io *io, struct timebase *host, const struct tb_params *p, char *err,
			    size_t errlen);

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
/* The sim clock runs fast by ppb parts per billion of the time slept (drift). */
void tb_sim_set_drift(struct timebase *tb, int64_t ppb);
/* Sets the sync state the source reports (and tb_state()). */
void tb_sim_set_state(struct timebase *tb, enum tb_state s, const char *reason);

#endif
