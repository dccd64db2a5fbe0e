/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Hop stamps as the daemon writes them (daemon/core/stamp.c) and as tdp-probe reads
 * them (tools/probe/probe_pkt.c): two codecs of one wire format, so each stamp
 * written must decode to what was written, with a UDP checksum that still
 * holds, over IPv4 and over IPv6 with a VLAN tag.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "probe_pkt.h"
#include "probe_stats.h"
#include "stamp.h"

static void addr(struct probe_addr *a, int family)
{
	memset(a, 0, sizeof(*a));
	a->src_mac[0] = 2, a->dst_mac[0] = 2, a->dst_mac[5] = 1;
	a->family = (uint8_t)family;
	a->src[0] = 10, a->src[3] = 2;
	a->dst[0] = 10, a->dst[2] = 2, a->dst[3] = 2;
	if (family == 6)
		a->src[0] = a->dst[0] = 0x20, a->src[1] = a->dst[1] = 0x01;
	a->sport = a->dport = PROBE_DEFAULT_PORT;
	a->ttl = 64;
	a->vlan = family == 6 ? 100 : -1;
}

static void stamps_round_trip(void **state)
{
	(void)state;
	static struct probe_tmpl t;
	for (int fam = 4; fam <= 6; fam += 2) {
		struct probe_addr a;
		addr(&a, fam);
		struct probe_hdr h = {.version = PROBE_VERSION,
				      .kind = PROBE_K_PROBE,
				      .flow = 9,
				      .tf_ns = 1000000};
		unsigned size = probe_min_size(fam, fam == 6) + 4 * PROBE_STAMP_LEN + 5;
		assert_int_equal(probe_build(&t, &a, size, &h), 0);
		uint8_t f[512];
		memcpy(f, t.buf, t.len);
		int64_t i = 1790000000123LL;
		probe_stamp(&t, f, 77, i, 4321);
		struct probe_hdr got;
		assert_int_equal(probe_decode(f, t.len, 0, &got), PROBE_OK);
		assert_int_equal(got.room, 4);
		/* four hops, with frames before and after i and push offsets of both signs */
		const int32_t dframe[4] = {1, 3, 4, -2}, off[4] = {250000, -7, 0x7fffffff, 12};
		for (int k = 0; k < 4; k++) {
			struct stamp_slot s;
			assert_int_equal(stamp_locate(f, t.len, &s), STAMP_OK);
			assert_int_equal(s.probe_frame, i);
			if (k == 2)
				s.flags |= PROBE_STAMP_LATE;
			stamp_write(&s, (uint16_t)(100 + k), i + dframe[k], off[k]);
			assert_int_equal(probe_decode(f, t.len, 0, &got),
					 PROBE_OK); /* the checksum holds */
			assert_int_equal(got.hops, k + 1);
		}
		struct stamp_slot s;
		assert_int_equal(stamp_locate(f, t.len, &s), STAMP_FULL);
		for (int k = 0; k < 4; k++) {
			assert_int_equal(got.stamp[k].node, 100 + k);
			assert_int_equal(got.stamp[k].dframe, dframe[k]);
			assert_int_equal(got.stamp[k].push_off, off[k]);
			assert_int_equal(got.stamp[k].flags, k == 2 ? PROBE_STAMP_LATE : 0);
		}
		assert_int_equal(got.seq, 77);
		assert_int_equal(got.frame, i);
		assert_int_equal(got.t1_off, 4321);
		/* a flipped bit in a stamp is caught by the checksum */
		f[t.len - 5 - 3] ^= 0x10;
		assert_int_equal(probe_decode(f, t.len, 0, &got), PROBE_MALFORMED);
	}
}

/* Only our probes get a stamp: best effort, other UDP, truncated frames do not. */
/* The probe's frame is the sender's word, any 64-bit value: a crafted one
 * at either end of the range stamps a saturated difference, with no
 * overflow (under UBSan a signed overflow here stopped the router at the
 * push); the receiver refuses such a probe. */
