/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Routes, neighbours and addresses from the kernel, over rtnetlink, in the
 * network namespace tdpd runs in. A thread follows the main table's routes
 * out of the ports' interfaces (added by ip route, FRR's zebra, BIRD; with
 * nexthop objects too), the neighbours the kernel resolved there by ARP/ND
 * and the addresses on them, and after each change builds a new router:
 * tdpd.conf's static entries first (they win), then the kernel's. RX takes
 * it between two bursts (rx.rt_offer); the old one is freed once RX has let
 * it go, so RX's path takes no lock and loses no frame.
 *
 * The thread also asks the kernel to resolve the next hops RX found without
 * a MAC (RTM_NEWNEIGH with NTF_USE starts ARP/ND for the address); the
 * answer comes back as a neighbour like any other.
 *
 * It follows the ports' links too (RTM_NEWLINK): up, down, carrier and MTU
 * go to each port's struct port_link and the log. On every change the
 * kernel's tables are read again whole, because the kernel deletes the IPv4
 * routes through a link that goes down without a word (no RTM_DELROUTE), and
 * a port that comes up gets tdpd.conf's addresses back (the kernel removes
 * IPv6 addresses from an interface set down). A dump the kernel marks
 * interrupted (NLM_F_DUMP_INTR) is read again, and so are the tables when
 * events overflowed the socket (ENOBUFS).
 */
#ifndef TDP_NL_H
#define TDP_NL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctl_counters.h"
#include "hostpath.h"
#include "portlink.h"
#include "route.h"
#include "rx.h"

struct nl;

/* an address of tdpd.conf's, to put back on the interface */
struct nl_addr {
	uint8_t family;
	uint8_t len;
	uint8_t addr[16];
};

/* What the thread knows of each port beyond its host path. */
struct nl_port {
	const char *name;	    /* as in tdpd.conf */
	struct port_link *link;	    /* written by the thread; NULL: not followed */
	const struct nl_addr *addr; /* tdpd.conf's addresses on the port */
	uint32_t naddr;
};

struct nl_stats {
	CTL_NETLINK_COUNTERS(CTL_COUNTER_FIELD) /* ctl_counters.h */
	uint64_t routes, neighbours, addresses; /* the kernel's, in force */
};

/* Reads the kernel's tables (a dump), builds the first router and sets
 * rx->rt of each of the nrx RX cores before RX runs; then starts the thread,
 * which offers each new router to every core. base: tdpd.conf's router
 * (kept by the caller). hp: the ports' host paths (their ifindex and XDP
 * maps), np the rest of what is known of them, nports of each (both kept by
 * the caller). NULL with err on failure. */
struct nl *nl_start(struct rx *rx, uint32_t nrx, const struct router *base, struct hp_port *hp,
		    const struct nl_port *np, uint32_t nports, char *err, size_t errlen);
/* Stops the thread and frees what it built; rx->rt is left pointing at base. */
void nl_stop(struct nl *n);
void nl_stats(struct nl *n, struct nl_stats *s);
/* Calls fn with the router in force, under the thread's lock (for tdpctl). */
void nl_with_router(struct nl *n, void (*fn)(const struct router *r, void *arg), void *arg);

#endif
