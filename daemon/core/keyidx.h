/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An index from a key's hash to the position of its entry in an array the
 * caller keeps (a route table, the kernel's routes as netlink told them):
 * open addressing with linear probing, each slot the entry's hash and
 * position, so growing needs no key. Finding, adding and removing cost the
 * same at 10 entries as at 10^6, where a scan of the array cost a full
 * table's length for every route the kernel added. Not thread-safe; the
 * array's owner keeps it in step (keyidx_put, _del, _moved).
 */
#ifndef TDP_KEYIDX_H
#define TDP_KEYIDX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KEYIDX_NONE UINT32_MAX

struct keyidx_slot {
	uint32_t h, pos; /* pos KEYIDX_NONE: empty; KEYIDX_NONE - 1: removed */
};

struct keyidx {
	struct keyidx_slot *s;
	uint32_t cap; /* a power of two, or 0 */
	uint32_t used, removed;
};

/* A key's hash (FNV-1a over its bytes). */
uint32_t keyidx_hash(const void *key, size_t len);
/* The position of the entry with hash h that same(ctx, pos) takes for the
 * key sought; KEYIDX_NONE when there is none. */
uint32_t keyidx_find(const struct keyidx *x, uint32_t h,
		     bool (*same)(const void *ctx, uint32_t pos), const void *ctx);
/* The entry with hash h is at pos: 0, or -1 out of memory (nothing changed). */
int keyidx_put(struct keyidx *x, uint32_t h, uint32_t pos);
/* The entry with hash h at pos is gone. */
void keyidx_del(struct keyidx *x, uint32_t h, uint32_t pos);
/* The entry with hash h moved from position from to position to (an array
 * that fills a hole with its last entry). */
void keyidx_moved(struct keyidx *x, uint32_t h, uint32_t from, uint32_t to);
/* Empty, keeping its memory. */
void keyidx_clear(struct keyidx *x);
void keyidx_free(struct keyidx *x);

#endif
