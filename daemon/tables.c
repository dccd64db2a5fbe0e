/* SPDX-License-Identifier: BSD-3-Clause */
/* The table manager (tables.h): load, stage, commit, abort, cancel, offer,
 * adoption and retirement of the tables tdpd holds, on the control thread. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "bigmem.h"
#include "control_reply.h"
#include "frame.h"
#include "log.h"
#include "tables.h"
#include "tdp_time.h"
#include "timebase.h"
#include "tstate.h"

static void answer(struct tables *tm, int *slot, char *line)
{
	if (tm->answer)
		tm->answer(tm->answer_ctx, slot, line);
	else
		free(line);
	*slot = -1;
}

/* Where what a packet reads by its flow sits (the flows' state and the
 * tables' large arrays, of the tables held together): said at each table,
 * from the kernel's own account. */
static void log_pages(const char *name)
{
	struct bigmem_use u;
	bigmem_use(&u);
	if (!u.mapped)
		return;
	char mode[16], why[96] = "";
	if (!u.huge) {
		bigmem_thp_mode(mode, sizeof(mode));
		snprintf(why, sizeof(why), " (transparent huge pages: %s; the kernel gave none)",
			 mode);
	}
	log_info("schedule %s: the flows' state and arrays of the tables held take %.1f MiB, "
		 "%.1f MiB of it on huge pages%s",
		 name, (double)u.mapped / (1 << 20), (double)u.huge / (1 << 20), why);
}

struct dtable *dtable_new(struct eng_table *et, const char *name, const char *via)
{
	struct dtable *dt = calloc(1, sizeof(*dt));
	if (!dt)
		return NULL;
	const struct sched_table *t = engine_table_sched(et);
	dt->et = et;
	dt->cls = cls_build(t);
	uint32_t ncores = engine_table_rx_cores(et);
	bool ok = dt->cls != NULL;
	for (uint32_t c = 0; ok && c < ncores; c++) {
		struct rx_table *rt = &dt->rxt[c];
		ok = rx_table_init(rt, dt->cls, t) == 0;
		for (uint32_t f = 0; ok && f < t->nflows; f++)
			rx_table_set(rt, f, engine_table_flow_rxq(et, f, c));
	}
	if (!ok) {
		dtable_free(dt);
		return NULL;
	}
	control_text_copy(dt->name, sizeof(dt->name), name);
	snprintf(dt->via, sizeof(dt->via), "%s", via);
	log_pages(dt->name);
	dt->loaded_unix_s = (int64_t)time(NULL);
	sched_digest(t, dt->digest);
	return dt;
}

void dtable_free(struct dtable *dt)
{
	if (!dt)
		return;
	cls_free(dt->cls);
	for (uint32_t c = 0; c < RX_MAX_CORES; c++)
		rx_table_fini(&dt->rxt[c]);
	free(dt);
}

char *tables_when_check(struct tables *tm, json_t *args)
{
	json_t *at_j = json_object_get(args, "at_tai_ns"), *in_j = json_object_get(args, "in_ns");
	if ((at_j && !json_is_integer(at_j)) || (in_j && !json_is_integer(in_j)) || (at_j && in_j))
		return control_reply_err(
			"bad-args",
			"at_tai_ns or in_ns, as an integer number of nanoseconds, not both");
	/* at most CTL_MAX_AHEAD_S ahead: a table waiting for years would make every
	 * load busy (schedule-cancel withdraws one), and now + in must not overflow */
	int64_t now_ns = tb_now(tm->tb).ns, max_ahead = (int64_t)CTL_MAX_AHEAD_S * TDP_NS_PER_S;
	int64_t at = at_j ? json_integer_value(at_j) : 0, in = in_j ? json_integer_value(in_j) : 0;
	if ((at_j && (at < 0 || (at > now_ns && at - now_ns > max_ahead))) ||
	    (in_j && (in < 0 || in > max_ahead)))
		return control_reply_err(
			"bad-args",
			"a table is loaded for a time from now to %d s ahead (TAI %" PRId64
			" ns now); a time further ahead or before the epoch is refused",
			CTL_MAX_AHEAD_S, now_ns);
	return NULL;
}

