/* SPDX-License-Identifier: BSD-3-Clause */
/* Admission control and summaries against hand-computed cases. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tdp_sched.h"
#include "testutil.h"

/*
 * 1 Gbit/s, TF 100 us, 1500-byte IP packets (1514-byte frames without FCS):
 * on the wire 1514 + 24 (preamble+SFD 8, FCS 4, IFG 12) = 1538 B = 12,304 bit
 * = 12.304 us. Eight take 98.432 us and fit in 100 us; nine take 110.736 us,
 * 10.736 us too many. With a 2 us guard band, eight are 0.432 us too many.
 */
#define GIG                                                       \
	"tdp-schedule 1\ntf 100us\nk 4\nport eth0 rate 1Gbit/s\n" \
	"flow big port eth0 size 1514 dscp 10\n"

static void gigabit_wire_arithmetic(void **state)
{
	struct sched_table *t = parse_ok(GIG "frames 0: big 8\n");
	assert_int_equal(sched_wire_bits(t, 0), 12304);
	assert_int_equal(sched_port_capacity_bits(t, 0), 100000);
	sched_free(t);
}

static void eight_fit_nine_do_not(void **state)
{
	sched_free(parse_ok(GIG "frames 0-3: big 8\n"));
	parse_err(GIG "frames 1: big 9\n", 6, 1,
		  "frame 1 (1 frame): port eth0 overbooked by 10.736us: 110.736us of 100.000us "
		  "reserved "
		  "(TF - guard) by big 9 x 1538 B");
}

static void guard_band_counts(void **state)
{
	parse_err("tdp-schedule 1\ntf 100us\nk 4\nguard 2us\nport eth0 rate 1Gbit/s\n"
		  "flow big port eth0 size 1514 dscp 10\nframes 0-2/2: big 8\n",
		  7, 1,
		  "frames 0,2 (2 frames): port eth0 overbooked by 0.432us: 98.432us of 98.000us");
	/* the exact fit: 98,000 bit in 98 us: 1538 B x 7 = 86,128 bit, + 11,872 bit = 1484 B wire */
	sched_free(parse_ok(
		"tdp-schedule 1\ntf 100us\nk 4\nguard 2us\nport eth0 rate 1Gbit/s\n"
		"flow big port eth0 size 1514 dscp 10\nflow fill port eth0 size 1460 dscp 11\n"
		"frames 0: big 7, fill 1\n"));
	parse_err("tdp-schedule 1\ntf 100us\nk 4\nguard 2us\nport eth0 rate 1Gbit/s\n"
		  "flow big port eth0 size 1514 dscp 10\nflow fill port eth0 size 1461 dscp 11\n"
		  "frames 0: big 7, fill 1\n",
		  8, 1, "overbooked by 0.008us");
}

static void small_packets_are_padded(void **state)
{
	/* a 40-byte flow still occupies a 60-byte minimum frame on the wire */
	struct sched_table *t = parse_ok("tdp-schedule 1\ntf 1us\nk 1\nport p rate 1Gbit/s\n"
					 "flow s port p size 40 dscp 1\nframes 0: s 1\n");
	assert_int_equal(sched_wire_bits(t, 0), (60 + 24) * 8);
	sched_free(t);
	/* 1 us at 1 Gbit/s is 1000 bit: 672-bit frames, one fits, two do not */
	parse_err("tdp-schedule 1\ntf 1us\nk 1\nport p rate 1Gbit/s\nflow s port p size 40 dscp "
		  "1\nframes 0: s 2\n",
		  6, 1, "overbooked by 0.344us");
}

static void ports_are_separate(void **state)
{
	/* 8 big on each of two ports: each port fits on its own */
	sched_free(
		parse_ok("tdp-schedule 1\ntf 100us\nk 2\nport a rate 1Gbit/s\nport b rate 1Gbit/s\n"
			 "flow x port a size 1514 dscp 1\nflow y port b size 1514 dscp 2\nframes "
			 "0-1: x 8, y 8\n"));
	/* and the error names the port and only its flows, and blames the last line */
	parse_err("tdp-schedule 1\ntf 100us\nk 2\nport a rate 1Gbit/s\nport b rate 1Gbit/s\n"
		  "flow x port a size 1514 dscp 1\nflow y port b size 1514 dscp 2\nflow z port b "
		  "size 200 dscp 3\n"
		  "frames 0-1: x 8, y 8\nframes 1: z 1\n",
		  10, 1,
		  "frame 1 (1 frame): port b overbooked by 0.224us: 100.224us of 100.000us "
		  "reserved (TF - guard) by y 8 x 1538 B, z 1 x 224 B");
}

