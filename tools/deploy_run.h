/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tdpctl deploy's hands: one tdpctl run per router, the command built from the
 * topology's control line (this host's socket, a command prefix such as
 * `ip netns exec NS`, or ssh), all of a step started at once and waited for
 * together with one deadline. Each run's output goes to temporary files; its
 * standard output is the daemon's reply as JSON (tdpctl --json prints a
 * refusal there too).
 */
#ifndef TDP_DEPLOY_RUN_H
#define TDP_DEPLOY_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include <jansson.h>

#include "sched_plan.h"

struct drun {
	pid_t pid; /* 0: not started */
	FILE *out, *err;
	int exit; /* the exit status; -1: killed or not started */
	bool timed_out;
	json_t *json;  /* standard output as JSON, or NULL */
	char *errtext; /* standard error, without its last newline */
};

/* The command that runs `tdpctl --json --timeout MS [--socket S] ARGS...` on
 * the router reached by r: r's command prefix or ssh (ssh: the ssh command's
 * words, the destination, then the remote command as one shell-quoted line).
 * self: this tdpctl's path, run where there is no ssh and no tdpctl given.
 * NULL-terminated and malloc'd (deploy_argv_free); NULL when out of memory. */
char **deploy_argv(const struct plan_reach *r, const char *self, char *const *ssh, int timeout_ms,
		   char *const *args);
void deploy_argv_free(char **v);
/* argv as one line a POSIX shell reads back as the same words; malloc'd. */
char *deploy_quote(char *const *argv);
/* How r reaches its router, in words for the report; malloc'd. */
char *deploy_via(const struct plan_reach *r);

/* Starts argv with standard input from in_fd (-1: /dev/null), in a process
 * group of its own. 0, or -1 with d->errtext saying why. */
int deploy_start(struct drun *d, char *const *argv, int in_fd);
/* Waits for the n runs started; those still running after timeout_ms are
 * killed with their process groups (timed_out). Then reads their output. */
void deploy_wait(struct drun *d, size_t n, int timeout_ms);
void deploy_drun_free(struct drun *d);

#endif
