/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Routing for best effort (and the next hop of reserved packets):
 * longest-prefix match over IPv4 and IPv6 routes (fib.h: a multibit trie of
 * tdpd's own in DPDK's memory).
 * A route is connected (a port's address prefix: the next hop is the
 * destination itself) or via a gateway on a prefix of the port. Routes and
 * neighbours come from tdpd.conf (static) and from the kernel (rtnetlink,
 * daemon/hostpath/nl.c); the static ones win. A router is built once and
 * then only read: a change builds a new one, which RX takes between bursts,
 * so lookups take no lock.
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
	ROUTE_NONE = -1,	 /* no route */
	ROUTE_NO_NEIGH = -2,	 /* connected, but no neighbour for the destination */
	ROUTE_LOCAL = -3,	 /* addressed to one of our own addresses */
	ROUTE_NEIGH_FAILED = -4, /* the kernel could not resolve the next hop (ARP/ND failed) */
	ROUTE_OTHER_PORT = -5,	 /* router_lookup_port: no next hop out of the port asked for */
};

enum {
	ROUTE_ORIGIN_STATIC = 0,
	ROUTE_ORIGIN_KERNEL = 1
};

/* A route's next hops: one, or up to ROUTE_MAX_NH for an equal-cost
 * multipath route (the kernel's RTA_MULTIPATH or a nexthop group). A packet
 * takes one by a hash of its addresses, protocol and ports, so a transport
 * flow keeps one path; a reserved flow takes the one out of its port. */
#define ROUTE_MAX_NH 8
struct route_nh {
	uint32_t port;
	bool has_gw; /* false: connected, the destination is the next hop */
	uint8_t gw[16];
};

/* One route or neighbour as tdpctl shows it. */
struct route_view {
	uint8_t family;
	uint8_t origin; /* ROUTE_ORIGIN_* */
	uint8_t proto;	/* the kernel's rtm_protocol (kernel routes) */
	bool has_gw, connected;
	bool resolved;	/* the gateway's MAC is known */
	bool local;	/* routes: a host route to one of our own addresses */
	bool neighbour; /* routes: a neighbour's host route (mac: its MAC) */
	bool failed;	/* neighbours: the kernel's resolution failed (no MAC) */
	unsigned len;
	uint32_t port;
	uint8_t prefix[16]; /* or the neighbour's address */
	uint8_t gw[16];
	uint8_t mac[6];
	uint8_t nh_index, nnh; /* routes: this view's next hop of the route's nnh */
};

/* nports: ports are numbered 0..nports-1 by the caller. */
struct router *router_create(uint32_t nports, char *err, size_t errlen);
void router_free(struct router *r);

/* All return 0 or -1 with a message in err. Addresses are 4 or 16 bytes. */
int router_add_address(struct router *r, uint32_t port, int family, const uint8_t *addr,
		       unsigned len, char *err, size_t errlen);
int router_add_neighbour(struct router *r, uint32_t port, int family, const uint8_t *addr,
			 const uint8_t mac[6], char *err, size_t errlen);
int router_add_route(struct router *r, uint32_t port, int family, const uint8_t *prefix,
		     unsigned len, const uint8_t *gw, char *err, size_t errlen);
/* What the kernel says (nl.c): each returns 0, 1 when a static entry for the
 * same prefix or address wins, or -1 out of memory. nh: nnh next hops
 * (1 to ROUTE_MAX_NH). */
int router_add_kernel_route(struct router *r, int family, const uint8_t *prefix, unsigned len,
			    const struct route_nh *nh, unsigned nnh, uint8_t proto);
int router_add_kernel_neighbour(struct router *r, uint32_t port, int family, const uint8_t *addr,
				const uint8_t mac[6]);
/* A neighbour the kernel failed to resolve (NUD_FAILED): packets to it are
 * ROUTE_NEIGH_FAILED, which RX answers with Host Unreachable (RFC 1812
 * §4.3.3.1). */
