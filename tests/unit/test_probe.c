/* SPDX-License-Identifier: BSD-3-Clause */
/* tdp-probe's pure parts: the packet codec (every truncation), the receiver's
 * accounting (lost, duplicated, reordered, out of frame, end packets) and the
 * linear histogram's percentiles. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../tdp_test.h"

#include "probe_pkt.h"
#include "probe_stats.h"

#define TF 100000
#define EPOCH 250000

static void addr4(struct probe_addr *a)
{
	memset(a, 0, sizeof(*a));
	static const uint8_t sm[6] = {2, 0, 0, 0, 1, 2}, dm[6] = {2, 0, 0, 0, 1, 1};
	memcpy(a->src_mac, sm, 6);
	memcpy(a->dst_mac, dm, 6);
	a->family = 4;
	a->src[0] = 10, a->src[3] = 2;
	a->dst[0] = 10, a->dst[2] = 2, a->dst[3] = 2;
	a->sport = a->dport = PROBE_DEFAULT_PORT;
	a->dscp = 46;
	a->ttl = 64;
	a->vlan = -1;
}

static struct probe_hdr hdr(uint32_t flow)
{
	return (struct probe_hdr){.version = PROBE_VERSION,
				  .kind = PROBE_K_PROBE,
				  .flow = flow,
				  .tf_ns = TF,
				  .epoch_ns = EPOCH};
}

/* A probe of flow, seq, frame index, t1 offset, built as the sender does. */
static uint32_t mk(uint8_t *out, struct probe_tmpl *t, uint32_t seq, int64_t frame, int32_t t1)
{
	memcpy(out, t->buf, t->len);
	probe_stamp(t, out, seq, frame, t1);
	return t->len;
}

static void round_trip_ipv4_ipv6_vlan(void **state)
{
	(void)state;
	static struct probe_tmpl t;
	struct probe_addr a;
	struct probe_hdr h = hdr(7), got;
	uint8_t f[PROBE_MAX_SIZE];
	addr4(&a);
	assert_int_equal(probe_build(&t, &a, PROBE_DEFAULT_SIZE, &h), 0);
	assert_int_equal(t.len, 78);
	assert_int_equal(probe_min_size(4, false), 74);
	uint32_t n = mk(f, &t, 0xfffffffe, 17953103224821LL, -12345);
	assert_int_equal(probe_decode(f, n, PROBE_DEFAULT_PORT, &got), PROBE_OK);
	assert_int_equal(got.flow, 7);
	assert_int_equal(got.seq, 0xfffffffe);
	assert_int_equal(got.frame, 17953103224821LL);
	assert_int_equal(got.t1_off, -12345);
	assert_int_equal(got.tf_ns, TF);
	assert_int_equal(got.epoch_ns, EPOCH);
	assert_int_equal(got.kind, PROBE_K_PROBE);
	assert_int_equal(got.room, 0); /* 78 bytes: 4 spare, no room for a 12-byte hop stamp */
	assert_int_equal(probe_frame_start(&got), EPOCH + 17953103224821LL * TF);
	/* any port */
	assert_int_equal(probe_decode(f, n, 0, &got), PROBE_OK);
	/* another port: foreign */
	assert_int_equal(probe_decode(f, n, 9, &got), PROBE_FOREIGN);

	/* IPv6 with a VLAN tag, and room for hop stamps */
	a.family = 6;
	memset(a.src, 0, 16);
	memset(a.dst, 0, 16);
	a.src[0] = 0x20, a.src[1] = 0x01, a.src[15] = 1;
	a.dst[0] = 0x20, a.dst[1] = 0x01, a.dst[15] = 2;
	a.vlan = 100;
	a.pcp = 5;
	assert_int_equal(probe_build(&t, &a, probe_min_size(6, true) - 1, &h), -1);
	assert_int_equal(probe_build(&t, &a, 200, &h), 0);
	n = mk(f, &t, 3, 42, 99);
	assert_int_equal(probe_decode(f, n, PROBE_DEFAULT_PORT, &got), PROBE_OK);
	assert_int_equal(got.seq, 3);
	assert_int_equal(got.frame, 42);
	assert_int_equal(got.room, (200 - probe_min_size(6, true)) / PROBE_STAMP_LEN);
	assert_int_equal(probe_build(&t, &a, probe_min_size(6, true) + 20 * PROBE_STAMP_LEN, &h),
			 0);
	n = mk(f, &t, 3, 42, 99);
	assert_int_equal(probe_decode(f, n, PROBE_DEFAULT_PORT, &got), PROBE_OK);
	assert_int_equal(got.room, PROBE_MAX_HOPS);
}

