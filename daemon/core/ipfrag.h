/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv4 fragmentation on plain buffers (unit-tested and fuzzed without DPDK):
 * a packet larger than the egress MTU, without Don't Fragment, is cut into
 * fragments as RFC 791 §3.2 and RFC 1812 §4.2.2.7 say: each fragment's data
 * a multiple of 8 bytes but the last's, the first with every option of the
 * header, the others with only the options whose copied flag is set
 * (RFC 791 §3.1), the offset and More Fragments carried over from a packet
 * that was a fragment already, the header checksum computed anew. Each
 * fragment keeps the frame's link-layer header.
 */
#ifndef TDP_IPFRAG_H
#define TDP_IPFRAG_H

#include <stdint.h>

#include "pkt.h"

/* Writes into out (cap bytes) the fragment of frame (len bytes, IPv4,
 * parsed as pi) whose data start at *off bytes into the packet's data, for
 * an egress MTU of mtu bytes of IP, and moves *off past it. Returns the
 * fragment's frame length, 0 when *off is past the data (all written), or
 * -1 when the packet may not or cannot be fragmented: DF set, not IPv4, an
 * MTU below 68 (RFC 791's minimum), or cap too small. */
int32_t ip4_frag_next(const uint8_t *frame, uint32_t len, const struct pkt_info *pi, uint32_t mtu,
		      uint32_t *off, uint8_t *out, uint32_t cap);

#endif
