/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The planner's core without the command line: alpha per hop from the
 * forwarding rule, the frames each hop sends in, a shared link's room, and a
 * refusal that writes nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sched_plan.h"

static struct plan pl;

/* a chain snd - r1 - r2 - rcv at 1 Gbit/s, 5 us links; r2's processing given */
static int read_chain(const char *proc2, const char *flows)
{
	char text[2048];
	snprintf(text, sizeof(text),
		 "tdp-topology 1\ntf 1ms\nk 10\nguard 50us\nhost snd\n"
		 "router r1 node-id 1 processing 200us\nrouter r2 node-id 2 processing %s\nhost rcv\n"
		 "link snd:eth0 r1:in rate 1Gbit/s delay 5us\nlink r1:out r2:in rate 1Gbit/s delay 5us\n"
		 "link r2:out rcv:eth0 rate 1Gbit/s delay 5us\n%s",
		 proc2, flows);
	memset(&pl, 0, sizeof(pl));
	pl.file = "test.topo";
	pl.overhead = 24;
	FILE *f = fmemopen(text, strlen(text), "r");
	assert_non_null(f);
	int rc = plan_read_stream(&pl, f);
	fclose(f);
	return rc;
}

static void alpha_per_hop_from_the_rule(void **st)
{
	(void)st;
	assert_int_equal(read_chain("1.1ms", "flow probe from snd to rcv packets 1 size 128 frames 0 match dscp 46\n"), 0);
	assert_int_equal(plan_place(&pl), 0);
	const struct preq *f = &pl.flows[0];
	assert_int_equal(f->npath, 4);
	/* r1: ceil((1000 - 50 + 5 + 200) / 1000) = 2; r2: ceil((1000 - 50 + 5 + 1100) / 1000) = 3 */
	assert_int_equal(f->alpha[1], 2);
	assert_int_equal(f->alpha[2], 3);
	assert_int_equal(plan_shift(f, 2), 5);
	char *fr = plan_ingress_frames(&pl, f, 0);
	assert_string_equal(fr, "0");
	free(fr);
	fr = plan_ingress_frames(&pl, f, plan_shift(f, 2));
	assert_string_equal(fr, "5");
	free(fr);
	/* 128 bytes + 24 of overhead */
	assert_int_equal(plan_wire_bits(&pl, 128), 152 * 8);
	assert_true(plan_node_has_table(&pl, 0));  /* snd sends */
	assert_false(plan_node_has_table(&pl, 3)); /* rcv only receives */
	plan_free(&pl);
}

static void shared_link_fills_then_refuses(void **st)
{
	(void)st;
	/* 950 us of a frame (1 ms less 50 us of guard) hold 77 packets of 1500 +
	 * 24 bytes at 1 Gbit/s (12.192 us each); two flows of 60 in frame 0 do not fit */
	assert_int_equal(read_chain("200us", "flow a from snd to rcv packets 60 size 1500 frames 0 match dscp 46\n"
					     "flow b from snd to rcv packets 60 size 1500 frames 0 match dscp 34\n"),
			 0);
	assert_int_equal(plan_place(&pl), -1);
	assert_int_equal(pl.errors, 1);
	/* the first was placed; nothing holds more than the link's room */
	assert_int_equal(pl.flows[0].count[0], 60);
	uint64_t used = pl.links[0].used[0][0];
	assert_true(used >= 60 * plan_wire_bits(&pl, 1500));
	assert_true(used <= plan_cap_bits(&pl, &pl.links[0]));
	assert_true(plan_cap_bits(&pl, &pl.links[0]) < 120 * plan_wire_bits(&pl, 1500));
	plan_free(&pl);
	/* with the other frames free, the second takes what is left of frame 0
	 * and goes on in others */
	assert_int_equal(read_chain("200us", "flow a from snd to rcv packets 60 size 1500 frames 0 match dscp 46\n"
					     "flow b from snd to rcv packets 60 size 1500 match dscp 34\n"),
			 0);
	assert_int_equal(plan_place(&pl), 0);
	uint32_t total = 0;
	for (uint32_t i = 0; i < pl.k; i++)
		total += pl.flows[1].count[i];
	assert_int_equal(total, 60);
	assert_true(pl.flows[1].count[0] < 60);
	for (uint32_t l = 0; l < pl.nlinks; l++)
		for (uint32_t i = 0; i < pl.k; i++)
			assert_true(pl.links[l].used[0][i] <= plan_cap_bits(&pl, &pl.links[l]));
	plan_free(&pl);
}

static void bad_topology_is_refused_by_line(void **st)
{
	(void)st;
	assert_int_equal(read_chain("200us", "flow a from snd to nowhere packets 1 size 128\n"), -1);
	assert_true(pl.errors >= 1);
	plan_free(&pl);
	memset(&pl, 0, sizeof(pl));
	pl.file = "empty";
	FILE *f = fmemopen((char *)"# nothing\n", 10, "r");
	assert_int_equal(plan_read_stream(&pl, f), -1);
	fclose(f);
	plan_free(&pl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(alpha_per_hop_from_the_rule),
		cmocka_unit_test(shared_link_fills_then_refuses),
		cmocka_unit_test(bad_topology_is_refused_by_line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
