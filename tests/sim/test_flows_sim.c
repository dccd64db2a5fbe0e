/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A table of 10^6 flows (past the 16-bit index of earlier versions): parsed,
 * built into the engine and RX's half (the classifier and the flows' queues)
 * as the daemon builds them, swapped for another of 10^6 flows, and packets
 * of flows on both sides of 65,536 forwarded from the RX port to the TX ring
 * in the frames each table gives them. Prints what each step took
 * (TDP_FLOWS_SIM sets the count; the sanitizer builds run 10^5).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "../tdp_test.h"

#include <rte_mbuf.h>
#include <rte_ring.h>

#include "dpdk_env.h"
#include "frame.h"
#include "rx_rig.h"
#include "tables.h"
#include "testutil.h"

#define K 10u
#define SPARE 1000u /* flows table b drops from a's end and adds as new */

static uint32_t nflows(void)
{
	const char *s = getenv("TDP_FLOWS_SIM");
	long n = s ? strtol(s, NULL, 10) : 1000000;
	return n >= 70000 && n <= 4000000 ? (uint32_t)n : 1000000;
}

static double ms_since(const struct timespec *a)
{
	struct timespec b;
	clock_gettime(CLOCK_MONOTONIC, &b);
	return (double)(b.tv_sec - a->tv_sec) * 1e3 + (double)(b.tv_nsec - a->tv_nsec) / 1e6;
}

/* Flow i's match: 10.9.X.Y/32 with X.Y = i / 16, UDP port 1000 + i % 16. */
static void flow_addr(uint32_t i, uint8_t *x, uint8_t *y, uint16_t *port)
{
	*x = (uint8_t)(i / 16 >> 8);
	*y = (uint8_t)(i / 16);
	*port = (uint16_t)(1000 + i % 16);
}

/* Table a: flows f0 .. f(n-1), flow i one packet in frame i % K. Table b:
 * a's first n - SPARE flows one packet in frame (i + 3) % K, and SPARE new
 * flows g0.. (a's last SPARE matches) in frame i % K. */
static char *table_text(uint32_t n, bool b, size_t *len)
{
	size_t cap = (size_t)n * 96 + 4096, at = 0;
	char *s = malloc(cap);
	assert_non_null(s);
	at += (size_t)snprintf(s + at, cap - at,
			       "tdp-schedule 1\ntf 1ms\nk %u\nport out rate 100Gbit/s\n", K);
	for (uint32_t i = 0; i < n; i++) {
		uint8_t x, y;
		uint16_t p;
		flow_addr(i, &x, &y, &p);
		bool spare = b && i >= n - SPARE;
		at += (size_t)snprintf(
			s + at, cap - at,
			"flow %c%u port out size 100 dst 10.9.%u.%u/32 udp-dport %u\n",
			spare ? 'g' : 'f', spare ? i - (n - SPARE) : i, x, y, p);
	}
	for (uint32_t i = 0; i < n; i++) {
		bool spare = b && i >= n - SPARE;
		at += (size_t)snprintf(s + at, cap - at, "frames %u: %c%u 1\n",
				       b && !spare ? (i + 3) % K : i % K, spare ? 'g' : 'f',
				       spare ? i - (n - SPARE) : i);
	}
	*len = at;
	return s;
}

static struct sched_table *parse_timed(uint32_t n, bool b, double *ms)
{
	size_t len;
	char *s = table_text(n, b, &len);
	struct sched_diags d;
	sched_diags_init(&d, b ? "b" : "a");
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct sched_table *t = sched_parse(s, len, &d);
	*ms = ms_since(&t0);
	if (!t)
		sched_diags_print(&d, stderr);
	assert_non_null(t);
	assert_int_equal(t->nflows, n);
	sched_diags_free(&d);
	free(s);
	return t;
}

/* the flows whose packets go through: around every multiple of 65,536 and
 * the ends, plus a spread */
static uint32_t sample(uint32_t n, uint32_t *v)
{
	uint32_t m = 0;
	for (uint32_t b = 65536; b < n; b += 65536) {
		v[m++] = b - 1;
		v[m++] = b;
	}
	v[m++] = 0;
	v[m++] = n - SPARE - 1;
	v[m++] = n - SPARE; /* the first of b's new flows */
	v[m++] = n - 1;
	for (uint32_t i = 1; i <= 40; i++)
		v[m++] = (uint32_t)((uint64_t)i * 2654435761u % n);
	return m;
}

/* Sends one packet of flow (by match) i through RX. */
static void send_flow(struct rig *r, uint32_t i)
{
	uint8_t x, y;
	uint16_t p;
	flow_addr(i, &x, &y, &p);
	char dst[32];
	snprintf(dst, sizeof(dst), "10.9.%u.%u", x, y);
	struct pg g = from_sender(dst);
	g.dport = p;
	assert_int_equal(rte_ring_sp_enqueue(r->ringrx[0], frame(&g)), 0);
}

/* The match index of a packet the engine sent. */
static uint32_t flow_of(const struct rte_mbuf *m)
{
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
	assert_int_equal(d[30], 10);
	assert_int_equal(d[31], 9);
	uint32_t xy = (uint32_t)d[32] << 8 | d[33], port = (uint32_t)d[36] << 8 | d[37];
	return xy * 16 + port - 1000;
}

/* Sends one packet of each sampled flow, then steps one cycle: each goes
 * out once, in the frame the table in force (b or a) gives its match. */
