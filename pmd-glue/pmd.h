/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DPDK bring-up for tdpd: the EAL's arguments, the mbuf pool, and the RX and
 * TX queues of each port, on real NICs (PCI addresses) or vdevs (af_packet,
 * af_xdp, ring, null, ...). Without free hugepages the EAL runs with
 * --no-huge and enough plain memory for the pool and the route tables.
 */
#ifndef TDP_PMD_H
#define TDP_PMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "huge.h"

struct rte_mempool;

/* mbufs each lcore's cache of the pool keeps */
#define PMD_POOL_CACHE 256

struct pmd_eal {
	int main_cpu;	    /* lcore 0, the calling thread */
	int engine_cpu;	    /* lcore 1 */
	const int *rx_cpus; /* lcores 2, 3, ...: the RX cores beyond the first */
	int nrx_cpus;
	int huge;     /* PMD_HUGE_* */
	bool no_huge; /* decided by pmd_huge_plan */
	uint32_t mbufs;
	uint32_t route_mb; /* route-memory: DPDK memory for the route tables */
	const char *const *devices;
	uint32_t ndevices;
	int log_level; /* syslog level for DPDK's own log */
	int argc;      /* extra EAL arguments after "--" */
	char **argv;
};

struct pmd_port {
	uint16_t id;
	char device[256];
	char driver[32]; /* the PMD that drives it (net_virtio, net_af_xdp, ...) */
	char ifname[64]; /* kernel interface behind a vdev, if any */
	uint8_t mac[6];
	uint32_t link_mbps; /* 0 when the PMD cannot tell */
	uint16_t rxd, txd;  /* descriptors set up, after the PMD's limits */
	uint16_t nrxq;	    /* RX queues set up (and as many TX queues; tdpd sends on 0) */
	bool rss;	    /* spread over them by RSS (a PCI port with more than one) */
	char queues[160];   /* why fewer RX queues than asked for; "" when as asked */
	bool started;
	/* launch time (RTE_ETH_TX_OFFLOAD_SEND_ON_TIMESTAMP): on, the mbuf's
	 * timestamp field and its TX flag; push says which push and why */
	bool launch;
	int ts_off;
	uint64_t ts_flag;
	char push[200];
};

/* tdpd.conf's tx-launch: off; auto, where the PMD offers it; on, or refuse the port */
enum pmd_launch {
	PMD_LAUNCH_AUTO,
	PMD_LAUNCH_OFF,
	PMD_LAUNCH_ON
};

/* Whether a port with these TX offload capabilities pushes by launch time,
 * and why (or why not) in why. */
bool pmd_launch_decide(uint64_t tx_offload_capa, const char *driver, enum pmd_launch want,
		       char *why, size_t whylen);

/* The RX queues a port opens (and as many TX queues) when want are asked
 * for. A PCI port takes no more than its PMD offers (max_rx, max_tx), and
 * one unless the device spreads frames by RSS on IP addresses and ports
 * (rss): *nrxq, and why names the limit when it is below want ("" when
 * not). A vdev's queues are its kernel interface's, set up to match: fewer
 * there is an error, -1 with why. */
int pmd_queues_decide(bool pci, const char *driver, uint16_t want, uint16_t max_rx, uint16_t max_tx,
		      bool rss, uint16_t *nrxq, char *why, size_t whylen);

/* The buffers a port's RX queues keep from the pool while it runs: each
 * queue's ring, or on af_xdp the PMD's fill ring, which DPDK 22.11 fills
 * with 2048 buffers per queue whatever the ring size (xsk_configure,
 * ETH_AF_XDP_DFLT_NUM_DESCS). */
uint32_t pmd_rx_held(const char *device, uint16_t nrxq, uint16_t rxd);
/* True when the device is an af_xdp vdev. */
bool pmd_is_af_xdp(const char *device);
/* True when the device is a PCI address rather than a vdev. */
bool pmd_is_pci(const char *device);
/* Fills the EAL argument vector (for the log and the tests). Returns argc. */
int pmd_eal_args(const struct pmd_eal *p, char **argv, int max, char *store, size_t storelen,
		 bool *no_huge);
int pmd_eal_init(const struct pmd_eal *p, bool *no_huge, char *err, size_t errlen);
/* The mbuf pool. iova_contig when a port DMAs from it (a PCI device): then no
 * buffer crosses a page of IOVA-contiguous memory, and the pool has gaps at
 * page ends. Without, it is one block of buffers end to end, as the af_xdp
 * PMD needs (pmd_pool_umem_outside). */
struct rte_mempool *pmd_pool(uint32_t mbufs, bool iova_contig, char *err, size_t errlen);
/* The pool's buffers that lie outside the memory DPDK 22.11's af_xdp PMD
 * registers with the kernel as UMEM (it assumes one block from the first
 * buffer; fixed upstream in 24.07, commit 97039941b2). The kernel takes such
 * a buffer off the fill ring as invalid, without a count the PMD reports, so
 * a port that meets them stops receiving. 0 when all lie inside; *registered
 * gets the UMEM's length in bytes. */
uint32_t pmd_pool_umem_outside(struct rte_mempool *mp, uint64_t *registered);
/* Opens the port with nrxq RX queues (and as many TX queues), with launch
 * time as `launch` asks: the offload configured and the timestamp field
 * registered, and the device's clock read once to see that it can be.
 * Errors quote DPDK's log line that says why, when it said. */
int pmd_port_open(struct pmd_port *pp, const char *device, uint16_t nrxq, uint16_t rxd,
		  uint16_t txd, struct rte_mempool *mp, enum pmd_launch launch, char *err,
		  size_t errlen);
/* The device clock (rte_eth_read_clock); arg is the DPDK port id. */
int pmd_read_clock(void *arg, uint64_t *dev);
/* The driver's own counts of a port (rte_eth_stats): frames it received and
 * sent, and the ones it lost before tdpd saw them: missed (the NIC or, on
 * af_xdp, the kernel had no buffer or no room), no-mbuf (the pool was empty),
 * errors. */
struct pmd_counters {
	uint64_t ipackets, imissed, rx_nombuf, ierrors, opackets, oerrors;
};
int pmd_port_counters(uint16_t id, struct pmd_counters *c);
/* Reads the link speed again (after link-up). */
void pmd_port_link(struct pmd_port *pp);
/* Creates a vdev after the EAL started (rte_vdev_init), e.g. a port's
 * exception interface net_tap_X,iface=NAME,mac=MAC; pmd_port_open then sets
 * it up. 0, or -1 with err quoting DPDK's cause. */
int pmd_vdev_add(const char *device, char *err, size_t errlen);
/* Stops and closes the port; a vdev such as net_tap goes with it (a TAP's
 * kernel interface too). */
void pmd_port_close(struct pmd_port *pp);
/* rte_eal_cleanup, then DPDK's runtime directory of this process removed. */
void pmd_eal_cleanup(void);
/* Removes the empty runtime directories of tdpd processes that are gone
 * (tdpd's --file-prefix is tdpd and its pid); how many. */
#define PMD_RUNTIME_DIR "/var/run/dpdk"
int pmd_eal_stale_dirs(void);

#endif
