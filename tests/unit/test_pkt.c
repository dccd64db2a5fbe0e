/* SPDX-License-Identifier: BSD-3-Clause */
/* Packet parsing, classification by the table's matches, and the forwarding
 * rewrite (MACs, TTL, incremental checksum). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../tdp_test.h"

#include "pkt.h"
#include "pktgen.h"
#include "testutil.h"

static void parses_udp_over_ipv4_vlan_mpls_ipv6(void **state)
{
	struct pg g;
	uint8_t b[256];
	struct pkt_info pi;
	pg_defaults(&g);
	g.dscp = 46;
	g.dport = 5000;
	assert_int_equal(pkt_parse(b, pg_build(&g, b), &pi), PKT_OK);
	assert_int_equal(pi.family, 4);
	assert_int_equal(pi.dscp, 46);
	assert_int_equal(pi.udp_dport, 5000);
	assert_int_equal(pi.ttl, 64);
	assert_int_equal(pi.l3_off, 14);
	assert_memory_equal(pi.dst, g.dst, 4);
	assert_int_equal(pkt_ip4_csum(b + 14, 20), 0);

	g.vlan = 42;
	g.pcp = 5;
	assert_int_equal(pkt_parse(b, pg_build(&g, b), &pi), PKT_OK);
	assert_true(pi.flags & PKT_F_VLAN);
	assert_int_equal(pi.vlan, 42);
	assert_int_equal(pi.pcp, 5);
	assert_int_equal(pi.l3_off, 18);

	g.mpls = 1000;
	assert_int_equal(pkt_parse(b, pg_build(&g, b), &pi), PKT_OK);
	assert_true(pi.flags & PKT_F_MPLS);
	assert_int_equal(pi.mpls, 1000);
	assert_int_equal(pi.family, 4); /* IP under the bottom of stack */

	pg_defaults(&g);
	g.family = 6;
	g.dscp = 34;
	g.dport = 7;
	g.dst[0] = 0x20;
	g.dst[1] = 0x01;
	assert_int_equal(pkt_parse(b, pg_build(&g, b), &pi), PKT_OK);
	assert_int_equal(pi.family, 6);
	assert_int_equal(pi.dscp, 34);
	assert_int_equal(pi.udp_dport, 7);
	assert_memory_equal(pi.dst, g.dst, 16);
}

static void malformed_packets_are_named(void **state)
{
	struct pg g;
	uint8_t b[256];
	struct pkt_info pi;
	pg_defaults(&g);
	uint32_t n = pg_build(&g, b);
	assert_int_equal(pkt_parse(b, 13, &pi), PKT_RUNT);
	assert_int_equal(pkt_parse(b, 30, &pi), PKT_RUNT);     /* IPv4 header cut */
	assert_int_equal(pkt_parse(b, n - 10, &pi), PKT_RUNT); /* total length beyond the frame */
	b[14] = 0x44;					       /* IHL 4 */
	assert_int_equal(pkt_parse(b, n, &pi), PKT_BAD_IP);
	b[14] = 0x65; /* version 6 in an IPv4 frame */
	assert_int_equal(pkt_parse(b, n, &pi), PKT_BAD_IP);
	pg_build(&g, b);
	b[16] = 0;
	b[17] = 10; /* total length < header */
	assert_int_equal(pkt_parse(b, n, &pi), PKT_BAD_IP);
	/* an MPLS stack that never ends */
	uint8_t m[100] = {0};
	m[12] = 0x88;
	m[13] = 0x47;
	assert_int_equal(pkt_parse(m, sizeof(m), &pi), PKT_BAD_MPLS);
	assert_string_equal(pkt_err_name(PKT_BAD_MPLS), "bad-mpls");
	/* not IP at all: fine, just nothing to match but MACs */
	uint8_t arp[60] = {0};
	arp[12] = 0x08;
	arp[13] = 0x06;
	assert_int_equal(pkt_parse(arp, sizeof(arp), &pi), PKT_OK);
	assert_int_equal(pi.family, 0);
	/* every prefix of a valid frame parses or is refused, never read beyond */
	pg_defaults(&g);
	g.vlan = 1;
	g.mpls = 5;
	n = pg_build(&g, b);
	for (uint32_t len = 0; len <= n; len++) {
		uint8_t *copy = malloc(len ? len : 1);
		memcpy(copy, b, len);
		int rc = pkt_parse(copy, len, &pi);
		assert_true(rc == PKT_OK || rc == PKT_RUNT || rc == PKT_BAD_IP);
		free(copy);
	}
}

