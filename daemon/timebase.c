/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include "timebase.h"

extern const struct timebase_ops tb_system_ops;
extern const struct timebase_ops tb_sim_ops;

const struct timebase_ops *const timebase_table[] = {
	&tb_system_ops,
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

const char *tb_state_name(enum tb_state s)
{
	switch (s) {
	case TB_LOCKED: return "locked";
	case TB_HOLDOVER: return "holdover";
	default: return "unlocked";
	}
}
