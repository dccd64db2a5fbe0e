/* SPDX-License-Identifier: BSD-3-Clause */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "testutil.h"

struct sched_table *parse_ok(const char *text)
{
	struct sched_diags d;
	sched_diags_init(&d, "test");
	struct sched_table *t = sched_parse(text, strlen(text), &d);
	if (t)
		sched_admit(t, &d);
	if (!t || d.nerr) {
		sched_diags_print(&d, stderr);
		fail_msg("expected a valid table");
	}
	sched_diags_free(&d);
	return t;
}

void parse_err_at(const char *text, size_t len, uint32_t line, uint32_t col, const char *want,
		  const char *file, int srcline)
{
	struct sched_diags d;
	sched_diags_init(&d, "test");
	struct sched_table *t = sched_parse(text, len, &d);
	if (t)
		sched_admit(t, &d);
	bool found = false;
	for (size_t i = 0; i < d.n && !found; i++)
		found = d.v[i].sev == SCHED_ERROR && d.v[i].line == line &&
			(line == 0 || d.v[i].col == col) && strstr(d.v[i].msg, want);
	if (!found) {
		fprintf(stderr, "%s:%d: wanted error at %u:%u containing \"%s\"; got:\n", file,
			srcline, line, col, want);
		sched_diags_print(&d, stderr);
		if (d.n == 0)
			fprintf(stderr, "  (no errors)\n");
	}
	sched_diags_free(&d);
	sched_free(t);
	if (!found)
		fail_msg("%s:%d: error not reported", file, srcline);
}

void assert_row_at(const struct sched_table *t, uint32_t f, const char *want, const char *file,
		   int line)
{
	char got[512] = "";
	size_t o = 0;
	uint32_t n;
	const struct sched_entry *e = sched_row(t, f, &n);
	for (uint32_t i = 0; i < n; i++)
		o += (size_t)snprintf(got + o, sizeof(got) - o, "%s%s %u", i ? ", " : "",
				      t->flows[e[i].flow].name, e[i].n);
	/* compare as sets: render both sorted by flow name */
	if (strcmp(got, want)) {
		/* entries are sorted by (port, flow); tests name them in that order */
		fail_msg("%s:%d: frame %u: got \"%s\", want \"%s\"", file, line, f, got, want);
	}
}

char *capture(int (*fn)(const struct sched_table *, FILE *), const struct sched_table *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(fn(t, f), 0);
	fclose(f);
	return buf;
}
