/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include "counters.h"
#include "frame.h"
#include "timebase.h"

extern const struct timebase_ops tb_system_ops;
extern const struct timebase_ops tb_sim_ops;
extern const struct timebase_ops tb_ptp_ops;
extern const struct timebase_ops tb_phc_ops;
extern const struct timebase_ops tb_bc635_ops;
extern const struct timebase_ops tb_bc635_sim_ops;

const struct timebase_ops *const timebase_table[] = {
	&tb_system_ops,
	&tb_ptp_ops,
	&tb_phc_ops,
	&tb_bc635_ops,
	&tb_bc635_sim_ops,
	&tb_sim_ops,
	NULL,
};

const struct timebase_ops *timebase_find(const char *name)
{
	for (size_t i = 0; timebase_table[i]; i++)
		if (strcmp(timebase_table[i]->name, name) == 0)
			return timebase_table[i];
	return NULL;
}

void tb_sync_defaults(struct sync_cfg *c)
{
	*c = (struct sync_cfg){.lock_ns = SYNC_DEF_LOCK_NS, .lock_samples = SYNC_DEF_LOCK_SAMPLES,
			       .sample_timeout_ns = SYNC_DEF_TIMEOUT_NS, .holdover_ns = SYNC_DEF_HOLDOVER_NS,
			       .drift_ppb = SYNC_DEF_DRIFT_PPB, .step_ns = SYNC_DEF_STEP_NS};
}


int64_t tb_tick_account(struct tb_tick_track *tt, const struct frame_geom *g, tdp_time_t edge,
			struct tb_tick_stats *st)
{
	int64_t f = frame_index(g, tdp_time_add(edge, g->tf_ns / 2)); /* the nearest frame start */
	if (tt->have_last && f == tt->last) {
		CTR_ADD(st->doubled, 1);
		return -1;
	}
	if (tt->have_last && f > tt->last + 1)
		CTR_ADD(st->missed, (uint64_t)(f - tt->last - 1));
	if (tt->have_last && f < tt->last)
		CTR_ADD(st->backwards, 1);
	int64_t from_start = tdp_time_diff(edge, frame_start(g, f));
	if (from_start > 1000 || from_start < -1000)
		CTR_ADD(st->off_grid, 1);
	tt->last = f;
	tt->have_last = 1;
	CTR_ADD(st->ticks, 1);
	return f;
}

void tb_tick_spurious(struct tb_tick_stats *st)
{
	CTR_ADD(st->spurious, 1);
}

void tb_tick_stats_copy(const struct tb_tick_stats *st, struct tb_tick_stats *out)
{
	ctr_snapshot(out, st, sizeof(*out));
}
