/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hostpath.h"
#include "kif.h"
#include "log.h"
#include "pmd.h"
#include "tdp_names.h"

const char *hp_mode_name(enum rx_host m)
{
	static const char *const n[] = {
		[RXH_KERNEL] = "kernel", [RXH_XDP] = "xdp", [RXH_TAP] = "tap"};
	return TDP_NAME_OF(n, m, "none");
}

void hp_devarg(const char *device, const char *name, char *out, size_t len)
{
	out[0] = 0;
	size_t nl = strlen(name);
	for (const char *p = strchr(device, ','); p; p = strchr(p + 1, ','))
		if (strncmp(p + 1, name, nl) == 0 && p[1 + nl] == '=') {
			const char *v = p + 2 + nl;
			size_t n = strcspn(v, ",");
			snprintf(out, len, "%.*s", (int)(n < len ? n : len - 1), v);
			return;
		}
}

/* The interface speaks for a router: IPv6 forwarding on it, so the kernel's
 * neighbour advertisements carry the Router flag (RFC 4861 §7.2.4; Linux
 * sets it from the interface's forwarding switch). The kernel forwards IPv6
 * only when net.ipv6.conf.all.forwarding is set, which tdpd leaves alone.
 * Put back at exit. A box without IPv6 has no such switch: nothing to do. */
static void ip6_router(struct hp_port *hp)
{
	if (kif_forwarding(hp->ifname, 6, 1, &hp->fwd6_old) != 0)
		return;
	hp->fwd6_set = true;
	size_t nl = strlen(hp->note);
	if (!hp->fwd6_old)
		snprintf(hp->note + nl, sizeof(hp->note) - nl,
			 "set its IPv6 forwarding (neighbour advertisements say "
			 "\"router\"); ");
}

/* what a previous run left on the interface: tdpd's program, or the PMD's
 * default one; anything else is someone else's and stops the start */
static int clear_leftover(struct hp_port *hp, char *err, size_t errlen)
{
	uint32_t id;
	char name[64];
	int rc = xdpp_attached(hp->dev_ifindex, &id, name, sizeof(name));
	if (rc < 0) {
		snprintf(err, errlen, "interface %s: cannot query its XDP program: %s",
			 hp->dev_ifname, strerror(-rc));
		return -1;
	}
	if (!id)
		return 0;
	if (strcmp(name, XDPP_PROG_NAME) != 0 && strcmp(name, "xsk_def_prog") != 0) {
		snprintf(
			err, errlen,
			"interface %s has XDP program '%s' (id %u) attached, not tdpd's: remove it "
			"(ip link set dev %s xdp off) or give the port another interface",
			hp->dev_ifname, name, id, hp->dev_ifname);
		return -1;
	}
	rc = xdpp_detach(hp->dev_ifindex);
	if (rc < 0) {
		snprintf(err, errlen,
			 "interface %s: cannot remove the XDP program '%s' a previous run left: %s",
			 hp->dev_ifname, name, strerror(-rc));
		return -1;
	}
	size_t nl = strlen(hp->note);
	snprintf(hp->note + nl, sizeof(hp->note) - nl,
		 "removed XDP program '%s' (id %u) a previous run left; ", name, id);
	return 0;
}