static void forward_cycle(struct rig *r, uint32_t n, bool b, const uint32_t *v, uint32_t m)
{
	uint64_t reserved = r->rx.st.reserved;
	for (uint32_t i = 0; i < m; i++)
		send_flow(r, v[i]);
	while (rx_poll(&r->rx))
		;
	assert_int_equal(r->rx.st.reserved - reserved, m);
	uint32_t got = 0;
	for (uint32_t s = 0; s < K; s++) {
		int64_t j = engine_step(r->e);
		uint32_t tfc = frame_tfc(engine_geom(r->e), j);
		struct rte_mbuf *pk;
		while (rte_ring_dequeue(r->ringtx[1], (void **)&pk) == 0) {
			uint32_t i = flow_of(pk);
			uint32_t want = b && i < n - SPARE ? (i + 3) % K : i % K;
			if (tfc != want)
				fail_msg("flow %u went out in frame %u of the cycle, the table %s "
					 "says %u",
					 i, tfc, b ? "b" : "a", want);
			got++;
			rte_pktmbuf_free(pk);
		}
	}
	assert_int_equal(got, m);
}

static void a_million_flows_loaded_swapped_and_forwarded(void **state)
{
	(void)state;
	uint32_t n = nflows(), v[256];
	double ms_a, ms_b, ms;
	struct timespec t0;
	size_t len;
	char *text = table_text(n, false, &len);
	struct sched_table *ta = parse_timed(n, false, &ms_a);
	sched_free(ta);
	rig_table = text;
	struct rig r;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rig_up(&r); /* parses a again, builds the engine on it */
	double ms_up = ms_since(&t0);
	rig_table = rig_table_default;
	free(text);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct dtable *da = dtable_new(engine_table_current(r.e), "a", "test");
	double ms_rx_a = ms_since(&t0);
	assert_non_null(da);
	r.rx.tab = &da->rxt[0];
	uint32_t m = sample(n, v);
	engine_start(r.e);
	forward_cycle(&r, n, false, v, m);

	/* b, built beside a as a load does, offered for a cycle boundary */
	struct sched_table *tb = parse_timed(n, true, &ms_b);
	char err[256];
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct eng_table *nt = engine_table_build(r.e, tb, err, sizeof(err));
	double ms_eng_b = ms_since(&t0);
	if (!nt)
		fail_msg("engine_table_build: %s", err);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct dtable *db = dtable_new(nt, "b", "test");
	double ms_rx_b = ms_since(&t0);
	assert_non_null(db);
	int64_t at = engine_table_boundary(r.e, nt, engine_next_frame(r.e) + 1);
	assert_int_equal(engine_table_offer(r.e, nt, at, err, sizeof(err)), 0);
	/* packets queued under a for a flow b drops are dropped at retirement */
	send_flow(&r, n - 1);
	while (rx_poll(&r.rx))
		;
	double ms_adopt = 0, ms_other = 0;
	uint64_t last_sent = 0;
	while (engine_table_adopted(nt) == INT64_MIN) {
		clock_gettime(CLOCK_MONOTONIC, &t0);
		engine_step(r.e);
		ms = ms_since(&t0);
		if (engine_table_adopted(nt) == INT64_MIN)
			ms_other = ms > ms_other ? ms : ms_other;
		else
			ms_adopt = ms;
		struct rte_mbuf *pk;
		while (rte_ring_dequeue(r.ringtx[1], (void **)&pk) == 0) {
			last_sent += flow_of(pk) == n - 1;
			rte_pktmbuf_free(pk);
		}
	}
	assert_int_equal(engine_table_adopted(nt), at);
	atomic_store_explicit(&r.rx.offer, &db->rxt[0], memory_order_release);
	rx_poll(&r.rx);
	assert_null(atomic_load(&r.rx.offer));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	uint64_t dropped = engine_table_retire(r.e, nt);
	double ms_retire = ms_since(&t0);
	dtable_free(da);
	/* a's last flow's packet: sent in its frame before the swap, or queued
	 * for a flow b does not keep and dropped by the retirement */
	assert_int_equal(last_sent + dropped, 1);
	struct flow_stats fs;
	engine_table_flow_stats(nt, n - SPARE, &fs);
	assert_int_equal(fs.sent, 0);
	forward_cycle(&r, n, true, v, m);
	/* the new flows are b's own: g0 is flow n - SPARE, its packets counted there */
	engine_table_flow_stats(nt, n - SPARE, &fs);
	assert_int_equal(fs.sent, 1);
	assert_string_equal(engine_table_sched(nt)->flows[n - SPARE].name, "g0");
	/* every flow's RX counters read once, as tdpd's watch once did in one
	 * step of RX core 0's loop (it reads WATCH_FLOWS_A_STEP a step now) */
	uint64_t enq = 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (uint32_t f = 0; f < n; f++) {
		struct flow_rx_sum fr;
		engine_table_flow_rx_sum(nt, f, &fr, NULL);
		enq += fr.enq;
	}
	double ms_walk = ms_since(&t0);
	assert_true(enq > 0 && enq <= r.rx.st.reserved); /* b's flows: not a's removed ones */
	printf("# %u flows: parse a %.0f ms, b %.0f ms; rig (parse, engine, classifier) %.0f ms; "
	       "RX "
	       "half of a %.0f ms; engine table b %.0f ms, RX half of b %.0f ms; the adopting "
	       "frame's step %.2f ms (the slowest frame before it %.2f ms, each with %u "
	       "entries); retiring a %.0f ms (dropped %llu); every flow's RX counters read in %.0f "
	       "ms\n",
	       n, ms_a, ms_b, ms_up, ms_rx_a, ms_eng_b, ms_rx_b, ms_adopt, ms_other, n / K,
	       ms_retire, (unsigned long long)dropped, ms_walk);
	dtable_free(db);
	rig_down(&r);
	assert_int_equal(rte_mempool_in_use_count(env_pool()), 0);
}

TDP_TEST_MAIN(cmocka_unit_test(a_million_flows_loaded_swapped_and_forwarded))
