/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Packet parsing, flow classification and the forwarding rewrite, on plain
 * byte buffers so they are unit-tested and fuzzed without DPDK.
 *
 * pkt_parse reads Ethernet, up to two VLAN tags (802.1Q/802.1ad; the outer
 * tag's VID and PCP are the packet's), an MPLS stack (the top label is the
 * packet's; IP under the bottom of stack is parsed too), IPv4 and IPv6 (with
 * hop-by-hop, routing and destination-options headers skipped) and UDP. It
 * never reads past len and reports what is wrong with a malformed packet.
 */
#ifndef TDP_PKT_H
#define TDP_PKT_H

#include <stdbool.h>
#include <stdint.h>

#include "tdp_sched.h"

enum pkt_err {
	PKT_OK = 0,
	PKT_RUNT = -1,	   /* shorter than an Ethernet header, or than a header it announces */
	PKT_BAD_IP = -2,   /* IP version, header length or total length wrong */
	PKT_BAD_MPLS = -3, /* MPLS stack without a bottom within the packet */
};

enum {
	PKT_F_VLAN = 1u << 0,
	PKT_F_MPLS = 1u << 1,
	PKT_F_UDP = 1u << 2,
	PKT_F_FRAG = 1u << 3, /* an IPv4 fragment other than the first */
	PKT_F_DF = 1u << 4,   /* IPv4 Don't Fragment */
};

struct pkt_info {
	uint32_t flags;
	uint16_t vlan; /* outer VID */
	uint8_t pcp;
	uint8_t family;	 /* 4, 6 or 0 (not IP) */
	uint32_t mpls;	 /* top label */
	uint16_t l3_off; /* offset of the IP header */
	uint16_t l3_len; /* IPv4 total length or IPv6 40 + payload length */
	uint8_t dscp;
	uint8_t ttl; /* TTL or hop limit */
	uint16_t udp_dport;
	uint16_t l4_off;    /* offset of the UDP header when PKT_F_UDP */
	uint16_t ethertype; /* after the VLAN tags (0x8847 for MPLS) */
	uint8_t proto;	    /* IP protocol after IPv6's extension headers; 0 unknown or not IP */
	uint16_t l4p_off;   /* offset of that protocol's header, 0 when unknown */
	uint8_t dst[16];    /* IPv4 in the first 4 bytes */
	uint8_t src[16];
	uint32_t l4_ports; /* TCP, UDP, SCTP, UDP-Lite: source port << 16 | destination port; else 0 */
};

int pkt_parse(const uint8_t *p, uint32_t len, struct pkt_info *pi);
const char *pkt_err_name(int err);

/* ---- classification by the table's flow matches ----------------------- */

struct cls;

/* Builds the classifier for the table's flows. NULL on allocation failure. */
struct cls *cls_build(const struct sched_table *t);
void cls_free(struct cls *c);
/* The flow the packet belongs to, or -1. Flows of a valid table never overlap,
 * so at most one matches. O(number of distinct match shapes). */
int cls_lookup(const struct cls *c, const struct pkt_info *pi);

/*
 * A flow's key, whatever its shape, in three words: w packs the scalar
 * fields (MPLS label 20 bits, VID 12, UDP port 16, DSCP 6, PCP 3, family 4),
 * d the destination masked to the group's prefix (an IPv4 address in d[0]'s
 * first four bytes, as pkt_info holds it). A group's fields not matched are 0.
 */
struct cls_key {
	uint64_t w;
	uint64_t d[2];
};
/* A packet's keys in the first CLS_PROBE_GROUPS groups and their slots,
 * worked out once, and cls_lookup_probe finishes the lookup from it.
 * cls_prefetch fills it and asks the CPU for the slots at once; cls_probe
 * fills it and keeps their addresses for cls_ask. RX asks for a burst's
 * slots in a pass of its own after the parse where they are too many to stay
 * in the cache: asked for amid the parse, each slot's miss held the parse up
 * (at 10^6 flows the parse took 115 cycles a packet, 62 with the pass
 * apart). */
#define CLS_PROBE_GROUPS 2
struct cls_probe {
	struct cls_key k[CLS_PROBE_GROUPS];
	uint32_t s[CLS_PROBE_GROUPS];	  /* UINT32_MAX: the packet lacks a field of the group */
	const void *at[CLS_PROBE_GROUPS]; /* slot s[i]'s address; NULL without */
};
/* p for pi; the slots of the shapes past the probe's are asked for at once */
void cls_prefetch(const struct cls *c, const struct pkt_info *pi, struct cls_probe *p);
void cls_probe(const struct cls *c, const struct pkt_info *pi, struct cls_probe *p);
static inline void cls_ask(const struct cls_probe *p)
{
	for (int i = 0; i < CLS_PROBE_GROUPS; i++)
		if (p->at[i])
			__builtin_prefetch(p->at[i]);
}
/* cls_lookup's answer, from p */
int cls_lookup_probe(const struct cls *c, const struct pkt_info *pi, const struct cls_probe *p);
uint32_t cls_groups(const struct cls *c);
/* the bytes of c's slots */
size_t cls_bytes(const struct cls *c);

/* ---- forwarding rewrite ----------------------------------------------- */

/* IPv4 header checksum over hdr (ihl*4 bytes); 0 when the header is intact. */
uint16_t pkt_ip4_csum(const uint8_t *hdr, unsigned len);
/*
 * Routes the frame to the next hop: destination MAC = dst, source MAC = src,
 * TTL or hop limit minus one with the IPv4 checksum updated incrementally
 * (RFC 1624). Returns 0, or -1 when the TTL would expire (frame untouched).
 * Non-IP frames only get the MACs.
 */
int pkt_forward(uint8_t *frame, const struct pkt_info *pi, const uint8_t src[6],
		const uint8_t dst[6]);

#endif
