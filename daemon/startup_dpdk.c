/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tdpd's start-up steps that bring DPDK up (startup_steps.h): the EAL, the
 * packet pool, the ports with their exception interfaces and links.
 */
#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_ethdev.h>
#include <rte_errno.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "counters.h"
#include "kif.h"
#include "portlock.h"
#include "log.h"
#include "summary.h"
#include "startup_steps.h"
#include "tdpd.h"

int startup_eal_up(struct tdpd *d)
{
	char err[256];
	struct conf *c = &d->conf;
	const char *devs[CONF_MAX_PORTS];
	for (uint32_t p = 0; p < c->nports; p++)
		devs[p] = d->hp[p].device;
	/* CPUs shared with the engine or housekeeping were warned of with the
	 * configuration (conf_check_box), as --check does */
	int engine_cpu = (int)c->engine_cpu;
	if (engine_cpu < 0)
		engine_cpu = (int)sysconf(_SC_NPROCESSORS_ONLN) - 1;
	d->nrx = tdpd_rx_cores(c, d->rx_cpu);
	struct pmd_eal pe = {.main_cpu = (int)c->housekeeping_cpu,
			     .engine_cpu = engine_cpu,
			     .rx_cpus = d->rx_cpu,
			     .nrx_cpus = (int)d->nrx - 1,
			     .huge = (int)c->huge_pages,
			     .mbufs = (uint32_t)c->mbufs,
			     .route_mb = (uint32_t)c->route_memory,
			     .devices = devs,
			     .ndevices = c->nports,
			     .log_level = tdp_log_level,
			     .argc = d->eal_argc,
			     .argv = d->eal_argv};
	char hmsg[400];
	if (pmd_huge_decide(pe.huge, pe.mbufs, pe.route_mb, &pe.no_huge, hmsg, sizeof(hmsg)) != 0) {
		log_err("%s", hmsg);
		return -1;
	}
	bool no_huge;
	if (pmd_eal_init(&pe, &no_huge, err, sizeof(err)) != 0) {
		log_err("%s", err);
		return -1;
	}
	if (hmsg[0])
		log_notice("%s", hmsg);
	return 0;
}

void startup_eal_down(struct tdpd *d)
{
	pmd_eal_cleanup();
}

int startup_pool_up(struct tdpd *d)
{
	char err[256];
	bool pci = false;
	for (uint32_t p = 0; p < d->conf.nports; p++)
		pci |= pmd_is_pci(d->conf.ports[p].device);
	d->mp = pmd_pool((uint32_t)d->conf.mbufs, pci, err, sizeof(err));
	if (!d->mp) {
		log_err("%s", err);
		return -1;
	}
	return 0;
}

void startup_pool_down(struct tdpd *d)
{
	/* rte_eal_cleanup frees the pool's memory with the rest of the EAL's */
	d->mp = NULL;
}

/* Whether the kernel will take every buffer of the pool from an af_xdp
 * port's fill ring (pmd_pool_umem_outside); one pool for all ports, so the
 * first af_xdp port answers for all. */
static int pool_fits_af_xdp(struct tdpd *d)
{
	for (uint32_t p = 0; p < d->conf.nports; p++) {
		if (!pmd_is_af_xdp(d->conf.ports[p].device))
			continue;
		uint64_t umem;
		uint32_t out = pmd_pool_umem_outside(d->mp, &umem);
		if (out == 0)
			return 0;
		log_err("[port %s] %u of the pool's %u buffers lie past the %" PRIu64
			" bytes the af_xdp PMD "
			"registers with the kernel (DPDK before 24.07 takes the pool for one block "
			"of buffers, "
			"and a PCI port's pool has gaps at page ends): the kernel would drop every "
			"frame into "
			"them without a count, and the port would stop receiving. Give af_xdp and "
			"PCI ports "
			"each a tdpd of their own",
			d->conf.ports[p].name, out, (unsigned)d->conf.mbufs, umem);
		return -1;
	}
	return 0;
}

/* Port p's exception interface, a TAP with the port's MAC: the kernel's
 * ARP replies and its own packets then carry the address the link knows. */
