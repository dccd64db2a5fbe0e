/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the control and main threads read while the engine runs on its own
 * thread: the one-line summary (stats-interval), the engine's JSON (the stats
 * command) and the flows' and ports' counters. Each such read must be a
 * snapshot or an atomic by contract; ThreadSanitizer (./run tsan) runs this
 * and fails it on any plain read of what the engine writes.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "../tdp_test.h"

#include <jansson.h>

#include "engine.h"
#include "rig.h"
#include "rx.h"
#include "summary.h"

static const char table[] = "tdp-schedule 1\ntf 100us\nk 10\nguard 2us\n"
			    "port out rate 1Gbit/s\n"
			    "flow a port out size 200 udp-dport 1\n"
			    "frames 0-9: a 1\n";

static void *run(void *arg)
{
	engine_run(arg);
	return NULL;
}

static void summaries_beside_the_engine(void **state)
{
	(void)state;
	struct rig r;
	rig_up(&r, table, LATE_DROP, 1000 * TDP_NS_PER_S, 20000, 64);
	struct rx rx;
	memset(&rx, 0, sizeof(rx));
	struct summary_src s = {.e = r.e, .rx = &rx, .elapsed_s = 1, .timebase = "sim", .tb = r.tb};
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, run, r.e), 0);
	uint64_t last = 0;
	for (int i = 0; i < 2000; i++) {
		char line[512];
		summary_line(&s, line, sizeof(line));
		assert_non_null(strstr(line, "frames "));
		json_t *o = summary_engine_json(&s);
		assert_non_null(o);
		/* the rig's predictor: ClockFix's rule over 16 sleeps */
		json_t *pr = json_object_get(o, "predictor");
		assert_string_equal(json_string_value(json_object_get(pr, "kind")), "max");
		assert_int_equal(json_integer_value(json_object_get(pr, "window")), 16);
		json_decref(o);
		struct flow_stats fs;
		engine_flow_stats(r.e, 0, &fs);
		struct port_stats ps;
		engine_port_stats(r.e, 0, &ps);
		struct eng_stats es;
		engine_stats(r.e, &es);
		assert_true(es.frames >= last);
		last = es.frames;
	}
	engine_stop(r.e);
	pthread_join(th, NULL);
	struct eng_stats es;
	engine_stats(r.e, &es);
	assert_true(es.frames > 0);
	/* every counter of ctl_counters.h under its key, with its field's value */
	struct port_stats ps;
	engine_port_stats(r.e, 0, &ps);
	json_t *pj = summary_port_json(&s, 0);
#define PORT_HAS(field, key, help)                              \
	assert_true(json_is_integer(json_object_get(pj, key))); \
	assert_int_equal(json_integer_value(json_object_get(pj, key)), ps.field);
	CTL_PORT_COUNTERS(PORT_HAS)
	assert_true(ps.frames > 0);
	json_decref(pj);
	struct eng_table *et = engine_table_current(r.e);
	struct flow_stats fs;
	engine_table_flow_stats(et, 0, &fs);
	struct flow_rx_sum fr;
	engine_table_flow_rx_sum(et, 0, &fr, NULL);
	json_t *fj = summary_flow_json(engine_table_sched(et), et, 0);
#define FLOW_HAS(field, key, help)                              \
	assert_true(json_is_integer(json_object_get(fj, key))); \
	assert_int_equal(json_integer_value(json_object_get(fj, key)), fs.field);
#define FLOW_RX_HAS(field, key, help)                           \
	assert_true(json_is_integer(json_object_get(fj, key))); \
	assert_int_equal(json_integer_value(json_object_get(fj, key)), fr.field);
	CTL_FLOW_COUNTERS(FLOW_HAS)
	CTL_FLOW_RX_COUNTERS(FLOW_RX_HAS)
	assert_true(fs.reserved > 0);
	json_decref(fj);
	json_t *ej = summary_engine_json(&s);
#define ENG_HAS(field, key, prom, help)                         \
	assert_true(json_is_integer(json_object_get(ej, key))); \
	assert_int_equal(json_integer_value(json_object_get(ej, key)), es.field);
	CTL_ENGINE_COUNTERS(ENG_HAS)
	json_decref(ej);
	struct tb_sync sy;
	tb_sync(s.tb, &sy);
	json_t *sj = summary_sync_json(s.tb);
#define SYNC_HAS(field, key, help)                              \
	assert_true(json_is_integer(json_object_get(sj, key))); \
	assert_int_equal(json_integer_value(json_object_get(sj, key)), sy.field);
	CTL_SYNC_COUNTERS(SYNC_HAS)
	json_decref(sj);
	drain_all(&r);
	rig_down(&r);
}

/* RX's counters and an exception interface's, each a distinct value, under
 * their keys of ctl_counters.h (the nested ones under theirs) */
static void rx_counters_under_their_keys(void **state)
{
	(void)state;
	static struct rx rx;
	uint64_t *v = (uint64_t *)&rx.st;
	for (size_t i = 0; i < sizeof(rx.st) / sizeof(uint64_t); i++)
		v[i] = 1000 + i;
	json_t *o = summary_rx_json(&rx, 1);
	assert_non_null(o);
	json_t *unsent = json_object_get(o, "icmp_not_sent"),
	       *frag = json_object_get(o, "fragmented");
#define HAS(j, field, key)                                     \
	assert_true(json_is_integer(json_object_get(j, key))); \
	assert_int_equal(json_integer_value(json_object_get(j, key)), rx.st.field);
#define RX_HAS(field, key, prom, help) HAS(o, field, key)
#define UNSENT_HAS(field, key, prom, help) HAS(unsent, field, key)
#define FRAG_HAS(field, key, prom, help) HAS(frag, field, key)
	CTL_RX_COUNTERS(RX_HAS)
	CTL_RX_ICMP_UNSENT(UNSENT_HAS)
	CTL_RX_FRAG_COUNTERS(FRAG_HAS)
	/* the ICMP errors sent are only the kinds; those not sent are apart */
	assert_int_equal(json_object_size(json_object_get(o, "icmp_sent")), ICMP_ERR_MAX);
	json_decref(o);
	struct rx_tap_stats ts;
	v = (uint64_t *)&ts;
	for (size_t i = 0; i < sizeof(ts) / sizeof(uint64_t); i++)
		v[i] = 7 + i;
	json_t *tj = summary_tap_json(&ts);
#define TAP_HAS(field, key, help)                               \
	assert_true(json_is_integer(json_object_get(tj, key))); \
	assert_int_equal(json_integer_value(json_object_get(tj, key)), ts.field);
	CTL_TAP_COUNTERS(TAP_HAS)
	assert_int_equal(json_object_size(tj), sizeof(ts) / sizeof(uint64_t));
	json_decref(tj);
}

TDP_TEST_MAIN(cmocka_unit_test(summaries_beside_the_engine),
	      cmocka_unit_test(rx_counters_under_their_keys))
