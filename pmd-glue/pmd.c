/* SPDX-License-Identifier: BSD-3-Clause */
/* rte_eth_read_clock is experimental in DPDK 22.11 */
#define ALLOW_EXPERIMENTAL_API 1
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <syslog.h>
#include <unistd.h>

#include <rte_bus_vdev.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_mbuf_pool_ops.h>
#include <rte_mempool.h>

#include "pmd.h"

/*
 * DPDK's own log goes on to stderr as before, and its last lines are kept:
 * when a vdev fails to probe the EAL only logs why, and the port is then
 * simply missing; the error tdpd gives quotes the PMD's line.
 */
static char log_tail[2048];
static size_t log_len;

static ssize_t log_write(void *cookie, const char *buf, size_t n)
{
	(void)cookie;
	fwrite(buf, 1, n, stderr);
	if (n >= sizeof(log_tail)) {
		buf += n - (sizeof(log_tail) - 1);
		n = sizeof(log_tail) - 1;
	}
	if (log_len + n >= sizeof(log_tail)) {
		size_t cut = log_len + n - (sizeof(log_tail) - 1);
		memmove(log_tail, log_tail + cut, log_len - cut);
		log_len -= cut;
	}
	memcpy(log_tail + log_len, buf, n);
	log_len += n;
	log_tail[log_len] = 0;
	return (ssize_t)n;
}

/* why the PMD failed, from DPDK's log: the kernel's own message when libbpf
 * relayed one (its extack), and the last line naming the device or an
 * error, without newlines */
static void log_cause(const char *what, char *out, size_t len)
{
	out[0] = 0;
	const char *kern = NULL, *best = NULL, *any = NULL;
	for (const char *l = log_tail; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		size_t n = strcspn(l, "\n");
		if (memmem(l, n, "Kernel error message", 20))
			kern = l;
		if (memmem(l, n, what, strlen(what)))
			best = l;
		if (memmem(l, n, "rror", 4) || memmem(l, n, "ailed", 5))
			any = l;
	}
	const char *l = best ? best : any;
	if (kern && l && l != kern)
		snprintf(out, len, "%.*s; %.*s", (int)strcspn(kern, "\n"), kern,
			 (int)strcspn(l, "\n"), l);
	else if (kern || l)
		snprintf(out, len, "%.*s", (int)strcspn(kern ? kern : l, "\n"), kern ? kern : l);
}

uint32_t pmd_rx_held(const char *device, uint16_t nrxq, uint16_t rxd)
{
	uint32_t per = rxd;
	if (pmd_is_af_xdp(device) && per < 2048)
		per = 2048;
	return (nrxq ? nrxq : 1) * per;
}

bool pmd_is_af_xdp(const char *device)
{
	return strncmp(device, "net_af_xdp", 10) == 0;
}

bool pmd_is_pci(const char *device)
{
	/* [domain:]bus:dev.fn, e.g. 0000:01:00.0 or 01:00.0, then its devargs
	 * (0000:01:00.0,tx_pp=500) */
	char addr[32];
	size_t n = strcspn(device, ",");
	if (n >= sizeof(addr))
		return false;
	memcpy(addr, device, n);
	addr[n] = 0;
	unsigned a, b, c, d;
	char tail;
	return sscanf(addr, "%x:%x:%x.%x%c", &a, &b, &c, &d, &tail) == 4 ||
	       sscanf(addr, "%x:%x.%x%c", &a, &b, &c, &tail) == 3;
}