static int prepare_xdp(struct hp_port *hp, const char *device, const char *xdp_prog, char *err,
		       size_t errlen)
{
	if (clear_leftover(hp, err, errlen) != 0)
		return -1;
	char given[64], own[16];
	hp_devarg(device, "xdp_prog", own, sizeof(own));
	/* with an exception interface the PMD's own program sends every frame
	 * to tdpd's sockets, as a NIC bound to DPDK would */
	bool add_prog = !own[0] && hp->mode == RXH_XDP;
	if (own[0] && hp->mode == RXH_TAP) {
		snprintf(
			err, errlen,
			"xdp_prog=%s: with host-path tap every frame is tdpd's; leave xdp_prog out",
			own);
		return -1;
	}
	if (add_prog && access(xdp_prog, R_OK) != 0) {
		snprintf(err, errlen, "the XDP program %s: %s (xdp-program in tdpd.conf)", xdp_prog,
			 strerror(errno));
		return -1;
	}
	hp_devarg(device, "start_queue", given, sizeof(given));
	if (given[0] && strcmp(given, "0") != 0) {
		snprintf(err, errlen,
			 "start_queue=%s: tdpd serves every queue of the interface from queue 0",
			 given);
		return -1;
	}
	struct kif_channels ch;
	int rc = kif_channels(hp->dev_ifname, &ch);
	if (rc < 0) {
		snprintf(err, errlen, "interface %s: cannot read its queue count (ethtool -l): %s",
			 hp->dev_ifname, strerror(-rc));
		return -1;
	}
	/* the af_xdp PMD opens combined channels only (DPDK 22.11, init_internals);
	 * a driver with RX-only channels (veth) it serves on queue 0 alone */
	uint32_t can = ch.max_combined ? ch.combined : 1;
	hp->combined = ch.max_combined > 0;
	hp_devarg(device, "queue_count", given, sizeof(given));
	uint32_t want = can;
	if (given[0]) {
		char *end;
		unsigned long v = strtoul(given, &end, 10);
		if (*end || v < 1 || v > RX_MAX_QUEUES ||
		    v > (ch.max_combined ? ch.max_combined : 1)) {
			snprintf(err, errlen, "queue_count=%s: expected 1 to %u (%s)", given,
				 ch.max_combined
					 ? (ch.max_combined < RX_MAX_QUEUES ? ch.max_combined
									    : RX_MAX_QUEUES)
					 : 1,
				 ch.max_combined ? "the interface's combined channels"
						 : "the interface has no combined channels, and "
						   "the PMD opens no others");
			return -1;
		}
		want = (uint32_t)v;
	} else if (want > RX_MAX_QUEUES) {
		want = RX_MAX_QUEUES;
	}
	size_t nl = strlen(hp->note);
	if (want != ch.rx) {
		/* fewer sockets than the interface has RX queues would leave the
		 * other queues' frames to a drop: set the count to what tdpd serves */
		rc = kif_set_rx_queues(hp->dev_ifname, want);
		if (rc < 0) {
			snprintf(err, errlen,
				 "interface %s has %u RX queues and tdpd can serve %u: setting the "
				 "count "
				 "failed (%s); set it with ethtool -L %s %s %u",
				 hp->dev_ifname, ch.rx, want, strerror(-rc), hp->dev_ifname,
				 ch.max_combined ? "combined" : "rx", want);
			return -1;
		}
		snprintf(hp->note + nl, sizeof(hp->note) - nl,
			 "set its RX queues from %u to %u, as many as tdpd "
			 "serves; ",
			 ch.rx, want);
		hp->rxq_old = ch.rx;
	}
	hp->queues = (uint16_t)want;
	int n = snprintf(hp->device, sizeof(hp->device), "%s", device);
	if (add_prog)
		n += snprintf(hp->device + n, sizeof(hp->device) - (size_t)n, ",xdp_prog=%s",
			      xdp_prog);
	if (!given[0])
		n += snprintf(hp->device + n, sizeof(hp->device) - (size_t)n, ",queue_count=%u",
			      want);
	if ((size_t)n >= sizeof(hp->device)) {
		snprintf(err, errlen,
			 "the device string with xdp_prog and queue_count is too long");
		return -1;
	}
	return 0;
}

static bool is_af_packet(const char *device)
{
	return strncmp(device, "net_af_packet", 13) == 0 ||
	       strncmp(device, "eth_af_packet", 13) == 0;
}

const char *hp_caveat(const struct hp_port *hp)
{
	/* DPDK 22.11's af_packet PMD joins its sockets to a fanout group with
	 * PACKET_FANOUT_FLAG_DEFRAG: the kernel reassembles IPv4 fragments
	 * before they reach the socket, and a socket cannot leave its group */
	if (!is_af_packet(hp->device))
		return NULL;
	return "af_packet: the kernel reassembles IPv4 fragments before tdpd reads them (the PMD's "
	       "fanout group "
	       "defragments), so fragments are not forwarded as they came, a datagram larger than "
	       "the ring's frame "
	       "is one runt drop, and a lone later fragment is never seen: route with af_xdp ports "
	       "(or a NIC's PMD)";
}

