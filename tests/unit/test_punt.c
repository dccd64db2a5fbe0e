/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The host's frames and the ICMP errors. The rule of what the kernel gets is
 * written twice, in punt.c for RX and in tdpd_xdp.bpf.c for the XDP program:
 * each frame here goes through both, the program in the kernel by
 * BPF_PROG_TEST_RUN, and they must agree, counters included. Then the ICMP
 * errors are built and checked field by field.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "icmperr.h"
#include "pkt.h"
#include "pktgen.h"
#include "punt.h"
#include "xdpprog.h"

static const char *xdp_obj;

struct frame {
	const char *what;
	uint8_t b[200];
	uint32_t len;
	enum punt_class want;
};

static uint32_t udp_frame(uint8_t *b, int family, const char *dst, uint16_t dport, int vlan)
{
	struct pg g;
	pg_defaults(&g);
	g.family = family;
	g.vlan = vlan;
	g.dport = dport;
	inet_pton(family == 4 ? AF_INET : AF_INET6, dst, g.dst);
	if (family == 6)
		inet_pton(AF_INET6, "2001:db8:1::2", g.src);
	return pg_build(&g, b);
}

/* an IPv6 frame whose payload is ICMPv6 of type t */
static uint32_t icmp6_frame(uint8_t *b, const char *dst, uint8_t t)
{
	uint32_t n = udp_frame(b, 6, dst, 9, -1);
	b[14 + 6] = 58;
	b[14 + 40] = t;
	return n;
}

static uint32_t l2_frame(uint8_t *b, uint16_t et, int vlan)
{
	memset(b, 0, 64);
	memset(b, 0xff, 6);
	uint32_t off = 12;
	if (vlan >= 0) {
		pg_w16(b + 12, 0x8100);
		pg_w16(b + 14, (uint16_t)vlan);
		off += 4;
	}
	pg_w16(b + off, et);
	return 64;
}

static size_t frames(struct frame *f)
{
	size_t n = 0;
#define F(w, expr, cls) (f[n].what = (w), f[n].len = (expr), f[n].want = (cls), n++)
	F("ARP", l2_frame(f[n].b, 0x0806, -1), PUNT_ARP);
	F("ARP in a VLAN", l2_frame(f[n].b, 0x0806, 7), PUNT_ARP);
	F("PTP over Ethernet", l2_frame(f[n].b, 0x88f7, -1), PUNT_PTP);
	F("LLDP", l2_frame(f[n].b, 0x88cc, -1), PUNT_NONE);
	F("PTP event UDP 319 to 224.0.1.129", udp_frame(f[n].b, 4, "224.0.1.129", 319, -1),
	  PUNT_PTP);
	F("PTP general UDP 320 to ff0e::181, tagged", udp_frame(f[n].b, 6, "ff0e::181", 320, 5),
	  PUNT_PTP);
	F("unicast PTP through the router", udp_frame(f[n].b, 4, "10.0.2.2", 319, -1), PUNT_NONE);
	F("unicast PTP v6 through the router", udp_frame(f[n].b, 6, "2001:db8:2::2", 320, -1),
	  PUNT_NONE);
	F("OSPF hello 224.0.0.5", udp_frame(f[n].b, 4, "224.0.0.5", 9, -1), PUNT_LINK);
	F("limited broadcast", udp_frame(f[n].b, 4, "255.255.255.255", 67, -1), PUNT_LINK);
	F("routable multicast 239.1.1.1", udp_frame(f[n].b, 4, "239.1.1.1", 9, -1), PUNT_NONE);
	F("v6 link-local", udp_frame(f[n].b, 6, "fe80::1", 9, -1), PUNT_LINK);
	F("v6 all-nodes ff02::1", udp_frame(f[n].b, 6, "ff02::1", 9, -1), PUNT_LINK);
	F("v6 site multicast ff05::2", udp_frame(f[n].b, 6, "ff05::2", 9, -1), PUNT_NONE);
	F("neighbour solicitation", icmp6_frame(f[n].b, "2001:db8:2::2", 135), PUNT_ND);
	F("router advertisement", icmp6_frame(f[n].b, "2001:db8:2::2", 134), PUNT_ND);
	F("echo request v6 (routed)", icmp6_frame(f[n].b, "2001:db8:2::2", 128), PUNT_NONE);
	F("routed UDP v4", udp_frame(f[n].b, 4, "10.0.2.2", 9, -1), PUNT_NONE);
	F("routed UDP v6", udp_frame(f[n].b, 6, "2001:db8:2::2", 9, -1), PUNT_NONE);
	F("our v4 address", udp_frame(f[n].b, 4, "10.0.2.1", 9, -1), PUNT_LOCAL);
	F("our v6 address", udp_frame(f[n].b, 6, "2001:db8:2::1", 9, -1), PUNT_LOCAL);
#undef F
	return n;
}

