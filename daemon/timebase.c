/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include "timebase.h"

extern const struct timebase_ops tb_system_ops;
extern const struct timebase_ops tb_sim_ops;
extern const struct timebase_ops tb_ptp_ops;
extern const struct timebase_ops tb_bc635_ops;
extern const struct timebase_ops tb_bc635_sim_ops;

const struct timebase_ops *const timebase_table[] = {
	&tb_system_ops,
	&tb_ptp_ops,
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