int hp_mode_for(const char *port, const char *device, int path, const char *interface, int *mode,
		char name[IF_NAMESIZE], char *err, size_t errlen)
{
	name[0] = 0;
	bool xdp = pmd_is_af_xdp(device), pci = pmd_is_pci(device);
	if (is_af_packet(device)) {
		if (path != HP_AUTO) {
			snprintf(err, errlen,
				 "host-path %s: an af_packet port leaves every frame to the kernel "
				 "as well, "
				 "so its interface is the host path (auto)",
				 path == HP_TAP ? "tap" : "none");
			return -1;
		}
		*mode = RXH_KERNEL;
	} else if (path == HP_NONE) {
		*mode = RXH_NONE;
	} else if (path == HP_TAP || (path == HP_AUTO && pci)) {
		if (!xdp && !pci) {
			snprintf(err, errlen,
				 "host-path tap: for a PCI port or an af_xdp one, not device %.60s",
				 device);
			return -1;
		}
		*mode = RXH_TAP;
	} else {
		*mode = xdp ? RXH_XDP : RXH_NONE;
	}
	if (*mode != RXH_TAP) {
		if (interface[0]) {
			snprintf(err, errlen,
				 "host-interface %s: only an exception interface (host-path tap, "
				 "or a PCI "
				 "port) is named; this port's is %s",
				 interface, *mode == RXH_NONE ? "none" : "the device's own");
			return -1;
		}
		return 0;
	}
	char def[64];
	snprintf(def, sizeof(def), "tdp-%s", port);
	const char *n = interface[0] ? interface : def;
	size_t len = strlen(n);
	if (len >= IF_NAMESIZE) {
		snprintf(
			err, errlen,
			"%s '%.40s' is %zu characters long, and an interface name has at most %d%s",
			interface[0] ? "host-interface" : "the exception interface's name", n, len,
			IF_NAMESIZE - 1, interface[0] ? "" : ": name it with host-interface");
		return -1;
	}
	if (!strcmp(n, ".") || !strcmp(n, "..") || strpbrk(n, "/: \t\n%")) {
		snprintf(err, errlen, "host-interface '%s': not a valid interface name", n);
		return -1;
	}
	memcpy(name, n, len + 1);
	return 0;
}

int hp_prepare(struct hp_port *hp, const char *port, const char *device, int path,
	       const char *interface, const char *xdp_prog, char *err, size_t errlen)
{
	memset(hp, 0, sizeof(*hp));
	hp->x.local_fd = hp->x.stats_fd = -1;
	hp->queues = 1;
	snprintf(hp->device, sizeof(hp->device), "%s", device);
	/* af_packet with qpairs: the kernel spreads frames over that many
	 * sockets (a fanout group, by flow hash), and each must be served */
	char qp[16];
	hp_devarg(device, "qpairs", qp, sizeof(qp));
	if (is_af_packet(device) && strstr(device, ",qpairs=")) {
		char *end;
		unsigned long v = strtoul(qp, &end, 10);
		if (*end || v < 1 || v > RX_MAX_QUEUES) {
			snprintf(err, errlen, "qpairs=%s: expected 1 to %u", qp, RX_MAX_QUEUES);
			return -1;
		}
		hp->queues = (uint16_t)v;
	}
	int mode;
	if (hp_mode_for(port, device, path, interface, &mode, hp->ifname, err, errlen) != 0)
		return -1;
	hp->mode = (enum rx_host)mode;
	if (hp->mode == RXH_TAP) {
		if (kif_index(hp->ifname)) {
			snprintf(err, errlen,
				 "the exception interface %s exists already in this network "
				 "namespace: "
				 "remove it or name another with host-interface",
				 hp->ifname);
			return -1;
		}
		snprintf(hp->tap_device, sizeof(hp->tap_device), "net_tap_tdpd_%s,iface=%s",
			 hp->ifname, hp->ifname);
		if (!pmd_is_af_xdp(device))
			return 0;
	} else if (hp->mode == RXH_NONE) {
		return 0;
	}
	hp_devarg(device, "iface", hp->dev_ifname, sizeof(hp->dev_ifname));
	hp->dev_ifindex = hp->dev_ifname[0] ? kif_index(hp->dev_ifname) : 0;
	if (!hp->dev_ifindex) {
		snprintf(err, errlen, "interface '%s' (iface=) is not in this network namespace",
			 hp->dev_ifname);
		return -1;
	}
	if (hp->mode != RXH_TAP) {
		memcpy(hp->ifname, hp->dev_ifname, sizeof(hp->ifname));
		hp->ifindex = hp->dev_ifindex;
	}
	hp->flags = kif_flags(hp->dev_ifname);
	hp->flags_known = hp->flags >= 0;
	/* a tdpd that stopped left it down (stop-action down): serving it, tdpd
	 * brings it up, and its neighbours see the router back */
	if (hp->flags_known && !(hp->flags & IFF_UP)) {
		int rc = kif_set_flags(hp->dev_ifname, IFF_UP, true);
		if (rc < 0) {
			snprintf(err, errlen, "interface %s is down and cannot be brought up: %s",
				 hp->dev_ifname, strerror(-rc));
			return -1;
		}
		snprintf(hp->note, sizeof(hp->note), "brought it up (it was down); ");
	}
	if (hp->mode != RXH_TAP)
		ip6_router(hp);
	if (hp->mode != RXH_KERNEL)
		return prepare_xdp(hp, device, xdp_prog, err, errlen);
	/* af_packet: the kernel gets every frame too and must not forward it */
	int rc = kif_forwarding(hp->dev_ifname, 4, 0, &hp->fwd_old);
	if (rc < 0) {
		snprintf(err, errlen, "interface %s: cannot turn its IPv4 forwarding off: %s",
			 hp->dev_ifname, strerror(-rc));
		return -1;
	}
	hp->fwd_set = true;
	size_t nl = strlen(hp->note);
	if (hp->fwd_old)
		snprintf(hp->note + nl, sizeof(hp->note) - nl,
			 "turned the kernel's IPv4 forwarding off on it; ");
	return 0;
}