int pmd_eal_args(const struct pmd_eal *p, char **argv, int max, char *store, size_t storelen,
		 bool *no_huge)
{
	int n = 0;
	size_t used = 0;
#define ADD(...)                                                                       \
	do {                                                                           \
		if (n < max - 1 && used < storelen) {                                  \
			int w_ = snprintf(store + used, storelen - used, __VA_ARGS__); \
			argv[n++] = store + used;                                      \
			used += (size_t)w_ + 1;                                        \
		}                                                                      \
	} while (0)
	ADD("tdpd");
	char lc[256];
	size_t lu =
		(size_t)snprintf(lc, sizeof(lc), "--lcores=0@%d,1@%d", p->main_cpu, p->engine_cpu);
	for (int i = 0; i < p->nrx_cpus && lu < sizeof(lc); i++)
		lu += (size_t)snprintf(lc + lu, sizeof(lc) - lu, ",%d@%d", i + 2, p->rx_cpus[i]);
	ADD("%s", lc);
	ADD("--main-lcore=0");
	*no_huge = p->no_huge;
	if (*no_huge) {
		uint64_t mb = pmd_mem_mb(p->mbufs, p->route_mb);
		ADD("--no-huge");
		ADD("-m");
		ADD("%llu", (unsigned long long)mb);
		ADD("--no-shconf");
	} else {
		ADD("--in-memory");
	}
	ADD("--file-prefix=tdpd%d", (int)getpid());
	ADD("--no-telemetry");
	bool pci = false;
	for (uint32_t i = 0; i < p->ndevices; i++) {
		if (pmd_is_pci(p->devices[i])) {
			ADD("-a");
			ADD("%s", p->devices[i]);
			pci = true;
		} else {
			ADD("--vdev=%s", p->devices[i]);
		}
	}
	if (!pci)
		ADD("--no-pci");
	int lvl = p->log_level >= LOG_DEBUG ? 8 : p->log_level >= LOG_INFO ? 5 : 4;
	ADD("--log-level=*:%d", lvl);
	for (int i = 0; i < p->argc; i++)
		ADD("%s", p->argv[i]);
#undef ADD
	argv[n] = NULL;
	return n;
}

/* Whether every CPU the lcores are pinned to is one this process may run
 * on: past a cpuset (a shield keeping a CPU for other work, a container) or
 * taskset, the EAL would abort with "Cannot set affinity"; -1 says which
 * instead. */
static int cpus_allowed(const struct pmd_eal *p, char *err, size_t errlen)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return 0; /* the EAL finds out for itself */
	int cpu[2 + 64];
	const char *role[2 + 64];
	int n = 0;
	cpu[n] = p->main_cpu, role[n++] = "housekeeping's";
	cpu[n] = p->engine_cpu, role[n++] = "the frame engine's";
	for (int i = 0; i < p->nrx_cpus && n < 2 + 64; i++)
		cpu[n] = p->rx_cpus[i], role[n++] = "an RX core's";
	for (int i = 0; i < n; i++) {
		if (cpu[i] < 0 || cpu[i] >= CPU_SETSIZE || CPU_ISSET(cpu[i], &set))
			continue;
		char may[512] = "";
		size_t u = 0;
		for (int c = 0; c < CPU_SETSIZE && u < sizeof(may) - 8; c++)
			if (CPU_ISSET(c, &set))
				u += (size_t)snprintf(may + u, sizeof(may) - u, "%s%d",
						      u ? "," : "", c);
		snprintf(err, errlen,
			 "CPU %d (%s) is not among the CPUs this process may run on (%s): a cpuset "
			 "or taskset keeps it from us (under tdpctl shield, tdpd runs from "
			 "tdpd.service, in tdpd.slice)",
			 cpu[i], role[i], may);
		return -1;
	}
	return 0;
}

int pmd_eal_init(const struct pmd_eal *p, bool *no_huge, char *err, size_t errlen)
{
	if (cpus_allowed(p, err, errlen) != 0)
		return -1;
	_Static_assert(RTE_MBUF_DEFAULT_BUF_SIZE == 2176, "pmd_mem_mb counts buffers of this size");
	char *argv[128];
	static char store[8192];
	int argc = pmd_eal_args(p, argv, 128, store, sizeof(store), no_huge);
	static cookie_io_functions_t io = {.write = log_write};
	FILE *f = fopencookie(NULL, "w", io);
	if (f) {
		setvbuf(f, NULL, _IOLBF, 0);
		rte_openlog_stream(f);
	}
	if (rte_eal_init(argc, argv) < 0) {
		snprintf(err, errlen, "DPDK EAL init failed: %s", rte_strerror(rte_errno));
		return -1;
	}
	return 0;
}