static void checksum_catches_changes(void **state)
{
	(void)state;
	static struct probe_tmpl t;
	struct probe_addr a;
	struct probe_hdr h = hdr(1), got;
	uint8_t f[256];
	addr4(&a);
	assert_int_equal(probe_build(&t, &a, 100, &h), 0);
	/* the incremental checksum equals a full one for many values */
	for (uint32_t s = 0; s < 2000; s++) {
		uint32_t n = mk(f, &t, s * 2654435761u, (int64_t)s * 1000003 + 17953103224821LL,
				(int32_t)(s * 7919) - 5000);
		assert_int_equal(probe_decode(f, n, 0, &got), PROBE_OK);
		/* flipping any bit of the UDP part is caught */
		uint32_t at = t.l4_off + 8 + s % (n - t.l4_off - 8);
		f[at] ^= (uint8_t)(1u << (s % 8));
		enum probe_verdict v = probe_decode(f, n, 0, &got);
		assert_int_not_equal(v, PROBE_OK);
	}
	/* a zero checksum (none) is accepted for IPv4 */
	uint32_t n = mk(f, &t, 1, 2, 3);
	f[t.l4_off + 6] = f[t.l4_off + 7] = 0;
	assert_int_equal(probe_decode(f, n, 0, &got), PROBE_OK);
}

static void every_truncation_is_short_or_foreign(void **state)
{
	(void)state;
	static struct probe_tmpl t;
	struct probe_addr a;
	struct probe_hdr h = hdr(1), got;
	uint8_t f[256];
	addr4(&a);
	assert_int_equal(probe_build(&t, &a, 90, &h), 0);
	uint32_t n = mk(f, &t, 5, 6, 7);
	for (uint32_t len = 0; len < n; len++) {
		uint8_t *c = malloc(len ? len : 1);
		memcpy(c, f, len);
		enum probe_verdict v = probe_decode(c, len, PROBE_DEFAULT_PORT, &got);
		/* the IP total length no longer fits: a truncated frame */
		assert_int_equal(v, PROBE_SHORT);
		free(c);
	}
	/* headers that say the probe is shorter than its header: short */
	uint8_t p[PROBE_HDR_LEN];
	probe_hdr_write(p, &h);
	for (uint32_t len = 0; len < PROBE_HDR_LEN; len++)
		assert_int_equal(probe_hdr_read(p, len, &got), PROBE_SHORT);
	assert_int_equal(probe_hdr_read(p, PROBE_HDR_LEN, &got), PROBE_OK);
}