static void one_message_per_distinct_row(void **state)
{
	struct sched_diags d;
	const char *s = "tdp-schedule 1\ntf 100us\nk 10000\nport eth0 rate 1Gbit/s\n"
			"flow big port eth0 size 1514 dscp 10\nframes 0-9999/2: big 9\n";
	sched_diags_init(&d, "x");
	struct sched_table *t = sched_parse(s, strlen(s), &d);
	assert_non_null(t);
	assert_int_equal(sched_admit(t, &d), 1);
	assert_int_equal(d.nerr, 1);
	assert_non_null(strstr(d.v[0].msg, "(5000 frames)"));
	assert_non_null(strstr(d.v[0].msg, "frames 0-126/2,...")); /* first 64 frames, then ... */
	sched_diags_free(&d);
	sched_free(t);
}

static void summary_numbers(void **state)
{
	/* k 4, TF 100 us, 1 Gbit/s, guard 0: big 4 in frame 0 (49.216 us), 8 in frame 2 (98.432 us) */
	struct sched_table *t = parse_ok(GIG "frames 0: big 4\nframes 2: big 8\n");
	struct sched_port_summary ps[1];
	struct sched_flow_summary fs[1];
	sched_summarize(t, ps, fs);
	assert_true(ps[0].util_min == 0.0);
	assert_float_equal(ps[0].util_max, 0.98432, 1e-9);
	assert_float_equal(ps[0].util_avg, (0.49216 + 0.98432) / 4, 1e-9);
	assert_int_equal(ps[0].frames_used, 2);
	assert_int_equal(ps[0].frames_over, 0);
	/* free: (100 + 50.784 + 100 + 1.568) us of 400 us at 1 Gbit/s */
	assert_float_equal(ps[0].be_bps, 1e9 * 252.352 / 400, 1);
	assert_float_equal(ps[0].reserved_bps, 12304.0 * 12 / 400e-6, 1);
	assert_int_equal(fs[0].pkts_per_cycle, 12);
	assert_int_equal(fs[0].frames_per_cycle, 2);
	assert_float_equal(fs[0].pps, 12 / 400e-6, 1e-6);
	assert_float_equal(fs[0].bps, 12 / 400e-6 * 1514 * 8, 1e-3);
	/* reserved in frames 0 and 2 of 4: the longest gap is two frames */
	assert_int_equal(fs[0].max_wait_ns, 200000);
	sched_free(t);
}

static void worst_wait_wraps_the_cycle(void **state)
{
	struct sched_table *t =
		parse_ok("tdp-schedule 1\ntf 1ms\nk 10\nport p rate 1Gbit/s\n"
			 "flow a port p size 100 dscp 1\nflow b port p size 100 dscp 2\n"
			 "frames 2,3: a 1\nframes 6: b 1\n");
	struct sched_port_summary ps[1];
	struct sched_flow_summary fs[2];
	sched_summarize(t, ps, fs);
	assert_int_equal(fs[0].max_wait_ns, 9000000);  /* 3 -> 2 of the next cycle */
	assert_int_equal(fs[1].max_wait_ns, 10000000); /* once per cycle: a whole cycle */
	sched_free(t);
}

/*
 * The table: TF 10 ms, 10 Gbit/s, two flows of 40,000 64-byte packets
 * in one frame: 80,000 x 88 B = 5.632 ms of wire, admitted; but 80,000 packets
 * at once need as many buffers, two flow queues of 40,000, and 78 fills of a
 * 1,024-descriptor TX ring.
 */
#define BIG                                                                         \
	"tdp-schedule 1\ntf 10ms\nk 2\nport p rate 10Gbit/s\nport q rate 1Gbit/s\n" \
	"flow a port p size 64 udp-dport 1\nflow b port p size 64 udp-dport 2\n"    \
	"flow c port q size 64 udp-dport 3\nframes 0: a 40000, b 40000\nframes 1: c 10\n"