/* what RX decides: punt_classify, then our addresses as the routes would */
static enum punt_class rx_rule(const struct frame *f)
{
	struct pkt_info pi;
	if (pkt_parse(f->b, f->len, &pi) != PKT_OK)
		return PUNT_NONE;
	enum punt_class c = punt_classify(f->b, f->len, &pi);
	if (c != PUNT_NONE)
		return c;
	uint8_t a4[4], a6[16];
	inet_pton(AF_INET, "10.0.2.1", a4);
	inet_pton(AF_INET6, "2001:db8:2::1", a6);
	if ((pi.family == 4 && !memcmp(pi.dst, a4, 4)) ||
	    (pi.family == 6 && !memcmp(pi.dst, a6, 16)))
		return PUNT_LOCAL;
	return PUNT_NONE;
}

static void rx_rule_classes(void **state)
{
	struct frame f[32];
	size_t n = frames(f);
	for (size_t i = 0; i < n; i++)
		if (rx_rule(&f[i]) != f[i].want)
			fail_msg("%s: RX says %s, expected %s", f[i].what,
				 punt_class_name(rx_rule(&f[i])), punt_class_name(f[i].want));
}

/* the program's outcome for each class */
static const enum xdpp_stat stat_of[PUNT_MAX] = {
	[PUNT_NONE] = XDPP_NO_SOCKET, [PUNT_ARP] = XDPP_ARP,   [PUNT_ND] = XDPP_ND,
	[PUNT_PTP] = XDPP_PTP,	      [PUNT_LINK] = XDPP_LINK, [PUNT_LOCAL] = XDPP_LOCAL,
};

static void xdp_program_agrees(void **state)
{
	if (geteuid() != 0)
		skip();
	struct bpf_object *obj = bpf_object__open_file(xdp_obj, NULL);
	assert_non_null(obj);
	if (bpf_object__load(obj) != 0) {
		bpf_object__close(obj);
		fail_msg("the kernel refused %s (verifier or permissions)", xdp_obj);
	}
	struct bpf_program *prog = bpf_object__find_program_by_name(obj, "tdpd_xdp");
	assert_non_null(prog);
	int pfd = bpf_program__fd(prog);
	int local = bpf_object__find_map_fd_by_name(obj, "tdp_local");
	int stats = bpf_object__find_map_fd_by_name(obj, "tdp_stats");
	assert_true(local >= 0 && stats >= 0);
	/* our addresses, as tdpd puts them in (xdpprog.c's key) */
	struct xdpp x = {.local_fd = local, .stats_fd = stats};
	uint8_t a[2][17] = {{4}, {6}};
	inet_pton(AF_INET, "10.0.2.1", a[0] + 1);
	inet_pton(AF_INET6, "2001:db8:2::1", a[1] + 1);
	assert_int_equal(xdpp_set_local(&x, (const uint8_t(*)[17])a, 2), 0);
	struct frame f[32];
	size_t n = frames(f);
	uint64_t want[XDPP_NSTATS] = {0};
	for (size_t i = 0; i < n; i++) {
		uint8_t out[256];
		LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = f[i].b, .data_size_in = f[i].len,
			    .data_out = out, .data_size_out = sizeof(out), .repeat = 1);
		assert_int_equal(bpf_prog_test_run_opts(pfd, &o), 0);
		enum punt_class c = rx_rule(&f[i]);
		/* no socket in xsks_map here: tdpd's frames are dropped and counted */
		uint32_t expect = c == PUNT_NONE ? XDP_DROP : XDP_PASS;
		if (o.retval != expect)
			fail_msg("%s: the XDP program returned %u, RX's rule says %s", f[i].what,
				 o.retval, punt_class_name(c));
		want[stat_of[c]]++;
	}
	uint64_t got[XDPP_NSTATS];
	assert_int_equal(xdpp_stats(&x, got), 0);
	for (int s = 0; s < XDPP_NSTATS; s++)
		if (got[s] != want[s])
			fail_msg("tdp_stats %s: %llu, expected %llu",
				 xdpp_stat_name((enum xdpp_stat)s), (unsigned long long)got[s],
				 (unsigned long long)want[s]);
	/* an address no longer ours leaves the map */
	assert_int_equal(xdpp_set_local(&x, (const uint8_t(*)[17])a, 1), 0);
	struct frame *v6 = &f[n - 1];
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = v6->b, .data_size_in = v6->len, .repeat = 1);
	assert_int_equal(bpf_prog_test_run_opts(pfd, &o), 0);
	assert_int_equal(o.retval, XDP_DROP);
	bpf_object__close(obj);
}

