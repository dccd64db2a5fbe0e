/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Hop stamps: what a router writes into a probe packet (tdp-probe(8)) of a
 * flow with the `stamp` option, just before it pushes it. The probe header's
 * byte 3 counts the stamps written (bits 4-7); after the 32-byte header come
 * 12-byte slots, as many as the UDP payload has room for (at most 15):
 *
 *   0  u16  node id (tdpd.conf node-id)
 *   2  u8   flags: STAMP_F_LATE when the packet missed its frame here and
 *           went out under the late policy (carried)
 *   3  u8   0
 *   4  i32  frame sent here minus the probe's frame i (the sender's)
 *   8  i32  push time minus the start of that frame, ns
 *
 * Network byte order. The UDP checksum is updated incrementally (RFC 1624),
 * and left alone when it is 0 over IPv4 (no checksum). Pure: the engine
 * locates the slot while it stages the frame (a read) and writes it after the
 * wait, when the push time is known. Fuzzed through stamp_locate.
 */
#ifndef TDP_STAMP_H
#define TDP_STAMP_H

#include <stdint.h>

#define STAMP_PROBE_MAGIC 0x7470
#define STAMP_PROBE_VERSION 1
#define STAMP_HDR_LEN 32
#define STAMP_LEN 12
#define STAMP_MAX 15
#define STAMP_F_LATE 0x01

struct stamp_slot {
	uint8_t *hdr;            /* the probe header */
	uint8_t *csum;           /* the UDP checksum, or NULL: none to keep */
	uint8_t flags;
	int64_t probe_frame;     /* frame i from the header */
};

enum stamp_rc { STAMP_OK = 0, STAMP_NOT_PROBE = -1, STAMP_FULL = -2 };

/* Finds where this node's stamp goes. NOT_PROBE for anything but a probe
 * (kind probe) of our version; FULL when the packet has no free slot. */
int stamp_locate(uint8_t *frame, uint32_t len, struct stamp_slot *s);
/* Writes the stamp: node, flags, frame and push offset; counts it. */
void stamp_write(const struct stamp_slot *s, uint16_t node, int64_t frame, int32_t push_off);

#endif
