/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The time sources tdpd knows, by name (timebase.h), from the one list
 * (tb_registry.h), above the shared part and every source. A new source is
 * its own files and one line there (and its build line and docs); tdpd.conf's
 * timebase option, its own settings and --help come from it.
 */
#include <string.h>

#include "tb_registry.h"

#define TB_ENTRY(ops, n) &ops,
const struct timebase_ops *const timebase_table[] = {TB_REGISTRY(TB_ENTRY) NULL};
#undef TB_ENTRY

const struct timebase_ops *timebase_find(const char *name)
{
	for (size_t i = 0; timebase_table[i]; i++)
		if (strcmp(timebase_table[i]->name, name) == 0)
			return timebase_table[i];
	return NULL;
}
