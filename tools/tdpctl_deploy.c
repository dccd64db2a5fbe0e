/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tdpctl deploy DIR: the plan tdpctl plan wrote in DIR put in force on every
 * router at one cycle start, or on none. The routers and how to reach each
 * come from DIR's copy of the topology (its control lines). In steps, each
 * run on every router at once (deploy_run.h):
 *
 *   look    status and schedule active: reachable, the sync state, the
 *           table in force (its digest: a router already on its table of
 *           this plan is left alone; its cycle, for the commit time)
 *   stage   every changed router stages its table (read, checked, built)
 *   commit  only when every stage succeeded and every router is locked (or
 *           --allow-unsynced says why not): all at one time T, the first
 *           cycle start common to every table in force and planned that is
 *           --margin after the stages; else every staged table is aborted
 *   undo    a commit refused anywhere: the others are cancelled before T,
 *           the refused one aborted, one whose reply was lost both; a
 *           router that cannot be cancelled is reported as the split it is
 *   verify  after T, each router's table in force is the planned one,
 *           adopted at the planned frame
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "deploy_run.h"
#include "tdpctl.h"
#include "deploy_state.h"
#include "tdpctl_json.h"
#include "tdp_mono.h"

#define EXIT_NO_ROUTER 3

/* the latest TAI a router's reply may give (2^62 ns, in 2116): beyond it the
 * deploy's own arithmetic on it could overflow */
#define DEPLOY_MAX_TAI_NS (INT64_C(1) << 62)

/* ---- one step on every router ---------------------------------------- */

/* A step's words for one router: into a (NULL-terminated, at most 15), with
 * what they allocate in own (freed after the start). 0 or -1. */
typedef int step_args(const struct deploy *dp, const struct deploy_router *r, const char **a,
		      char **own);

/* Runs tdpctl with args' words on each router of want (NULL: all), at once.
 * in_table: standard input is the router's table. */
