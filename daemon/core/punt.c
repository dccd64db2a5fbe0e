/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdbool.h>

#include "punt.h"
#include "tdp_names.h"

#define ET_ARP 0x0806
#define ET_PTP 0x88f7
#define PROTO_ICMP6 58

enum punt_class punt_classify(const uint8_t *d, uint32_t len, const struct pkt_info *pi)
{
	if (pi->flags & PKT_F_MPLS)
		return PUNT_NONE;
	if (pi->ethertype == ET_ARP)
		return PUNT_ARP;
	if (pi->ethertype == ET_PTP)
		return PUNT_PTP;
	const uint8_t *a = pi->dst;
	/* PTP's multicast; unicast PTP to another host is routed like any packet,
	 * and to one of ours it is PUNT_LOCAL */
	bool mcast = pi->family == 4 ? (a[0] & 0xf0) == 224 : a[0] == 0xff;
	if ((pi->flags & PKT_F_UDP) && (pi->udp_dport == 319 || pi->udp_dport == 320) && mcast)
		return PUNT_PTP;
	if (pi->family == 4) {
		if ((a[0] == 224 && a[1] == 0 && a[2] == 0) || (a[0] & a[1] & a[2] & a[3]) == 255)
			return PUNT_LINK;
	} else if (pi->family == 6) {
		if (pi->proto == PROTO_ICMP6 && pi->l4p_off && pi->l4p_off < len &&
		    d[pi->l4p_off] >= 133 && d[pi->l4p_off] <= 137)
			return PUNT_ND;
		if ((a[0] == 0xfe && (a[1] & 0xc0) == 0x80) || (a[0] == 0xff && (a[1] & 0x0f) <= 2))
			return PUNT_LINK;
	}
	return PUNT_NONE;
}

const char *punt_class_name(enum punt_class c)
{
	static const char *const n[PUNT_MAX] = {
		[PUNT_NONE] = "none", [PUNT_ARP] = "arp",	  [PUNT_ND] = "nd",
		[PUNT_PTP] = "ptp",   [PUNT_LINK] = "link-scope", [PUNT_LOCAL] = "local",
	};
	return TDP_NAME_OF(n, c, "unknown");
}
