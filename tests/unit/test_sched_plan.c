/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The planner's core without the command line: alpha per hop from the
 * forwarding rule, the frames each hop sends in, a shared link's room, a
 * refusal that writes nothing; in meshes, a detour when the fewest-router
 * path is full, one next hop per destination at each router, alpha raised
 * where frames are full, a refusal per path.
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

#include "sched_plan.h"

static struct plan pl;

/* a chain snd - r1 - r2 - rcv at 1 Gbit/s, 5 us links; r2's processing given */
static int read_chain(const char *proc2, const char *flows)
{
	char text[2048];
	snprintf(text, sizeof(text),
		 "tdp-topology 1\ntf 1ms\nk 10\nguard 50us\nhost snd\n"
		 "router r1 node-id 1 processing 200us\nrouter r2 node-id 2 processing %s\nhost "
		 "rcv\n"
		 "link snd:eth0 r1:in rate 1Gbit/s delay 5us\nlink r1:out r2:in rate 1Gbit/s delay "
		 "5us\n"
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
	assert_int_equal(
		read_chain(
			"1.1ms",
			"flow probe from snd to rcv packets 1 size 128 frames 0 match dscp 46\n"),
		0);
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
	assert_int_equal(
		read_chain("200us",
			   "flow a from snd to rcv packets 60 size 1500 frames 0 match dscp 46\n"
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
	assert_int_equal(
		read_chain("200us",
			   "flow a from snd to rcv packets 60 size 1500 frames 0 match dscp 46\n"
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
	assert_int_equal(read_chain("200us", "flow a from snd to nowhere packets 1 size 128\n"),
			 -1);
	assert_true(pl.errors >= 1);
	plan_free(&pl);
	memset(&pl, 0, sizeof(pl));
	pl.file = "empty";
	FILE *f = fmemopen((char *)"# nothing\n", 10, "r");
	assert_int_equal(plan_read_stream(&pl, f), -1);
	fclose(f);
	plan_free(&pl);
}

/* a topology from its text */
static int read_text(const char *text)
{
	memset(&pl, 0, sizeof(pl));
	pl.file = "test.topo";
	pl.overhead = 24;
	return plan_read_text(&pl, text, strlen(text));
}

/* snd - r1 - r2 - r4 - rcv, and around r2: r1 - r3 - r5 - r4; r1 - r2 at
 * 100 Mbit/s holds 7 packets of 1500 bytes a frame, 70 a cycle */
#define DIAMOND                                                                                   \
	"tdp-topology 1\ntf 1ms\nk 10\nguard 50us\nhost snd\nhost rcv\n"                          \
	"router r1 node-id 1 processing 200us\nrouter r2 node-id 2 processing 200us\n"            \
	"router r3 node-id 3 processing 200us\nrouter r4 node-id 4 processing 200us\n"            \
	"router r5 node-id 5 processing 200us\n"                                                  \
	"link snd:e r1:a rate 1Gbit/s\nlink r1:b r2:a rate 100Mbit/s\nlink r2:b r4:a rate "       \
	"1Gbit/s\n"                                                                               \
	"link r1:c r3:a rate 1Gbit/s\nlink r3:b r5:a rate 1Gbit/s\nlink r5:b r4:c rate 1Gbit/s\n" \
	"link r4:b rcv:e rate 1Gbit/s\n"

static void path_words(const struct preq *f, char *out, size_t len)
{
	size_t at = 0;
	for (uint32_t h = 0; h < f->npath; h++)
		at += (size_t)snprintf(out + at, len - at, "%s%s", h ? " " : "",
				       pl.nodes[f->path[h]].name);
}

static void detour_when_the_fewest_routers_have_no_room(void **st)
{
	(void)st;
	char w[128];
	assert_int_equal(read_text(DIAMOND "flow a from snd to rcv packets 60 size 1500 match dscp "
					   "46 dst 10.9.1.0/24\n"
					   "flow b from snd to rcv packets 60 size 1500 match dscp "
					   "34 dst 10.9.2.0/24\n"),
			 0);
	assert_int_equal(plan_place(&pl), 0);
	path_words(&pl.flows[0], w, sizeof(w));
	assert_string_equal(w, "snd r1 r2 r4 rcv");
	assert_int_equal(pl.flows[0].paths_tried, 0);
	assert_string_equal(pl.flows[0].detour, "");
	/* 10 places left on r1 - r2: b goes round it, and says which path it left */
	path_words(&pl.flows[1], w, sizeof(w));
	assert_string_equal(w, "snd r1 r3 r5 r4 rcv");
	assert_int_equal(pl.flows[1].paths_tried, 1);
	assert_string_equal(pl.flows[1].detour, "snd r1 r2 r4 rcv");
	for (uint32_t l = 0; l < pl.nlinks; l++)
		for (int d = 0; d < 2; d++)
			for (uint32_t i = 0; pl.links[l].used[d] && i < pl.k; i++)
				assert_true(pl.links[l].used[d][i] <=
					    plan_cap_bits(&pl, &pl.links[l]));
	plan_free(&pl);
}

static void the_search_is_bounded(void **st)
{
	(void)st;
	char *out = NULL;
	size_t len = 0;
	/* the bound holds for every try, a flow's first included: spent at
	 * once, both flows are refused, each saying so */
	assert_int_equal(read_text(DIAMOND "flow a from snd to rcv packets 60 size 1500 match dscp "
					   "46 dst 10.9.1.0/24\n"
					   "flow b from snd to rcv packets 60 size 1500 match dscp "
					   "34 dst 10.9.2.0/24\n"),
			 0);
	pl.max_work = 1;
	pl.err = open_memstream(&out, &len);
	assert_int_equal(plan_place(&pl), -1);
	fclose(pl.err);
	pl.err = NULL;
	assert_int_equal(pl.errors, 2);
	assert_non_null(strstr(
		out, "test.topo:19: error: flow a: not placed: the search had stopped before it"));
	assert_non_null(strstr(
		out, "test.topo:20: error: flow b: not placed: the search had stopped before it"));
	assert_null(strstr(out, "snd r1 r3 r5 r4 rcv"));
	free(out);
	out = NULL;
	plan_free(&pl);

	/* 1,024 flows that cannot fit (no 1,500-byte packet fits a 10 us frame at
	 * 10 Mbit/s), at k 25,000: once the bound is spent the rest cost
	 * nothing; the work done stays within the bound and one try */
	static char text[1 << 17];
	int at = snprintf(text, sizeof(text),
			  "tdp-topology 1\ntf 10us\nk 25000\nhost snd\nhost rcv\n"
			  "router r1 node-id 1 processing 200us\nlink snd:e r1:a rate 10Mbit/s\n"
			  "link r1:b rcv:e rate 10Mbit/s\n");
	for (int i = 0; i < 1024; i++)
		at += snprintf(text + at, sizeof(text) - (size_t)at,
			       "flow f%d from snd to rcv packets 65535 size 1500 match dscp 46 "
			       "udp-dport %d\n",
			       i, i + 1);
	assert_int_equal(read_text(text), 0);
	pl.max_work = 1000000;
	pl.err = open_memstream(&out, &len);
	assert_int_equal(plan_place(&pl), -1);
	fclose(pl.err);
	pl.err = NULL;
	assert_int_equal(pl.errors, 1024);
	assert_true(pl.work <= 1000000 + 2 * (25000 + 65535 * 2ull));
	assert_non_null(strstr(out, "flow f1023: not placed: the search had stopped before it"));
	free(out);
	plan_free(&pl);
}

static void one_next_hop_per_destination(void **st)
{
	(void)st;
	char *out = NULL;
	size_t len = 0;
	/* both to rcv, with no dst of their own: routers route them alike, so b
	 * cannot go round r2 while a goes through it */
	assert_int_equal(read_text(DIAMOND
				   "flow a from snd to rcv packets 60 size 1500 match dscp 46\n"
				   "flow b from snd to rcv packets 60 size 1500 match dscp 34\n"),
			 0);
	pl.err = open_memstream(&out, &len);
	assert_int_equal(plan_place(&pl), -1);
	fclose(pl.err);
	pl.err = NULL;
	char key[64];
	plan_route_key(&pl, &pl.flows[1], key, sizeof(key));
	assert_string_equal(key, "rcv");
	assert_non_null(strstr(
		out,
		"test.topo:20: error: flow b: no path takes its 60 packets per cycle (at most 10 "
		"fit); each path tried:\n"));
	assert_non_null(strstr(
		out, "\n  path snd r1 r3 r5 r4 rcv: r1 sends rcv to r2 (flow a), not to r3\n"));
	free(out);
	plan_free(&pl);
}

static void a_refused_flow_holds_no_routes(void **st)
{
	(void)st;
	char w[128];
	/* a fits no path (800 packets a cycle); b, to the same destination,
	 * takes the path of the fewest routers: a's last try holds no route */
	assert_int_equal(read_text(DIAMOND "flow a from snd to rcv packets 800 size 1500 match "
					   "dscp 46 dst 10.9.1.0/24\n"
					   "flow b from snd to rcv packets 60 size 1500 match dscp "
					   "34 dst 10.9.1.0/24\n"),
			 0);
	FILE *null = fopen("/dev/null", "w");
	pl.err = null;
	assert_int_equal(plan_place(&pl), -1);
	fclose(null);
	pl.err = NULL;
	assert_int_equal(pl.errors, 1);
	assert_null(pl.flows[0].count);
	path_words(&pl.flows[1], w, sizeof(w));
	assert_string_equal(w, "snd r1 r2 r4 rcv");
	plan_free(&pl);
}

static void refused_on_every_path_names_each(void **st)
{
	(void)st;
	char *out = NULL;
	size_t len = 0;
	assert_int_equal(read_text(DIAMOND "flow a from snd to rcv packets 60 size 1500 match dscp "
					   "46 dst 10.9.1.0/24\n"
					   "flow b from snd to rcv packets 760 size 1500 match "
					   "dscp 34 dst 10.9.2.0/24\n"),
			 0);
	pl.err = open_memstream(&out, &len);
	assert_int_equal(plan_place(&pl), -1);
	fclose(pl.err);
	pl.err = NULL;
	assert_int_equal(pl.errors, 1);
	/* no path takes 760 packets a cycle (77 a frame on a gigabit link): each is named with what stopped it */
	assert_non_null(strstr(out, "test.topo:20: error: flow b: 710 of 760 "));
	assert_non_null(strstr(
		out,
		"packets per cycle fit; every allowed ingress frame is full on some link of each "
		"path tried:"));
	assert_non_null(strstr(out, "\n  path snd r1 r2 r4 rcv: 10 fit "));
	assert_non_null(strstr(out, "\n    link r1:b -> r2:a (line 13) has no room for a 1500-byte "
				    "packet in frames 0-9\n"));
	assert_non_null(strstr(out, "\n  path snd r1 r3 r5 r4 rcv: 710 fit "));
	assert_non_null(strstr(out, "\n    link snd:e -> r1:a (line 12) has no room for a "
				    "1500-byte packet in frames "));
	free(out);
	plan_free(&pl);
}

static void alpha_raised_where_frames_are_full(void **st)
{
	(void)st;
	/* a fills r1 - r2 in frame 0 + 2 (77 packets of 1500 bytes); b, from
	 * another host into r1 in frame 0, cannot take frame 2 there: r1's alpha
	 * for b is raised to 3, and b's table at r1 says so */
	assert_int_equal(
		read_text(
			"tdp-topology 1\ntf 1ms\nk 10\nguard 50us\nhost snd\nhost snd2\nhost rcv\n"
			"router r1 node-id 1 processing 200us\nrouter r2 node-id 2 processing "
			"200us\n"
			"link snd:e r1:a rate 1Gbit/s\nlink snd2:e r1:d rate 1Gbit/s\n"
			"link r1:b r2:a rate 1Gbit/s\nlink r2:b rcv:e rate 1Gbit/s\n"
			"flow a from snd to rcv packets 77 size 1500 frames 0 match dscp 46\n"
			"flow b from snd2 to rcv packets 1 size 1500 frames 0 match dscp 34\n"),
		0);
	assert_int_equal(plan_place(&pl), 0);
	const struct preq *a = &pl.flows[0], *b = &pl.flows[1];
	assert_int_equal(a->alpha[1], 2);
	assert_int_equal(b->amin[1], 2);
	assert_int_equal(b->alpha[1], 3);
	assert_int_equal(b->alpha[2], 2);
	assert_int_equal(plan_shift(b, 2), 5);
	struct plan_table t;
	assert_int_equal(plan_table_build(&pl, 3, "test.topo", &t), 0); /* r1 */
	assert_non_null(strstr(t.text, "flow b port b size 1500 alpha 3 "));
	assert_non_null(strstr(t.text, "flow a port b size 1500 alpha 2 "));
	plan_table_free(&t);
	plan_free(&pl);
}

/* the sync budget: each node's bound from its own sync-error, its time
 * source, or the topology's; alpha takes the pair's error, the table's
 * delay the link's less it (one frame longer and alpha one higher when
 * negative), each table its node's bound; a guard band under twice a
 * link's pair refuses the plan at the link, with the numbers */
static void sync_budget_in_alpha_delay_and_guard(void **st)
{
	(void)st;
	static const char topo[] =
		"tdp-topology 1\ntf 1ms\nk 10\nguard %s\ntime ptp-sw\nhost snd sync-error 5us\n"
		"router r1 node-id 1 processing 200us\nrouter r2 node-id 2 processing 200us time "
		"gps\n"
		"host rcv\nlink snd:e r1:a rate 1Gbit/s delay 5us\nlink r1:b r2:a rate 1Gbit/s "
		"delay 5us\n"
		"link r2:b rcv:e rate 1Gbit/s delay 5us\n"
		"flow p from snd to rcv packets 1 size 128 frames 0 match dscp 46\n";
	char text[1024];
	snprintf(text, sizeof(text), topo, "100us");
	assert_int_equal(read_text(text), 0);
	assert_true(pl.sync_bounds);
	assert_int_equal(pl.nodes[0].sync_ns, 5000);  /* snd: its own */
	assert_int_equal(pl.nodes[1].sync_ns, 20000); /* r1: the topology's ptp-sw */
	assert_int_equal(pl.nodes[2].sync_ns, 2000);  /* r2: its gps */
	assert_int_equal(plan_pair_ns(&pl, &pl.links[0]), 25000);
	assert_int_equal(plan_pair_ns(&pl, &pl.links[1]), 22000);
	assert_int_equal(plan_place(&pl), 0);
	/* r1: ceil((1000 - 100 + 5 + 200 + 25) / 1000) = 2; r2: the same with 22 */
	assert_int_equal(pl.flows[0].alpha[1], 2);
	assert_int_equal(pl.flows[0].alpha[2], 2);
	struct plan_table t;
	assert_int_equal(plan_table_build(&pl, 1, "test.topo", &t), 0); /* r1 */
	/* 5 us - 25 us < 0: mapped one frame earlier, sent one frame later */
	assert_non_null(strstr(t.text, "sync-error 20us"));
	assert_non_null(strstr(t.text, "alpha 3 delay 980us"));
	plan_table_free(&t);
	assert_int_equal(plan_table_build(&pl, 0, "test.topo", &t), 0); /* snd */
	assert_non_null(strstr(t.text, "sync-error 5us"));
	plan_table_free(&t);
	plan_free(&pl);

	/* 2 x 25 us and 2 x 22 us do not fit in 40 us: both links refused */
	snprintf(text, sizeof(text), topo, "40us");
	assert_int_equal(read_text(text), 0);
	char *err = NULL;
	size_t elen = 0;
	pl.err = open_memstream(&err, &elen);
	assert_int_equal(plan_place(&pl), -1);
	fclose(pl.err);
	assert_non_null(strstr(
		err,
		"test.topo:10: error: link snd:e -> r1:a: the clocks at its ends may be 25us apart "
		"either way (snd's 5us (sync-error), r1's 20us (ptp-sw)): the guard band must be "
		"at "
		"least 50us"));
	assert_non_null(strstr(err, "guard is 40us"));
	assert_non_null(strstr(err, "test.topo:11: error: link r1:b -> r2:a: the clocks at its "
				    "ends may be 22us apart"));
	assert_int_equal(pl.errors, 2);
	free(err);
	plan_free(&pl);
}

/* no time source and no sync-error anywhere: the tables say nothing of it
 * and the delay is the link's, as before */
static void no_sync_bounds_no_sync_lines(void **st)
{
	(void)st;
	assert_int_equal(
		read_chain("200us",
			   "flow p from snd to rcv packets 1 size 128 frames 0 match dscp 46\n"),
		0);
	assert_false(pl.sync_bounds);
	assert_int_equal(plan_place(&pl), 0);
	struct plan_table t;
	assert_int_equal(plan_table_build(&pl, 1, "test.topo", &t), 0);
	assert_null(strstr(t.text, "sync-error"));
	assert_non_null(strstr(t.text, "alpha 2 delay 5us"));
	plan_table_free(&t);
	plan_free(&pl);
}

/* Links are links, not node pairs: of two parallel links between r1 and
 * r2, a flow to another destination takes the one with room; a flow to a
 * destination already routed over one keeps to it (one route, one port). */
static void parallel_links_both_used(void **st)
{
	(void)st;
	assert_int_equal(read_text("tdp-topology 1\ntf 1ms\nk 10\nguard 50us\nhost snd\nhost rcv\n"
				   "router r1 node-id 1 processing 200us\nrouter r2 node-id 2 "
				   "processing 200us\n"
				   "link snd:e r1:a rate 1Gbit/s\nlink r1:b r2:a rate "
				   "100Mbit/s\nlink r1:c r2:c rate 100Mbit/s\n"
				   "link r2:b rcv:e rate 1Gbit/s\n"
				   "flow x from snd to rcv packets 7 size 1500 frames 0 match dscp "
				   "46 dst 10.9.1.0/24\n"
				   "flow y from snd to rcv packets 7 size 1500 frames 0 match dscp "
				   "34 dst 10.9.2.0/24\n"
				   "flow z from snd to rcv packets 1 size 1500 frames 1 match dscp "
				   "10 dst 10.9.1.0/24\n"),
			 0);
	assert_int_equal(plan_place(&pl), 0);
	const char *bx = pl.links[pl.flows[0].link[1]].e[pl.flows[0].dir[1]].port;
	const char *by = pl.links[pl.flows[1].link[1]].e[pl.flows[1].dir[1]].port;
	const char *bz = pl.links[pl.flows[2].link[1]].e[pl.flows[2].dir[1]].port;
	assert_string_not_equal(bx, by); /* 7 of 1500 bytes fit a frame of each */
	assert_string_equal(bx, bz);	 /* z goes where x's destination is routed */
	plan_free(&pl);
}

/* A flow over many irregular frames at a large k: its frames lines are
 * split so that the table it writes is one tdpd reads (no line past 1,024
 * frame sets). */
static void long_frame_lists_split(void **st)
{
	(void)st;
	assert_int_equal(
		read_text("tdp-topology 1\ntf 1us\nk 200000\nhost snd\nhost rcv\n"
			  "router r1 node-id 1 processing 50us\nlink snd:e r1:a rate 1Gbit/s\n"
			  "link r1:b rcv:e rate 1Gbit/s\n"
			  "flow p from snd to rcv packets 65535 size 64 match dscp 46\n"),
		0);
	assert_int_equal(plan_place(&pl), 0);
	struct plan_table t;
	assert_int_equal(plan_table_build(&pl, 2, "test.topo", &t), 0); /* r1: the table checks */
	uint32_t lines = 0;
	for (const char *l = t.text; (l = strstr(l, "\nframes ")); l++)
		lines++;
	assert_true(lines > 1);
	plan_table_free(&t);
	plan_free(&pl);
}

TDP_TEST_MAIN(cmocka_unit_test(alpha_per_hop_from_the_rule),
	      cmocka_unit_test(shared_link_fills_then_refuses),
	      cmocka_unit_test(bad_topology_is_refused_by_line),
	      cmocka_unit_test(detour_when_the_fewest_routers_have_no_room),
	      cmocka_unit_test(one_next_hop_per_destination),
	      cmocka_unit_test(the_search_is_bounded),
	      cmocka_unit_test(a_refused_flow_holds_no_routes),
	      cmocka_unit_test(refused_on_every_path_names_each),
	      cmocka_unit_test(alpha_raised_where_frames_are_full),
	      cmocka_unit_test(sync_budget_in_alpha_delay_and_guard),
	      cmocka_unit_test(no_sync_bounds_no_sync_lines),
	      cmocka_unit_test(parallel_links_both_used), cmocka_unit_test(long_frame_lists_split))