static int tap_up(struct tdpd *d, uint32_t p)
{
	char err[512], dev[256];
	struct hp_port *hp = &d->hp[p];
	const uint8_t *m = d->ports[p].mac;
	snprintf(dev, sizeof(dev), "%s,mac=%02x:%02x:%02x:%02x:%02x:%02x", hp->tap_device, m[0],
		 m[1], m[2], m[3], m[4], m[5]);
	if (pmd_vdev_add(dev, err, sizeof(err)) != 0 ||
	    pmd_port_open(&d->taps[p], dev, 1, HP_TAP_RXD, HP_TAP_TXD, d->mp, PMD_LAUNCH_OFF, err,
			  sizeof(err)) != 0 ||
	    hp_tap_created(hp, err, sizeof(err)) != 0) {
		log_err("[port %s] the exception interface %s: %s", d->conf.ports[p].name,
			hp->ifname, err);
		return -1;
	}
	/* the kernel's interface takes what is addressed to it, as a NIC does */
	rte_eth_promiscuous_disable(d->taps[p].id);
	d->rxp[p].has_tap = true;
	d->rxp[p].tap_port = d->taps[p].id;
	log_info("port %s: exception interface %s (ifindex %u, DPDK port %u) up with the port's "
		 "MAC; the host's "
		 "frames go to it, what the kernel sends on it leaves the port as best effort",
		 d->conf.ports[p].name, hp->ifname, hp->ifindex, d->taps[p].id);
	return 0;
}

/* the ports, their kernel netdevs' interrupt coalescing turned off */
/* Port p's MTU: its kernel interface's, or the driver's. Whether the link is
 * up the netlink thread says (kernel-routes yes); until it does, and on a
 * port it does not follow, the state is unknown and nothing is held back. */
static void link_init(struct tdpd *d, uint32_t p)
{
	struct port_link *l = &d->link[p];
	memset(l, 0, sizeof(*l));
	l->resync_ns = -1;
	uint16_t m16;
	int mtu = d->hp[p].dev_ifindex ? kif_mtu(d->hp[p].dev_ifname) : -1;
	if (mtu > 0) {
		l->mtu = (uint32_t)mtu;
		l->mtu_from = PL_FROM_KERNEL;
	} else if (!d->hp[p].dev_ifindex && rte_eth_dev_get_mtu(d->ports[p].id, &m16) == 0) {
		l->mtu = m16;
		l->mtu_from = PL_FROM_DRIVER;
	}
}

/* How many RX queues port p opened and which RX cores poll them, and why
 * fewer than the RX cores when it has fewer. */
static void rx_queues_said(const struct tdpd *d, uint32_t p)
{
	const struct conf_port *cp = &d->conf.ports[p];
	const struct pmd_port *pp = &d->ports[p];
	uint16_t polled = pp->nrxq < d->nrx ? pp->nrxq : (uint16_t)d->nrx;
	if (d->nrx > 1)
		log_info("port %s: %u RX queue%s%s, polled by %u RX core%s", cp->name, pp->nrxq,
			 pp->nrxq == 1 ? "" : "s", pp->rss ? " spread by RSS" : "", polled,
			 polled == 1 ? "" : "s");
	if (d->nrx <= 1 || pp->nrxq >= d->nrx)
		return;
	const char *why =
		pp->queues[0] ? pp->queues
		: pmd_is_af_xdp(cp->device)
			? (d->hp[p].combined ? "give the interface more combined "
					       "channels: ethtool -L IF combined N"
					     : "the interface has no combined channels (a "
					       "veth), and the af_xdp PMD opens no others")
			: "af_packet: give the device qpairs=N";
	if (pp->nrxq == 1)
		log_notice("port %s: one RX queue, so RX core 0 alone serves it (%s)", cp->name,
			   why);
	else
		log_notice("port %s: %u RX queues, so RX cores %u and above do not serve it (%s)",
			   cp->name, pp->nrxq, pp->nrxq, why);
}