static struct drun *step(struct deploy *dp, const bool *want, bool in_table, step_args *args)
{
	struct drun *d = calloc(dp->n, sizeof(*d));
	if (!d)
		return NULL;
	int *fds = calloc(dp->n, sizeof(*fds));
	for (uint32_t i = 0; i < dp->n; i++) {
		d[i].exit = -1;
		if (fds)
			fds[i] = -1;
		if (want && !want[i])
			continue;
		const char *a[16] = {0};
		char *own[4] = {0}, **argv = NULL;
		if (fds && args(dp, &dp->r[i], a, own) == 0)
			argv = deploy_argv(dp->r[i].reach, dp->self, dp->ssh, dp->timeout_ms,
					   (char *const *)a);
		const char *why = NULL;
		if (argv && in_table)
			fds[i] = deploy_plan_file_fd(dp->r[i].table, SCHED_MAX_BYTES, &why);
		if (!argv || (in_table && fds[i] < 0)) {
			d[i].errtext = strdup(!argv ? "out of memory"
					      : why ? why
						    : strerror(errno));
			d[i].pid = -1;
		} else {
			deploy_start(&d[i], argv, in_table ? fds[i] : -1);
		}
		deploy_argv_free(argv);
		for (int k = 0; k < 4; k++)
			free(own[k]);
	}
	deploy_wait(d, dp->n, dp->timeout_ms + 2000);
	for (uint32_t i = 0; fds && i < dp->n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(fds);
	return d;
}

static void steps_free(struct deploy *dp, struct drun *d)
{
	for (uint32_t i = 0; d && i < dp->n; i++)
		deploy_drun_free(&d[i]);
	free(d);
}

/* What a run that failed says: the daemon's refusal, or why there was none.
 * *no_daemon: the router could not be reached. */
static json_t *run_error(const struct deploy *dp, const struct drun *d, bool *no_daemon)
{
	*no_daemon = false;
	if (d->json && json_is_false(json_object_get(d->json, "ok"))) {
		json_t *e = json_pack("{ss ss}", "code", S(d->json, "code"), "message",
				      S(d->json, "error"));
		json_t *dg = json_object_get(d->json, "diagnostics");
		if (dg)
			json_object_set(e, "diagnostics", dg);
		return e;
	}
	char msg[600];
	*no_daemon = true;
	if (d->timed_out)
		snprintf(msg, sizeof(msg), "no answer within %d s", dp->timeout_ms / 1000 + 2);
	else
		snprintf(msg, sizeof(msg), "%s (exit %d)",
			 d->errtext && *d->errtext ? d->errtext : "no reply", d->exit);
	return json_pack("{ss ss}", "code", d->timed_out ? "timeout" : "unreachable", "message",
			 msg);
}

static bool run_ok(const struct drun *d)
{
	return d->exit == 0 && d->json && !json_object_get(d->json, "ok");
}

static void set_error(struct deploy_router *r, json_t *e, const char *result)
{
	json_decref(r->error);
	r->error = e;
	r->result = result;
}

/* A run's reply came (true), or the router's error and result are set from
 * what it said instead. */
static bool answered(const struct deploy *dp, const struct drun *d, struct deploy_router *r)
{
	bool nd;
	if (run_ok(d))
		return true;
	json_t *e = run_error(dp, d, &nd);
	set_error(r, e, nd ? "unreachable" : "refused");
	return false;
}

static int a_status(const struct deploy *dp, const struct deploy_router *r, const char **a,
		    char **own)
{
	(void)dp, (void)r, (void)own;
	a[0] = "status";
	return 0;
}

static int a_active(const struct deploy *dp, const struct deploy_router *r, const char **a,
		    char **own)
{
	(void)dp, (void)r, (void)own;
	a[0] = "schedule", a[1] = "active";
	return 0;
}

static int a_stage(const struct deploy *dp, const struct deploy_router *r, const char **a,
		   char **own)
{
	if (asprintf(&own[0], "%d", dp->ttl_s) < 0)
		return own[0] = NULL, -1;
	a[0] = "schedule", a[1] = "stage", a[2] = "-", a[3] = "--ttl", a[4] = own[0],
	a[5] = "--name", a[6] = r->table;
	return 0;
}

static int a_commit(const struct deploy *dp, const struct deploy_router *r, const char **a,
		    char **own)
{
	if (asprintf(&own[0], "%" PRId64, r->stage_id) < 0)
		return own[0] = NULL, -1;
	if (asprintf(&own[1], "%" PRId64 ".%09" PRId64, dp->T / NS, dp->T % NS) < 0)
		return own[1] = NULL, -1;
	a[0] = "schedule", a[1] = "commit", a[2] = own[0], a[3] = "--at", a[4] = own[1],
	a[5] = "--no-wait";
	return 0;
}

static int a_abort(const struct deploy *dp, const struct deploy_router *r, const char **a,
		   char **own)
{
	(void)dp;
	if (asprintf(&own[0], "%" PRId64, r->stage_id) < 0)
		return own[0] = NULL, -1;
	a[0] = "schedule", a[1] = "abort", a[2] = own[0];
	return 0;
}

static int a_cancel(const struct deploy *dp, const struct deploy_router *r, const char **a,
		    char **own)
{
	(void)dp, (void)r, (void)own;
	a[0] = "schedule", a[1] = "cancel";
	return 0;
}

/* ---- the steps ------------------------------------------------------- */

/* look: every router reachable; its sync state and table in force */
static int look(struct deploy *dp)
{
	struct drun *st = step(dp, NULL, false, a_status),
		    *ac = st ? step(dp, NULL, false, a_active) : NULL;
	int rc = st && ac ? 0 : TDPCTL_EXIT_USAGE;
	for (uint32_t i = 0; st && ac && i < dp->n; i++) {
		struct deploy_router *r = &dp->r[i];
		bool nd = false;
		if (!run_ok(&st[i]) || !run_ok(&ac[i])) {
			set_error(r, run_error(dp, run_ok(&st[i]) ? &ac[i] : &st[i], &nd),
				  "unreachable");
			rc = EXIT_NO_ROUTER;
			continue;
		}
		json_t *sy = json_object_get(st[i].json, "sync"),
		       *t = json_object_get(ac[i].json, "table");
		snprintf(r->sync, sizeof(r->sync), "%s", S(sy, "state"));
		snprintf(r->sync_why, sizeof(r->sync_why), "%s", S(sy, "reason"));
		snprintf(r->old_digest, sizeof(r->old_digest), "%s", S(t, "digest"));
		snprintf(r->old_origin, sizeof(r->old_origin), "%s%s", S(t, "origin"),
			 json_is_true(json_object_get(t, "resumed")) ? ", resumed" : "");
		r->old_cycle_ns = (uint64_t)I(t, "tf_ns") * (uint64_t)I(t, "k");
		r->unchanged = !strcmp(r->old_digest, r->digest) &&
			       json_is_null(json_object_get(ac[i].json, "pending")) &&
			       json_is_null(json_object_get(ac[i].json, "staged"));
		if (r->unchanged)
			r->result = "unchanged";
	}
	steps_free(dp, st);
	steps_free(dp, ac);
	return rc;
}

/* stage: every changed router; the digest it computed must be ours */
static bool stage_all(struct deploy *dp, int64_t *newest_tai)
{
	bool *want = calloc(dp->n, sizeof(*want)), ok = true;
	for (uint32_t i = 0; want && i < dp->n; i++)
		want[i] = !dp->r[i].unchanged;
	struct drun *d = want ? step(dp, want, true, a_stage) : NULL;
	for (uint32_t i = 0; d && i < dp->n; i++) {
		struct deploy_router *r = &dp->r[i];
		if (!want[i])
			continue;
		if (!answered(dp, &d[i], r)) {
			ok = false;
			continue;
		}
		r->staged = true;
		r->stage_id = I(d[i].json, "id");
		r->result = "staged";
		if (r->stage_id <= 0) {
			/* staged, by the reply's ok, but with no id to abort or commit it by */
			set_error(r,
				  json_pack("{ss ss}", "code", "bad-reply", "message",
					    "the router's stage reply names no stage id: its table "
					    "stays staged until its "
					    "ttl"),
				  "refused");
			ok = false;
			continue;
		}
		int64_t t = I(d[i].json, "tai_ns");
		if (t <= 0 || t > DEPLOY_MAX_TAI_NS) {
			/* the router's clock is what the commit time is reckoned from */
			set_error(
				r,
				json_pack(
					"{ss ss}", "code", "bad-reply", "message",
					"the router's stage reply gives no time a clock can have"),
				"refused");
			ok = false;
			continue;
		}
		if (t > *newest_tai)
			*newest_tai = t;
		if (strcmp(S(d[i].json, "digest"), r->digest)) {
			set_error(r,
				  json_pack("{ss ss}", "code", "digest", "message",
					    "the router's digest of the table is not the file's: "
					    "it received other bytes"),
				  "refused");
			ok = false;
		}
	}
	free(want);
	steps_free(dp, d);
	return d && ok;
}

/* An abort's answer: the stage is gone (aborted, or expired already), or
 * the router keeps it (false). */
static bool aborted(const struct deploy *dp, struct deploy_router *r, const struct drun *d)
{
	bool nd;
	if (run_ok(d)) {
		r->staged = false;
		r->undone = "aborted";
		if (!r->error)
			r->result = "aborted";
		return true;
	}
	/* a stage the router no longer holds (expired) is undone too */
	json_t *e = run_error(dp, d, &nd);
	if (!strcmp(S(e, "code"), "unknown-stage")) {
		r->staged = false;
		r->undone = "expired";
		json_decref(e);
		return true;
	}
	set_error(r, e, "not-aborted");
	return false;
}

/* A cancel's answer: the commit is withdrawn (or never landed), or the
 * router switches at the frame (false). */
static bool cancelled(const struct deploy *dp, struct deploy_router *r, const struct drun *d)
{
	bool nd;
	if (run_ok(d)) {
		r->committed = false;
		r->undone = r->result = "cancelled";
		return true;
	}
	json_t *e = run_error(dp, d, &nd);
	if (r->unsure && !r->staged && !strcmp(S(e, "code"), "nothing-pending")) {
		json_decref(e); /* aborted: the commit never landed */
		return true;
	}
	set_error(r, e, "NOT-CANCELLED");
	return false;
}

/* undo: abort what is staged, cancel what is committed; false when some
 * router could not be undone */
static bool undo(struct deploy *dp)
{
	bool *ab = calloc(dp->n, sizeof(*ab)), *ca = calloc(dp->n, sizeof(*ca)), ok = ab && ca,
	     stuck = false;
	for (uint32_t i = 0; ok && i < dp->n; i++) {
		const struct deploy_router *r = &dp->r[i];
		/* a stage with no id cannot be aborted: it stays, and says so */
		ab[i] = r->staged && !r->committed && r->stage_id > 0;
		if (r->staged && !r->committed && r->stage_id <= 0) {
			dp->r[i].result = "not-aborted"; /* its error says why: no id */
			stuck = true;
		}
		/* a commit whose reply was lost is cancelled too: while a table
		 * is staged nothing else can be waiting there, so a cancel can
		 * only withdraw this plan's table, or find nothing */
		ca[i] = r->committed || r->unsure;
	}
	struct drun *da = ok ? step(dp, ab, false, a_abort) : NULL,
		    *dc = ok ? step(dp, ca, false, a_cancel) : NULL;
	for (uint32_t i = 0; da && dc && i < dp->n; i++) {
		if (ab[i] && !aborted(dp, &dp->r[i], &da[i]))
			ok = false;
		if (ca[i] && !cancelled(dp, &dp->r[i], &dc[i]))
			ok = false;
	}
	free(ab);
	free(ca);
	steps_free(dp, da);
	steps_free(dp, dc);
	return da && dc && ok && !stuck;
}

/* T: the first start common to every cycle (in force and planned) at or
 * after the time asked; every cycle divides a second, so their lcm does too */
static void pick_time(struct deploy *dp, int64_t now)
{
	uint64_t L = 1;
	for (uint32_t i = 0; i < dp->n; i++) {
		uint64_t c[2] = {dp->r[i].cycle_ns, dp->r[i].old_cycle_ns};
		for (int j = 0; j < 2; j++)
			if (c[j] && (uint64_t)NS % c[j] == 0)
				L = L / sched_gcd(L, c[j]) * c[j];
	}
	int64_t e = (int64_t)dp->r[0].epoch_ns;
	int64_t want = dp->at_ns > 0   ? dp->at_ns
		       : dp->at_ns < 0 ? now - dp->at_ns
				       : now + dp->margin_ns;
	int64_t n = (want - e + (int64_t)L - 1) / (int64_t)L;
	dp->T = e + n * (int64_t)L;
}

/* commit: all at T, every reply the same frame */
static bool commit_all(struct deploy *dp)
{
	bool *want = calloc(dp->n, sizeof(*want)), ok = true;
	for (uint32_t i = 0; want && i < dp->n; i++)
		want[i] = dp->r[i].staged;
	struct drun *d = want ? step(dp, want, false, a_commit) : NULL;
	dp->frame = INT64_MIN;
	for (uint32_t i = 0; d && i < dp->n; i++) {
		struct deploy_router *r = &dp->r[i];
		if (!want[i])
			continue;
		if (!answered(dp, &d[i], r)) {
			/* no reply is no evidence the commit did not land */
			r->unsure = !strcmp(r->result, "unreachable");
			ok = false;
			continue;
		}
		r->committed = true;
		r->result = "committed";
		r->frame = I(d[i].json, "requested_frame");
		r->start_ns = I(d[i].json, "start_tai_ns");
		if (dp->frame == INT64_MIN)
			dp->frame = r->frame;
		if (r->frame != dp->frame || r->start_ns != dp->T) {
			snprintf(dp->why, sizeof(dp->why),
				 "%s chose frame %" PRId64 " at TAI %" PRId64 " ns, not the cycle "
				 "start %" PRId64 " ns every router was given",
				 r->name, r->frame, r->start_ns, dp->T);
			ok = false;
		}
	}
	free(want);
	steps_free(dp, d);
	return d && ok;
}

/* verify: after T, each changed router runs its table from the frame */
static bool verify(struct deploy *dp, int64_t router_now, int64_t at_mono)
{
	/* the routers' clocks were at least router_now at at_mono */
	int64_t wait = dp->T - router_now - (tdp_mono_ns() - at_mono) + 20000000;
	if (wait > 0)
		nanosleep(&(struct timespec){.tv_sec = wait / NS, .tv_nsec = wait % NS}, NULL);
	bool ok = true;
	for (int tries = 0; tries < 20; tries++) {
		bool *want = calloc(dp->n, sizeof(*want)), again = false;
		for (uint32_t i = 0; want && i < dp->n; i++)
			want[i] = dp->r[i].committed && strcmp(dp->r[i].result, "in-force");
		struct drun *d = want ? step(dp, want, false, a_active) : NULL;
		ok = d != NULL;
		for (uint32_t i = 0; d && i < dp->n; i++) {
			struct deploy_router *r = &dp->r[i];
			bool nd;
			if (!want[i])
				continue;
			json_t *t = json_object_get(d[i].json, "table"),
			       *p = json_object_get(d[i].json, "pending");
			if (!run_ok(&d[i])) {
				set_error(r, run_error(dp, &d[i], &nd), "unknown");
				ok = false;
			} else if (!strcmp(S(t, "digest"), r->digest) &&
				   I(t, "adopted_frame") == r->frame) {
				r->result = "in-force";
			} else if (json_is_object(p) && !strcmp(S(p, "digest"), r->digest)) {
				again = true; /* its clock is not at T yet */
				ok = false;
			} else {
				char m[300];
				snprintf(m, sizeof(m),
					 "in force: %.16s… from frame %" PRId64
					 ", not this plan's table from "
					 "frame %" PRId64,
					 S(t, "digest"), I(t, "adopted_frame"), r->frame);
				set_error(r,
					  json_pack("{ss ss}", "code", "not-adopted", "message", m),
					  "not-adopted");
				ok = false;
			}
		}
		free(want);
		steps_free(dp, d);
		if (!again)
			break;
		nanosleep(&(struct timespec){.tv_nsec = 100000000}, NULL);
	}
	return ok;
}

/* ---- the command ------------------------------------------------------ */

/* SIGINT, SIGTERM or SIGHUP while deploying: the step under way ends (its
 * runs are bounded by --timeout), then what is staged is aborted and
 * nothing is committed; once committed, the deploy only stops waiting. */
static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
	interrupted = sig;
}