static void malformed_and_foreign(void **state)
{
	(void)state;
	struct probe_hdr h = hdr(1), got;
	uint8_t p[64];
	probe_hdr_write(p, &h);
	p[0] ^= 1;
	assert_int_equal(probe_hdr_read(p, sizeof(p), &got), PROBE_FOREIGN); /* not our magic */
	probe_hdr_write(p, &h);
	p[2] = 2;
	assert_int_equal(probe_hdr_read(p, sizeof(p), &got), PROBE_MALFORMED); /* version */
	probe_hdr_write(p, &h);
	p[3] = 3;
	assert_int_equal(probe_hdr_read(p, sizeof(p), &got), PROBE_MALFORMED); /* kind */
	h.tf_ns = 0;
	probe_hdr_write(p, &h);
	assert_int_equal(probe_hdr_read(p, sizeof(p), &got), PROBE_MALFORMED); /* TF 0 */
	h = hdr(1);
	h.epoch_ns = 1000000000u;
	probe_hdr_write(p, &h);
	assert_int_equal(probe_hdr_read(p, sizeof(p), &got), PROBE_MALFORMED); /* epoch >= 1 s */
	h = hdr(1);
	h.frame = -1;
	probe_hdr_write(p, &h);
	assert_int_equal(probe_hdr_read(p, sizeof(p), &got), PROBE_MALFORMED); /* before 1970 */
	h.frame = INT64_MAX / TF;
	probe_hdr_write(p, &h);
	assert_int_equal(probe_hdr_read(p, sizeof(p), &got),
			 PROBE_MALFORMED); /* start(i) + t1 overflows */
	h.frame = (INT64_MAX - EPOCH - INT32_MAX) / TF;
	probe_hdr_write(p, &h);
	assert_int_equal(probe_hdr_read(p, sizeof(p), &got), PROBE_OK); /* the last one that fits */
	h = hdr(1);
	h.room = 1;
	h.hops = 2;
	probe_hdr_write(p, &h);
	assert_int_equal(probe_hdr_read(p, PROBE_HDR_LEN + PROBE_STAMP_LEN, &got),
			 PROBE_MALFORMED); /* hops > room */
	h.room = 2;
	h.frame = 1000;
	h.stamp[0] = (struct probe_stamp){
		.node = 7, .flags = PROBE_STAMP_LATE, .dframe = 3, .push_off = 111};
	h.stamp[1] = (struct probe_stamp){.node = 65535, .dframe = -1, .push_off = -222};
	probe_hdr_write(p, &h);
	assert_int_equal(probe_hdr_read(p, PROBE_HDR_LEN + 2 * PROBE_STAMP_LEN, &got), PROBE_OK);
	assert_int_equal(got.hops, 2);
	assert_int_equal(got.stamp[0].node, 7);
	assert_int_equal(got.stamp[0].flags, PROBE_STAMP_LATE);
	assert_int_equal(got.stamp[0].dframe, 3);
	assert_int_equal(got.stamp[0].push_off, 111);
	assert_int_equal(got.stamp[1].node, 65535);
	assert_int_equal(got.stamp[1].dframe, -1);
	assert_int_equal(got.stamp[1].push_off, -222);
	/* a hop's frame must start at a time that fits, as the probe's does:
	 * dframe 2^31 - 1 at TF 2^32 - 1 ns is 2^63 ns past the probe's frame,
	 * and before frame 0 is before 1970 */
	h.tf_ns = UINT32_MAX;
	h.epoch_ns = 0;
	h.frame = 1000;
	h.stamp[1].dframe = INT32_MAX;
	probe_hdr_write(p, &h);
	assert_int_equal(probe_hdr_read(p, PROBE_HDR_LEN + 2 * PROBE_STAMP_LEN, &got),
			 PROBE_MALFORMED);
	h.stamp[1].dframe = -1001;
	probe_hdr_write(p, &h);
	assert_int_equal(probe_hdr_read(p, PROBE_HDR_LEN + 2 * PROBE_STAMP_LEN, &got),
			 PROBE_MALFORMED);
	h.stamp[1].dframe = -1000;
	probe_hdr_write(p, &h);
	assert_int_equal(probe_hdr_read(p, PROBE_HDR_LEN + 2 * PROBE_STAMP_LEN, &got), PROBE_OK);
	/* a UDP length beyond the IP payload on our port, with our magic */
	static struct probe_tmpl t;
	struct probe_addr a;
	uint8_t f[128];
	addr4(&a);
	h = hdr(1);
	assert_int_equal(probe_build(&t, &a, 78, &h), 0);
	uint32_t n = mk(f, &t, 1, 1, 1);
	f[t.l4_off + 4] = 0x10;
	assert_int_equal(probe_decode(f, n, 0, &got), PROBE_MALFORMED);
	/* not UDP: foreign; a broken IP header: malformed */
	n = mk(f, &t, 1, 1, 1);
	f[14 + 9] = 6;
	assert_int_equal(probe_decode(f, n, 0, &got), PROBE_FOREIGN);
	n = mk(f, &t, 1, 1, 1);
	f[14] = 0x44;
	assert_int_equal(probe_decode(f, n, 0, &got), PROBE_MALFORMED);
	/* ARP: foreign */
	memset(f, 0, 60);
	f[12] = 0x08, f[13] = 0x06;
	assert_int_equal(probe_decode(f, 60, 0, &got), PROBE_FOREIGN);
}

