/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_malloc.h>

#include "fib.h"

/*
 * An entry: 0 nothing; (nh + 1) << 1 a next hop; g << 1 | 1 group g, whose
 * 256 entries the next byte of the address picks.
 */
#define EXT 1u
#define GRP 256u

/* one family's trie: a first level of 2^bits entries, then the groups */
struct trie {
	unsigned bits;	 /* 24 (IPv4) or 16 (IPv6) */
	unsigned width;	 /* 32 or 128 */
	uint32_t *first; /* 2^bits entries */
	uint32_t *grp;	 /* ngrp groups of 256 entries */
	uint64_t ngrp, used;
};

struct fib {
	struct trie t4, t6;
};

static const unsigned FIRST4 = 24, FIRST6 = 16;

static unsigned first_bits(int family)
{
	return family == 4 ? FIRST4 : FIRST6;
}

/* A group's identity: the level it starts at (a multiple of 8 past the first
 * level) and the address's bytes above it. */
struct grp_key {
	uint8_t level;
	uint8_t bits[15];
};

static int key_cmp(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(struct grp_key));
}

/* key k of v (cap of them), grown as needed; NULL out of memory */
static struct grp_key *key_at(struct grp_key **v, size_t *cap, size_t k)
{
	if (k >= *cap) {
		size_t nc = *cap ? *cap * 2 : 1024;
		struct grp_key *p = realloc(*v, nc * sizeof(*p));
		if (!p)
			return NULL;
		*v = p;
		*cap = nc;
	}
	return &(*v)[k];
}

/* A prefix needs a group at each level from the first level's end up to the
 * one its last bits fall in. Prefixes that share the bits above a level share
 * its group, so the count is of distinct (family, level, bits): exactly the
 * groups fib_build makes. */
int fib_need_of(struct fib_need *need, size_t n, fib_prefix_fn get, const void *ctx)
{
	memset(need, 0, sizeof(*need));
	struct grp_key *k = NULL;
	size_t nk = 0, cap = 0;
	for (size_t i = 0; i < n; i++) {
		int family;
		const uint8_t *p;
		unsigned len;
		get(ctx, i, &family, &p, &len);
		*(family == 4 ? &need->n4 : &need->n6) += 1;
		for (unsigned l = first_bits(family); l < len; l += 8) {
			struct grp_key *g = key_at(&k, &cap, nk++);
			if (!g) {
				free(k);
				return -1;
			}
			memset(g, 0, sizeof(*g));
			g->level = (uint8_t)(l | (family == 6 ? 0x80 : 0)); /* IPv6 after IPv4 */
			memcpy(g->bits, p, l / 8);
		}
	}
	if (nk)
		qsort(k, nk, sizeof(*k), key_cmp);
	for (size_t i = 0; i < nk; i++)
		if (!i || key_cmp(&k[i], &k[i - 1]) != 0)
			*(k[i].level & 0x80 ? &need->g6 : &need->g4) += 1;
	free(k);
	return 0;
}

uint64_t fib_bytes(const struct fib_need *need)
{
	return ((1ull << FIRST4) + (1ull << FIRST6) + (need->g4 + need->g6) * GRP) *
	       sizeof(uint32_t);
}

static int trie_init(struct trie *t, unsigned bits, unsigned width, uint64_t ngrp)
{
	t->bits = bits;
	t->width = width;
	t->ngrp = ngrp;
	/* rte_zmalloc: DPDK's memory (hugepages where tdpd has them), zeroed */
	t->first = rte_zmalloc("tdp_fib", sizeof(uint32_t) << bits, 64);
	t->grp = ngrp ? rte_zmalloc("tdp_fib_grp", ngrp * GRP * sizeof(uint32_t), 64) : NULL;
	return t->first && (t->grp || !ngrp) ? 0 : -1;
}

static void trie_free(struct trie *t)
{
	rte_free(t->first);
	rte_free(t->grp);
}

/* the group an entry leads to, made (from what the entry held) if need be */
static uint32_t *descend(struct trie *t, uint32_t *e)
{
	if (!(*e & EXT)) {
		if (t->used == t->ngrp)
			return NULL;
		uint32_t *g = t->grp + t->used * GRP;
		for (unsigned i = 0; i < GRP; i++)
			g[i] = *e;
		*e = (uint32_t)(t->used++ << 1) | EXT;
	}
	return t->grp + (uint64_t)(*e >> 1) * GRP;
}

static void fill(uint32_t *e, uint64_t n, uint32_t v)
{
	for (uint64_t i = 0; i < n; i++)
		e[i] = v;
}

/* Prefix a/len with next hop nh over everything shorter: its range of the
 * first level, or of the group its last bits fall in. 0 or -1 when the
 * groups are used up (need counted them: not expected). */
