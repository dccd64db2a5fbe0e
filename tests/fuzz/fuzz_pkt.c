/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target for what arrives on the wire: pkt_parse must never read
 * past the frame, classification must give a flow of the table or -1, and the
 * forwarding rewrite of an IPv4 packet must leave a valid header checksum
 * valid. A hop stamp goes only where stamp_locate found room, inside the
 * frame, and a second one only where it found room again. An IPv4 packet's
 * fragments, for an MTU the input's first byte picks, each fit the MTU and
 * their buffer, carry valid header checksums, and their data add up to the
 * packet's; the too-big ICMP error about it fits its buffer.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "icmperr.h"
#include "ipfrag.h"
#include "pkt.h"
#include "stamp.h"
#include "tdp_sched.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char table[] = "tdp-schedule 1\ntf 1ms\nk 10\nport out rate 1Gbit/s\n"
			    "flow a port out size 100 dscp 46 udp-dport 5000\n"
			    "flow b port out size 100 dscp 34 dst 10.9.0.0/16\n"
			    "flow c port out size 100 dscp 10 dst 2001:db8::/32\n"
			    "flow d port out size 100 dscp 12 vlan 42\n"
			    "flow e port out size 100 dscp 20 mpls 1000\n"
			    "frames 0: a 1\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sched_table *t;
	static struct cls *c;
	if (!t) {
		struct sched_diags d;
		sched_diags_init(&d, "fuzz");
		t = sched_parse(table, sizeof(table) - 1, &d);
		sched_diags_free(&d);
		if (!t)
			abort();
		c = cls_build(t);
	}
	if (size > 65535)
		return 0;
	/* an exact-size copy, so ASan sees any read past the frame */
	uint8_t *p = malloc(size ? size : 1);
	memcpy(p, data, size);
	struct pkt_info pi;
	if (pkt_parse(p, (uint32_t)size, &pi) == PKT_OK && size) {
		static uint8_t out[70000];
		uint32_t mtu = 60 + (uint32_t)p[0] * 8, off = 0, got = 0;
		int32_t n;
		unsigned hl0 = pi.family == 4 ? (p[pi.l3_off] & 15u) * 4 : 0;
		while ((n = ip4_frag_next(p, (uint32_t)size, &pi, mtu, &off, out, sizeof(out))) >
		       0) {
			const uint8_t *ip = out + pi.l3_off;
			unsigned hl = (ip[0] & 15u) * 4, tot = (unsigned)(ip[2] << 8 | ip[3]);
			if (tot > mtu || (uint32_t)n != pi.l3_off + tot ||
			    pkt_ip4_csum(ip, hl) != 0)
				abort();
			got += tot - hl;
		}
		if (n == 0 && got != pi.l3_len - hl0)
			abort();
		static const uint8_t src[16] = {10, 0, 0, 1};
		if (icmp_too_big_build(out, ICMP_ERR_FRAME_MAX, p, (uint32_t)size, &pi, mtu, p,
				       src) > ICMP_ERR_FRAME_MAX)
			abort();
	}
	if (pkt_parse(p, (uint32_t)size, &pi) == PKT_OK) {
		int f = cls_lookup(c, &pi);
		if (f < -1 || f >= (int)t->nflows)
			abort();
		bool ip4 = pi.family == 4 && !(pi.flags & PKT_F_MPLS);
		unsigned ihl = ip4 ? (p[pi.l3_off] & 15u) * 4 : 0;
		bool csum_ok = ip4 && pkt_ip4_csum(p + pi.l3_off, ihl) == 0;
		static const uint8_t mac[6] = {2, 0, 0, 0, 0, 1};
		if (pkt_forward(p, &pi, mac, mac) == 0 && csum_ok &&
		    pkt_ip4_csum(p + pi.l3_off, ihl) != 0)
			abort();
	}
	/* a frame index of the engine's, from the input's last bytes: anywhere
	 * in the 64-bit range against the packet's own */
	int64_t engine_frame = 0;
	for (size_t i = size > 8 ? size - 8 : 0; i < size; i++)
		engine_frame = (int64_t)((uint64_t)engine_frame << 8 | data[i]);
	struct stamp_slot s;
	for (int k = 0; k < 20 && stamp_locate(p, (uint32_t)size, &s) == STAMP_OK; k++) {
		if (k == PROBE_MAX_HOPS)
			abort(); /* never more stamps than the format has */
		/* the engine's frame is its own, whatever the packet's says */
		stamp_write(&s, 1, engine_frame, 1000);
	}
	free(p);
	return 0;
}
