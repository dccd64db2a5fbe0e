/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The data path's large arrays (a classifier's slots, a table's flows), on
 * transparent huge pages where the kernel gives them. At 10^6 flows these
 * arrays take tens of MB each and every packet reads them at random: on
 * 4 KiB pages nearly each read also misses the TLB, and the walk stalls
 * even a prefetch. A region of BIGMEM_MIN bytes or more is its own mapping,
 * 2 MiB aligned, marked MADV_HUGEPAGE while it is still inaccessible and
 * only then made readable and writable: under mlockall(MCL_FUTURE) a
 * mapping is filled with pages when it is made, so advice given after that
 * comes too late (madvise(2), mlock(2)). Every page is present on return
 * (zeroed), so the data path never takes a fault on it. Smaller regions come
 * from malloc's heap, zeroed. Either starts on a cache line (BIGMEM_ALIGN),
 * so that an element of 32 or 64 bytes never straddles two (calloc gives
 * 16). Where the kernel has transparent huge pages off, the same memory on
 * 4 KiB pages.
 */
#ifndef TDP_BIGMEM_H
#define TDP_BIGMEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BIGMEM_MIN (1u << 20)
#define BIGMEM_ALIGN 64

/* n zeroed elements of size bytes each; NULL when out of memory. */
void *bigmem_calloc(size_t n, size_t size);
void bigmem_free(void *p);
/* Bytes now held in mappings of bigmem_calloc, and how many of them are on
 * huge pages (the regions' AnonHugePages, from /proc/self/smaps; 0 when that
 * cannot be read). */
struct bigmem_use {
	uint64_t mapped, huge;
};
void bigmem_use(struct bigmem_use *u);
/* The kernel's transparent huge page mode, the word in brackets of
 * /sys/kernel/mm/transparent_hugepage/enabled ("always", "madvise" or
 * "never"; "unknown" when it cannot be read). */
void bigmem_thp_mode(char *out, size_t len);
/* The word in brackets of line, as that file writes it, into out; false
 * when there is none (tdpctl doctor reads the file under its own root). */
bool bigmem_thp_word(const char *line, char *out, size_t len);

#endif
