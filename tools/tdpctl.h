/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef TDP_TDPCTL_H
#define TDP_TDPCTL_H

#include <stdio.h>

#include "tdp_sched.h"

/* Exit codes: 0 fine; 1 the table is invalid (or, for diff, different); 2 usage or I/O. */
#define TDPCTL_EXIT_BAD 1
#define TDPCTL_EXIT_USAGE 2

int tdpctl_schedule(int argc, char **argv);

struct sched_svg_opts {
	const char *title;
	unsigned width;       /* pixels */
	unsigned max_columns; /* frames are binned when k is larger */
};
int sched_svg(const struct sched_table *t, const struct sched_svg_opts *o, FILE *out);

#endif