static size_t fit(const struct sched_table *t, const struct sched_fit *lim, struct sched_diags *dg)
{
	sched_diags_init(dg, "t");
	return sched_fit(t, lim, dg);
}

static void a_frame_against_the_box(void **state)
{
	struct sched_table *t = parse_ok(BIG);
	struct sched_diags dg;
	const uint32_t txd[] = {1024, 1024};
	/* a box that holds it: a warning for the TX ring only, on the row's line */
	struct sched_fit ok = {
		.mbufs = 131071, .mbufs_held = 5000, .flow_depth = 65536, .tx_desc = txd};
	assert_int_equal(fit(t, &ok, &dg), 0);
	assert_int_equal(dg.nwarn, 1);
	assert_int_equal(dg.v[0].line, 9);
	assert_non_null(
		strstr(dg.v[0].msg,
		       "frame 0: port p sends 80000 packets a frame, its TX ring holds 1024"));
	sched_diags_free(&dg);
	/* the default pool and queues: the row cannot be held at once */
	struct sched_fit small = {
		.mbufs = 16383, .mbufs_held = 4864, .flow_depth = 4096, .tx_desc = txd};
	assert_int_equal(fit(t, &small, &dg), 3);
	bool pool = false, qa = false, qb = false;
	for (size_t i = 0; i < dg.n; i++) {
		if (dg.v[i].sev != SCHED_ERROR)
			continue;
		assert_int_equal(dg.v[i].line, 9);
		pool |= strstr(dg.v[i].msg, "80000 packets a frame on all ports need as many "
					    "packet buffers, but the "
					    "pool has 16383 and the ports' RX and TX rings and "
					    "caches hold 4864") != NULL;
		qa |= strstr(dg.v[i].msg,
			     "flow a sends 40000 packets a frame, but a flow's queue holds 4096") !=
		      NULL;
		qb |= strstr(dg.v[i].msg, "flow b sends 40000") != NULL;
	}
	assert_true(pool && qa && qb);
	sched_diags_free(&dg);
	/* limits not known are not checked */
	struct sched_fit none = {0};
	assert_int_equal(fit(t, &none, &dg), 0);
	assert_int_equal(dg.n, 0);
	sched_diags_free(&dg);
	sched_free(t);
}

/* a reservation is for whole packets: a flow larger than its port's MTU
 * (plus the link header its match implies) is refused at its line */
static void a_flow_over_the_mtu(void **state)
{
	struct sched_table *t =
		parse_ok("tdp-schedule 1\ntf 1ms\nk 2\nport p rate 1Gbit/s\nport q rate 1Gbit/s\n"
			 "flow a port p size 1514 udp-dport 1\n"
			 "flow b port q size 1418 vlan 7 udp-dport 2\n"
			 "flow c port q size 1419 vlan 7 udp-dport 3\n"
			 "frames 0: a 1, b 1, c 1\n");
	struct sched_diags dg;
	const uint32_t mtu[] = {1500, 1400};
	struct sched_fit lim = {.mtu = mtu};
	assert_int_equal(fit(t, &lim, &dg), 1);
	assert_int_equal(dg.v[0].line, 8);
	assert_non_null(
		strstr(dg.v[0].msg,
		       "flow c: size 1419 bytes, but port q sends frames of at most 1418 bytes "
		       "(MTU 1400 and a 18-byte link header)"));
	sched_diags_free(&dg);
	const uint32_t unknown[] = {0, 0};
	lim.mtu = unknown;
	assert_int_equal(fit(t, &lim, &dg), 0);
	sched_diags_free(&dg);
	sched_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(gigabit_wire_arithmetic),
		cmocka_unit_test(eight_fit_nine_do_not),
		cmocka_unit_test(guard_band_counts),
		cmocka_unit_test(small_packets_are_padded),
		cmocka_unit_test(ports_are_separate),
		cmocka_unit_test(one_message_per_distinct_row),
		cmocka_unit_test(summary_numbers),
		cmocka_unit_test(worst_wait_wraps_the_cycle),
		cmocka_unit_test(a_frame_against_the_box),
		cmocka_unit_test(a_flow_over_the_mtu),
	};
	return cmocka_run_group_tests_name("sched_admit", tests, NULL, NULL);
}