static char *offer(struct tables *tm, struct dtable *nt, json_t *args, int64_t started_ns,
		   bool *wait)
{
	char err[512];
	struct eng_table *et = nt->et;
	json_t *at_j = json_object_get(args, "at_tai_ns"), *in_j = json_object_get(args, "in_ns");
	const struct frame_geom *g = engine_geom(tm->e);
	int64_t next = engine_next_frame(tm->e), from = next + 2;
	nt->asked_tai_ns = 0;
	if (at_j || in_j) {
		/* "in" counts from the request, not from the end of the load */
		int64_t in_ns = in_j ? json_integer_value(in_j) - (tdp_mono_ns() - started_ns) : 0;
		tdp_time_t when = {.ns = at_j ? json_integer_value(at_j)
					      : tb_now(tm->tb).ns + in_ns};
		int64_t j = frame_index(g, when);
		if (frame_start(g, j).ns < when.ns)
			j++;
		if (j < from) {
			tm->rejected++;
			return control_reply_err("too-late",
						 "TAI %" PRId64 " ns is frame %" PRId64
						 ", but the engine is at frame %" PRId64
						 " (TAI %" PRId64
						 " ns): a table is adopted at least 2 frames ahead",
						 when.ns, j, next, tb_now(tm->tb).ns);
		}
		from = j;
		nt->asked_tai_ns = when.ns;
	}
	int64_t J = engine_table_boundary(tm->e, et, from);
	if (engine_table_offer(tm->e, et, J, err, sizeof(err)) != 0) {
		tm->rejected++;
		return control_reply_err("too-late", "%s", err);
	}
	tm->pending = nt;
	tm->rx_offered = false;
	const struct sched_table *t = engine_table_sched(et);
	log_notice("schedule: %s (k %u, %u flows) accepted %.2f s after the request; adopted at "
		   "frame %" PRId64 " (TAI %" PRId64 " ns)",
		   nt->name, t->k, t->nflows, (double)(tdp_mono_ns() - started_ns) / 1e9, J,
		   frame_start(g, J).ns);
	json_t *w = json_object_get(args, "wait");
	if (!w || json_is_true(w)) {
		*wait = true;
		return NULL;
	}
	json_t *o = json_pack("{ss sI sI sb ss}", "table", nt->name, "requested_frame",
			      (json_int_t)J, "start_tai_ns", (json_int_t)frame_start(g, J).ns,
			      "waiting", 1, "digest", nt->digest);
	if (o && nt->asked_tai_ns)
		json_object_set_new(o, "asked_tai_ns", json_integer(nt->asked_tai_ns));
	return control_reply_ok(o);
}

static void drop(struct tables *tm)
{
	struct dtable *dt = tm->staged;
	if (!dt)
		return;
	engine_table_discard(tm->e, dt->et);
	dt->et = NULL;
	dtable_free(dt);
	tm->staged = NULL;
}

static char *keep(struct tables *tm, struct eng_table *et, const char *name, json_t *args)
{
	struct dtable *dt = dtable_new(et, name, TS_VIA_COMMIT);
	if (!dt) {
		engine_table_discard(tm->e, et);
		return control_reply_err("internal", "out of memory");
	}
	json_t *ttl_j = json_object_get(args, "ttl_ms");
	int64_t ttl_ms = ttl_j ? json_integer_value(ttl_j) : (int64_t)CTL_STAGE_TTL_S * 1000;
	tm->staged = dt;
	tm->staged_id = ++tm->next_stage_id;
	tm->staged_expires_ns = tdp_mono_ns() + ttl_ms * 1000000;
	tm->stages++;
	const struct sched_table *t = engine_table_sched(et);
	log_notice("schedule stage: %s (k %u, %u flows, digest %.16s) staged as %" PRIu64
		   " for %" PRId64 " ms",
		   name, t->k, t->nflows, dt->digest, tm->staged_id, ttl_ms);
	/* tai_ns: the daemon's time now, from which tdpctl deploy picks a
	 * commit time every router can still meet */
	return control_reply_ok(
		json_pack("{sI ss ss sI si sI ss sI}", "id", (json_int_t)tm->staged_id, "table",
			  name, "digest", dt->digest, "k", (json_int_t)t->k, "flows",
			  (int)t->nflows, "expires_in_ms", (json_int_t)ttl_ms, "in_force",
			  tm->cur->name, "tai_ns", (json_int_t)tb_now(tm->tb).ns));
}

/* the staged table of args' id, or NULL and *reply */
static struct dtable *staged_of(struct tables *tm, json_t *args, const char *what, char **reply)
{
	json_t *id_j = json_object_get(args, "id");
	if (!json_is_integer(id_j) || json_integer_value(id_j) < 1) {
		*reply = control_reply_err(
			"bad-args", "%s needs the id schedule-stage gave, a positive integer",
			what);
		return NULL;
	}
	uint64_t id = (uint64_t)json_integer_value(id_j);
	if (!tm->staged || tm->staged_id != id) {
		if (tm->staged)
			*reply = control_reply_err("unknown-stage",
						   "no table is staged as %" PRIu64
						   "; %s is staged as %" PRIu64,
						   id, tm->staged->name, tm->staged_id);
		else
			*reply = control_reply_err("unknown-stage",
						   "no table is staged as %" PRIu64
						   " (never staged, committed, aborted or expired)",
						   id);
		return NULL;
	}
	return tm->staged;
}