static void progress(const struct deploy *dp, const char *what)
{
	if (!dp->json)
		fprintf(stderr, "tdpctl deploy: %s\n", what);
}

/* What the routers looked like: how many have a table to change and how
 * many are not locked; 1 or 0 with the outcome set when the deploy ends here. */
static int looked(struct deploy *dp, uint32_t *changed, uint32_t *unlocked)
{
	int rc = look(dp);
	if (rc) {
		dp->outcome = "refused";
		snprintf(dp->why, sizeof(dp->why),
			 "a router could not be reached: nothing was staged");
		return rc;
	}
	for (uint32_t i = 0; i < dp->n; i++) {
		*changed += !dp->r[i].unchanged;
		*unlocked += strcmp(dp->r[i].sync, "locked") != 0;
	}
	if (interrupted) {
		dp->outcome = "interrupted";
		snprintf(dp->why, sizeof(dp->why), "stopped by signal %d: nothing was staged",
			 (int)interrupted);
		return 1;
	}
	if (!*changed) {
		dp->outcome = "unchanged";
		snprintf(dp->why, sizeof(dp->why),
			 "every router already runs its table of this plan");
		return 0;
	}
	return -1;
}

/* The stage ended without a commit (a refusal, routers not locked, --check
 * or a signal): every staged table aborted, and what was undone said. */
