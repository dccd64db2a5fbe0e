/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What belongs to the router's host stack rather than to its data path: the
 * kernel answers ARP and neighbour discovery, runs PTP and the routing
 * protocols, and answers for the router's own addresses; tdpd forwards the
 * rest. The same rule is written twice, here for tdpd's RX (af_packet ports,
 * where the kernel sees every frame, and the exception path of ports whose
 * NIC left the kernel) and in bpf/tdpd_xdp.c for the XDP program of af_xdp
 * ports; test_punt runs both over the same frames and requires the same answer.
 *
 * The classes, by the standards that keep them on the link:
 *  - ARP (ethertype 0x0806) and IPv6 neighbour discovery (ICMPv6 133-137,
 *    RFC 4861 §4);
 *  - PTP: ethertype 0x88F7 (IEEE 1588-2008 Annex F) and UDP 319/320 to a
 *    multicast group (Annex D: 224.0.1.129, 224.0.0.107; Annex E: ff0x::181,
 *    ff02::6b); unicast PTP through the router is forwarded like any packet;
 *  - link-scoped traffic a router must not forward: IPv4 224.0.0.0/24
 *    (RFC 5771 §4: OSPF, RIP, VRRP, PIM) and 255.255.255.255 (RFC 919), IPv6
 *    link-local destinations fe80::/10 (RFC 4291 §2.5.6) and multicast of
 *    interface- or link-local scope ff01::/16, ff02::/16 (RFC 4291 §2.7).
 * The router's own unicast addresses are the fifth class; RX finds them in
 * its routes (ROUTE_LOCAL), the XDP program in a map tdpd fills.
 */
#ifndef TDP_PUNT_H
#define TDP_PUNT_H

#include <stdint.h>

#include "pkt.h"

enum punt_class {
	PUNT_NONE = 0, /* the data path's */
	PUNT_ARP,
	PUNT_ND,
	PUNT_PTP,
	PUNT_LINK,  /* link-scoped destination */
	PUNT_LOCAL, /* one of the router's own addresses */
	PUNT_MAX
};

/* The class of a frame pkt_parse accepted (d and pi as it saw them); never
 * PUNT_LOCAL, which takes the routes. Labelled (MPLS) frames are the data
 * path's. */
enum punt_class punt_classify(const uint8_t *d, uint32_t len, const struct pkt_info *pi);
const char *punt_class_name(enum punt_class c);

#endif