static uint16_t csum(const uint8_t *p, uint32_t n, uint32_t s)
{
	for (uint32_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/* ICMPv6's checksum over the pseudo-header (addresses, length, next
 * header 58) and the message of len bytes behind the IPv6 header ip: 0 when right */
static uint16_t csum6(const uint8_t *ip, uint32_t len)
{
	uint32_t s = 0;
	for (int i = 8; i < 40; i += 2)
		s += (uint32_t)(ip[i] << 8 | ip[i + 1]);
	return csum(ip + 40, len, s + len + 58);
}

static void icmp_errors_v4(void **state)
{
	uint8_t b[200], out[ICMP_ERR_FRAME_MAX];
	struct pkt_info pi;
	struct pg g;
	pg_defaults(&g);
	g.vlan = 9;
	g.ttl = 1;
	uint32_t n = pg_build(&g, b);
	assert_int_equal(pkt_parse(b, n, &pi), PKT_OK);
	const uint8_t mac[6] = {2, 0, 0, 0, 9, 9}, src[4] = {10, 0, 1, 1};
	uint32_t m = icmp_error_build(out, sizeof(out), b, n, &pi, ICMP_ERR_TTL, mac, src);
	/* L2 with the tag, IP 20, ICMP 8, the whole original (82 bytes of IP) */
	assert_int_equal(m, 18 + 20 + 8 + (n - 18));
	assert_memory_equal(out, g.smac, 6);
	assert_memory_equal(out + 6, mac, 6);
	assert_memory_equal(out + 12, b + 12, 6); /* 802.1Q tag, then IPv4 */
	const uint8_t *ip = out + 18, *ic = ip + 20;
	assert_int_equal(csum(ip, 20, 0), 0);
	assert_int_equal(ip[9], 1);
	assert_memory_equal(ip + 12, src, 4);
	assert_memory_equal(ip + 16, g.src, 4);
	assert_int_equal(ic[0], 11);
	assert_int_equal(ic[1], 0);
	assert_int_equal(csum(ic, m - 18 - 20, 0), 0);
	assert_memory_equal(ic + 8, b + 18, n - 18);
	assert_int_equal(icmp_error_build(out, sizeof(out), b, n, &pi, ICMP_ERR_NO_ROUTE, mac, src),
			 m);
	assert_int_equal(ic[0] << 8 | ic[1], 3 << 8 | 0);

	/* none about a broadcast, a multicast source-less or fragment, or an ICMP error */
	struct pkt_info p2 = pi;
	p2.flags |= PKT_F_FRAG;
	assert_int_equal(icmp_error_build(out, sizeof(out), b, n, &p2, ICMP_ERR_TTL, mac, src), 0);
	p2 = pi;
	p2.dst[0] = 239;
	assert_int_equal(icmp_error_build(out, sizeof(out), b, n, &p2, ICMP_ERR_TTL, mac, src), 0);
	b[0] = 0xff;
	assert_int_equal(icmp_error_build(out, sizeof(out), b, n, &pi, ICMP_ERR_TTL, mac, src), 0);
	b[0] = 2;
	uint32_t k = icmp_error_build(out, sizeof(out), b, n, &pi, ICMP_ERR_TTL, mac, src);
	struct pkt_info pe;
	assert_int_equal(pkt_parse(out, k, &pe), PKT_OK);
	assert_int_equal(icmp_error_build(b, sizeof(b), out, k, &pe, ICMP_ERR_TTL, mac, src), 0);
	/* too small a buffer: none */
	assert_int_equal(icmp_error_build(out, 40, b, n, &pi, ICMP_ERR_TTL, mac, src), 0);
}

static void icmp_errors_v6(void **state)
{
	uint8_t b[1600], out[ICMP_ERR_FRAME_MAX];
	struct pkt_info pi;
	struct pg g;
	pg_defaults(&g);
	g.family = 6;
	g.size = 1500;
	inet_pton(AF_INET6, "2001:db8:2::2", g.dst);
	inet_pton(AF_INET6, "2001:db8:1::2", g.src);
	uint32_t n = pg_build(&g, b);
	assert_int_equal(pkt_parse(b, n, &pi), PKT_OK);
	const uint8_t mac[6] = {2, 0, 0, 0, 9, 9};
	uint8_t src[16];
	inet_pton(AF_INET6, "2001:db8:1::1", src);
	uint32_t m = icmp_error_build(out, sizeof(out), b, n, &pi, ICMP_ERR_NO_NEIGH, mac, src);
	/* cut so the error fits IPv6's minimum MTU */
	assert_int_equal(m, 14 + 1280);
	const uint8_t *ip = out + 14, *ic = ip + 40;
	assert_int_equal(ip[6], 58);
	assert_int_equal(ip[4] << 8 | ip[5], 1280 - 40);
	assert_memory_equal(ip + 24, g.src, 16);
	assert_int_equal(ic[0], 1);
	assert_int_equal(ic[1], 3);
	/* the checksum over the pseudo-header and the message */
	assert_int_equal(csum6(ip, 1280 - 40), 0);
	/* never to a multicast or unspecified source */
	memset(pi.src, 0, 16);
	assert_int_equal(icmp_error_build(out, sizeof(out), b, n, &pi, ICMP_ERR_TTL, mac, src), 0);
}

/* RFC 4443 §2.4 (e), RFC 8200 §4: no error about an ICMPv6 error however
 * many extension headers stand before it, a first fragment's included; an
 * informational message behind them still gets one; a chain that cannot be
 * followed within the packet gets none (it may hide an error). */
static void icmp6_error_behind_extension_headers(void **state)
{
	(void)state;
	uint8_t b[512], out[ICMP_ERR_FRAME_MAX];
	const uint8_t mac[6] = {2, 0, 0, 0, 9, 9};
	uint8_t src[16];
	inet_pton(AF_INET6, "2001:db8:1::1", src);
	struct {
		const char *what;
		uint8_t chain[6];  /* extension headers, then the upper layer */
		uint8_t type;	   /* ICMPv6 type when the upper layer is 58 */
		uint16_t frag_off; /* a fragment header's offset field */
		bool allowed;
	} c[] = {
		{"Destination Unreachable in a first fragment", {44, 58}, 1, 0, false},
		{"Time Exceeded behind hop-by-hop, routing, 5 destination options",
		 {0, 43, 60, 60, 60, 58},
		 3,
		 0,
		 false},
		{"an echo request in a first fragment", {44, 58}, 128, 0, true},
		{"a later fragment", {44, 58}, 128, 8, false},
		{"UDP behind a destination option and a fragment", {60, 44, 17}, 0, 0, true},
		{"Packet Too Big behind AH", {51, 58}, 2, 0, false},
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		uint32_t n = udp_frame(b, 6, "2001:db8:2::2", 9, -1);
		uint8_t *ip = b + 14;
		uint32_t at = 40, k = 0;
		uint8_t *nhp = ip + 6;
		for (; k < 6 && (c[i].chain[k] == 0 || c[i].chain[k] == 43 || c[i].chain[k] == 60 ||
				 c[i].chain[k] == 44 || c[i].chain[k] == 51);
		     k++) {
			uint8_t *h = ip + at;
			*nhp = c[i].chain[k];
			memset(h, 0, 8);
			if (c[i].chain[k] == 44) {
				h[2] = (uint8_t)(c[i].frag_off >> 8);
				h[3] = (uint8_t)c[i].frag_off;
			} else if (c[i].chain[k] == 51) {
				h[1] = 0; /* (0 + 2) * 4 = 8 bytes */
			}
			nhp = h;
			at += 8;
		}
		*nhp = c[i].chain[k];
		ip[at] = c[i].type;
		uint32_t plen = at - 40 + 16;
		ip[4] = (uint8_t)(plen >> 8);
		ip[5] = (uint8_t)plen;
		n = 14 + 40 + plen;
		struct pkt_info pi;
		assert_int_equal(pkt_parse(b, n, &pi), PKT_OK);
		uint32_t m = icmp_error_build(out, sizeof(out), b, n, &pi, ICMP_ERR_TTL, mac, src);
		if ((m != 0) != c[i].allowed)
			fail_msg("%s: %s", c[i].what, m ? "an error was built" : "no error");
		/* the packet ends inside its chain of headers: none (it may hide an error) */
		if (c[i].allowed && c[i].chain[1] != 17) {
			ip[4] = 0;
			ip[5] = 8;
			assert_int_equal(pkt_parse(b, 14 + 48, &pi), PKT_OK);
			assert_int_equal(icmp_error_build(out, sizeof(out), b, 14 + 48, &pi,
							  ICMP_ERR_TTL, mac, src),
					 0);
		}
	}
}

/* Fragmentation Needed (RFC 1191 §4) and Packet Too Big (RFC 4443 §3.2)
 * carry the next hop's MTU; icmp_error_build makes neither */
static void icmp_too_big(void **state)
{
	uint8_t b[1600], out[ICMP_ERR_FRAME_MAX];
	struct pkt_info pi;
	struct pg g;
	pg_defaults(&g);
	g.size = 1514;
	uint32_t n = pg_build(&g, b);
	assert_int_equal(pkt_parse(b, n, &pi), PKT_OK);
	const uint8_t mac[6] = {2, 0, 0, 0, 9, 9}, src4[4] = {10, 0, 1, 1};
	assert_int_equal(icmp_error_build(out, sizeof(out), b, n, &pi, ICMP_ERR_TOO_BIG, mac, src4),
			 0);
	uint32_t m = icmp_too_big_build(out, sizeof(out), b, n, &pi, 1400, mac, src4);
	assert_int_equal(m, 14 + 576); /* quoted up to 576 bytes of IP (RFC 1812 §4.3.2.3) */
	const uint8_t *ic = out + 14 + 20;
	assert_int_equal(ic[0], 3);
	assert_int_equal(ic[1], 4);
	assert_int_equal(ic[4] << 8 | ic[5], 0);    /* unused */
	assert_int_equal(ic[6] << 8 | ic[7], 1400); /* next-hop MTU */
	assert_int_equal(csum(ic, m - 14 - 20, 0), 0);
	assert_string_equal(icmp_err_name(ICMP_ERR_TOO_BIG), "too-big");

	g.family = 6;
	inet_pton(AF_INET6, "2001:db8:2::2", g.dst);
	inet_pton(AF_INET6, "2001:db8:1::2", g.src);
	n = pg_build(&g, b);
	assert_int_equal(pkt_parse(b, n, &pi), PKT_OK);
	uint8_t src6[16];
	inet_pton(AF_INET6, "2001:db8:1::1", src6);
	m = icmp_too_big_build(out, sizeof(out), b, n, &pi, 1280, mac, src6);
	assert_int_equal(m, 14 + 1280);
	const uint8_t *ip = out + 14;
	ic = ip + 40;
	assert_int_equal(ic[0], 2);
	assert_int_equal(ic[1], 0);
	assert_int_equal(
		(uint32_t)ic[4] << 24 | (uint32_t)ic[5] << 16 | (uint32_t)ic[6] << 8 | ic[7], 1280);
	assert_int_equal(csum6(ip, 1280 - 40), 0);
}

int main(int argc, char **argv)
{
	xdp_obj = argc > 1 ? argv[1] : "tdpd_xdp.o";
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rx_rule_classes),
		cmocka_unit_test(xdp_program_agrees),
		cmocka_unit_test(icmp_errors_v4),
		cmocka_unit_test(icmp_too_big),
		cmocka_unit_test(icmp_errors_v6),
		cmocka_unit_test(icmp6_error_behind_extension_headers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
