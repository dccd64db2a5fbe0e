/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Blocks of one size for state made and freed one at a time, such as a
 * flow's (the engine's flow, its queues and their slots, shared by the
 * tables before and after a swap and freed when the last lets it go). They
 * are packed into chunks of SLAB_CHUNK bytes from bigmem, on a 2 MiB
 * boundary, so that at 10^6 flows they lie on transparent huge pages as the
 * flow arrays do, where one malloc each put them on 4 KiB pages. A block
 * starts on a cache line and comes zeroed; a freed block goes to the next
 * block asked for, and a chunk whose blocks are all free goes back to the
 * kernel unless it is the last one held. Blocks larger than
 * SLAB_CHUNK / 16 are each a bigmem array of their own. Not for the data
 * path: a lock guards each slab, for the control thread that makes flows
 * and the one that retires them.
 */
#ifndef TDP_SLAB_H
#define TDP_SLAB_H

#include <stddef.h>
#include <stdint.h>

#define SLAB_CHUNK ((size_t)2 << 20)

struct slab;

/* A slab of blocks of size bytes (rounded up to a cache line); NULL without
 * memory or for a size of 0. */
struct slab *slab_new(size_t size);
/* A zeroed block, or NULL without memory. */
void *slab_alloc(struct slab *s);
/* p back to s (NULL: nothing). */
void slab_free(struct slab *s, void *p);
/* The slab and every chunk it holds, whatever blocks are still out. */
void slab_destroy(struct slab *s);
/* Blocks out now, and chunks held (the blocks of their own not counted). */
struct slab_use {
	uint64_t blocks, chunks;
};
void slab_use(struct slab *s, struct slab_use *u);

#endif
