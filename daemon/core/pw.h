/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Predictive wait: when to go to sleep so that the wake-up lands just before a
 * frame boundary, after which the engine polls the clock to the boundary
 * (the ClockFix method).
 *
 *  - Every sleep's oversleep (woke - asked) is a sample. The next oversleep is
 *    predicted either as the maximum over a sliding window of the last
 *    `window` samples (ClockFix's rule), or, with miss_ppb set, as the
 *    quantile of a long-horizon histogram that only that share of sleeps
 *    exceed (pwq.h): a lead aimed at a miss rate rather than at the recent
 *    past.
 *  - When the engine does not sleep (too little time before the boundary for
 *    the predicted oversleep), it gets no new sample, so one outlier could keep
 *    it spinning forever. Every such frame therefore scales the window by
 *    decay/100 (or drops the histogram's highest sample), and the prediction
 *    falls until sleeping is allowed again.
 *  - Recording a sample is bookkeeping with a cost of its own. Its cost is
 *    predicted by an exponential moving average (weight 1/8); if less time
 *    than that is left before the boundary, the sample is deferred to after
 *    the push (as is a quantile sample that halves its histogram, whose walk
 *    over every bin the estimate does not know).
 *  - Below spin_below (a TF threshold) the engine never sleeps.
 *
 * Pure: no clock, no I/O. The caller reads the clock and sleeps.
 */
#ifndef TDP_PW_H
#define TDP_PW_H

#include <stdbool.h>
#include <stdint.h>

#include "pwq.h"
#include "tdp_time.h"

#define PW_WINDOW_MAX 256

struct pw_config {
	int64_t tf_ns;
	int64_t spin_below_ns; /* TF below this: always spin */
	int64_t min_sleep_ns;  /* do not sleep for less than this */
	int64_t margin_ns;     /* extra lead on top of the predictions */
	uint32_t window;       /* samples in the max filter, 1..PW_WINDOW_MAX */
	uint32_t decay_pct;    /* scale per frame without sleep, 1..100 */
	int64_t book_init_ns;  /* starting bookkeeping estimate */
	int64_t max_lead_ns;   /* the lead never exceeds this (0: no cap) */
	uint64_t miss_ppb; /* 0: the window's maximum; else the quantile only this share of sleeps exceed (1e-9) */
	uint64_t horizon; /* quantile: samples between halvings of the histogram (0: 1000 / miss) */
};

struct pw_stats {
	uint64_t sleeps;      /* sleeps taken */
	uint64_t spins;	      /* waits without a sleep */
	uint64_t deferred;    /* samples recorded after the push */
	uint64_t early_wakes; /* woke before the asked time (clamped to 0) */
};

struct pw {
	struct pw_config cfg;
	int64_t win[PW_WINDOW_MAX];
	uint32_t head, n;
	struct pwq q;	     /* with miss_ppb */
	int64_t pred_ns;     /* max over the window, or the quantile */
	int64_t book_ema_ns; /* EMA of the bookkeeping cost, in ns << 3 */
	bool pending;	     /* a deferred sample */
	tdp_time_t pend_asked, pend_woke;
	struct pw_stats st;
};

/* Returns 0, or -1 when the configuration is out of range. */
int pw_init(struct pw *p, const struct pw_config *c);

/* What another thread may read of a running wait: its counters and
 * predictions, through relaxed atomics (the engine is the only writer). */
struct pw_snap {
	struct pw_stats st;
	int64_t pred_ns, book_ns;
	uint64_t miss_ppb; /* the predictor: 0 the window's maximum, else the quantile's target */
	uint32_t window;
};
void pw_snapshot(const struct pw *p, struct pw_snap *out);

/* The predicted lead: oversleep + bookkeeping + margin, at most max_lead_ns. */
int64_t pw_lead_ns(const struct pw *p);
int64_t pw_book_ns(const struct pw *p);

/*
 * Plan a wait from now to boundary. Returns true with *sleep_to set when the
 * caller should sleep until then (and poll afterwards), false when it should
 * spin; a false return has already decayed the window.
 */
bool pw_plan(struct pw *p, tdp_time_t now, tdp_time_t boundary, tdp_time_t *sleep_to);

/*
 * After a sleep asked to end at `asked` and woke at `woke`: records the sample
 * now (returns true; the caller may time the call and feed pw_book_cost), or,
 * when less than the predicted bookkeeping cost is left before `boundary`,
 * keeps it for pw_flush (returns false).
 */
bool pw_woke(struct pw *p, tdp_time_t asked, tdp_time_t woke, tdp_time_t boundary);
/* Records a deferred sample, if any. Returns true if there was one. */
bool pw_flush(struct pw *p);
/* Feeds one measured bookkeeping cost into the EMA. */
void pw_book_cost(struct pw *p, int64_t ns);

#endif