struct rte_mempool *pmd_pool(uint32_t mbufs, bool iova_contig, char *err, size_t errlen)
{
	struct rte_mempool *mp;
	if (iova_contig) {
		mp = rte_pktmbuf_pool_create("tdpd_mbufs", mbufs, PMD_POOL_CACHE, 0,
					     RTE_MBUF_DEFAULT_BUF_SIZE, (int)rte_socket_id());
	} else {
		/* rte_pktmbuf_pool_create's steps, with RTE_MEMPOOL_F_NO_IOVA_CONTIG:
		 * no object needs to sit within one page, so the pool is one block
		 * of objects end to end */
		struct rte_pktmbuf_pool_private priv = {.mbuf_data_room_size =
								RTE_MBUF_DEFAULT_BUF_SIZE};
		mp = rte_mempool_create_empty("tdpd_mbufs", mbufs,
					      sizeof(struct rte_mbuf) + RTE_MBUF_DEFAULT_BUF_SIZE,
					      PMD_POOL_CACHE, sizeof(priv), (int)rte_socket_id(),
					      RTE_MEMPOOL_F_NO_IOVA_CONTIG);
		if (mp &&
		    (rte_mempool_set_ops_byname(mp, rte_mbuf_best_mempool_ops(), NULL) != 0 ||
		     (rte_pktmbuf_pool_init(mp, &priv), rte_mempool_populate_default(mp) < 0))) {
			int e = rte_errno;
			rte_mempool_free(mp);
			mp = NULL;
			rte_errno = e;
		}
		if (mp)
			rte_mempool_obj_iter(mp, rte_pktmbuf_init, NULL);
	}
	if (!mp)
		snprintf(err, errlen, "cannot create a pool of %u mbufs: %s", mbufs,
			 rte_strerror(rte_errno));
	return mp;
}

struct umem_walk {
	uintptr_t lo, hi; /* the bytes the PMD registers */
	uint32_t outside;
};

static void umem_obj(struct rte_mempool *mp, void *arg, void *obj, unsigned idx)
{
	(void)idx;
	struct umem_walk *w = arg;
	uintptr_t a = (uintptr_t)obj - mp->header_size;
	if (a < w->lo || a + mp->header_size + mp->elt_size + mp->trailer_size > w->hi)
		w->outside++;
}

uint32_t pmd_pool_umem_outside(struct rte_mempool *mp, uint64_t *registered)
{
	/* DPDK 22.11's af_xdp PMD (xdp_umem_configure, unaligned chunks):
	 * from the first memory chunk's address, page aligned down, the pool's
	 * populated_size times its object size */
	struct rte_mempool_memhdr *first = STAILQ_FIRST(&mp->mem_list);
	uintptr_t start = (uintptr_t)first->addr;
	uintptr_t base = start & ~((uintptr_t)getpagesize() - 1);
	uint64_t len = (uint64_t)mp->populated_size *
			       rte_mempool_calc_obj_size(mp->elt_size, mp->flags, NULL) +
		       (start - base);
	struct umem_walk w = {.lo = base, .hi = base + len};
	rte_mempool_obj_iter(mp, umem_obj, &w);
	*registered = len;
	return w.outside;
}

static void vdev_name(const char *device, char *name, size_t len, char *ifname, size_t iflen)
{
	const char *comma = strchr(device, ',');
	size_t n = comma ? (size_t)(comma - device) : strlen(device);
	if (n >= len)
		n = len - 1;
	memcpy(name, device, n);
	name[n] = 0;
	ifname[0] = 0;
	const char *at = strstr(device, "iface=");
	if (at) {
		at += 6;
		size_t m = strcspn(at, ",");
		if (m >= iflen)
			m = iflen - 1;
		memcpy(ifname, at, m);
		ifname[m] = 0;
	}
}

bool pmd_launch_decide(uint64_t tx_offload_capa, const char *driver, enum pmd_launch want,
		       char *why, size_t whylen)
{
	if (want == PMD_LAUNCH_OFF) {
		snprintf(why, whylen, "the CPU at the frame boundary (tx-launch off)");
		return false;
	}
	if (!(tx_offload_capa & RTE_ETH_TX_OFFLOAD_SEND_ON_TIMESTAMP)) {
		snprintf(why, whylen,
			 "the CPU at the frame boundary: %s offers no send-on-timestamp offload",
			 driver);
		return false;
	}
	snprintf(why, whylen, "launch time: %s offers the send-on-timestamp offload", driver);
	return true;
}