int hp_tap_created(struct hp_port *hp, char *err, size_t errlen)
{
	hp->ifindex = kif_index(hp->ifname);
	if (!hp->ifindex) {
		snprintf(err, errlen, "the exception interface %s did not appear", hp->ifname);
		return -1;
	}
	ip6_router(hp);
	return 0;
}

int hp_attach(struct hp_port *hp, char *err, size_t errlen)
{
	if (hp->mode != RXH_XDP)
		return 0;
	char e[160];
	if (xdpp_open(&hp->x, hp->ifindex, e, sizeof(e)) != 0) {
		snprintf(err, errlen, "interface %s: tdpd's XDP program: %s", hp->ifname, e);
		return -1;
	}
	hp->x_open = true;
	return 0;
}

int hp_set_local(struct hp_port *hp, const uint8_t (*a)[17], size_t n)
{
	return hp->x_open ? xdpp_set_local(&hp->x, a, n) : 0;
}

void hp_release(struct hp_port *hp)
{
	if (hp->x_open) {
		xdpp_close(&hp->x);
		hp->x_open = false;
	}
	if (hp->dev_ifindex) {
		/* the PMD removes it at close; a start that failed before may not have */
		uint32_t id;
		char name[64];
		const char *ours = hp->mode == RXH_TAP ? "xsk_def_prog" : XDPP_PROG_NAME;
		if (xdpp_attached(hp->dev_ifindex, &id, name, sizeof(name)) == 0 && id &&
		    strcmp(name, ours) == 0)
			xdpp_detach(hp->dev_ifindex);
	}
	if (hp->flags_known) {
		int now = kif_flags(hp->dev_ifname);
		if (now >= 0 && (now & IFF_PROMISC) != (hp->flags & IFF_PROMISC))
			kif_set_flags(hp->dev_ifname, IFF_PROMISC, hp->flags & IFF_PROMISC);
		hp->flags_known = false;
	}
	if (hp->rxq_old) {
		if (kif_set_rx_queues(hp->dev_ifname, hp->rxq_old) < 0)
			log_warn("interface %s: cannot put its %u RX queues back", hp->dev_ifname,
				 hp->rxq_old);
		hp->rxq_old = 0;
	}
	if (hp->fwd_set) {
		int old;
		kif_forwarding(hp->dev_ifname, 4, hp->fwd_old, &old);
		hp->fwd_set = false;
	}
	if (hp->fwd6_set) {
		int old;
		kif_forwarding(hp->ifname, 6, hp->fwd6_old, &old);
		hp->fwd6_set = false;
	}
}