char *tables_commit(struct tables *tm, json_t *args, int slot, bool *defer)
{
	char *reply = NULL;
	struct dtable *dt = staged_of(tm, args, "schedule-commit", &reply);
	if (!dt)
		return reply;
	reply = tables_when_check(tm, args);
	if (reply)
		return reply;
	bool wait = false;
	reply = offer(tm, dt, args, tdp_mono_ns(), &wait);
	if (tm->pending == dt) {
		/* offered: from here on it is the pending table, no longer the staged one */
		log_notice("schedule commit: %s (staged as %" PRIu64 ") committed", dt->name,
			   tm->staged_id);
		tm->staged = NULL;
		tm->commits++;
	}
	if (wait) {
		tm->waiter = slot;
		*defer = true;
		return NULL;
	}
	return reply; /* a refusal (too-late) leaves the table staged: another commit may follow */
}

char *tables_abort(struct tables *tm, json_t *args)
{
	char *reply = NULL;
	struct dtable *dt = staged_of(tm, args, "schedule-abort", &reply);
	if (!dt)
		return reply;
	json_t *o = json_pack("{sI ss ss}", "aborted", (json_int_t)tm->staged_id, "table", dt->name,
			      "in_force", tm->cur->name);
	log_notice("schedule abort: %s (staged as %" PRIu64 ") dropped; %s stays in force",
		   dt->name, tm->staged_id, tm->cur->name);
	drop(tm);
	tm->aborts++;
	return control_reply_ok(o);
}

static void expire(struct tables *tm)
{
	if (!tm->staged || tdp_mono_ns() < tm->staged_expires_ns)
		return;
	log_warn("schedule stage: %s (staged as %" PRIu64 ") expired before a commit; dropped",
		 tm->staged->name, tm->staged_id);
	drop(tm);
	tm->expired++;
}

json_t *tables_staged_json(const struct tables *tm)
{
	if (!tm->staged)
		return json_null();
	const struct sched_table *t = engine_table_sched(tm->staged->et);
	int64_t left = (tm->staged_expires_ns - tdp_mono_ns()) / 1000000;
	return json_pack("{sI ss ss sI si sI}", "id", (json_int_t)tm->staged_id, "name",
			 tm->staged->name, "digest", tm->staged->digest, "k", (json_int_t)t->k,
			 "flows", (int)t->nflows, "expires_in_ms",
			 (json_int_t)(left < 0 ? 0 : left));
}

char *tables_busy(struct tables *tm)
{
	if (tm->staged)
		return control_reply_err(
			"busy", "table %s is staged as %" PRIu64 "; commit or abort it first",
			tm->staged->name, tm->staged_id);
	if (tm->pending)
		return control_reply_err("busy",
					 "table %s is waiting to be adopted at frame %" PRId64
					 "; load again after it",
					 tm->pending->name,
					 engine_table_requested(tm->pending->et));
	return NULL;
}

char *tables_built(struct tables *tm, struct eng_table *et, char *reply, const char *name,
		   json_t *args, bool stage, int64_t started_ns, int slot, bool *defer)
{
	*defer = false;
	if (!et) {
		tm->rejected++;
		return reply;
	}
	free(reply);
	if (stage)
		return keep(tm, et, name, args);
	struct dtable *nt = dtable_new(et, name, TS_VIA_LOAD);
	if (!nt) {
		engine_table_discard(tm->e, et);
		return control_reply_err("internal", "out of memory");
	}
	bool wait = false;
	reply = offer(tm, nt, args, started_ns, &wait);
	if (wait) {
		tm->waiter = slot;
		*defer = true;
		return NULL;
	}
	if (tm->pending != nt) {
		/* refused: neither offered nor kept */
		engine_table_discard(tm->e, et);
		dtable_free(nt);
	}
	return reply;
}

void tables_stop(struct tables *tm)
{
	drop(tm); /* never offered: the engine does not know it */
	if (tm->waiter >= 0)
		answer(tm, &tm->waiter,
		       control_reply_err("busy",
					 "tdpd is stopping; the table waiting for frame %" PRId64
					 " was not adopted",
					 tm->pending ? engine_table_requested(tm->pending->et)
						     : 0));
}

static json_t *swap_result(struct tables *tm, struct dtable *nt)
{
	const struct frame_geom *g = engine_geom(tm->e);
	int64_t at = engine_table_adopted(nt->et), req = engine_table_requested(nt->et);
	json_t *o = json_pack("{ss sI sI sI sb sI ss}", "table", nt->name, "frame", (json_int_t)at,
			      "requested_frame", (json_int_t)req, "start_tai_ns",
			      (json_int_t)frame_start(g, at).ns, "late", at != req,
			      "dropped_queued", (json_int_t)tm->swap_dropped, "digest", nt->digest);
	if (o && nt->asked_tai_ns)
		json_object_set_new(o, "asked_tai_ns", json_integer(nt->asked_tai_ns));
	return o;
}