int pmd_read_clock(void *arg, uint64_t *dev)
{
	return rte_eth_read_clock((uint16_t)(uintptr_t)arg, dev);
}

/* The DPDK port of device (its ethdev name in name): 0, or -1 with why. */
static int port_find(struct pmd_port *pp, const char *device, char *name, size_t namelen, char *err,
		     size_t errlen)
{
	vdev_name(device, name, namelen, pp->ifname, sizeof(pp->ifname));
	if (rte_eth_dev_get_port_by_name(name, &pp->id) == 0)
		return 0;
	char cause[400];
	log_cause(name, cause, sizeof(cause));
	if (cause[0])
		snprintf(err, errlen,
			 "device %s: the driver did not create the port; DPDK said: %s", device,
			 cause);
	else
		snprintf(err, errlen,
			 "device %s: no such DPDK port (is the driver available, and the interface "
			 "there?)",
			 device);
	return -1;
}

/* Launch time as asked and as the PMD offers it, into pp->launch and conf;
 * -1 with why when it is asked for (on) and cannot be had. */
static int launch_conf(struct pmd_port *pp, const struct rte_eth_dev_info *info,
		       enum pmd_launch launch, struct rte_eth_conf *conf, char *err, size_t errlen)
{
	pp->launch = pmd_launch_decide(info->tx_offload_capa, info->driver_name, launch, pp->push,
				       sizeof(pp->push));
	if (pp->launch) {
		/* registered before the port starts: the PMD looks for it then (mlx5's tx_pp) */
		if (rte_mbuf_dyn_tx_timestamp_register(&pp->ts_off, &pp->ts_flag) != 0) {
			snprintf(
				pp->push, sizeof(pp->push),
				"the CPU at the frame boundary: the mbuf timestamp field could not "
				"be registered (%s)",
				rte_strerror(rte_errno));
			pp->launch = false;
		} else {
			conf->txmode.offloads |= RTE_ETH_TX_OFFLOAD_SEND_ON_TIMESTAMP;
		}
	}
	if (launch == PMD_LAUNCH_ON && !pp->launch) {
		snprintf(err, errlen, "device %s: tx-launch on, but it pushes by %s", pp->device,
			 pp->push);
		return -1;
	}
	return 0;
}

int pmd_queues_decide(bool pci, const char *driver, uint16_t want, uint16_t max_rx, uint16_t max_tx,
		      bool rss, uint16_t *nrxq, char *why, size_t whylen)
{
	uint16_t offered = max_rx < max_tx ? max_rx : max_tx;
	uint16_t n = want ? want : 1;
	why[0] = 0;
	if (n > offered && !pci) {
		snprintf(why, whylen, "%u RX queues wanted, %s offers %u RX and %u TX", n, driver,
			 max_rx, max_tx);
		return -1;
	}
	/* a PCI port's queues are as many RX cores as the PMD can give: the
	 * RX cores past them serve it not (a NIC with two queue pairs under
	 * three RX cores; DPDK 22.11.0's net_e1000_em offered one) */
	if (n > offered) {
		snprintf(why, whylen, "%s offers %u RX and %u TX queues", driver, max_rx, max_tx);
		n = offered ? offered : 1;
	}
	if (n > 1 && pci && !rss) {
		/* queues beyond the first would stay empty */
		snprintf(why, whylen, "%s offers no RSS on IP addresses and ports", driver);
		n = 1;
	}
	*nrxq = n;
	return 0;
}

/* The queues and descriptors the PMD allows, into pp (nrxq, rxd, txd, why
 * fewer queues than nrxq), and RSS on a PCI port with several queues; -1
 * with why. */