static int trie_put(struct trie *t, const uint8_t *a, unsigned len, uint32_t nh)
{
	uint32_t v = (nh + 1) << 1;
	uint32_t idx = (uint32_t)a[0] << 8 | a[1];
	if (t->bits == 24)
		idx = idx << 8 | a[2];
	if (len <= t->bits) {
		uint64_t span = 1ull << (t->bits - len);
		fill(t->first + (idx & ~(uint32_t)(span - 1)), span, v);
		return 0;
	}
	uint32_t *e = &t->first[idx];
	unsigned at = t->bits; /* bits of the address consumed */
	for (;;) {
		uint32_t *g = descend(t, e);
		if (!g)
			return -1;
		uint8_t byte = a[at / 8];
		if (len - at <= 8) {
			unsigned span = 1u << (8 - (len - at));
			fill(g + (byte & ~(span - 1)), span, v);
			return 0;
		}
		e = &g[byte];
		at += 8;
	}
}

/* prefix indexes by length, shortest first, and by index within a length */
static size_t *by_length(size_t n, fib_prefix_fn get, const void *ctx)
{
	size_t *o = malloc((n ? n : 1) * sizeof(*o)), at[130] = {0};
	if (!o)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		int family;
		const uint8_t *p;
		unsigned len;
		get(ctx, i, &family, &p, &len);
		at[(len > 128 ? 128 : len) + 1]++;
	}
	for (unsigned l = 1; l < 130; l++)
		at[l] += at[l - 1];
	for (size_t i = 0; i < n; i++) {
		int family;
		const uint8_t *p;
		unsigned len;
		get(ctx, i, &family, &p, &len);
		o[at[len > 128 ? 128 : len]++] = i;
	}
	return o;
}

struct fib *fib_build(const struct fib_need *need, size_t n, fib_prefix_fn get, const void *ctx,
		      size_t *missing, size_t *first_missing, char *err, size_t errlen)
{
	*missing = 0;
	struct fib *f = calloc(1, sizeof(*f));
	size_t *order = by_length(n, get, ctx);
	if (!f || !order) {
		snprintf(err, errlen, "out of memory");
		free(f);
		free(order);
		return NULL;
	}
	if (trie_init(&f->t4, FIRST4, 32, need->g4) != 0 ||
	    trie_init(&f->t6, FIRST6, 128, need->g6) != 0) {
		snprintf(
			err, errlen,
			"cannot have the route tables for %zu IPv4 and %zu IPv6 prefixes: %llu MiB "
			"of DPDK memory (route-memory)",
			need->n4, need->n6, (unsigned long long)(fib_bytes(need) >> 20));
		fib_free(f);
		free(order);
		return NULL;
	}
	for (size_t k = 0; k < n; k++) {
		size_t i = order[k];
		int family;
		const uint8_t *p;
		unsigned len;
		get(ctx, i, &family, &p, &len);
		struct trie *t = family == 4 ? &f->t4 : &f->t6;
		if (i > FIB_NH_MAX || len > t->width || trie_put(t, p, len, (uint32_t)i) != 0)
			if (!(*missing)++)
				*first_missing = i;
	}
	free(order);
	return f;
}

void fib_free(struct fib *f)
{
	if (!f)
		return;
	trie_free(&f->t4);
	trie_free(&f->t6);
	free(f);
}

/* an entry's next hop: nothing (0) gives FIB_NONE, without a branch */
static inline uint32_t hop_of(uint32_t e)
{
	return (e >> 1) - 1;
}

void fib_lookup4(const struct fib *f, const uint32_t *ip, uint32_t *nh, unsigned n)
{
	const struct trie *t = &f->t4;
	for (unsigned i = 0; i < n; i++) {
		uint32_t e = t->first[ip[i] >> 8];
		if (e & EXT)
			e = t->grp[(uint64_t)(e >> 1) * GRP + (ip[i] & 0xff)];
		nh[i] = hop_of(e);
	}
}

/* Level by level over the burst, so that the reads of one level (each a
 * likely miss) are independent of each other and overlap. */
void fib_lookup6(const struct fib *f, const uint8_t (*ip)[16], uint32_t *nh, unsigned n)
{
	const struct trie *t = &f->t6;
	for (unsigned at = 0; at < n; at += 64) {
		unsigned m = n - at < 64 ? n - at : 64;
		const uint8_t(*a)[16] = ip + at;
		uint32_t e[64];
		unsigned ext = 0;
		for (unsigned i = 0; i < m; i++) {
			e[i] = t->first[(uint32_t)a[i][0] << 8 | a[i][1]];
			ext |= e[i];
		}
		for (unsigned b = 2; b < 16 && (ext & EXT); b++) {
			ext = 0;
			for (unsigned i = 0; i < m; i++)
				if (e[i] & EXT) {
					e[i] = t->grp[(uint64_t)(e[i] >> 1) * GRP + a[i][b]];
					ext |= e[i];
				}
		}
		for (unsigned i = 0; i < m; i++)
			nh[at + i] = hop_of(e[i]);
	}
}
