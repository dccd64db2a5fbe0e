/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A port's link as the kernel (rtnetlink RTM_NEWLINK, hostpath/nl.c) or the
 * driver reports it: administratively up or not, carrier or not, its MTU.
 * One writer (the netlink thread, or housekeeping for a port without a
 * kernel interface); RX reads the MTU for each packet it routes out of the
 * port, the control thread reads the rest. Every field is read and written
 * with relaxed atomics: each is exact, the set is not a snapshot.
 */
#ifndef TDP_PORTLINK_H
#define TDP_PORTLINK_H

#include <stdbool.h>
#include <stdint.h>

struct port_link {
	uint32_t mtu;	   /* the largest IP packet the port sends; 0: not known, not checked */
	uint32_t mtu_from; /* enum portlink_from */
	uint32_t known;	   /* 1 once a state was reported */
	uint32_t admin_up; /* IFF_UP */
	uint32_t carrier;  /* IFF_LOWER_UP (or the driver's link status) */
	uint32_t pad;
	uint64_t downs, ups; /* changes seen since start */
	int64_t since_ns;    /* CLOCK_REALTIME of the latest change; 0: none since start */
	int64_t resync_ns;   /* the latest change to its routes resynced, in ns; -1: not yet */
	uint64_t resyncs;    /* route resyncs a change of this port caused */
	uint64_t restored;   /* addresses put back on the interface after it came up */
};

enum portlink_from {
	PL_FROM_NONE,
	PL_FROM_KERNEL,
	PL_FROM_DRIVER
};

#define PL_GET(f) __atomic_load_n(&(f), __ATOMIC_RELAXED)
#define PL_SET(f, v) __atomic_store_n(&(f), (v), __ATOMIC_RELAXED)

/* Forwarding is possible: up and with carrier (or never reported). */
static inline bool port_link_usable(const struct port_link *l)
{
	return !PL_GET(l->known) || (PL_GET(l->admin_up) && PL_GET(l->carrier));
}

static inline const char *port_link_word(const struct port_link *l)
{
	if (!PL_GET(l->known))
		return "unknown";
	if (!PL_GET(l->admin_up))
		return "admin-down";
	return PL_GET(l->carrier) ? "up" : "no-carrier";
}

#endif