static int queues_conf(struct pmd_port *pp, const struct rte_eth_dev_info *info, uint16_t nrxq,
		       uint16_t rxd, uint16_t txd, struct rte_eth_conf *conf, char *err,
		       size_t errlen)
{
	if (rxd > info->rx_desc_lim.nb_max && info->rx_desc_lim.nb_max)
		rxd = info->rx_desc_lim.nb_max;
	if (txd > info->tx_desc_lim.nb_max && info->tx_desc_lim.nb_max)
		txd = info->tx_desc_lim.nb_max;
	/* a PCI port's queues are filled by RSS on the IP addresses and ports,
	 * as l3fwd sets it: a transport flow stays on one queue, so in order
	 * (the hash functions the device offers, of those) */
	uint64_t rss_hf =
		(RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP | RTE_ETH_RSS_TCP) & info->flow_type_rss_offloads;
	bool pci = pmd_is_pci(pp->device);
	if (pmd_queues_decide(pci, pp->driver, nrxq, info->max_rx_queues, info->max_tx_queues,
			      rss_hf != 0, &nrxq, pp->queues, sizeof(pp->queues)) != 0) {
		snprintf(err, errlen, "device %s: %s", pp->device, pp->queues);
		return -1;
	}
	if (nrxq > 1 && pci) {
		conf->rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		conf->rx_adv_conf.rss_conf.rss_hf = rss_hf;
		pp->rss = true;
	}
	pp->nrxq = nrxq;
	pp->rxd = rxd;
	pp->txd = txd;
	return 0;
}

/* Configured and started as pp says (its descriptors as the PMD adjusts
 * them): 0, or -1 with why and what DPDK logged. */
static int port_start(struct pmd_port *pp, const char *name, const struct rte_eth_conf *conf,
		      struct rte_mempool *mp, char *err, size_t errlen)
{
	/* as many TX queues as RX ones: af_xdp pairs them per socket; tdpd sends on 0 */
	int rc = rte_eth_dev_configure(pp->id, pp->nrxq, pp->nrxq, conf);
	if (rc == 0)
		rc = rte_eth_dev_adjust_nb_rx_tx_desc(pp->id, &pp->rxd, &pp->txd);
	int sock = rte_eth_dev_socket_id(pp->id);
	for (uint16_t q = 0; rc == 0 && q < pp->nrxq; q++) {
		rc = rte_eth_rx_queue_setup(pp->id, q, pp->rxd, sock, NULL, mp);
		if (rc == 0)
			rc = rte_eth_tx_queue_setup(pp->id, q, pp->txd, sock, NULL);
	}
	if (rc == 0)
		rc = rte_eth_dev_start(pp->id);
	if (rc != 0) {
		char cause[400];
		log_cause(name, cause, sizeof(cause));
		snprintf(err, errlen, "device %s: port set-up failed: %s%s%s", pp->device,
			 rte_strerror(rc < 0 ? -rc : rc), cause[0] ? "; DPDK said: " : "", cause);
		return -1;
	}
	pp->started = true;
	return 0;
}

/* A launch-time port whose clock cannot be read pushes by the CPU; -1 with
 * why when launch time was asked for (on). */
static int launch_clock(struct pmd_port *pp, const char *driver, enum pmd_launch launch, char *err,
			size_t errlen)
{
	uint64_t clk;
	int rc = pp->launch ? rte_eth_read_clock(pp->id, &clk) : 0;
	if (rc == 0)
		return 0;
	snprintf(pp->push, sizeof(pp->push),
		 "the CPU at the frame boundary: %s offers send on timestamp but cannot read its "
		 "clock (%s)",
		 driver, rte_strerror(-rc));
	pp->launch = false;
	if (launch != PMD_LAUNCH_ON)
		return 0;
	snprintf(err, errlen, "device %s: tx-launch on, but it pushes by %s", pp->device, pp->push);
	return -1;
}

