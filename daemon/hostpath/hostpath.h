/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Each port's kernel interface, which carries the router's addresses and
 * its host stack (ARP/ND, ICMP echo, PTP, routing protocols) beside tdpd's
 * forwarding:
 *  - net_af_xdp: the interface itself. tdpd loads its XDP program through
 *    the PMD (xdp_prog=), which passes the host's frames to the kernel and
 *    redirects the rest to tdpd's sockets, one on every RX queue the
 *    interface has (queue_count=), or sets the queue count to what it
 *    serves (the PMD opens combined channels only) and puts it back at exit.
 *  - net_af_packet: the interface itself. The kernel sees every frame and
 *    tdpd a copy; tdpd leaves the host's frames to the kernel and turns off
 *    the kernel's IPv4 forwarding on the interface, so only tdpd forwards.
 *  - a PCI port, whose NIC leaves the kernel: an exception interface, a TAP
 *    tdpd creates with the port's MAC (DPDK's net_tap, host-interface NAME).
 *    RX passes it the host's frames (punt.h, the XDP program's classes) and
 *    sends what the kernel writes to it out of the port as best effort. The
 *    interface lives as long as tdpd's file descriptor: a crash removes it.
 *    host-path tap gives an af_xdp port the same (the PMD's own program then
 *    takes every frame, as a NIC bound to DPDK would).
 *  - anything else (ring, null, pcap), or host-path none: no kernel
 *    interface; the host's frames are counted and dropped.
 * At every exit the XDP program is removed and the interface's promiscuous
 * flag and forwarding switch are put back; at start, what a crashed run left
 * (tdpd's program still attached) is found and removed.
 */
#ifndef TDP_HOSTPATH_H
#define TDP_HOSTPATH_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hpmode.h"
#include "rx.h"
#include "xdpprog.h"

/* The exception interface's RX descriptors: the buffers the TAP PMD keeps
 * from the pool (one chain of this many, DPDK 22.11 tap_rx_queue_setup). */
#define HP_TAP_RXD 8
#define HP_TAP_TXD 64

struct hp_port {
	enum rx_host mode;
	/* the kernel interface that carries the router's addresses: the one
	 * behind the device, or the exception interface (its index once created) */
	char ifname[IF_NAMESIZE];
	unsigned ifindex;
	/* the kernel interface behind the device (af_xdp, af_packet), or "" */
	char dev_ifname[IF_NAMESIZE];
	unsigned dev_ifindex;
	char tap_device[160]; /* RXH_TAP: the net_tap vdev to create once the port is open */
	char device[1024];    /* the device string the EAL gets */
	uint16_t queues;      /* RX queues tdpd opens */
	bool combined;	      /* the interface has combined channels (a veth has none) */
	char note[256];	      /* what was done to the interface, for the log */
	int flags;	      /* IFF_* at start */
	bool flags_known;
	uint32_t rxq_old; /* the RX queue count tdpd changed, to put back; 0: unchanged */
	int fwd_old;
	bool fwd_set;
	int fwd6_old; /* IPv6 forwarding on the interface, for the Router flag */
	bool fwd6_set;
	struct xdpp x;
	bool x_open;
};

/* Before the EAL: finds the interface, removes a program a crashed run left,
 * settles the queue count and writes the device string. 0, or -1 with err. */
int hp_prepare(struct hp_port *hp, const char *port, const char *device, int path,
	       const char *interface, const char *xdp_prog, char *err, size_t errlen);
/* RXH_TAP, after the exception interface was created: its index. */
int hp_tap_created(struct hp_port *hp, char *err, size_t errlen);
/* After the port started: reaches the XDP program's maps. 0 or -1 with err. */
int hp_attach(struct hp_port *hp, char *err, size_t errlen);
/* The router's own addresses (family byte + 16 bytes) for the XDP program. */
int hp_set_local(struct hp_port *hp, const uint8_t (*a)[17], size_t n);
/* After the port closed: removes the program if it is still there, puts the
 * flags and the forwarding switch back. */
void hp_release(struct hp_port *hp);
const char *hp_mode_name(enum rx_host m);
/* What an operator must know of the port's PMD before routing with it, or
 * NULL: af_packet's kernel reassembles IPv4 fragments (said at start). */
const char *hp_caveat(const struct hp_port *hp);

#endif