static void lhist_percentiles(void **state)
{
	(void)state;
	struct lhist h;
	assert_int_equal(lhist_init(&h, 1000, 10000), 0);
	assert_int_equal(h.nbins, 10);
	assert_int_equal(lhist_quantile(&h, 0.5), 0);
	for (int i = 0; i < 100; i++)
		lhist_add(&h, 500 + i * 10); /* 500..1490 */
	assert_int_equal(h.min, 500);
	assert_int_equal(h.max, 1490);
	/* 50 values below 1000: p50 is the first bin's edge; p51 the second's, clamped to max */
	assert_int_equal(lhist_quantile(&h, 0.50), 1000);
	assert_int_equal(lhist_quantile(&h, 0.51), 1490);
	assert_int_equal(lhist_quantile(&h, 0.0), 1000);
	lhist_add(&h, -5);
	lhist_add(&h, 20000);
	assert_int_equal(h.under, 1);
	assert_int_equal(h.over, 1);
	assert_int_equal(lhist_quantile(&h, 0.0), -5);	  /* underflow answers min */
	assert_int_equal(lhist_quantile(&h, 1.0), 20000); /* overflow answers max */
	assert_int_equal(lhist_quantile(&h, 0.999999), 20000);
	assert_true(lhist_mean(&h) > 1000 && lhist_mean(&h) < 1300);
	lhist_free(&h);
	assert_int_not_equal(lhist_init(&h, 0, 10), 0);
	assert_int_not_equal(lhist_init(&h, 10, 5), 0);
}

/* ---- the receiver's accounting ---------------------------------------- */

struct rig {
	struct probe_tmpl t, end;
	struct probe_rx rx;
	uint8_t f[256];
};

static void rig_init(struct rig *r, uint32_t delay)
{
	struct probe_addr a;
	struct probe_hdr h = hdr(9);
	addr4(&a);
	assert_int_equal(probe_build(&r->t, &a, 78, &h), 0);
	h.kind = PROBE_K_END;
	assert_int_equal(probe_build(&r->end, &a, 74, &h), 0);
	struct probe_rx_cfg c = {.port = PROBE_DEFAULT_PORT,
				 .bin_ns = 1000,
				 .range_ns = 10000000,
				 .series_ns = 1000000,
				 .delay_frames = delay,
				 .keep_records = true};
	assert_int_equal(probe_rx_init(&r->rx, &c), 0);
}

#define I0 17953103224821LL

/* Delivers probe seq (sent in frame I0+seq) arriving lat ns after its frame start. */
static void deliver(struct rig *r, uint32_t seq, int64_t lat)
{
	int64_t frame = I0 + seq;
	uint32_t n = mk(r->f, &r->t, seq, frame, 50);
	int64_t start = EPOCH + frame * TF;
	assert_int_equal(probe_rx_packet(&r->rx, r->f, n, start + lat, PROBE_TS_SW), PROBE_OK);
}

static void deliver_end(struct rig *r, uint32_t sent)
{
	uint32_t n = mk(r->f, &r->end, sent, I0 + sent, 0);
	assert_int_equal(probe_rx_packet(&r->rx, r->f, n, EPOCH + (I0 + sent) * TF, PROBE_TS_SW),
			 PROBE_OK);
}

static void counts_lost_dup_reordered(void **state)
{
	(void)state;
	static struct rig r;
	rig_init(&r, 0);
	/* 0..99 except 10, 20-22 and 99 (the tail); 30 twice; 41 before 40 */
	for (uint32_t s = 0; s < 99; s++) {
		if (s == 10 || (s >= 20 && s <= 22) || s == 40)
			continue;
		deliver(&r, s, 5000);
		if (s == 30)
			deliver(&r, s, 6000);
		if (s == 41)
			deliver(&r, 40, 7000);
	}
	struct probe_flow *f = &r.rx.flows[0];
	assert_int_equal(r.rx.nflows, 1);
	assert_int_equal(f->id, 9);
	assert_int_equal(f->received, 95); /* 99 less 10, 20-22; 40 came late */
	assert_int_equal(f->dup, 1);
	assert_int_equal(f->reordered, 1);
	/* without the end packet the tail loss cannot be known: 99 expected */
	assert_int_equal(probe_flow_lost(f), 4);
	assert_int_equal(probe_rx_ended(&r.rx), 0);
	deliver_end(&r, 100);
	deliver_end(&r, 100); /* the sender sends three; repeats change nothing */
	assert_int_equal(probe_rx_ended(&r.rx), 1);
	assert_int_equal(f->sent, 100);
	assert_int_equal(probe_flow_lost(f), 5);
	assert_int_equal(r.rx.ends, 2);
	/* a duplicate is not measured twice; the reordered one is */
	assert_int_equal(f->lat.count, 95);
	assert_int_equal(r.rx.nrec, 95);
	probe_rx_free(&r.rx);
}