int pmd_port_open(struct pmd_port *pp, const char *device, uint16_t nrxq, uint16_t rxd,
		  uint16_t txd, struct rte_mempool *mp, enum pmd_launch launch, char *err,
		  size_t errlen)
{
	memset(pp, 0, sizeof(*pp));
	snprintf(pp->device, sizeof(pp->device), "%s", device);
	char name[256];
	if (port_find(pp, device, name, sizeof(name), err, errlen))
		return -1;
	struct rte_eth_dev_info info;
	int rc = rte_eth_dev_info_get(pp->id, &info);
	if (rc != 0) {
		snprintf(err, errlen, "device %s: %s", device, rte_strerror(-rc));
		return -1;
	}
	snprintf(pp->driver, sizeof(pp->driver), "%s", info.driver_name ? info.driver_name : "?");
	struct rte_eth_conf conf;
	memset(&conf, 0, sizeof(conf));
	if (launch_conf(pp, &info, launch, &conf, err, errlen) ||
	    queues_conf(pp, &info, nrxq, rxd, txd, &conf, err, errlen) ||
	    port_start(pp, name, &conf, mp, err, errlen) ||
	    launch_clock(pp, info.driver_name, launch, err, errlen))
		return -1;
	rte_eth_promiscuous_enable(pp->id);
	struct rte_ether_addr a;
	if (rte_eth_macaddr_get(pp->id, &a) == 0)
		memcpy(pp->mac, a.addr_bytes, 6);
	pmd_port_link(pp);
	return 0;
}

int pmd_port_counters(uint16_t id, struct pmd_counters *c)
{
	struct rte_eth_stats st;
	int rc = rte_eth_stats_get(id, &st);
	if (rc != 0)
		return rc;
	*c = (struct pmd_counters){.ipackets = st.ipackets,
				   .imissed = st.imissed,
				   .rx_nombuf = st.rx_nombuf,
				   .ierrors = st.ierrors,
				   .opackets = st.opackets,
				   .oerrors = st.oerrors};
	return 0;
}

void pmd_port_link(struct pmd_port *pp)
{
	struct rte_eth_link link;
	memset(&link, 0, sizeof(link));
	pp->link_mbps = 0;
	if (rte_eth_link_get_nowait(pp->id, &link) == 0 &&
	    link.link_speed != RTE_ETH_SPEED_NUM_NONE &&
	    link.link_speed != RTE_ETH_SPEED_NUM_UNKNOWN)
		pp->link_mbps = link.link_speed;
}

int pmd_vdev_add(const char *device, char *err, size_t errlen)
{
	char name[256], ifname[64];
	vdev_name(device, name, sizeof(name), ifname, sizeof(ifname));
	const char *args = strchr(device, ',');
	int rc = rte_vdev_init(name, args ? args + 1 : "");
	if (rc == 0)
		return 0;
	char cause[400];
	log_cause(ifname[0] ? ifname : name, cause, sizeof(cause));
	snprintf(err, errlen, "device %s: the driver did not create it (%s)%s%s", device,
		 rte_strerror(rc < 0 ? -rc : rc), cause[0] ? "; DPDK said: " : "", cause);
	return -1;
}

void pmd_port_close(struct pmd_port *pp)
{
	if (!pp->started)
		return;
	rte_eth_dev_stop(pp->id);
	rte_eth_dev_close(pp->id);
	pp->started = false;
}

/* DPDK makes /var/run/dpdk/PREFIX (its runtime directory) at init and
 * leaves it at cleanup; with --in-memory or --no-shconf it stays empty */
void pmd_eal_cleanup(void)
{
	char dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s", rte_eal_get_runtime_dir());
	rte_eal_cleanup();
	if (dir[0])
		rmdir(dir); /* not empty: another program's files, left alone */
}

int pmd_eal_stale_dirs(void)
{
	int removed = 0;
	DIR *dd = opendir(PMD_RUNTIME_DIR);
	if (!dd)
		return 0;
	struct dirent *e;
	while ((e = readdir(dd))) {
		char *end;
		if (strncmp(e->d_name, "tdpd", 4) != 0)
			continue;
		long pid = strtol(e->d_name + 4, &end, 10);
		if (*end || pid <= 0)
			continue;
		char p[PATH_MAX];
		snprintf(p, sizeof(p), "/proc/%ld", pid);
		if (access(p, F_OK) == 0)
			continue; /* its tdpd runs (or the pid is another's now: left alone) */
		snprintf(p, sizeof(p), "%s/%s", PMD_RUNTIME_DIR, e->d_name);
		if (rmdir(p) == 0)
			removed++;
	}
	closedir(dd);
	return removed;
}
