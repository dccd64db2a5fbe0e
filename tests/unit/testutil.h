/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers for the schedule tests; include after cmocka.h. */
#ifndef TDP_TESTUTIL_H
#define TDP_TESTUTIL_H

#include "tdp_sched.h"

/* Parses text that must be valid (and admissible); fails the test otherwise. */
struct sched_table *parse_ok(const char *text);
/* Parses text that must fail with an error at line:col whose message contains
 * want. line 0 means a message about the whole file. */
void parse_err_at(const char *text, size_t len, uint32_t line, uint32_t col, const char *want,
		  const char *file, int srcline);
#define parse_err(text, line, col, want) \
	parse_err_at(text, sizeof(text) - 1, line, col, want, __FILE__, __LINE__)
/* The row of frame f rendered as "flow n, flow n". */
void assert_row_at(const struct sched_table *t, uint32_t f, const char *want, const char *file,
		   int line);
#define assert_row(t, f, want) assert_row_at(t, f, want, __FILE__, __LINE__)
/* Runs fn with its output in a string (malloc'd). */
char *capture(int (*fn)(const struct sched_table *, FILE *), const struct sched_table *t);

#endif
