/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>

#include "huge.h"

/* RTE_MBUF_DEFAULT_BUF_SIZE (2176) and the mbuf header with its private
 * area, rounded up: what one buffer of the pool takes */
#define MBUF_BYTES (2176 + 256)

/* Besides the pool and the route tables: 64 MiB for DPDK itself. */
uint64_t pmd_mem_mb(uint32_t mbufs, uint32_t route_mb)
{
	return (uint64_t)mbufs * MBUF_BYTES / (1024 * 1024) + 64 + route_mb;
}

int pmd_huge_read(const char *meminfo, struct pmd_huge *h)
{
	h->free_pages = 0;
	h->page_kb = 0;
	FILE *f = fopen(meminfo, "r");
	if (!f)
		return -errno;
	char line[256];
	while (fgets(line, sizeof(line), f)) {
		long v;
		if (sscanf(line, "HugePages_Free: %ld", &v) == 1)
			h->free_pages = v;
		else if (sscanf(line, "Hugepagesize: %ld kB", &v) == 1)
			h->page_kb = v;
	}
	fclose(f);
	return 0;
}

int pmd_huge_plan(int mode, uint32_t mbufs, uint32_t route_mb, const struct pmd_huge *h,
		  bool *no_huge, char *msg, size_t len)
{
	uint64_t need = pmd_mem_mb(mbufs, route_mb);
	uint64_t page_kb = h->page_kb > 0 ? (uint64_t)h->page_kb : 2048;
	uint64_t free_mb = h->free_pages > 0 ? (uint64_t)h->free_pages * page_kb / 1024 : 0;
	uint64_t pages = (need * 1024 + page_kb - 1) / page_kb;
	msg[0] = 0;
	*no_huge = false;
	if (mode == PMD_HUGE_NO) {
		*no_huge = true;
		return 0;
	}
	if (free_mb >= need)
		return 0;
	if (mode == PMD_HUGE_YES) {
		snprintf(msg, len,
			 "huge-pages yes: the pool of %u mbufs, %u MiB of route tables "
			 "(route-memory) "
			 "and DPDK need %llu MiB of "
			 "hugepages, and %ld of %llu kB are free (%llu MiB): reserve %llu (e.g. "
			 "echo %llu > "
			 "/sys/kernel/mm/hugepages/hugepages-%llukB/nr_hugepages), or set "
			 "huge-pages auto",
			 mbufs, route_mb, (unsigned long long)need,
			 h->free_pages > 0 ? h->free_pages : 0, (unsigned long long)page_kb,
			 (unsigned long long)free_mb, (unsigned long long)pages,
			 (unsigned long long)pages, (unsigned long long)page_kb);
		return -ENOMEM;
	}
	*no_huge = true;
	snprintf(msg, len,
		 "%ld hugepages of %llu kB free (%llu MiB), the pool of %u mbufs, %u MiB of route "
		 "tables (route-memory) and DPDK need "
		 "%llu MiB: DPDK runs with --no-huge (fine for vdevs; a NIC wants %llu hugepages "
		 "reserved)",
		 h->free_pages > 0 ? h->free_pages : 0, (unsigned long long)page_kb,
		 (unsigned long long)free_mb, mbufs, route_mb, (unsigned long long)need,
		 (unsigned long long)pages);
	return 0;
}

int pmd_huge_decide(int mode, uint32_t mbufs, uint32_t route_mb, bool *no_huge, char *msg,
		    size_t len)
{
	struct pmd_huge h;
	pmd_huge_read("/proc/meminfo", &h); /* unreadable: none free */
	return pmd_huge_plan(mode, mbufs, route_mb, &h, no_huge, msg, len);
}
