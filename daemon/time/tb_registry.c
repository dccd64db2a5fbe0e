/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The time sources tdpd knows, by name (timebase.h): the one list, above the
 * shared part and every source. A new source is its own files and one line
 * here (and its build line and docs); tdpd.conf's timebase option and
 * --help take their names and documentation from it.
 */
#include <string.h>

#include "tb_bc635.h"
#include "tb_phc.h"
#include "tb_ptp.h"
#include "tb_sim.h"
#include "tb_system.h"
#include "timebase.h"

const struct timebase_ops *const timebase_table[] = {
	&tb_system_ops,	   &tb_ptp_ops, &tb_phc_ops, &tb_bc635_ops,
	&tb_bc635_sim_ops, &tb_sim_ops, NULL,
};

const struct timebase_ops *timebase_find(const char *name)
{
	for (size_t i = 0; timebase_table[i]; i++)
		if (strcmp(timebase_table[i]->name, name) == 0)
			return timebase_table[i];
	return NULL;
}
