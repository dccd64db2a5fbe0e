/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target for tdpctl plan's topology: any text is read, placed and
 * turned into tables without a crash, an overflow or an unbounded loop; a
 * plan that places every flow builds tables that say where they fail.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched_plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct plan pl;
	FILE *null = fopen("/dev/null", "w");
	if (!null)
		return 0;
	memset(&pl, 0, sizeof(pl));
	pl.file = "fuzz.topo";
	pl.overhead = 24;
	pl.err = null;
	/* the planner's time grows with k (placing, then tables of k frames);
	 * past 100,000 it outlasts the fuzzer's 10 s an input under the
	 * sanitizers: plan_limits plans k = 10^6, this reads it only */
	if (plan_read_text(&pl, (const char *)data, size) == 0 && pl.errors == 0 &&
	    pl.k <= 100000 && plan_place(&pl) == 0) {
		for (uint32_t x = 0; x < pl.nnodes; x++) {
			if (!plan_node_has_table(&pl, x))
				continue;
			struct plan_table t;
			int before = pl.errors;
			int rc = plan_table_build(&pl, x, "fuzz.topo", &t);
			/* a table that does not check is reported, never silent */
			if (rc != 0 && pl.errors == before)
				abort();
			plan_table_free(&t);
		}
		for (uint32_t i = 0; i < pl.nflows; i++) {
			char *fr = plan_ingress_frames(&pl, &pl.flows[i], 0);
			free(fr);
		}
	}
	plan_free(&pl);
	fclose(null);
	return 0;
}