static const char table[] = "tdp-schedule 1\ntf 1ms\nk 10\n"
			    "port out rate 100Mbit/s\n"
			    "flow voice port out size 100 dscp 46 udp-dport 5000\n"
			    "flow video port out size 100 dscp 34 dst 10.9.0.0/16\n"
			    "flow v6 port out size 100 dscp 10 dst 2001:db8::/32\n"
			    "flow tagged port out size 100 dscp 12 vlan 42\n"
			    "flow label port out size 100 dscp 20 mpls 1000\n"
			    "frames 0: voice 1\n";

static void classifies_by_the_tables_matches(void **state)
{
	struct sched_table *t = parse_ok(table);
	struct cls *c = cls_build(t);
	assert_non_null(c);
	assert_int_equal(cls_groups(c), 5);
	struct pg g;
	uint8_t b[256];
	struct pkt_info pi;

	pg_defaults(&g);
	g.dscp = 46;
	g.dport = 5000;
	pkt_parse(b, pg_build(&g, b), &pi);
	assert_int_equal(cls_lookup(c, &pi), sched_flow_find(t, "voice"));
	g.dport = 5001; /* one field off: best effort */
	pkt_parse(b, pg_build(&g, b), &pi);
	assert_int_equal(cls_lookup(c, &pi), -1);

	pg_defaults(&g);
	g.dscp = 34;
	g.dst[0] = 10;
	g.dst[1] = 9;
	g.dst[2] = 200;
	pkt_parse(b, pg_build(&g, b), &pi);
	assert_int_equal(cls_lookup(c, &pi), sched_flow_find(t, "video"));
	g.dst[1] = 8; /* outside the prefix */
	pkt_parse(b, pg_build(&g, b), &pi);
	assert_int_equal(cls_lookup(c, &pi), -1);

	pg_defaults(&g);
	g.family = 6;
	g.dscp = 10;
	uint8_t d6[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
	memcpy(g.dst, d6, 16);
	pkt_parse(b, pg_build(&g, b), &pi);
	assert_int_equal(cls_lookup(c, &pi), sched_flow_find(t, "v6"));
	g.dst[3] = 0xb9;
	pkt_parse(b, pg_build(&g, b), &pi);
	assert_int_equal(cls_lookup(c, &pi), -1);

	pg_defaults(&g);
	g.vlan = 42;
	g.dscp = 12;
	pkt_parse(b, pg_build(&g, b), &pi);
	assert_int_equal(cls_lookup(c, &pi), sched_flow_find(t, "tagged"));
	g.vlan = 43;
	pkt_parse(b, pg_build(&g, b), &pi);
	assert_int_equal(cls_lookup(c, &pi), -1);

	pg_defaults(&g);
	g.mpls = 1000;
	g.dscp = 20;
	pkt_parse(b, pg_build(&g, b), &pi);
	assert_int_equal(cls_lookup(c, &pi), sched_flow_find(t, "label"));
	cls_free(c);
	sched_free(t);
}

static void many_flows_each_found(void **state)
{
	/* 2000 flows on distinct UDP ports, one shape: one hash group */
	size_t cap = 1 << 20;
	char *txt = malloc(cap);
	size_t n =
		(size_t)snprintf(txt, cap, "tdp-schedule 1\ntf 1ms\nk 10\nport p rate 10Gbit/s\n");
	for (int f = 0; f < 2000; f++)
		n += (size_t)snprintf(txt + n, cap - n, "flow f%d port p size 64 udp-dport %d\n", f,
				      10000 + f);
	n += (size_t)snprintf(txt + n, cap - n, "frames 0: f0 1\n");
	struct sched_diags d;
	sched_diags_init(&d, "many");
	struct sched_table *t = sched_parse(txt, n, &d);
	assert_non_null(t);
	struct cls *c = cls_build(t);
	assert_int_equal(cls_groups(c), 1);
	struct pg g;
	uint8_t b[128];
	struct pkt_info pi;
	pg_defaults(&g);
	for (int f = 0; f < 2000; f++) {
		g.dport = (uint16_t)(10000 + f);
		pkt_parse(b, pg_build(&g, b), &pi);
		assert_int_equal(cls_lookup(c, &pi), f);
	}
	g.dport = 9999;
	pkt_parse(b, pg_build(&g, b), &pi);
	assert_int_equal(cls_lookup(c, &pi), -1);
	cls_free(c);
	sched_free(t);
	sched_diags_free(&d);
	free(txt);
}

/* What a flow's match says of a packet, read from the definition. */
static bool matches(const struct sched_match *m, const struct pkt_info *pi)
{
	uint32_t f = m->fields;
	if ((f & (SCHED_M_VLAN | SCHED_M_PCP)) && !(pi->flags & PKT_F_VLAN))
		return false;
	if ((f & SCHED_M_VLAN) && pi->vlan != m->vlan)
		return false;
	if ((f & SCHED_M_PCP) && pi->pcp != m->pcp)
		return false;
	if ((f & SCHED_M_MPLS) && (!(pi->flags & PKT_F_MPLS) || pi->mpls != m->mpls))
		return false;
	if ((f & SCHED_M_DSCP) && (!pi->family || pi->dscp != m->dscp))
		return false;
	if ((f & SCHED_M_UDP_DPORT) && (!(pi->flags & PKT_F_UDP) || pi->udp_dport != m->udp_dport))
		return false;
	if (f & SCHED_M_DST) {
		if (pi->family != m->dst_family)
			return false;
		for (unsigned b = 0; b < m->dst_len; b++)
			if (((pi->dst[b / 8] ^ m->dst[b / 8]) >> (7 - b % 8)) & 1)
				return false;
	}
	return true;
}

/*
 * Random tables of every match shape against random packets from the same
 * values: the classifier finds the flow whose match the packet meets, or
 * none, as the definition says.
 */
static void classifier_agrees_with_the_definition(void **state)
{
	static const char *const field[] = {
		"vlan 1",
		"vlan 2",
		"pcp 5",
		"pcp 0",
		"mpls 100",
		"mpls 200",
		"dscp 10",
		"dscp 46",
		"udp-dport 5000",
		"udp-dport 5001",
		"dst 10.1.0.0/16",
		"dst 10.1.2.0/24",
		"dst 10.1.2.3/32",
		"dst 10.1.2.0/23",
		"dst 2001:db8::/32",
		"dst 2001:db8:1::/48",
		"dst 2001:db8:1::7/128",
	};
	enum {
		NF = sizeof(field) / sizeof(field[0])
	};
	uint32_t seed = 12345, hits = 0, checked = 0, past = 0;
#define RND(n) ((seed = seed * 1103515245u + 12345u) >> 16) % (n)
	for (int tab = 0; tab < 60; tab++) {
		char flows[64][96];
		int nflows = 0;
		char txt[8192];
		struct sched_table *t = NULL;
		for (int cand = 0; cand < 40 && nflows < 64; cand++) {
			int nfield = 1 + (int)RND(3);
			size_t n = (size_t)snprintf(flows[nflows], sizeof(flows[nflows]),
						    "flow f%d port p size 100", nflows);
			uint32_t used = 0;
			for (int k = 0; k < nfield; k++) {
				uint32_t i = RND(NF);
				/* one value per field: the keyword's first word */
				uint32_t kw = i < 10 ? i / 2 : 5;
				if (used & (1u << kw))
					continue;
				used |= 1u << kw;
				n += (size_t)snprintf(flows[nflows] + n, sizeof(flows[nflows]) - n,
						      " %s", field[i]);
			}
			size_t at = (size_t)snprintf(
				txt, sizeof(txt),
				"tdp-schedule 1\ntf 1ms\nk 1\nport p rate 1Gbit/s\n");
			for (int f = 0; f <= nflows; f++)
				at += (size_t)snprintf(txt + at, sizeof(txt) - at, "%s\n",
						       flows[f]);
			snprintf(txt + at, sizeof(txt) - at, "frames 0: f0 1\n");
			struct sched_diags d;
			sched_diags_init(&d, "rnd");
			struct sched_table *nt = sched_parse(txt, strlen(txt), &d);
			sched_diags_free(&d);
			if (nt) { /* it overlaps none of the flows before it */
				sched_free(t);
				t = nt;
				nflows++;
			}
		}
		assert_non_null(t);
		struct cls *c = cls_build(t);
		assert_non_null(c);
		for (int p = 0; p < 400; p++) {
			struct pg g;
			pg_defaults(&g);
			g.vlan = RND(3) ? (int)RND(3) : -1;
			g.pcp = RND(2) ? 5 : 0;
			g.mpls = RND(4) == 0 ? (RND(2) ? 100 : 200) : -1;
			g.family = RND(3) ? 4 : 6;
			g.dscp = RND(2) ? 10 : 46;
			g.dport = (uint16_t)(RND(3) ? 5000 + RND(2) : 7);
			memset(g.dst, 0, 16);
			if (g.family == 4) {
				uint8_t d4[4] = {10, 1, (uint8_t)(1 + RND(3)),
						 (uint8_t)(RND(2) ? 3 : 9)};
				memcpy(g.dst, d4, 4);
			} else {
				uint8_t d6[16] = {0x20, 0x01, 0x0d, 0xb8, 0, (uint8_t)RND(2)};
				d6[15] = RND(2) ? 7 : 8;
				memcpy(g.dst, d6, 16);
			}
			uint8_t b[160];
			struct pkt_info pi;
			assert_int_equal(pkt_parse(b, pg_build(&g, b), &pi), PKT_OK);
			int want = -1;
			for (uint32_t f = 0; f < t->nflows; f++)
				if (matches(&t->flows[f].match, &pi)) {
					assert_int_equal(
						want,
						-1); /* a valid table's flows do not overlap */
					want = (int)f;
				}
			int got = cls_lookup(c, &pi);
			if (got != want)
				fail_msg("table %d packet %d: classified %d, the matches say %d",
					 tab, p, got, want);
			/* RX's ways: the keys and slots worked out once (the slots
			 * asked for at once, or kept and asked for apart), then the
			 * lookup */
			struct cls_probe pr, pa;
			cls_prefetch(c, &pi, &pr);
			got = cls_lookup_probe(c, &pi, &pr);
			if (got != want)
				fail_msg("table %d packet %d: classified %d from the probe, the "
					 "matches say %d",
					 tab, p, got, want);
			cls_probe(c, &pi, &pa);
			cls_ask(&pa);
			got = cls_lookup_probe(c, &pi, &pa);
			if (got != want)
				fail_msg("table %d packet %d: classified %d from the probe kept "
					 "apart, the matches say %d",
					 tab, p, got, want);
			past += want >= 0 && cls_groups(c) > CLS_PROBE_GROUPS;
			hits += want >= 0;
			checked++;
		}
		cls_free(c);
		sched_free(t);
	}
#undef RND
	/* the packets met flows often enough to mean something */
	assert_true(hits > checked / 10);
	assert_true(hits < checked);
	/* and often in tables of more shapes than the probe keeps */
	assert_true(past > hits / 10);
}

static void forward_rewrites_and_keeps_checksum(void **state)
{
	struct pg g;
	uint8_t b[256];
	struct pkt_info pi;
	uint8_t src[6] = {0xaa, 1, 2, 3, 4, 5}, dst[6] = {0xbb, 6, 7, 8, 9, 10};
	for (int ttl = 2; ttl <= 255; ttl += 7) {
		for (int dscp = 0; dscp < 64; dscp += 9) {
			pg_defaults(&g);
			g.ttl = (uint8_t)ttl;
			g.dscp = (uint8_t)dscp;
			uint32_t n = pg_build(&g, b);
			pkt_parse(b, n, &pi);
			assert_int_equal(pkt_forward(b, &pi, src, dst), 0);
			assert_memory_equal(b, dst, 6);
			assert_memory_equal(b + 6, src, 6);
			assert_int_equal(b[14 + 8], ttl - 1);
			/* the incrementally updated checksum equals a full recompute */
			assert_int_equal(pkt_ip4_csum(b + 14, 20), 0);
		}
	}
	pg_defaults(&g);
	g.ttl = 1;
	pkt_parse(b, pg_build(&g, b), &pi);
	uint8_t before[256];
	memcpy(before, b, sizeof(b));
	assert_int_equal(pkt_forward(b, &pi, src, dst), -1);
	assert_memory_equal(before, b, sizeof(b)); /* untouched */
	pg_defaults(&g);
	g.family = 6;
	g.ttl = 9;
	pkt_parse(b, pg_build(&g, b), &pi);
	assert_int_equal(pkt_forward(b, &pi, src, dst), 0);
	assert_int_equal(b[14 + 7], 8);
	/* a labelled packet keeps its IP TTL */
	pg_defaults(&g);
	g.mpls = 7;
	g.ttl = 1;
	pkt_parse(b, pg_build(&g, b), &pi);
	assert_int_equal(pkt_forward(b, &pi, src, dst), 0);
}

TDP_TEST_MAIN(cmocka_unit_test(parses_udp_over_ipv4_vlan_mpls_ipv6),
	      cmocka_unit_test(malformed_packets_are_named),
	      cmocka_unit_test(classifies_by_the_tables_matches),
	      cmocka_unit_test(many_flows_each_found),
	      cmocka_unit_test(classifier_agrees_with_the_definition),
	      cmocka_unit_test(forward_rewrites_and_keeps_checksum))
