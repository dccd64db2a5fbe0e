/* SPDX-License-Identifier: BSD-3-Clause */
/* tdpctl deploy's state, below its run (tdpctl_deploy.c), its command line
 * (tdpctl_deploy_args.c) and its report (tdpctl_deploy_report.c). */
#ifndef TDP_DEPLOY_STATE_H
#define TDP_DEPLOY_STATE_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "sched_plan.h"

#define NS ((int64_t)1000000000)

struct deploy_router {
	const char *name;
	const struct plan_reach *reach;
	char *table, *via; /* DIR/NAME.tdp; how it is reached */
	char digest[SCHED_DIGEST_HEX];
	uint64_t tf_ns, cycle_ns, epoch_ns;
	/* what it said */
	char sync[16], sync_why[256], old_digest[SCHED_DIGEST_HEX];
	char old_origin[64]; /* how the table in force came (tdpd.conf, schedule load, ...) */
	uint64_t old_cycle_ns;
	int64_t stage_id, frame, start_ns;
	bool unchanged, staged, committed;
	bool unsure;	    /* a commit sent without a reply: it may have landed */
	const char *result; /* the outcome, a word */
	const char *undone; /* "aborted", "cancelled" or NULL */
	json_t *error;	    /* {code, message, diagnostics} */
};

struct deploy {
	const char *dir;
	bool check, json, wait;
	const char *allow_unsynced;
	int64_t at_ns, margin_ns; /* at_ns: 0 none, < 0 relative (-at) */
	int ttl_s, timeout_ms;
	char *ssh[16];
	char self[PATH_MAX];
	struct deploy_router *r;
	uint32_t n;
	int64_t T, frame;
	const char *outcome;
	char why[512];
};

/* tdpctl_deploy_args.c: the command line into dp (--ssh's words in *sshbuf,
 * for the caller to free): -1 to go on, else the exit status, said */
int deploy_parse_args(struct deploy *dp, int argc, char **argv, char **sshbuf);

/* deploy_plan.c: DIR's topology into pl and dp's routers, each with its
 * table read and its digest; 0, or -1 said on stderr */
int deploy_load_plan(struct deploy *dp, struct plan *pl);
/* A file of the plan, opened without waiting: a regular file of at most max
 * bytes, or -1 with errno set and *why saying what it is instead. */
int deploy_plan_file_fd(const char *path, uint64_t max, const char **why);

/* the outcome and a line per router, in words or as JSON, on stdout */
void deploy_report_text(const struct deploy *dp);
void deploy_report_json(const struct deploy *dp);

#endif
