/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The kernel interface behind a port: its index and flags, its queue count
 * (ethtool channels), its MTU, its forwarding switches, and the router's addresses
 * on it (rtnetlink RTM_NEWADDR). Everything here acts on the network
 * namespace tdpd runs in.
 */
#ifndef TDP_KIF_H
#define TDP_KIF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* 0 when there is no such interface. */
unsigned kif_index(const char *ifname);
/* IFF_* flags, or -errno. */
int kif_flags(const char *ifname);
/* Sets (on) or clears the flags in mask; 0 or -errno. */
int kif_set_flags(const char *ifname, int mask, bool on);
/* The interface's queues (ETHTOOL_GCHANNELS): every queue that receives
 * (combined and RX-only), and the combined ones now and at most. A driver
 * without channels has 1 RX queue. */
struct kif_channels {
	uint32_t rx, combined, max_combined;
};
int kif_channels(const char *ifname, struct kif_channels *c);
/* Sets the receiving queues to n: the combined count on drivers that have
 * combined channels (RX-only ones to 0), else the RX count. 0 or -errno. */
int kif_set_rx_queues(const char *ifname, uint32_t n);
/* /proc/sys/net/ipv4/conf/IF/forwarding (family 4) or ipv6's (6) set to
 * val: the old value in *old; 0 or -errno. IPv6's per interface decides
 * whether the kernel's neighbour advertisements carry the Router flag
 * (RFC 4861 §7.2.4; the kernel's ndisc_recv_ns), not whether it forwards. */
int kif_forwarding(const char *ifname, int family, int val, int *old);
/* The interface's MTU, or -errno. */
int kif_mtu(const char *ifname);
/* Adds ADDR/LEN (family 4 or 6) to the interface unless it is there; 0 or
 * -errno (the kernel's answer). */
int kif_addr_add(unsigned ifindex, int family, const uint8_t *addr, unsigned len);

#endif