static void late_packets_are_not_wrapped(void **state)
{
	(void)state;
	static struct rig r;
	rig_init(&r, 0);
	deliver(&r, 0, 20000);	    /* in its frame */
	deliver(&r, 1, TF + 20000); /* one frame late: L > TF, not 20 us */
	deliver(&r, 2, 3 * TF + 1); /* three frames late */
	deliver(&r, 3, -1000);	    /* before its frame started: early */
	deliver(&r, 4, TF - 1);	    /* the last ns of its frame */
	struct probe_flow *f = &r.rx.flows[0];
	assert_int_equal(f->oof, 3);
	assert_int_equal(f->early, 1);
	assert_int_equal(f->lat.max, 3 * TF + 1);
	assert_int_equal(f->lat.min, -1000);
	assert_int_equal(r.rx.rec[1].lat, TF + 20000);
	assert_int_equal(r.rx.rec[2].lat, 3 * TF + 1);
	/* t2 - t1: t1 was 50 ns after the frame start */
	assert_int_equal(r.rx.rec[0].transit, 20000 - 50);
	/* inter-packet time: arrival to arrival */
	assert_int_equal(r.rx.rec[1].ipt, (TF + TF + 20000) - 20000);
	probe_rx_free(&r.rx);

	/* expecting one frame of delay (through one router): [TF, 2TF) is in frame */
	rig_init(&r, 1);
	deliver(&r, 0, 20000);
	deliver(&r, 1, TF + 20000);
	deliver(&r, 2, 2 * TF);
	f = &r.rx.flows[0];
	assert_int_equal(f->oof, 2);
	assert_int_equal(f->early, 1);
	probe_rx_free(&r.rx);
}

static void others_are_counted_and_ignored(void **state)
{
	(void)state;
	static struct rig r;
	rig_init(&r, 0);
	uint8_t f[128];
	uint32_t n = mk(f, &r.t, 0, I0, 0);
	/* foreign: not ours */
	memset(f + 12, 0, 2);
	f[12] = 0x08, f[13] = 0x06;
	assert_int_equal(probe_rx_packet(&r.rx, f, 60, 1, PROBE_TS_SW), PROBE_FOREIGN);
	/* short: truncated */
	n = mk(f, &r.t, 0, I0, 0);
	assert_int_equal(probe_rx_packet(&r.rx, f, n - 1, 1, PROBE_TS_SW), PROBE_SHORT);
	/* malformed: version */
	n = mk(f, &r.t, 0, I0, 0);
	f[r.t.hdr_off + 2] = 9;
	assert_int_equal(probe_rx_packet(&r.rx, f, n, 1, PROBE_TS_SW), PROBE_MALFORMED);
	assert_int_equal(r.rx.foreign, 1);
	assert_int_equal(r.rx.shortp, 1);
	assert_int_equal(r.rx.malformed, 1);
	assert_int_equal(r.rx.nflows, 0);
	assert_int_equal(r.rx.frames, 3);
	/* best effort is counted apart */
	struct probe_addr a;
	addr4(&a);
	struct probe_hdr h = hdr(0);
	h.kind = PROBE_K_BE;
	static struct probe_tmpl be;
	assert_int_equal(probe_build(&be, &a, 1000, &h), 0);
	static uint8_t big[1000];
	memcpy(big, be.buf, be.len);
	probe_stamp(&be, big, 1, 0, 0);
	assert_int_equal(probe_rx_packet(&r.rx, big, be.len, 1, PROBE_TS_SW), PROBE_OK);
	assert_int_equal(r.rx.be, 1);
	assert_int_equal(r.rx.be_bytes, 1000);
	/* a best-effort frame of the Ethernet minimum carries only magic, version and kind */
	assert_int_equal(probe_min_be_size(4, false), 60);
	assert_int_equal(probe_build(&be, &a, 59, &h), -1);
	assert_int_equal(probe_build(&be, &a, 60, &h), 0);
	assert_int_equal(probe_rx_packet(&r.rx, be.buf, be.len, 1, PROBE_TS_SW), PROBE_OK);
	assert_int_equal(r.rx.be, 2);
	/* on another port, as a flood sends it: still best effort; a probe there is foreign */
	a.dport = PROBE_DEFAULT_PORT + 1;
	assert_int_equal(probe_build(&be, &a, 60, &h), 0);
	assert_int_equal(probe_rx_packet(&r.rx, be.buf, be.len, 1, PROBE_TS_SW), PROBE_OK);
	assert_int_equal(r.rx.be, 3);
	h.kind = PROBE_K_PROBE;
	assert_int_equal(probe_build(&be, &a, 80, &h), 0);
	assert_int_equal(probe_rx_packet(&r.rx, be.buf, be.len, 1, PROBE_TS_SW), PROBE_FOREIGN);
	a.dport = PROBE_DEFAULT_PORT;
	/* a probe that short is short, not best effort */
	h.kind = PROBE_K_PROBE;
	assert_int_equal(probe_build(&be, &a, 60, &h), -1);
	assert_int_equal(r.rx.nflows, 0);
	probe_rx_free(&r.rx);
}