static int not_committed(struct deploy *dp, bool staged, bool sync_ok, uint32_t unlocked)
{
	bool undone = undo(dp);
	/* what was undone, said once: all of it, or all but what stays staged */
	char done[160];
	if (undone)
		snprintf(done, sizeof(done), "every staged table was aborted");
	else
		snprintf(done, sizeof(done),
			 "the staged tables were aborted but where a router marked "
			 "not-aborted keeps its table staged until its ttl (%d s)",
			 dp->ttl_s);
	bool checked = dp->check && staged && sync_ok && undone && !interrupted;
	dp->outcome = interrupted ? "interrupted" : checked ? "checked" : "refused";
	if (interrupted)
		snprintf(dp->why, sizeof(dp->why), "stopped by signal %d before the commit: %s",
			 (int)interrupted, done);
	else if (!staged)
		snprintf(dp->why, sizeof(dp->why), "a router refused its table: %s", done);
	else if (!sync_ok)
		snprintf(dp->why, sizeof(dp->why),
			 "%u router%s not locked (--allow-unsynced WHY commits anyway): %s",
			 unlocked, unlocked == 1 ? " is" : "s are", done);
	else
		snprintf(dp->why, sizeof(dp->why), "every router staged its table; %s%s",
			 undone ? "all were aborted" : done,
			 unlocked ? " (some not locked: see sync)" : "");
	return checked ? 0 : 1;
}

