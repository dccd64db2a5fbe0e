/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "dpdk_env.h"

static struct rte_mempool *pool;

static int eal_init(bool huge, unsigned mb)
{
	static int done;
	if (done)
		return 0;
	char prefix[64], mem[16];
	snprintf(prefix, sizeof(prefix), "--file-prefix=tdptest%d", (int)getpid());
	snprintf(mem, sizeof(mem), "%u", mb);
	char *argv[] = {
		"test",		  "--no-huge",		 "-m", mem, "--no-shconf", "--no-pci",
		"--no-telemetry", "--log-level=*:error", "-l", "0", prefix,	   NULL};
	int argc = (int)(sizeof(argv) / sizeof(argv[0])) - 1;
	if (huge) /* the pages' files go when the process does */
		argv[1] = "--huge-unlink";
	if (rte_eal_init(argc, argv) < 0)
		return -1;
	pool = rte_pktmbuf_pool_create("tdptest", 32767, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	if (!pool)
		return -1;
	done = 1;
	return 0;
}

int env_eal_init(void)
{
	return eal_init(false, 512);
}

int env_eal_init_mb(unsigned mb)
{
	return eal_init(false, mb);
}

/* 2 MiB pages free, from /proc/meminfo */
static long huge_free(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[128];
	long n = 0;
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "HugePages_Free: %ld", &n) == 1)
			break;
	if (f)
		fclose(f);
	return n;
}

/* a hugetlbfs is mounted: without one the EAL fails, and cannot be started
 * a second time without hugepages */
static bool huge_mounted(void)
{
	FILE *f = fopen("/proc/mounts", "r");
	char line[512];
	bool found = false;
	while (f && !found && fgets(line, sizeof(line), f))
		found = strstr(line, " hugetlbfs ") != NULL;
	if (f)
		fclose(f);
	return found;
}

int env_eal_init_huge(bool *huge)
{
	*huge = huge_free() >= 512 / 2 && huge_mounted() && eal_init(true, 512) == 0;
	return *huge ? 0 : eal_init(false, 512);
}

struct rte_mempool *env_pool(void)
{
	return pool;
}

int env_ring_port_mq(const char *name, uint16_t nq, struct rte_ring **rx, struct rte_ring **tx)
{
	char n[64];
	for (uint16_t q = 0; q < nq; q++) {
		snprintf(n, sizeof(n), "%s_rx%u", name, q);
		rx[q] = rte_ring_create(n, 16384, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
		snprintf(n, sizeof(n), "%s_tx%u", name, q);
		tx[q] = rte_ring_create(n, 16384, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (!rx[q] || !tx[q])
			return -1;
	}
	int port = rte_eth_from_rings(name, rx, nq, tx, nq, SOCKET_ID_ANY);
	if (port < 0)
		return -1;
	struct rte_eth_conf conf;
	memset(&conf, 0, sizeof(conf));
	if (rte_eth_dev_configure((uint16_t)port, nq, nq, &conf) != 0)
		return -1;
	for (uint16_t q = 0; q < nq; q++)
		if (rte_eth_rx_queue_setup((uint16_t)port, q, 256, SOCKET_ID_ANY, NULL, pool) !=
			    0 ||
		    rte_eth_tx_queue_setup((uint16_t)port, q, 256, SOCKET_ID_ANY, NULL) != 0)
			return -1;
	if (rte_eth_dev_start((uint16_t)port) != 0)
		return -1;
	return port;
}

int env_ring_port(const char *name, struct rte_ring **rx, struct rte_ring **tx)
{
	return env_ring_port_mq(name, 1, rx, tx);
}

unsigned env_drain(struct rte_ring *r)
{
	void *m;
	unsigned n = 0;
	while (rte_ring_sc_dequeue(r, &m) == 0) {
		rte_pktmbuf_free(m);
		n++;
	}
	return n;
}
