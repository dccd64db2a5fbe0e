/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdint.h>
#include <string.h>

#include "pkt.h"
#include "stamp.h"

static inline uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline void wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

int stamp_locate(uint8_t *frame, uint32_t len, struct stamp_slot *s)
{
	struct pkt_info pi;
	if (pkt_parse(frame, len, &pi) != PKT_OK || !(pi.flags & PKT_F_UDP))
		return STAMP_NOT_PROBE;
	uint8_t *udp = frame + pi.l4_off;
	uint32_t ulen = rd16(udp + 4);
	/* the UDP length must lie inside the frame and hold a probe header */
	if (ulen < 8 + PROBE_HDR_LEN || pi.l4_off + ulen > len)
		return STAMP_NOT_PROBE;
	uint8_t *h = udp + 8;
	if (rd16(h + PROBE_OFF_MAGIC) != PROBE_MAGIC || h[PROBE_OFF_VERSION] != PROBE_VERSION ||
	    (h[PROBE_OFF_KIND] & PROBE_KIND_MASK) != PROBE_K_PROBE)
		return STAMP_NOT_PROBE;
	uint32_t room = (ulen - 8 - PROBE_HDR_LEN) / PROBE_STAMP_LEN;
	if (room > PROBE_MAX_HOPS)
		room = PROBE_MAX_HOPS;
	if ((uint32_t)(h[PROBE_OFF_KIND] >> PROBE_HOPS_SHIFT) >= room)
		return STAMP_FULL;
	s->hdr = h;
	uint16_t c = rd16(udp + 6);
	s->csum = c == 0 && pi.family == 4 ? NULL : udp + 6;
	uint64_t fr = 0;
	for (int i = 0; i < 8; i++)
		fr = fr << 8 | h[PROBE_OFF_FRAME + i];
	s->probe_frame = (int64_t)fr;
	s->flags = 0;
	return STAMP_OK;
}

/* one's complement sum of the 16-bit words of an even-length run */
static uint32_t sum16(const uint8_t *p, unsigned n)
{
	uint32_t s = 0;
	for (unsigned i = 0; i < n; i += 2)
		s += rd16(p + i);
	return s;
}

int32_t stamp_frame_delta(int64_t frame, int64_t probe_frame)
{
	/* probe_frame is the packet's, any 64-bit value: the difference is
	 * taken without overflow and held to the field's range */
	int64_t d;
	if (__builtin_sub_overflow(frame, probe_frame, &d))
		return frame < 0 ? INT32_MIN : INT32_MAX;
	return d > INT32_MAX ? INT32_MAX : d < INT32_MIN ? INT32_MIN : (int32_t)d;
}

void stamp_write(const struct stamp_slot *s, uint16_t node, int64_t frame, int32_t push_off)
{
	uint8_t *h = s->hdr;
	unsigned k = h[PROBE_OFF_KIND] >> PROBE_HOPS_SHIFT;
	uint8_t *at = h + PROBE_HDR_LEN + PROBE_STAMP_LEN * k;
	/* the words that change: the header's kind/count word and the slot */
	uint32_t old = sum16(h + 2, 2) + sum16(at, PROBE_STAMP_LEN);
	uint32_t df = (uint32_t)stamp_frame_delta(frame, s->probe_frame), po = (uint32_t)push_off;
	wr16(at, node);
	at[2] = s->flags;
	at[3] = 0;
	wr16(at + 4, (uint16_t)(df >> 16));
	wr16(at + 6, (uint16_t)df);
	wr16(at + 8, (uint16_t)(po >> 16));
	wr16(at + 10, (uint16_t)po);
	h[PROBE_OFF_KIND] = (uint8_t)((h[PROBE_OFF_KIND] & 0x0f) | (k + 1) << PROBE_HOPS_SHIFT);
	if (!s->csum)
		return;
	uint32_t nw = sum16(h + 2, 2) + sum16(at, PROBE_STAMP_LEN);
	/* RFC 1624: HC' = ~(~HC + ~m + m'), with the old words' sum folded first */
	while (old >> 16)
		old = (old & 0xffff) + (old >> 16);
	uint32_t x = (uint16_t)~rd16(s->csum) + (uint16_t)~old + nw;
	while (x >> 16)
		x = (x & 0xffff) + (x >> 16);
	uint16_t c = (uint16_t)~x;
	wr16(s->csum, c ? c : 0xffff); /* UDP sends a computed 0 as all ones */
}
