/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target for the table parser. Besides not crashing, every input
 * that parses must survive the round trip: written in canonical form and in
 * per-line form, it must parse back to the same table.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "tdp_sched.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void roundtrip(const struct sched_table *t,
		      int (*writer)(const struct sched_table *, FILE *))
{
	char *buf = NULL;
	size_t len = 0;
	struct sched_diags d;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return;
	if (writer(t, f)) {
		fclose(f);
		free(buf);
		return; /* out of memory */
	}
	fclose(f);
	sched_diags_init(&d, "roundtrip");
	struct sched_table *b = sched_parse(buf, len, &d);
	if (!b || !sched_equal(t, b)) {
		sched_diags_print(&d, stderr);
		fprintf(stderr, "round trip changed the table:\n%s", buf);
		abort();
	}
	sched_diags_free(&d);
	sched_free(b);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sched_diags d;
	sched_diags_init(&d, "fuzz");
	struct sched_table *t = sched_parse((const char *)data, size, &d);
	if (t) {
		sched_admit(t, &d);
		roundtrip(t, sched_write);
		roundtrip(t, sched_write_fmt);
	}
	sched_diags_free(&d);
	sched_free(t);
	return 0;
}