static void crafted_probe_frame(void **state)
{
	(void)state;
	assert_int_equal(stamp_frame_delta(5, 3), 2);
	assert_int_equal(stamp_frame_delta(3, 5), -2);
	assert_int_equal(stamp_frame_delta(1790000000000LL, INT64_MIN), INT32_MAX);
	assert_int_equal(stamp_frame_delta(-1, INT64_MAX), INT32_MIN);
	assert_int_equal(stamp_frame_delta(1790000000000LL, INT64_MAX), INT32_MIN);
	assert_int_equal(stamp_frame_delta(INT64_MAX, -1), INT32_MAX);
	assert_int_equal(stamp_frame_delta(0, (int64_t)INT32_MAX + 5), INT32_MIN);
	static struct probe_tmpl t;
	struct probe_addr a;
	addr(&a, 4);
	const int64_t crafted[] = {INT64_MIN, INT64_MAX, -1};
	for (size_t c = 0; c < sizeof(crafted) / sizeof(crafted[0]); c++) {
		struct probe_hdr h = {.version = PROBE_VERSION,
				      .kind = PROBE_K_PROBE,
				      .flow = 9,
				      .tf_ns = 1000000};
		assert_int_equal(
			probe_build(&t, &a, probe_min_size(4, false) + PROBE_STAMP_LEN, &h), 0);
		uint8_t f[512];
		memcpy(f, t.buf, t.len);
		probe_stamp(&t, f, 1, crafted[c], 0);
		struct stamp_slot s;
		assert_int_equal(stamp_locate(f, t.len, &s), STAMP_OK);
		assert_true(s.probe_frame == crafted[c]);
		stamp_write(&s, 7, 1790000000000LL, 0);
		const uint8_t *q = s.hdr + PROBE_HDR_LEN;
		int32_t df = (int32_t)((uint32_t)q[4] << 24 | (uint32_t)q[5] << 16 |
				       (uint32_t)q[6] << 8 | q[7]);
		assert_int_equal(df, stamp_frame_delta(1790000000000LL, crafted[c]));
		/* and the receiver takes no such frame for a time */
		struct probe_hdr got;
		assert_int_equal(probe_decode(f, t.len, 0, &got), PROBE_MALFORMED);
	}
}

static void only_probes(void **state)
{
	(void)state;
	static struct probe_tmpl t;
	struct probe_addr a;
	addr(&a, 4);
	struct probe_hdr h = {.version = PROBE_VERSION, .kind = PROBE_K_BE, .tf_ns = 1000000};
	assert_int_equal(probe_build(&t, &a, 200, &h), 0);
	struct stamp_slot s;
	uint8_t f[512];
	memcpy(f, t.buf, t.len);
	assert_int_equal(stamp_locate(f, t.len, &s), STAMP_NOT_PROBE);
	h.kind = PROBE_K_PROBE;
	assert_int_equal(probe_build(&t, &a, 200, &h), 0);
	memcpy(f, t.buf, t.len);
	assert_int_equal(stamp_locate(f, t.len, &s), STAMP_OK);
	for (uint32_t n = 0; n < 14 + 20 + 8 + PROBE_HDR_LEN; n++)
		assert_int_equal(stamp_locate(f, n, &s), STAMP_NOT_PROBE);
	f[14 + 20 + 8] ^= 1; /* the magic */
	assert_int_equal(stamp_locate(f, t.len, &s), STAMP_NOT_PROBE);
	/* a probe with no room */
	h.kind = PROBE_K_PROBE;
	assert_int_equal(probe_build(&t, &a, probe_min_size(4, false) + PROBE_STAMP_LEN - 1, &h),
			 0);
	memcpy(f, t.buf, t.len);
	assert_int_equal(stamp_locate(f, t.len, &s), STAMP_FULL);
}

/*
 * The receiver's per-hop accounting against a plan of alpha 2, 1, 3 (TF 1 ms):
 * 20 probes through three stamping hops, of which probe 5 left hop 2 one frame
 * late (flagged) and probe 9 has only two stamps.
 */
