/* SPDX-License-Identifier: BSD-3-Clause */
/* Builds test frames: Ethernet [VLAN] [MPLS] IPv4/IPv6 UDP, checksummed. */
#ifndef TDP_PKTGEN_H
#define TDP_PKTGEN_H

#include <stdint.h>
#include <string.h>

struct pg {
	int vlan; /* -1: untagged */
	int pcp;
	int mpls;   /* -1: no label */
	int family; /* 4 or 6 */
	uint8_t dscp;
	uint8_t ttl;
	uint8_t dst[16];
	uint8_t src[16];
	uint16_t dport;
	uint32_t size; /* frame size without FCS; at least the headers */
	uint8_t dmac[6], smac[6];
};

static inline void pg_defaults(struct pg *g)
{
	memset(g, 0, sizeof(*g));
	g->vlan = -1;
	g->mpls = -1;
	g->family = 4;
	g->ttl = 64;
	g->size = 100;
	g->dport = 9;
	uint8_t d[4] = {10, 0, 2, 2}, s[4] = {10, 0, 1, 2};
	memcpy(g->dst, d, 4);
	memcpy(g->src, s, 4);
	uint8_t dm[6] = {2, 0, 0, 0, 0, 1}, sm[6] = {2, 0, 0, 0, 0, 2};
	memcpy(g->dmac, dm, 6);
	memcpy(g->smac, sm, 6);
}

static inline void pg_w16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* Writes the frame into buf (at least g->size bytes); returns its length. */
static inline uint32_t pg_build(const struct pg *g, uint8_t *buf)
{
	memset(buf, 0, g->size);
	memcpy(buf, g->dmac, 6);
	memcpy(buf + 6, g->smac, 6);
	uint32_t off = 12;
	if (g->vlan >= 0) {
		pg_w16(buf + off, 0x8100);
		pg_w16(buf + off + 2, (uint16_t)(g->pcp << 13 | g->vlan));
		off += 4;
	}
	if (g->mpls >= 0) {
		pg_w16(buf + off, 0x8847);
		off += 2;
		uint32_t e = (uint32_t)g->mpls << 12 | 0x100 | 64;
		pg_w16(buf + off, (uint16_t)(e >> 16));
		pg_w16(buf + off + 2, (uint16_t)e);
		off += 4;
	} else {
		pg_w16(buf + off, g->family == 4 ? 0x0800 : 0x86dd);
		off += 2;
	}
	uint8_t *ip = buf + off;
	uint32_t l3 = g->size - off;
	if (g->family == 4) {
		ip[0] = 0x45;
		ip[1] = (uint8_t)(g->dscp << 2);
		pg_w16(ip + 2, (uint16_t)l3);
		ip[8] = g->ttl;
		ip[9] = 17;
		memcpy(ip + 12, g->src, 4);
		memcpy(ip + 16, g->dst, 4);
		uint32_t sum = 0;
		for (int i = 0; i < 20; i += 2)
			sum += (uint32_t)(ip[i] << 8 | ip[i + 1]);
		while (sum >> 16)
			sum = (sum & 0xffff) + (sum >> 16);
		pg_w16(ip + 10, (uint16_t)~sum);
		pg_w16(ip + 20, 1234);
		pg_w16(ip + 22, g->dport);
		pg_w16(ip + 24, (uint16_t)(l3 - 20));
	} else {
		ip[0] = (uint8_t)(0x60 | g->dscp >> 2);
		ip[1] = (uint8_t)(g->dscp << 6);
		pg_w16(ip + 4, (uint16_t)(l3 - 40));
		ip[6] = 17;
		ip[7] = g->ttl;
		memcpy(ip + 8, g->src, 16);
		memcpy(ip + 24, g->dst, 16);
		pg_w16(ip + 40, 1234);
		pg_w16(ip + 42, g->dport);
		pg_w16(ip + 44, (uint16_t)(l3 - 40));
	}
	return g->size;
}

#endif