/* Withdraws the table waiting to be adopted, if the engine has not taken it;
 * the client waiting for it is told. */
char *tables_cancel(struct tables *tm)
{
	struct dtable *nt = tm->pending;
	if (!nt)
		return control_reply_err("nothing-pending",
					 "no table is waiting to be adopted; %s is in force",
					 tm->cur->name);
	int64_t frame = engine_table_requested(nt->et);
	if (engine_table_withdraw(tm->e, nt->et) != 0)
		return control_reply_err("too-late",
					 "%s was already taken by the engine for frame %" PRId64
					 "; load another table to replace it",
					 nt->name, frame);
	tm->pending = NULL;
	log_notice("schedule cancel: %s, waiting for frame %" PRId64
		   ", withdrawn; %s stays in force",
		   nt->name, frame, tm->cur->name);
	if (tm->waiter >= 0)
		answer(tm, &tm->waiter,
		       control_reply_err("cancelled",
					 "%s was withdrawn before frame %" PRId64
					 " (schedule cancel)",
					 nt->name, frame));
	json_t *o = json_pack("{ss sI ss}", "cancelled", nt->name, "requested_frame",
			      (json_int_t)frame, "in_force", tm->cur->name);
	nt->et = NULL;
	dtable_free(nt);
	return control_reply_ok(o);
}

/* The table in force, once the engine runs it, into the state directory:
 * a restart resumes it (tstate.h). A failure is said and counted; the table
 * stays in force. */
static void save_in_force(struct tables *tm)
{
	if (!tm->state || tm->cur_saved || !tm->cur)
		return;
	int64_t frame = engine_table_adopted(tm->cur->et);
	if (frame == INT64_MIN)
		return;
	tm->cur_saved = true;
	struct tstate_rec r;
	memset(&r, 0, sizeof(r));
	snprintf(r.via, sizeof(r.via), "%s", tm->cur->via);
	snprintf(r.name, sizeof(r.name), "%s", tm->cur->name);
	r.frame = frame;
	char err[700];
	if (tstate_save(tm->state, engine_table_sched(tm->cur->et), &r, err, sizeof(err)) != 0) {
		tm->save_errors++;
		log_err("schedule: %s is in force but could not be kept for a restart: %s",
			tm->cur->name, err);
		return;
	}
	log_info("schedule: %s kept in %s (digest %.16s): a restart resumes it", tm->cur->name,
		 tm->state->dir, r.digest);
}

void tables_advance(struct tables *tm)
{
	save_in_force(tm);
	expire(tm);
	struct dtable *nt = tm->pending;
	if (!nt || engine_table_adopted(nt->et) == INT64_MIN)
		return;
	if (!tm->rx_offered) {
		for (uint32_t k = 0; k < tm->nrx; k++)
			atomic_store_explicit(&tm->rx[k].offer, &nt->rxt[k], memory_order_release);
		tm->rx_offered = true;
	}
	for (uint32_t k = 0; k < tm->nrx; k++)
		if (atomic_load_explicit(&tm->rx[k].offer, memory_order_acquire) != NULL)
			return; /* an RX core has not taken it yet */
	struct dtable *old = tm->cur;
	uint64_t dropped = engine_table_retire(tm->e, nt->et);
	tm->swap_dropped += dropped;
	dtable_free(old);
	tm->cur = nt;
	tm->cur_saved = false;
	tm->pending = NULL;
	tm->last_swap_frame = engine_table_adopted(nt->et);
	tm->last_swap_requested = engine_table_requested(nt->et);
	snprintf(tm->last_swap_name, sizeof(tm->last_swap_name), "%s", nt->name);
	const struct sched_table *t = engine_table_sched(nt->et);
	if (tm->last_swap_frame != tm->last_swap_requested)
		log_warn("schedule: %s took effect at frame %" PRId64 ", not %" PRId64
			 " as planned (the engine was late)",
			 nt->name, tm->last_swap_frame, tm->last_swap_requested);
	char lost[96] = "";
	if (dropped)
		snprintf(lost, sizeof(lost),
			 "; %" PRIu64 " packets queued for removed flows dropped", dropped);
	log_notice("schedule: %s in force from frame %" PRId64 ": k %u, %u flows%s", nt->name,
		   tm->last_swap_frame, t->k, t->nflows, lost);
	json_t *res = swap_result(tm, nt);
	json_object_set_new(res, "dropped_queued", json_integer((json_int_t)dropped));
	answer(tm, &tm->waiter, control_reply_ok(res));
}

void tables_free(struct tables *tm)
{
	/* the engine frees the runtime tables (engine_destroy); these are the RX halves */
	dtable_free(tm->pending);
	dtable_free(tm->cur);
	tm->pending = tm->cur = NULL;
}
