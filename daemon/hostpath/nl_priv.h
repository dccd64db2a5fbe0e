/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What nl.c (the socket, the thread, the routers it builds) and nl_msg.c (the
 * kernel's messages read into sets) share; nobody else includes it.
 */
#ifndef TDP_NL_PRIV_H
#define TDP_NL_PRIV_H

#include <linux/netlink.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "keyidx.h"
#include "nl.h"

/* a kernel route, neighbour, address or nexthop object, on one of our ports */
/* a multipath route's or a nexthop group's further next hops, kept out of
 * line (most routes have one, and a full table has 10^6) */
struct kmore {
	struct route_nh more[ROUTE_MAX_NH - 1]; /* next hops 2.. (the first: port, gw) */
	uint32_t nh_ids[ROUTE_MAX_NH];		/* a nexthop group's members */
};

struct kent {
	uint8_t family;
	uint8_t proto;
	uint8_t len;
	bool has_gw;
	uint32_t port;
	uint32_t metric;  /* routes; the nexthop id for nexthop objects */
	uint32_t nh_id;	  /* routes through a nexthop object */
	uint8_t addr[16]; /* prefix, neighbour or address */
	uint8_t gw[16];
	bool failed; /* neighbours: NUD_FAILED */
	uint8_t mac[6];
	uint8_t nnh; /* next hops in all, 1 for a plain route */
	/* the rest of a multipath route or a nexthop group, NULL for the
	 * others; the set owns it (kset_put takes it, nl_kclear frees it) */
	struct kmore *x;
};

/* the kernel's entries of a kind, found by their identity through idx
 * (a full table's routes: 10^6) */
struct kset {
	struct kent *v;
	size_t n, cap;
	struct keyidx idx;
};

#define RESOLVE_MEMORY 64

struct nl {
	struct rx *rx; /* the RX cores, nrx of them */
	uint32_t nrx;
	const struct router *base;
	struct hp_port *hp;
	const struct nl_port *np;
	uint32_t nports;
	int fd, req_fd, stop_fd;
	pthread_t th;
	bool started;
	struct kset routes, neigh, addrs, nhs;
	bool dirty;
	bool dump_intr; /* a dump's message said it was interrupted */
	/* link changes: the kernel's tables are read again (it sends no route
	 * deletions for IPv4 when a link goes down), and a port that came up
	 * gets tdpd.conf's addresses back */
	bool resync;
	int64_t resync_t0;	/* CLOCK_MONOTONIC of the change that asked for it */
	uint32_t resync_ports;	/* bit p: port p changed */
	uint32_t restore_ports; /* bit p: port p came up */
	pthread_mutex_t lock;	/* cur, for tdpctl */
	struct router *cur;	/* built here; NULL while base is in force */
	int64_t last_build_ns;	/* how long the latest router took to build */
	struct nl_stats st;
	struct { /* recent resolve requests, not repeated within a second */
		struct rx_resolve q;
		int64_t at_ns;
	} asked[RESOLVE_MEMORY];
	unsigned asked_next;
};

/* nl_msg.c: one message of the kernel's into the sets (and the ports'
 * links); counts it. */
void nl_msg(struct nl *n, struct nlmsghdr *h);
/* The entry of s with k's identity, or NULL. */
struct kent *nl_kfind(struct kset *s, const struct kent *k);
/* s emptied, its memory kept; freed. */
void nl_kclear(struct kset *s);
void nl_kfree(struct kset *s);

#endif