/* Every router staged: the commit at a time all can meet (newest: the
 * latest clock a router read at its stage, m0 when the stages began), then
 * the wait for the frame. */
static int commit_and_wait(struct deploy *dp, int64_t newest, int64_t m0, uint32_t changed)
{
	char line[200];
	int64_t now = newest + (tdp_mono_ns() - m0), at_mono = tdp_mono_ns();
	pick_time(dp, now);
	snprintf(line, sizeof(line), "committing at TAI %" PRId64 ".%09" PRId64 " (in %.2f s)",
		 dp->T / NS, dp->T % NS, (double)(dp->T - now) / 1e9);
	progress(dp, line);
	if (!commit_all(dp)) {
		bool undone = undo(dp);
		dp->outcome = undone ? "refused" : "SPLIT";
		if (!dp->why[0])
			snprintf(dp->why, sizeof(dp->why),
				 "a router refused the commit (too late? raise --margin)");
		snprintf(dp->why + strlen(dp->why), sizeof(dp->why) - strlen(dp->why), "%s",
			 undone ? ": every router stays on its table"
				: ": a router marked NOT-CANCELLED switches at that "
				  "frame while the others stay: cancel it by hand");
		return 1;
	}
	char when[96];
	snprintf(when, sizeof(when), "frame %" PRId64 " (TAI %" PRId64 ".%09" PRId64 ")", dp->frame,
		 dp->T / NS, dp->T % NS);
	dp->outcome = "committed";
	snprintf(dp->why, sizeof(dp->why),
		 "every changed router adopts its table at %s; not verified (--no-wait)", when);
	if (!dp->wait)
		return 0;
	progress(dp, "waiting for the frame");
	if (!verify(dp, newest, at_mono)) {
		dp->outcome = "not-adopted";
		snprintf(dp->why, sizeof(dp->why),
			 "committed for %s, but a router does not run its table of this plan "
			 "from that frame",
			 when);
		return 1;
	}
	dp->outcome = "in-force";
	snprintf(dp->why, sizeof(dp->why),
		 "every router runs its table of this plan, %u of them from %s", changed, when);
	return 0;
}

