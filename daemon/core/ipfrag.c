/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdbool.h>
#include <string.h>

#include "ipfrag.h"

static uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* The options of a header (olen bytes at o) whose copied flag is set, into
 * out, padded with End of Option List to a multiple of 4; their length. */
static uint32_t copied_options(const uint8_t *o, uint32_t olen, uint8_t *out)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < olen;) {
		uint8_t t = o[i];
		if (t == 0)
			break;
		if (t == 1) {
			i++;
			continue;
		}
		if (i + 1 >= olen || o[i + 1] < 2 || i + o[i + 1] > olen)
			break; /* a malformed option ends the list */
		uint8_t l = o[i + 1];
		if (t & 0x80) {
			memcpy(out + n, o + i, l);
			n += l;
		}
		i += l;
	}
	while (n & 3)
		out[n++] = 0;
	return n;
}

int32_t ip4_frag_next(const uint8_t *frame, uint32_t len, const struct pkt_info *pi, uint32_t mtu,
		      uint32_t *off, uint8_t *out, uint32_t cap)
{
	if (pi->family != 4 || (pi->flags & (PKT_F_DF | PKT_F_MPLS)) || mtu < 68)
		return -1;
	uint32_t l2 = pi->l3_off;
	const uint8_t *h = frame + l2;
	uint32_t ihl = (h[0] & 15u) * 4, tot = pi->l3_len;
	if (l2 + tot > len || tot < ihl || ihl < 20 || ihl > 60)
		return -1;
	uint32_t data = tot - ihl;
	if (*off >= data)
		return 0;
	uint8_t opts[40];
	uint32_t hl = *off == 0 ? ihl : 20 + copied_options(h + 20, ihl - 20, opts);
	uint32_t room = (mtu - hl) & ~7u;
	if (mtu <= hl || room == 0)
		return -1;
	uint32_t n = data - *off < room ? data - *off : room;
	bool last = *off + n >= data;
	if (l2 + hl + n > cap)
		return -1;
	memcpy(out, frame, l2);
	uint8_t *o = out + l2;
	memcpy(o, h, 20);
	if (*off == 0)
		memcpy(o + 20, h + 20, ihl - 20);
	else
		memcpy(o + 20, opts, hl - 20);
	o[0] = (uint8_t)(0x40 | hl / 4);
	wr16(o + 2, (uint16_t)(hl + n));
	uint16_t fo = rd16(h + 6);
	uint16_t at = (uint16_t)((fo & 0x1fff) + *off / 8);
	/* More Fragments on all but the last, and on the last when the packet
	 * was itself a fragment that is not the last one */
	wr16(o + 6, (uint16_t)(at | ((!last || (fo & 0x2000)) ? 0x2000 : 0)));
	wr16(o + 10, 0);
	wr16(o + 10, pkt_ip4_csum(o, hl));
	memcpy(o + hl, h + ihl + *off, n);
	*off += n;
	return (int32_t)(l2 + hl + n);
}