int startup_ports_up(struct tdpd *d)
{
	char err[256];
	struct conf *c = &d->conf;
	if (pool_fits_af_xdp(d) != 0)
		return -1;
	for (uint32_t p = 0; p < c->nports; p++) {
		struct conf_port *cp = &c->ports[p];
		if (pmd_port_open(&d->ports[p], d->hp[p].device, d->hp[p].queues,
				  (uint16_t)cp->rx_desc, (uint16_t)cp->tx_desc, d->mp,
				  (enum pmd_launch)cp->tx_launch, err, sizeof(err)) != 0) {
			const char *k = d->hp[p].mode == RXH_XDP ? xdpp_kernel_said() : "";
			/* veth refuses XDP on an end with fewer RX queues than its peer has
			 * TX queues (veth_xdp_set); the PMD opens one queue on a veth */
			char fix[160] = "";
			if (strstr(k, "peer tx queues"))
				snprintf(fix, sizeof(fix),
					 "; give the veth's peer (ip link show %s names it, "
					 "IF@PEER) no "
					 "more TX queues than its %u RX: ethtool -L PEER tx %u",
					 d->hp[p].dev_ifname, d->hp[p].queues, d->hp[p].queues);
			log_err("[port %s] %s%s%s%s", cp->name, err,
				k[0] ? "; the kernel said: " : "", k, fix);
			return -1;
		}
		d->nports_open = p + 1;
		/* a PCI port's queues are the ones its PMD gave (its host path
		 * asked for one per RX core) */
		if (pmd_is_pci(cp->device))
			d->hp[p].queues = d->ports[p].nrxq;
		if (hp_attach(&d->hp[p], err, sizeof(err)) != 0) {
			log_err("[port %s] %s", cp->name, err);
			return -1;
		}
		d->rxp[p].nrxq = d->ports[p].nrxq;
		rx_queues_said(d, p);
		d->rxp[p].dpdk_port = d->ports[p].id;
		memcpy(d->rxp[p].mac, d->ports[p].mac, 6);
		link_init(d, p);
		if (d->hp[p].mode == RXH_TAP && tap_up(d, p) != 0)
			return -1;
		const uint8_t *m = d->ports[p].mac;
		log_info("port %s: %s (%s), DPDK port %u, MAC %02x:%02x:%02x:%02x:%02x:%02x, "
			 "link %s%u Mbit/s",
			 cp->name, cp->device, d->ports[p].driver, d->ports[p].id, m[0], m[1], m[2],
			 m[3], m[4], m[5], d->ports[p].link_mbps ? "" : "unknown ",
			 d->ports[p].link_mbps);
		if (hp_caveat(&d->hp[p]))
			log_warn("port %s: %s", cp->name, hp_caveat(&d->hp[p]));
		struct ctl_port_info *pi = &d->pinfo[p];
		pi->name = cp->name;
		pi->table_port = d->rxp[p].table_port;
		pi->device = cp->device;
		pi->dpdk_port = d->ports[p].id;
		memcpy(pi->mac, m, 6);
		pi->link_mbps = d->ports[p].link_mbps;
		pi->push = d->ports[p].push;
		pi->pmd = d->ports[p].driver;
		pi->hp = d->hp[p].mode != RXH_NONE ? &d->hp[p] : NULL;
		pi->link = &d->link[p];
		pi->txd = d->ports[p].txd;
		pi->nq = d->ports[p].nrxq;
		pi->rss = d->ports[p].rss;
		pi->queues = d->ports[p].queues;
		size_t il = strnlen(d->ports[p].ifname, sizeof(pi->ifname) - 1);
		memcpy(pi->ifname, d->ports[p].ifname, il);
		pi->ifname[il] = 0;
		if (d->ports[p].ifname[0]) {
			int rc = coalesce_off(d->ports[p].ifname, &d->coal[p]);
			coalesce_describe(&d->coal[p], rc, pi->coalesce, sizeof(pi->coalesce));
			if (rc == 0 || rc == -EOPNOTSUPP)
				log_info("port %s: interrupt coalescing %s", cp->name,
					 pi->coalesce);
			else
				log_warn("port %s: %s", cp->name, pi->coalesce);
		} else {
			/* a PCI device bound to a DPDK driver: no netdev, no interrupts */
			snprintf(pi->coalesce, sizeof(pi->coalesce),
				 "not applicable: the PMD polls the device, its RX/TX interrupts "
				 "are not used");
			log_info("port %s: DPDK-owned, %s", cp->name, pi->coalesce);
		}
	}
	return 0;
}

void startup_ports_down(struct tdpd *d)
{
	while (d->nports_open) {
		uint32_t p = --d->nports_open;
		/* a PCI port has no kernel interface to set down: DPDK sets its link down */
		if (d->conf.stop_action == HP_STOP_DOWN && pmd_is_pci(d->conf.ports[p].device)) {
			int rc = rte_eth_dev_set_link_down(d->ports[p].id);
			if (rc == 0)
				log_notice("port %s: tdpd stopped: link set down (stop-action "
					   "down), so its neighbours see "
					   "the router gone",
					   d->conf.ports[p].name);
			else
				log_warn("port %s: tdpd stopped: the PMD cannot set the link down "
					 "(%s): its neighbours see "
					 "the router gone only when its hellos stop",
					 d->conf.ports[p].name, rte_strerror(-rc));
		}
		pmd_port_close(&d->taps[p]);
		d->rxp[p].has_tap = false;
		pmd_port_close(&d->ports[p]);
		coalesce_restore(&d->coal[p]);
	}
}
