/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Static routing for best effort (and the next hop of reserved packets):
 * longest-prefix match over IPv4 and IPv6 routes (DPDK rte_lpm / rte_lpm6) to
 * a static neighbour. A route is either connected (the port's own address
 * prefix: the next hop is the destination itself) or via a gateway that must
 * be a neighbour on the same port. Built once at start; lookups are lock-free
 * reads.
 */
#ifndef TDP_ROUTE_H
#define TDP_ROUTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pkt.h"

struct router;

enum route_res {
	ROUTE_OK = 0,
	ROUTE_NONE = -1,       /* no route */
	ROUTE_NO_NEIGH = -2,   /* connected, but no neighbour for the destination */
	ROUTE_LOCAL = -3,      /* addressed to one of our own addresses */
};

/* nports: ports are numbered 0..nports-1 by the caller. */
struct router *router_create(uint32_t nports, char *err, size_t errlen);
void router_free(struct router *r);

/* All return 0 or -1 with a message in err. Addresses are 4 or 16 bytes. */
int router_add_address(struct router *r, uint32_t port, int family, const uint8_t *addr, unsigned len,
		       char *err, size_t errlen);
int router_add_neighbour(struct router *r, uint32_t port, int family, const uint8_t *addr,
			 const uint8_t mac[6], char *err, size_t errlen);
int router_add_route(struct router *r, uint32_t port, int family, const uint8_t *prefix, unsigned len,
		     const uint8_t *gw, char *err, size_t errlen);
/* Builds the lookup structures (needs the EAL). */
int router_build(struct router *r, char *err, size_t errlen);

/* The egress port and next-hop MAC for the packet's destination. */
int router_lookup(const struct router *r, const struct pkt_info *pi, uint32_t *port, uint8_t mac[6]);
const char *route_res_name(int res);

/* Parse helpers shared with the configuration: "10.0.0.0/8", "2001:db8::1",
 * "02:00:00:00:00:01". Return 0 or -1. */
int route_parse_prefix(const char *s, int *family, uint8_t addr[16], unsigned *len);
int route_parse_addr(const char *s, int *family, uint8_t addr[16]);
int route_parse_mac(const char *s, uint8_t mac[6]);

#endif
