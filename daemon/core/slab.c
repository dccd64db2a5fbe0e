/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "bigmem.h"
#include "slab.h"

#define LINE 64
_Static_assert(SLAB_CHUNK >= BIGMEM_MIN, "a chunk is a mapping of its own, on a 2 MiB boundary");

struct chunk;
struct links {
	struct chunk *prev, *next;
};

/* A chunk's first line; its blocks follow. Every chunk is on its slab's
 * list of all, and one with a free block on its list of such (avail). A
 * block of its own (a large one) has this line before it, on the list of
 * all alone. */
struct chunk {
	struct links avail, all;
	void *free;	/* freed blocks, each holding the next's address */
	uint32_t used;	/* blocks out */
	uint32_t fresh; /* blocks never handed out start at this index */
};
_Static_assert(sizeof(struct chunk) <= LINE, "a chunk's header is one line");

struct slab {
	size_t size;	    /* a block, a multiple of LINE */
	uint32_t per_chunk; /* 0: each block a bigmem array of its own */
	struct chunk *avail, *all;
	uint64_t blocks, chunks;
	atomic_flag lock;
};

static void lock(struct slab *s)
{
	while (atomic_flag_test_and_set_explicit(&s->lock, memory_order_acquire))
		;
}

static void unlock(struct slab *s)
{
	atomic_flag_clear_explicit(&s->lock, memory_order_release);
}

struct slab *slab_new(size_t size)
{
	if (!size || size > SIZE_MAX / 2)
		return NULL;
	struct slab *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->size = (size + LINE - 1) & ~(size_t)(LINE - 1);
	if (s->size <= SLAB_CHUNK / 16)
		s->per_chunk = (uint32_t)((SLAB_CHUNK - LINE) / s->size);
	atomic_flag_clear(&s->lock);
	return s;
}

/* the links of c in the list at offset which of struct chunk */
static struct links *links(struct chunk *c, size_t which)
{
	return (struct links *)(void *)((uint8_t *)c + which);
}

static void link_in(struct chunk **head, struct chunk *c, size_t which)
{
	*links(c, which) = (struct links){NULL, *head};
	if (*head)
		links(*head, which)->prev = c;
	*head = c;
}

static void link_out(struct chunk **head, struct chunk *c, size_t which)
{
	struct links *l = links(c, which);
	if (l->prev)
		links(l->prev, which)->next = l->next;
	else
		*head = l->next;
	if (l->next)
		links(l->next, which)->prev = l->prev;
	*l = (struct links){NULL, NULL};
}

#define AVAIL offsetof(struct chunk, avail)
#define ALL offsetof(struct chunk, all)

/* A block of chunk c, which has one free. */
static void *take(struct slab *s, struct chunk *c)
{
	void *p = c->free;
	if (p)
		memcpy(&c->free, p, sizeof(void *));
	else
		p = (uint8_t *)c + LINE + (size_t)c->fresh++ * s->size;
	if (++c->used == s->per_chunk)
		link_out(&s->avail, c, AVAIL);
	return memset(p, 0, s->size);
}

void *slab_alloc(struct slab *s)
{
	if (!s->per_chunk) {
		struct chunk *c = bigmem_calloc(1, LINE + s->size);
		if (!c)
			return NULL;
		lock(s);
		link_in(&s->all, c, ALL);
		s->blocks++;
		unlock(s);
		return (uint8_t *)c + LINE;
	}
	lock(s);
	struct chunk *c = s->avail;
	if (!c) {
		/* a mapping of its own (bigmem: SLAB_CHUNK is past BIGMEM_MIN),
		 * on a SLAB_CHUNK boundary, so a block finds its chunk */
		c = bigmem_calloc(1, SLAB_CHUNK);
		if (!c) {
			unlock(s);
			return NULL;
		}
		s->chunks++;
		link_in(&s->avail, c, AVAIL);
		link_in(&s->all, c, ALL);
	}
	void *p = take(s, c);
	s->blocks++;
	unlock(s);
	return p;
}

void slab_free(struct slab *s, void *p)
{
	if (!p)
		return;
	if (!s->per_chunk) {
		struct chunk *c = (struct chunk *)(void *)((uint8_t *)p - LINE);
		lock(s);
		link_out(&s->all, c, ALL);
		s->blocks--;
		unlock(s);
		bigmem_free(c);
		return;
	}
	struct chunk *c = (struct chunk *)((uintptr_t)p & ~(uintptr_t)(SLAB_CHUNK - 1));
	lock(s);
	s->blocks--;
	bool was_full = c->used == s->per_chunk;
	memcpy(p, &c->free, sizeof(void *));
	c->free = p;
	c->used--;
	if (was_full)
		link_in(&s->avail, c, AVAIL);
	if (c->used == 0 && s->chunks > 1) {
		link_out(&s->avail, c, AVAIL);
		link_out(&s->all, c, ALL);
		s->chunks--;
	} else {
		c = NULL;
	}
	unlock(s);
	bigmem_free(c);
}

void slab_destroy(struct slab *s)
{
	if (!s)
		return;
	for (struct chunk *c = s->all, *n; c; c = n) {
		n = c->all.next;
		bigmem_free(c);
	}
	free(s);
}

void slab_use(struct slab *s, struct slab_use *u)
{
	lock(s);
	u->blocks = s->blocks;
	u->chunks = s->chunks;
	unlock(s);
}
