/* SPDX-License-Identifier: BSD-3-Clause */
/* A private EAL for test programs: no hugepages, no PCI, no shared files, and
 * in-memory ports (DPDK net_ring) whose TX ring the test reads back. */
#ifndef TDP_DPDK_ENV_H
#define TDP_DPDK_ENV_H

#include <stdbool.h>
#include <stdint.h>

struct rte_mempool;
struct rte_ring;

/* Initialises the EAL once (512 MiB of memory); returns 0 or -1. */
int env_eal_init(void);
/* The same with mb MiB. */
int env_eal_init_mb(unsigned mb);
/* The same on hugepages where 512 MiB of them are free (*huge says whether
 * it did), as tdpd's huge-pages auto; for benchmarks, whose figures depend
 * on the TLB. */
int env_eal_init_huge(bool *huge);
struct rte_mempool *env_pool(void);
/* A started net_ring port; *tx receives what it transmits, *rx feeds what it
 * receives. Each ring holds 16,383 mbufs (the benchmarks' rounds of 16,000). */
int env_ring_port(const char *name, struct rte_ring **rx, struct rte_ring **tx);
/* the same with nq queues, each its own pair of rings (rx[q], tx[q]) */
int env_ring_port_mq(const char *name, uint16_t nq, struct rte_ring **rx, struct rte_ring **tx);
/* Frees everything queued on a ring of mbufs; returns how many. */
unsigned env_drain(struct rte_ring *r);

#endif
