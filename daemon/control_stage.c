/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Two-phase table loads (control.h): a table staged is read, parsed, admitted
 * and built as a load's is (control_load.c, off the control thread), then kept
 * under an id instead of being offered. A commit of that id offers it to the
 * engine for a time; an abort drops it; so does its expiry. One table is
 * staged at a time, and while it is, loads and other stages are busy.
 *
 * A staged table is built against the table in force: a flow of the same name
 * on the same port keeps its queue. So nothing else may come into force while
 * it is staged: a stage is refused while a table waits for its frame, and a
 * load or another stage while a table is staged (busy, naming it). Dropping
 * a staged table frees only what it built itself: the flows it shares with
 * the table in force are that table's.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <jansson.h>

#include "control.h"
#include "log.h"

static void drop(struct control *c)
{
	struct dtable *dt = c->staged;
	if (!dt)
		return;
	engine_table_discard(c->e, dt->et);
	dt->et = NULL;
	dtable_free(dt);
	c->staged = NULL;
}

char *control_stage_keep(struct control *c, struct eng_table *et, const char *name, json_t *args)
{
	struct dtable *dt = dtable_new(et, name, TS_VIA_COMMIT);
	if (!dt) {
		engine_table_discard(c->e, et);
		return control_reply_err("internal", "out of memory");
	}
	json_t *ttl_j = json_object_get(args, "ttl_ms");
	int64_t ttl_ms = ttl_j ? json_integer_value(ttl_j) : (int64_t)CTL_STAGE_TTL_S * 1000;
	c->staged = dt;
	c->staged_id = ++c->next_stage_id;
	c->staged_expires_ns = control_mono_ns() + ttl_ms * 1000000;
	c->stages++;
	const struct sched_table *t = engine_table_sched(et);
	log_notice("schedule stage: %s (k %u, %u flows, digest %.16s) staged as %" PRIu64 " for %" PRId64 " ms",
		   name, t->k, t->nflows, dt->digest, c->staged_id, ttl_ms);
	/* tai_ns: the daemon's time now, from which tdpctl deploy picks a
	 * commit time every router can still meet */
	return control_reply_ok(json_pack("{sI ss ss sI si sI ss sI}", "id", (json_int_t)c->staged_id, "table", name,
					  "digest", dt->digest, "k", (json_int_t)t->k, "flows", (int)t->nflows,
					  "expires_in_ms", (json_int_t)ttl_ms, "in_force", c->cur->name, "tai_ns",
					  (json_int_t)tb_now(c->tb).ns));
}

/* the staged table of args' id, or NULL and *reply */
static struct dtable *staged_of(struct control *c, json_t *args, const char *what, char **reply)
{
	json_t *id_j = json_object_get(args, "id");
	if (!json_is_integer(id_j) || json_integer_value(id_j) < 1) {
		*reply = control_reply_err("bad-args", "%s needs the id schedule-stage gave, a positive integer", what);
		return NULL;
	}
	uint64_t id = (uint64_t)json_integer_value(id_j);
	if (!c->staged || c->staged_id != id) {
		if (c->staged)
			*reply = control_reply_err("unknown-stage", "no table is staged as %" PRIu64 "; %s is staged as %"
						   PRIu64, id, c->staged->name, c->staged_id);
		else
			*reply = control_reply_err("unknown-stage", "no table is staged as %" PRIu64
						   " (never staged, committed, aborted or expired)", id);
		return NULL;
	}
	return c->staged;
}

char *control_stage_commit(struct control *c, json_t *args, int slot, bool *defer)
{
	char *reply = NULL;
	struct dtable *dt = staged_of(c, args, "schedule-commit", &reply);
	if (!dt)
		return reply;
	reply = control_when_check(c, args);
	if (reply)
		return reply;
	bool wait = false;
	reply = control_offer(c, dt, args, control_mono_ns(), &wait);
	if (c->pending == dt) {
		/* offered: from here on it is the pending table, no longer the staged one */
		log_notice("schedule commit: %s (staged as %" PRIu64 ") committed", dt->name, c->staged_id);
		c->staged = NULL;
		c->commits++;
	}
	if (wait) {
		c->waiter = slot;
		*defer = true;
		return NULL;
	}
	return reply; /* a refusal (too-late) leaves the table staged: another commit may follow */
}

char *control_stage_abort(struct control *c, json_t *args)
{
	char *reply = NULL;
	struct dtable *dt = staged_of(c, args, "schedule-abort", &reply);
	if (!dt)
		return reply;
	json_t *o = json_pack("{sI ss ss}", "aborted", (json_int_t)c->staged_id, "table", dt->name, "in_force",
			      c->cur->name);
	log_notice("schedule abort: %s (staged as %" PRIu64 ") dropped; %s stays in force", dt->name, c->staged_id,
		   c->cur->name);
	drop(c);
	c->aborts++;
	return control_reply_ok(o);
}

void control_stage_expire(struct control *c)
{
	if (!c->staged || control_mono_ns() < c->staged_expires_ns)
		return;
	log_warn("schedule stage: %s (staged as %" PRIu64 ") expired before a commit; dropped", c->staged->name,
		 c->staged_id);
	drop(c);
	c->expired++;
}

json_t *control_stage_json(struct control *c)
{
	if (!c->staged)
		return json_null();
	const struct sched_table *t = engine_table_sched(c->staged->et);
	int64_t left = (c->staged_expires_ns - control_mono_ns()) / 1000000;
	return json_pack("{sI ss ss sI si sI}", "id", (json_int_t)c->staged_id, "name", c->staged->name, "digest",
			 c->staged->digest, "k", (json_int_t)t->k, "flows", (int)t->nflows, "expires_in_ms",
			 (json_int_t)(left < 0 ? 0 : left));
}

void control_stage_drop(struct control *c)
{
	drop(c);
}