static int deploy_run(struct deploy *dp)
{
	uint32_t changed = 0, unlocked = 0;
	int rc = looked(dp, &changed, &unlocked);
	if (rc >= 0)
		return rc;
	char line[200];
	snprintf(line, sizeof(line), "staging %u table%s (%u router%s already on theirs)", changed,
		 changed == 1 ? "" : "s", dp->n - changed, dp->n - changed == 1 ? "" : "s");
	progress(dp, line);
	int64_t m0 = tdp_mono_ns(), newest = 0;
	bool staged = stage_all(dp, &newest);
	bool sync_ok = !unlocked || dp->allow_unsynced;
	if (interrupted || !staged || !sync_ok || dp->check)
		return not_committed(dp, staged, sync_ok, unlocked);
	return commit_and_wait(dp, newest, m0, changed);
}

int tdpctl_deploy(int argc, char **argv)
{
	static struct plan pl;
	struct deploy dp = {.wait = true,
			    .margin_ns = 2 * NS,
			    .ttl_s = 60,
			    .timeout_ms = 30000,
			    .frame = INT64_MIN};
	char *sshbuf = NULL;
	dp.ssh[0] = "ssh", dp.ssh[1] = "-o", dp.ssh[2] = "BatchMode=yes";
	int rc = deploy_parse_args(&dp, argc, argv, &sshbuf);
	if (rc >= 0) {
		free(sshbuf);
		return rc;
	}
	ssize_t sl = readlink("/proc/self/exe", dp.self, sizeof(dp.self) - 1);
	if (sl <= 0) {
		fprintf(stderr, "tdpctl deploy: /proc/self/exe: %s\n", strerror(errno));
		free(sshbuf);
		return TDPCTL_EXIT_USAGE;
	}
	dp.self[sl] = 0;
	memset(&pl, 0, sizeof(pl));
	if (deploy_load_plan(&dp, &pl) != 0) {
		rc = TDPCTL_EXIT_USAGE;
	} else {
		struct sigaction sa = {.sa_handler = on_interrupt}, old[3];
		static const int sigs[3] = {SIGINT, SIGTERM, SIGHUP};
		sigemptyset(&sa.sa_mask);
		for (int k = 0; k < 3; k++)
			sigaction(sigs[k], &sa, &old[k]);
		rc = deploy_run(&dp);
		for (int k = 0; k < 3; k++)
			sigaction(sigs[k], &old[k], NULL);
		if (dp.json)
			deploy_report_json(&dp);
		else
			deploy_report_text(&dp);
	}
	for (uint32_t i = 0; dp.r && i < dp.n; i++) {
		free(dp.r[i].table);
		free(dp.r[i].via);
		json_decref(dp.r[i].error);
	}
	free(dp.r);
	free((char *)pl.file);
	plan_free(&pl);
	free(sshbuf);
	return rc;
}