static void sequence_wraps_and_old_packets(void **state)
{
	(void)state;
	static struct rig r;
	rig_init(&r, 0);
	/* 32-bit sequence numbers wrap; the receiver extends them */
	for (uint64_t s = 0xfffffff0u; s < 0x100000010ull; s++) {
		uint32_t n = mk(r.f, &r.t, (uint32_t)s, I0 + (int64_t)s, 0);
		probe_rx_packet(&r.rx, r.f, n, EPOCH + (I0 + (int64_t)s) * TF + 1000, PROBE_TS_SW);
	}
	struct probe_flow *f = &r.rx.flows[0];
	assert_int_equal(f->received, 32);
	assert_int_equal(f->next, 0x100000010ull);
	/* a jump of more than the window, then a packet from before it: stale, counted as reordered */
	uint32_t n = mk(r.f, &r.t, 0x10 + PROBE_SEQ_WINDOW + 5, I0 + 1, 0);
	probe_rx_packet(&r.rx, r.f, n, EPOCH + (I0 + 1) * TF, PROBE_TS_SW);
	n = mk(r.f, &r.t, 0x05, I0 + 1, 0);
	probe_rx_packet(&r.rx, r.f, n, EPOCH + (I0 + 1) * TF, PROBE_TS_SW);
	assert_int_equal(f->stale, 1);
	assert_int_equal(f->reordered, 1);
	assert_int_equal(f->dup, 0);
	probe_rx_free(&r.rx);
}

static void series_stays_bounded(void **state)
{
	(void)state;
	static struct rig r;
	rig_init(&r, 0);
	/* 30000 frames at TF 100 us are 3 s: 3000 buckets of 1 ms, more than the 2048 kept */
	for (uint32_t s = 0; s < 30000; s++)
		deliver(&r, s, 1000 + (s % 7) * 100);
	struct probe_flow *f = &r.rx.flows[0];
	assert_true(f->nseries <= PROBE_SERIES_MAX);
	assert_true(f->series_ns >= 2000000); /* widened at least once */
	uint64_t total = 0, nipt = 0;
	for (uint32_t i = 0; i < f->nseries; i++) {
		total += f->series[i].n;
		nipt += f->series[i].nipt;
		if (f->series[i].nipt) {
			assert_true(f->series[i].ipt_min >= TF - 600);
			assert_true(f->series[i].ipt_max <= TF + 600);
		}
	}
	assert_int_equal(total, 30000);
	assert_int_equal(nipt, 29999);
	/* the JSON carries it all and parses as one object per flow */
	char *buf = NULL;
	size_t len = 0;
	FILE *mf = open_memstream(&buf, &len);
	struct probe_meta m = {.label = "a \"quoted\" run", .source = "test"};
	probe_rx_json(mf, &r.rx, &m);
	fclose(mf);
	assert_non_null(strstr(buf, "\"label\": \"a \\\"quoted\\\" run\""));
	assert_non_null(strstr(buf, "\"received\": 30000, \"lost\": 0"));
	assert_non_null(strstr(buf, "\"p99.9999\": "));
	free(buf);
	probe_rx_free(&r.rx);
}

TDP_TEST_MAIN(cmocka_unit_test(round_trip_ipv4_ipv6_vlan),
	      cmocka_unit_test(checksum_catches_changes),
	      cmocka_unit_test(every_truncation_is_short_or_foreign),
	      cmocka_unit_test(malformed_and_foreign), cmocka_unit_test(lhist_percentiles),
	      cmocka_unit_test(counts_lost_dup_reordered),
	      cmocka_unit_test(late_packets_are_not_wrapped),
	      cmocka_unit_test(others_are_counted_and_ignored),
	      cmocka_unit_test(sequence_wraps_and_old_packets),
	      cmocka_unit_test(series_stays_bounded))
