/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Hop stamps: what a router writes into a probe packet (tdp-probe(8)) of a
 * flow with the `stamp` option, just before it pushes it, in the slot layout
 * probe_wire.h defines. The UDP checksum is updated incrementally (RFC 1624),
 * and left alone when it is 0 over IPv4 (no checksum). Pure: the engine
 * locates the slot while it stages the frame (a read) and writes it after the
 * wait, when the push time is known. Fuzzed through stamp_locate.
 */
#ifndef TDP_STAMP_H
#define TDP_STAMP_H

#include <stdint.h>

#include "probe_wire.h"

struct stamp_slot {
	uint8_t *hdr;  /* the probe header */
	uint8_t *csum; /* the UDP checksum, or NULL: none to keep */
	uint8_t flags;
	int64_t probe_frame; /* frame i from the header */
};

enum stamp_rc {
	STAMP_OK = 0,
	STAMP_NOT_PROBE = -1,
	STAMP_FULL = -2
};

/* Finds where this node's stamp goes. NOT_PROBE for anything but a probe
 * (kind probe) of our version; FULL when the packet has no free slot. */
int stamp_locate(uint8_t *frame, uint32_t len, struct stamp_slot *s);
/* The stamp's frame field: frame less the probe's own frame, which comes
 * from the packet (any value): saturated to the 32-bit field, never an
 * overflow. */
int32_t stamp_frame_delta(int64_t frame, int64_t probe_frame);
/* Writes the stamp: node, flags, frame and push offset; counts it. */
void stamp_write(const struct stamp_slot *s, uint16_t node, int64_t frame, int32_t push_off);

#endif
