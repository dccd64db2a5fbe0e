/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The longest-prefix lookup under the route table (route.c): a multibit trie
 * in the DIR-24-8 layout (Gupta, Lin and McKeown, "Routing lookups in hardware
 * at memory access speeds", INFOCOM 1998). IPv4: a first level indexed by the
 * address's top 24 bits, then groups of 256 entries for prefixes longer than
 * 24. IPv6: a first level of 16 bits, then a group of 256 for each further
 * byte a prefix reaches. An entry holds a next hop, nothing, or the group to
 * read next, so a lookup reads one entry a level.
 *
 * A fib is built once from the whole set of prefixes, shortest first: each
 * prefix writes its range over the shorter ones, and a group takes what its
 * entry held when it is made. There is no list of rules to keep: building
 * costs the entries written, and the memory is the first levels (64 MiB and
 * 256 KiB) and the groups the prefixes need, counted before (fib_need_of).
 * Nothing changes a built fib; a change of routes builds a new one (route.h).
 */
#ifndef TDP_FIB_H
#define TDP_FIB_H

#include <stddef.h>
#include <stdint.h>

struct fib;

/* what a lookup finds where no prefix covers the address */
#define FIB_NONE 0xffffffffu
/* the largest next hop a fib holds (next hops are 0 .. FIB_NH_MAX) */
#define FIB_NH_MAX 0x7ffffffeu

/* What a set of prefixes needs: prefixes and groups of 256 entries, by
 * family. */
struct fib_need {
	size_t n4, n6;
	uint64_t g4, g6;
};

/* Prefix i of a set: family 4 or 6, the address (4 or 16 bytes, masked or
 * not) and its length. */
typedef void (*fib_prefix_fn)(const void *ctx, size_t i, int *family, const uint8_t **prefix,
			      unsigned *len);

/* Counts what prefixes 0..n-1 need. Returns 0, or -1 out of memory. */
int fib_need_of(struct fib_need *need, size_t n, fib_prefix_fn get, const void *ctx);

/* The memory a fib of that need takes, in bytes. */
uint64_t fib_bytes(const struct fib_need *need);

/* A fib of prefixes 0..n-1 (need: fib_need_of's count for them), prefix i
 * with next hop i; of one prefix given twice, the later. A prefix that cannot
 * go in (i past FIB_NH_MAX) is left out: *missing counts them and
 * *first_missing is the first. NULL with a message in err when the memory
 * (DPDK's, rte_malloc) is not there. */
struct fib *fib_build(const struct fib_need *need, size_t n, fib_prefix_fn get, const void *ctx,
		      size_t *missing, size_t *first_missing, char *err, size_t errlen);
void fib_free(struct fib *f);

/* The next hops of n IPv4 addresses (host order) or of n IPv6 ones:
 * FIB_NONE where no prefix covers one. */
void fib_lookup4(const struct fib *f, const uint32_t *ip, uint32_t *nh, unsigned n);
void fib_lookup6(const struct fib *f, const uint8_t (*ip)[16], uint32_t *nh, unsigned n);

#endif
