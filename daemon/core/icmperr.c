/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include "icmperr.h"
#include "tdp_names.h"

#define V4_QUOTE_MAX (576 - 20 - 8)
#define V6_QUOTE_MAX (1280 - 40 - 8)

static void wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static uint32_t sum16(uint32_t s, const uint8_t *p, uint32_t n)
{
	for (uint32_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	return s;
}

static uint16_t fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

static int v4_single_host(const uint8_t *a)
{
	/* not 0/8, loopback, multicast, class E or the limited broadcast */
	return a[0] != 0 && a[0] != 127 && a[0] < 224;
}

static int is_icmp_error(const uint8_t *orig, uint32_t len, const struct pkt_info *pi)
{
	if (!pi->l4p_off || pi->l4p_off >= len)
		return 0;
	uint8_t type = orig[pi->l4p_off];
	if (pi->family == 4 && pi->proto == 1)
		return type == 3 || type == 4 || type == 5 || type == 11 || type == 12;
	return 0;
}

/* IPv6: whether an error may be sent about the packet, from its upper-layer
 * header found through every extension header, fragments included (RFC 8200
 * §4): not about an ICMPv6 error (RFC 4443 §2.4 (e)), nor about a fragment
 * other than the first, nor about a packet whose chain of headers cannot be
 * followed to its upper layer within what was received (it may hide one). */
static int v6_upper_allows(const uint8_t *orig, uint32_t len, const struct pkt_info *pi)
{
	uint32_t end = pi->l3_off + (uint32_t)pi->l3_len;
	if (end > len)
		end = len;
	uint32_t at = pi->l3_off + 40u;
	if (at > end)
		return 0;
	uint8_t nh = orig[pi->l3_off + 6];
	for (;;) {
		if (nh == 0 || nh == 43 || nh == 60 || nh == 51) {
			/* hop-by-hop, routing, destination options; AH in 4-byte units (RFC 4302 §2.2) */
			if (at + 2 > end)
				return 0;
			uint32_t l = nh == 51 ? (orig[at + 1] + 2u) * 4u : 8u + orig[at + 1] * 8u;
			nh = orig[at];
			at += l;
		} else if (nh == 44) {
			if (at + 8 > end)
				return 0;
			if ((orig[at + 2] << 8 | orig[at + 3]) & 0xfff8)
				return 0; /* not the first fragment */
			nh = orig[at];
			at += 8;
		} else {
			break;
		}
	}
	if (nh == 58) {
		if (at + 1 > end)
			return 0;
		return orig[at] >= 128; /* informational only */
	}
	return 1;
}

int icmp_error_allowed(const uint8_t *orig, uint32_t len, const struct pkt_info *pi)
{
	if ((pi->family != 4 && pi->family != 6) || (pi->flags & PKT_F_MPLS) || len < 14)
		return 0;
	if (orig[0] & 1) /* link-layer multicast or broadcast */
		return 0;
	if (is_icmp_error(orig, len, pi))
		return 0;
	if (pi->family == 4) {
		if (pi->flags & PKT_F_FRAG)
			return 0;
		return v4_single_host(pi->dst) && v4_single_host(pi->src);
	}
	static const uint8_t zero[16];
	if (!v6_upper_allows(orig, len, pi))
		return 0;
	return pi->dst[0] != 0xff && pi->src[0] != 0xff && memcmp(pi->src, zero, 16) != 0;
}

static uint32_t build(uint8_t *out, uint32_t cap, const uint8_t *orig, uint32_t len,
		      const struct pkt_info *pi, enum icmp_err kind, uint32_t mtu,
		      const uint8_t mac[6], const uint8_t *src_ip)
{
	if (kind >= ICMP_ERR_MAX || !icmp_error_allowed(orig, len, pi))
		return 0;
	uint32_t l2 = pi->l3_off;
	uint32_t avail = len - l2 < pi->l3_len ? len - l2 : pi->l3_len;
	int v4 = pi->family == 4;
	uint32_t iph = v4 ? 20 : 40;
	uint32_t quote = avail < (v4 ? V4_QUOTE_MAX : V6_QUOTE_MAX)
				 ? avail
				 : (v4 ? V4_QUOTE_MAX : V6_QUOTE_MAX);
	uint32_t total = l2 + iph + 8 + quote;
	uint32_t frame = total < 60 ? 60 : total;
	if (frame > cap)
		return 0;
	memset(out, 0, frame);
	/* link layer: back to the sender, with its tags */
	memcpy(out, orig + 6, 6);
	memcpy(out + 6, mac, 6);
	memcpy(out + 12, orig + 12, l2 - 12);
	uint8_t *ip = out + l2, *ic = ip + iph;
	memcpy(ic + 8, orig + l2, quote);
	static const uint8_t types[2][ICMP_ERR_MAX][2] = {
		{{11, 0}, {3, 0}, {3, 1}, {3, 4}}, /* RFC 792; RFC 1191 §4 (fragmentation needed) */
		{{3, 0}, {1, 0}, {1, 3}, {2, 0}},  /* RFC 4443 §3.1, §3.2, §3.3 */
	};
	ic[0] = types[!v4][kind][0];
	ic[1] = types[!v4][kind][1];
	if (kind == ICMP_ERR_TOO_BIG) {
		/* the next hop's MTU: the low 16 bits of the second word (RFC 1191
		 * §4), or the whole word (RFC 4443 §3.2) */
		if (v4)
			wr16(ic + 6, (uint16_t)(mtu > 0xffff ? 0xffff : mtu));
		else
			for (int i = 0; i < 4; i++)
				ic[4 + i] = (uint8_t)(mtu >> (24 - 8 * i));
	}
	if (v4) {
		ip[0] = 0x45;
		ip[1] = 0xc0; /* internetwork control, as routers send their errors */
		wr16(ip + 2, (uint16_t)(iph + 8 + quote));
		ip[8] = 64;
		ip[9] = 1;
		memcpy(ip + 12, src_ip, 4);
		memcpy(ip + 16, pi->src, 4);
		wr16(ip + 10, fold(sum16(0, ip, 20)));
		wr16(ic + 2, fold(sum16(0, ic, 8 + quote)));
	} else {
		ip[0] = 0x60;
		wr16(ip + 4, (uint16_t)(8 + quote));
		ip[6] = 58;
		ip[7] = 64;
		memcpy(ip + 8, src_ip, 16);
		memcpy(ip + 24, pi->src, 16);
		/* pseudo-header: addresses, upper-layer length, next header */
		uint32_t s = sum16(0, ip + 8, 32);
		s += 8 + quote;
		s += 58;
		wr16(ic + 2, fold(sum16(s, ic, 8 + quote)));
	}
	return frame;
}

uint32_t icmp_error_build(uint8_t *out, uint32_t cap, const uint8_t *orig, uint32_t len,
			  const struct pkt_info *pi, enum icmp_err kind, const uint8_t mac[6],
			  const uint8_t *src_ip)
{
	return kind == ICMP_ERR_TOO_BIG ? 0 : build(out, cap, orig, len, pi, kind, 0, mac, src_ip);
}

uint32_t icmp_too_big_build(uint8_t *out, uint32_t cap, const uint8_t *orig, uint32_t len,
			    const struct pkt_info *pi, uint32_t mtu, const uint8_t mac[6],
			    const uint8_t *src_ip)
{
	return build(out, cap, orig, len, pi, ICMP_ERR_TOO_BIG, mtu, mac, src_ip);
}

const char *icmp_err_name(enum icmp_err k)
{
	static const char *const n[ICMP_ERR_MAX] = {
		[ICMP_ERR_TTL] = "time-exceeded",
		[ICMP_ERR_NO_ROUTE] = "net-unreachable",
		[ICMP_ERR_NO_NEIGH] = "host-unreachable",
		[ICMP_ERR_TOO_BIG] = "too-big",
	};
	return TDP_NAME_OF(n, k, "unknown");
}
