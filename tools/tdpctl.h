/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef TDP_TDPCTL_H
#define TDP_TDPCTL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "tdp_sched.h"

/* Exit codes: 0 fine; 1 the table is invalid (or, for diff, different; or the
 * daemon refused the request); 2 usage or I/O; 3 the daemon cannot be reached. */
#define TDPCTL_EXIT_BAD 1
#define TDPCTL_EXIT_USAGE 2

int tdpctl_schedule(int argc, char **argv);

/* Options before the command, for the commands that talk to tdpd. */
struct tdpctl_global {
	const char *socket; /* NULL: the monitor socket for reads, the control socket for changes */
	bool json;
	int timeout_ms; /* < 0: wait as long as it takes (schedule load waits for its frame) */
};
/* status, ports, flows, sync, stats, log-level, schedule active|load */
int tdpctl_live(const struct tdpctl_global *g, int argc, char **argv);
/* The host: CPU shielding at run time, and the audit. */
int tdpctl_shield(int argc, char **argv);
int tdpctl_doctor(int argc, char **argv);
int tdpctl_plan(int argc, char **argv);
/* every router of a plan, through tdpctl on each (tdpctl_deploy.c) */
int tdpctl_deploy(int argc, char **argv);
/* capture PORT: its packets into pcapng (tdpctl_capture.c) */
int tdpctl_capture(const struct tdpctl_global *g, int argc, char **argv);
/* schedule stage|commit|abort (tdpctl_stage.c) */
int tdpctl_stage(const struct tdpctl_global *g, int argc, char **argv);
/* tdpctl_ctl.c's, for the commands elsewhere that talk to tdpd: one request
 * (NULL when it could not be made, *rc the exit code); a change's reply
 * printed as JSON or its error (NULL), else its result to print as text;
 * --at's value (TAI seconds[.fraction] or +seconds[.fraction]) into args
 * (-1, said on stderr, when it is neither); a swap's result (a load's or a
 * commit's; NULL prints nothing) in words. */
json_t *tdpctl_call(const struct tdpctl_global *g, bool change, const char *cmd, json_t *args,
		    int fd, int *rc);
json_t *tdpctl_text_result(const struct tdpctl_global *g, json_t *o, int rc);
int tdpctl_at_option(const char *v, json_t *args);
/* An argument of `tdpctl schedule CMD FILE [OPTIONS]` that is none of CMD's
 * options: the table's file, once. 0, or TDPCTL_EXIT_USAGE said. */
int tdpctl_file_arg(const char *cmd, const char *arg, const char **file);
/* a change that passes a table: FILE ("-": standard input) opened and its
 * descriptor sent with cmd, args' name set to name (NULL: FILE); args are
 * consumed */
json_t *tdpctl_pass_table(const struct tdpctl_global *g, const char *cmd, const char *file,
			  const char *name, json_t *args, int *rc);
void tdpctl_print_swap(const char *name, const char *verb, json_t *r);
/* Sends one request line as it is and prints the reply (for scripts and tests). */
int tdpctl_raw(const struct tdpctl_global *g, const char *line);

struct sched_svg_opts {
	const char *title;
	unsigned width;	      /* pixels */
	unsigned max_columns; /* frames are binned when k is larger */
};
int sched_svg(const struct sched_table *t, const struct sched_svg_opts *o, FILE *out);

#endif