int router_add_kernel_failed(struct router *r, uint32_t port, int family, const uint8_t *addr);
int router_add_kernel_address(struct router *r, uint32_t port, int family, const uint8_t *addr);
/* A new, unbuilt router with r's static addresses, neighbours and routes. */
struct router *router_copy_static(const struct router *r);
/* Frees the lookup structures of a router that is only copied from now on
 * (64.25 MiB of DPDK memory and its groups: router_bytes); router_lookup must
 * not be called on it after. */
void router_drop_lookup(struct router *r);
/* Builds the lookup structures (needs the EAL), sized for its entries; an
 * entry the fib still refuses is left out and counted (router_missing), the
 * rest built. */
int router_build(struct router *r, char *err, size_t errlen);
/* The DPDK memory its lookup structures take (0 when not built). */
uint64_t router_bytes(const struct router *r);
/* Entries the last build left out, and the first of them ("prefix/len (why)"). */
size_t router_missing(const struct router *r, const char **first);

/* The egress port and next-hop MAC for the packet's destination. On
 * ROUTE_NO_NEIGH and ROUTE_NEIGH_FAILED, nh (when not NULL) gets the address
 * whose MAC is missing: the gateway, or the destination on a connected prefix. */
int router_lookup(const struct router *r, const struct pkt_info *pi, uint32_t *port, uint8_t mac[6],
		  uint8_t nh[16]);
/* The packet's route, by its next hop out of port when the route has one
 * there (a reserved flow keeps its planned hop on a multipath route):
 * router_lookup's results, and ROUTE_OTHER_PORT with *port the hop the
 * packet's hash picks when none leaves by port. */
int router_lookup_port(const struct router *r, const struct pkt_info *pi, uint32_t want,
		       uint32_t *port, uint8_t mac[6]);
/* router_lookup for n packets (IPv4 and IPv6 each in one bulk fib lookup), without the
 * missing next hop's address: where res is ROUTE_NO_NEIGH or
 * ROUTE_NEIGH_FAILED, router_lookup gives it. */
#define ROUTE_BULK_MAX 64
struct route_hop {
	int8_t res; /* enum route_res */
	uint8_t mac[6];
	uint32_t port;
};
void router_lookup_bulk(const struct router *r, const struct pkt_info *const *pi, uint32_t n,
			struct route_hop *out);
const char *route_res_name(int res);
const char *route_origin_name(int origin);
/* The routes (connected, static, kernel) and neighbours, up to max; each
 * returns how many there are. */
size_t router_routes(const struct router *r, struct route_view *v, size_t max);
size_t router_neighbours(const struct router *r, struct route_view *v, size_t max);
/* The route a packet to addr takes (the longest match, as built): its views,
 * one a next hop, up to max; how many it has (0: none, or not built). A
 * neighbour or an address of ours shows as its host route. */
size_t router_match(const struct router *r, int family, const uint8_t *addr, struct route_view *v,
		    size_t max);
/* What a table holds, counted: for a table too big to list. */
struct route_summary {
	uint64_t routes[2];	 /* IPv4, IPv6 */
	uint64_t by_len[2][129]; /* by family and prefix length */
	uint64_t by_proto[256];	 /* the kernel's, by rtm_protocol */
	uint64_t tdpd_conf;	 /* tdpd.conf's and the ports' connected prefixes */
	uint64_t multipath;	 /* routes with more than one next hop */
	uint64_t neighbours;
	uint64_t fib_bytes; /* router_bytes */
};
void router_summary(const struct router *r, struct route_summary *s);
/* Our own addresses as family byte + 16 bytes, and each one's port. */
size_t router_addresses(const struct router *r, uint8_t (*a)[17], uint32_t *port, size_t max);

/* Parse helpers shared with the configuration: "10.0.0.0/8", "2001:db8::1",
 * "02:00:00:00:00:01". Return 0 or -1. */
int route_parse_prefix(const char *s, int *family, uint8_t addr[16], unsigned *len);
int route_parse_addr(const char *s, int *family, uint8_t addr[16]);
int route_parse_mac(const char *s, uint8_t mac[6]);

#endif
