/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The table manager (tables.h) on the engine alone, without sockets or a
 * control thread: a table staged, refused while staged, aborted, expired,
 * committed and carried through to the swap with its waiter answered; a load
 * offered and cancelled; a commit too late leaving the table staged; a stop
 * answering the waiter. Every reply is checked by its code and its fields,
 * and every counter the status shows by its value.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../tdp_test.h"

#include <jansson.h>

#include "reply_code.h"
#include "rig.h"
#include "tables.h"
#include "testutil.h"
#include "tstate.h"

static const char t1[] = "tdp-schedule 1\ntf 100us\nk 10\nguard 2us\n"
			 "port out rate 1Gbit/s\n"
			 "flow a port out size 200 udp-dport 1\n"
			 "frames 0-9/2: a 1\n";
static const char t2[] = "tdp-schedule 1\ntf 100us\nk 10\nguard 2us\n"
			 "port out rate 1Gbit/s\n"
			 "flow a port out size 200 udp-dport 1\n"
			 "flow b port out size 300 udp-dport 2\n"
			 "frames 0-9/2: a 1\nframes 3: b 2\n";

/* what the manager answered a waiting client, by slot */
static int answered_slot = -1;
static char *answered;

static void answer(void *ctx, int *slot, char *line)
{
	(void)ctx;
	answered_slot = *slot;
	free(answered);
	answered = line;
	*slot = -1;
}

static struct eng_table *build(struct rig *r, const char *text)
{
	char err[256];
	struct eng_table *et = engine_table_build(r->e, parse_ok(text), err, sizeof(err));
	assert_non_null(et);
	return et;
}

static void up(struct rig *r, struct tables *tm)
{
	rig_up(r, t1, LATE_CARRY, 1000 * TDP_NS_PER_S, 20000, 64);
	*tm = (struct tables){.e = r->e, .tb = r->tb, .answer = answer, .waiter = -1};
	tm->cur = dtable_new(engine_table_current(r->e), "t1", TS_VIA_CONFIG);
	assert_non_null(tm->cur);
	answered_slot = -1;
}

static void down(struct rig *r, struct tables *tm)
{
	tables_stop(tm);
	tables_free(tm);
	rig_down(r);
	free(answered);
	answered = NULL;
}

/* a stage of t2 (its reply checked); the id it was given */
static uint64_t stage(struct rig *r, struct tables *tm, const char *args)
{
	json_t *a = json_loads(args, 0, NULL), *res = NULL;
	bool defer = true;
	assert_string_equal(reply_code(tables_built(tm, build(r, t2), NULL, "t2", a, true,
						    tdp_mono_ns(), 3, &defer),
				       &res),
			    "ok");
	assert_false(defer);
	json_decref(a);
	uint64_t id = (uint64_t)json_integer_value(json_object_get(res, "id"));
	assert_string_equal(json_string_value(json_object_get(res, "in_force")), "t1");
	assert_int_equal(json_integer_value(json_object_get(res, "flows")), 2);
	json_decref(res);
	assert_non_null(tm->staged);
	assert_int_equal(tm->staged_id, id);
	return id;
}

static char *with_id(char *buf, size_t n, uint64_t id)
{
	snprintf(buf, n, "{\"id\":%llu}", (unsigned long long)id);
	return buf;
}

static char *args_of(struct tables *tm, char *(*fn)(struct tables *, json_t *), const char *args)
{
	json_t *a = json_loads(args, 0, NULL);
	char *reply = fn(tm, a);
	json_decref(a);
	return reply;
}

static void staged_then_aborted_then_expired(void **st)
{
	(void)st;
	struct rig r;
	struct tables tm;
	up(&r, &tm);
	char buf[64];
	uint64_t id = stage(&r, &tm, "{}");
	assert_int_equal(id, 1);
	/* while staged, a load or another stage is busy */
	assert_string_equal(reply_code(tables_busy(&tm), NULL), "busy");
	/* an abort of another id, or of none, leaves it staged */
	assert_string_equal(
		reply_code(args_of(&tm, tables_abort, with_id(buf, sizeof(buf), 7)), NULL),
		"unknown-stage");
	assert_string_equal(reply_code(args_of(&tm, tables_abort, "{}"), NULL), "bad-args");
	assert_non_null(tm.staged);
	assert_string_equal(
		reply_code(args_of(&tm, tables_abort, with_id(buf, sizeof(buf), id)), NULL), "ok");
	assert_null(tm.staged);
	assert_null(tables_busy(&tm));
	assert_string_equal(
		reply_code(args_of(&tm, tables_abort, with_id(buf, sizeof(buf), id)), NULL),
		"unknown-stage");
	/* the next stage has the next id; past its expiry, the next step drops it */
	id = stage(&r, &tm, "{\"ttl_ms\":60000}");
	assert_int_equal(id, 2);
	json_t *sj = tables_staged_json(&tm);
	assert_true(json_integer_value(json_object_get(sj, "expires_in_ms")) > 50000);
	json_decref(sj);
	tables_advance(&tm);
	assert_non_null(tm.staged);
	tm.staged_expires_ns = tdp_mono_ns() - 1;
	tables_advance(&tm);
	assert_null(tm.staged);
	sj = tables_staged_json(&tm);
	assert_true(json_is_null(sj));
	json_decref(sj);
	assert_int_equal(tm.stages, 2);
	assert_int_equal(tm.aborts, 1);
	assert_int_equal(tm.expired, 1);
	assert_int_equal(tm.commits, 0);
	assert_ptr_equal(engine_table_current(r.e), tm.cur->et); /* nothing came into force */
	assert_string_equal(tm.cur->name, "t1");
	down(&r, &tm);
}

