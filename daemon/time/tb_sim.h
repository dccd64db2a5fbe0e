/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The sim source: a clock that moves only when it is read or slept on, for
 * deterministic tests. Every read costs poll_ns of simulated time; a sleep
 * ends at the asked time plus a constant oversleep, plus a one-off stall when
 * a test injects one (a descheduled engine, a late wake-up). A drift makes
 * every sleep run ppb parts per billion long, as an oscillator off frequency
 * would; the sync state is whatever the test sets. One thread at a time.
 */
#ifndef TDP_TB_SIM_H
#define TDP_TB_SIM_H

#include "timebase.h"

extern const struct timebase_ops tb_sim_ops;

/* Every read advances the sim clock by poll_ns, so polling loops end. */
struct timebase *tb_sim_new(tdp_time_t start, int64_t poll_ns);
/* Oversleep added to every sleep. */
void tb_sim_set_oversleep(struct timebase *tb, int64_t ns);
/* What each read of the clock advances it by (tb_sim_new's poll_ns). */
void tb_sim_set_poll(struct timebase *tb, int64_t ns);
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
