/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ICMP errors a router owes the sender of a packet it cannot forward:
 * Time Exceeded when the TTL or hop limit runs out, Destination Unreachable
 * when there is no route or the next hop does not answer ARP/ND, and for a
 * packet larger than the egress MTU IPv4's Fragmentation Needed (RFC 1191,
 * RFC 1812 §5.2.7.1) or IPv6's Packet Too Big (RFC 4443 §3.2, RFC 8201),
 * with the next hop's MTU, so path MTU discovery works through the router. Built on a
 * plain buffer, so they are unit-tested and fuzzed without DPDK.
 *
 * The error goes back to the frame's link-layer source on the port it came
 * in by, with its VLAN tags, from the router's address on that port:
 * RFC 1812 §4.3.2.4 (the source address), §4.3.2.3 (as much of the original
 * as fits in 576 bytes), §4.3.2.7 (never about an ICMP error, a fragment
 * other than the first, a link-layer or IP broadcast or multicast, or a
 * source that is not a single host). For IPv6, RFC 4443 §2.2, §2.4 (c) and
 * (e) (the original up to the minimum MTU of 1280 bytes), §3.1 and §3.3.
 */
#ifndef TDP_ICMPERR_H
#define TDP_ICMPERR_H

#include <stdint.h>

#include "pkt.h"

enum icmp_err {
	ICMP_ERR_TTL,	   /* v4 11/0, v6 3/0 */
	ICMP_ERR_NO_ROUTE, /* v4 3/0 (net unreachable), v6 1/0 (no route) */
	ICMP_ERR_NO_NEIGH, /* v4 3/1 (host unreachable), v6 1/3 (address unreachable) */
	ICMP_ERR_TOO_BIG,  /* v4 3/4 (fragmentation needed, DF set), v6 2/0 (packet too big) */
	ICMP_ERR_MAX
};

/* The largest frame icmp_error_build writes: IPv6's 1280 bytes behind an
 * Ethernet header and two VLAN tags. */
#define ICMP_ERR_FRAME_MAX (14 + 8 + 1280)

/* Writes the error about frame orig (len bytes, parsed as pi; IP, not
 * labelled) into out (cap bytes), from mac and src_ip (4 or 16 bytes, pi's
 * family). Returns the frame's length, or 0 when no error may be sent about
 * this packet (the rules above) or cap is too small. */
uint32_t icmp_error_build(uint8_t *out, uint32_t cap, const uint8_t *orig, uint32_t len,
			  const struct pkt_info *pi, enum icmp_err kind, const uint8_t mac[6],
			  const uint8_t *src_ip);
/* icmp_error_build for ICMP_ERR_TOO_BIG (which icmp_error_build refuses):
 * mtu is the next hop's. */
uint32_t icmp_too_big_build(uint8_t *out, uint32_t cap, const uint8_t *orig, uint32_t len,
			    const struct pkt_info *pi, uint32_t mtu, const uint8_t mac[6],
			    const uint8_t *src_ip);
/* True when the rules allow an error about this packet at all. */
int icmp_error_allowed(const uint8_t *orig, uint32_t len, const struct pkt_info *pi);
const char *icmp_err_name(enum icmp_err k);

#endif