static void committed_and_swapped(void **st)
{
	(void)st;
	struct rig r;
	struct tables tm;
	up(&r, &tm);
	char buf[64];
	uint64_t id = stage(&r, &tm, "{}");
	/* a commit for a time the engine has passed: refused, still staged */
	json_t *a = json_pack("{sI sI}", "id", (json_int_t)id, "at_tai_ns",
			      (json_int_t)(tb_now(r.tb).ns - 1000000));
	bool defer = false;
	assert_string_equal(reply_code(tables_commit(&tm, a, 5, &defer), NULL), "too-late");
	json_decref(a);
	assert_false(defer);
	assert_non_null(tm.staged);
	assert_int_equal(tm.rejected, 1);
	/* committed for the next cycle: pending, its client waits */
	a = json_loads(with_id(buf, sizeof(buf), id), 0, NULL);
	assert_null(tables_commit(&tm, a, 5, &defer));
	json_decref(a);
	assert_true(defer);
	assert_null(tm.staged);
	assert_non_null(tm.pending);
	assert_int_equal(tm.waiter, 5);
	assert_int_equal(tm.commits, 1);
	assert_string_equal(reply_code(tables_busy(&tm), NULL), "busy");
	/* the engine adopts it at its frame; the next step retires t1 and answers */
	for (int i = 0; i < 100 && engine_table_adopted(tm.pending->et) == INT64_MIN; i++) {
		tables_advance(&tm);
		assert_int_equal(answered_slot, -1);
		step(&r);
	}
	tables_advance(&tm);
	assert_null(tm.pending);
	assert_string_equal(tm.cur->name, "t2");
	assert_ptr_equal(engine_table_current(r.e), tm.cur->et);
	assert_int_equal(answered_slot, 5);
	json_t *res = NULL;
	char *line = answered;
	answered = NULL;
	assert_string_equal(reply_code(line, &res), "ok");
	assert_string_equal(json_string_value(json_object_get(res, "table")), "t2");
	assert_int_equal(json_integer_value(json_object_get(res, "frame")), tm.last_swap_frame);
	assert_int_equal(tm.last_swap_frame, tm.last_swap_requested);
	json_decref(res);
	assert_string_equal(tm.last_swap_name, "t2");
	assert_int_equal(tm.waiter, -1);
	down(&r, &tm);
}

static void loaded_cancelled_and_stopped(void **st)
{
	(void)st;
	struct rig r;
	struct tables tm;
	up(&r, &tm);
	/* a load that does not wait: offered, answered at once */
	json_t *a = json_pack("{sb}", "wait", 0), *res = NULL;
	bool defer = true;
	assert_string_equal(reply_code(tables_built(&tm, build(&r, t2), NULL, "t2", a, false,
						    tdp_mono_ns(), 4, &defer),
				       &res),
			    "ok");
	json_decref(a);
	assert_false(defer);
	assert_true(json_is_true(json_object_get(res, "waiting")));
	json_decref(res);
	assert_non_null(tm.pending);
	/* while one waits for its frame, a stage or a load is busy */
	assert_string_equal(reply_code(tables_busy(&tm), NULL), "busy");
	/* withdrawn before its frame: t1 stays */
	assert_string_equal(reply_code(tables_cancel(&tm), &res), "ok");
	assert_string_equal(json_string_value(json_object_get(res, "in_force")), "t1");
	json_decref(res);
	assert_null(tm.pending);
	assert_string_equal(reply_code(tables_cancel(&tm), NULL), "nothing-pending");
	/* a load that failed to build: its reply stands, counted */
	assert_string_equal(
		reply_code(tables_built(
				   &tm, NULL,
				   strdup("{\"version\":1,\"ok\":false,\"code\":\"invalid-table\","
					  "\"error\":\"x\"}\n"),
				   "bad", NULL, false, 0, 4, &defer),
			   NULL),
		"invalid-table");
	assert_int_equal(tm.rejected, 1);
	/* a load that waits, then tdpd stops: its client is told */
	assert_null(tables_built(&tm, build(&r, t2), NULL, "t2", NULL, false, tdp_mono_ns(), 6,
				 &defer));
	assert_true(defer);
	assert_int_equal(tm.waiter, 6);
	tables_stop(&tm);
	assert_int_equal(answered_slot, 6);
	char *line = answered;
	answered = NULL;
	assert_string_equal(reply_code(line, NULL), "busy");
	down(&r, &tm);
}

TDP_TEST_MAIN(cmocka_unit_test(staged_then_aborted_then_expired),
	      cmocka_unit_test(committed_and_swapped),
	      cmocka_unit_test(loaded_cancelled_and_stopped))
