/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Hugepages or not, decided before the EAL starts: what DPDK's memory needs
 * (the mbuf pool, the route tables, slack for rings and the EAL's own) against
 * the hugepages /proc/meminfo says are free. Pure but for the file read, and
 * no DPDK, so it is tested alone.
 */
#ifndef TDP_HUGE_H
#define TDP_HUGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
	PMD_HUGE_AUTO,
	PMD_HUGE_YES,
	PMD_HUGE_NO
};

struct pmd_huge {
	long free_pages; /* HugePages_Free */
	long page_kb;	 /* Hugepagesize */
};

/* MiB DPDK needs for a pool of mbufs buffers, route_mb for the route tables
 * (route-memory: the ones alive at once while the kernel's routes change),
 * and 64 for DPDK itself. */
uint64_t pmd_mem_mb(uint32_t mbufs, uint32_t route_mb);
/* Reads HugePages_Free and Hugepagesize; 0, or -errno (then none free). */
int pmd_huge_read(const char *meminfo, struct pmd_huge *h);
/*
 * The decision for huge-pages mode: *no_huge, and in msg a notice to log when
 * the choice needs one (auto falling back, with the numbers). -ENOMEM with
 * the error in msg when mode yes cannot be met: how much is needed, how much
 * is free, and how to reserve it.
 */
int pmd_huge_plan(int mode, uint32_t mbufs, uint32_t route_mb, const struct pmd_huge *h,
		  bool *no_huge, char *msg, size_t len);
/* pmd_huge_plan on this machine's /proc/meminfo. */
int pmd_huge_decide(int mode, uint32_t mbufs, uint32_t route_mb, bool *no_huge, char *msg,
		    size_t len);

#endif