static void receiver_checks_the_plan(void **state)
{
	(void)state;
	static struct probe_tmpl t;
	struct probe_addr a;
	addr(&a, 4);
	struct probe_hdr h = {
		.version = PROBE_VERSION, .kind = PROBE_K_PROBE, .flow = 3, .tf_ns = 1000000};
	assert_int_equal(probe_build(&t, &a, probe_min_size(4, false) + 3 * PROBE_STAMP_LEN, &h),
			 0);
	struct probe_rx_cfg c = {.bin_ns = 1000,
				 .range_ns = 20000000,
				 .series_ns = 1000000,
				 .delay_frames = 6,
				 .plan_hops = 3,
				 .plan_alpha = {2, 1, 3},
				 .keep_records = true};
	static struct probe_rx rx;
	assert_int_equal(probe_rx_init(&rx, &c), 0);
	const int64_t tf = 1000000, i0 = 1790000000000LL;
	for (uint32_t seq = 0; seq < 20; seq++) {
		uint8_t f[256];
		memcpy(f, t.buf, t.len);
		int64_t i = i0 + 10 * seq;
		probe_stamp(&t, f, seq, i, 2000);
		int64_t fr = i;
		const int32_t alpha[3] = {2, seq == 5 ? 2 : 1, seq == 5 ? 2 : 3};
		for (int k = 0; k < (seq == 9 ? 2 : 3); k++) {
			struct stamp_slot sl;
			assert_int_equal(stamp_locate(f, t.len, &sl), STAMP_OK);
			if (seq == 5 && k == 1)
				sl.flags |= PROBE_STAMP_LATE;
			fr += alpha[k];
			stamp_write(&sl, (uint16_t)(11 + k), fr, 5000 * (k + 1));
		}
		/* arrives 40 us after the last push */
		int64_t t2 = fr * tf + 5000 * (seq == 9 ? 2 : 3) + 40000;
		assert_int_equal(probe_rx_packet(&rx, f, t.len, t2, PROBE_TS_SW), PROBE_OK);
	}
	const struct probe_flow *fl = &rx.flows[0];
	assert_int_equal(fl->nhops, 3);
	assert_int_equal(fl->off_plan, 1);
	assert_int_equal(fl->hops_short, 1);
	assert_int_equal(fl->hop[0].n, 20);
	assert_int_equal(fl->hop[2].n, 19);
	assert_int_equal(fl->hop[0].node, 11);
	assert_int_equal(fl->hop[2].node, 13);
	assert_int_equal(fl->hop[0].alpha[2 - PROBE_ALPHA_LO], 20);
	assert_int_equal(fl->hop[1].alpha[1 - PROBE_ALPHA_LO], 19);
	assert_int_equal(fl->hop[1].alpha[2 - PROBE_ALPHA_LO], 1);
	assert_int_equal(fl->hop[1].off_plan, 1);
	assert_int_equal(fl->hop[1].late, 1);
	/* probe 5 caught up at hop 3 (alpha 2, planned 3): off plan there too, one probe in all */
	assert_int_equal(fl->hop[2].off_plan, 1);
	assert_int_equal(fl->noffplan, 1);
	assert_int_equal(fl->offplan[0].seq, 5);
	assert_int_equal(fl->offplan[0].hop, 2);
	assert_int_equal(fl->offplan[0].measured, 2);
	assert_int_equal(fl->offplan[0].planned, 1);
	assert_true(fl->offplan[0].late);
	/* legs: sender t1 (+2 us) to hop 1 (+5 us, 2 frames on) */
	assert_int_equal(fl->hop[0].leg.min, 2 * tf + 5000 - 2000);
	assert_int_equal(fl->hop[0].push.max, 5000);
	assert_int_equal(fl->last_leg.min, 40000);
	assert_int_equal(fl->last_leg.max, 40000);
	/* the CSV carries the stamps */
	char *buf = NULL;
	size_t len = 0;
	FILE *o = open_memstream(&buf, &len);
	assert_int_equal(probe_rx_csv(o, &rx), 0);
	fclose(o);
	assert_non_null(strstr(buf, ",3,11:2:5000;12:4:10000:late;13:6:15000\n"));
	free(buf);
	probe_rx_free(&rx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stamps_round_trip),
		cmocka_unit_test(crafted_probe_frame),
		cmocka_unit_test(only_probes),
		cmocka_unit_test(receiver_checks_the_plan),
	};
	return cmocka_run_group_tests_name("stamp", tests, NULL, NULL);
}
