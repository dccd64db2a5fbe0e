/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdlib.h>
#include <string.h>

#include "keyidx.h"

#define REMOVED (KEYIDX_NONE - 1)

uint32_t keyidx_hash(const void *key, size_t len)
{
	const uint8_t *p = key;
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

/* the slot holding (h, pos), or NULL */
static struct keyidx_slot *slot_of(const struct keyidx *x, uint32_t h, uint32_t pos)
{
	if (!x->cap)
		return NULL;
	for (uint32_t i = h & (x->cap - 1);; i = (i + 1) & (x->cap - 1)) {
		struct keyidx_slot *s = &x->s[i];
		if (s->pos == KEYIDX_NONE)
			return NULL;
		if (s->pos == pos && s->h == h)
			return s;
	}
}

uint32_t keyidx_find(const struct keyidx *x, uint32_t h,
		     bool (*same)(const void *ctx, uint32_t pos), const void *ctx)
{
	if (!x->cap)
		return KEYIDX_NONE;
	for (uint32_t i = h & (x->cap - 1);; i = (i + 1) & (x->cap - 1)) {
		const struct keyidx_slot *s = &x->s[i];
		if (s->pos == KEYIDX_NONE)
			return KEYIDX_NONE;
		if (s->pos != REMOVED && s->h == h && same(ctx, s->pos))
			return s->pos;
	}
}

static void place(struct keyidx *x, uint32_t h, uint32_t pos)
{
	uint32_t i = h & (x->cap - 1);
	while (x->s[i].pos != KEYIDX_NONE && x->s[i].pos != REMOVED)
		i = (i + 1) & (x->cap - 1);
	if (x->s[i].pos == REMOVED)
		x->removed--;
	x->s[i] = (struct keyidx_slot){.h = h, .pos = pos};
	x->used++;
}

/* at most half full, removed slots counted: probes stay short */
static int room(struct keyidx *x)
{
	if ((uint64_t)(x->used + x->removed + 1) * 2 <= x->cap)
		return 0;
	uint32_t cap = x->cap ? x->cap : 16;
	while ((uint64_t)(x->used + 1) * 2 > cap) {
		if (cap > UINT32_MAX / 2)
			return -1;
		cap *= 2;
	}
	struct keyidx_slot *s = malloc((size_t)cap * sizeof(*s));
	if (!s)
		return -1;
	memset(s, 0xff, (size_t)cap * sizeof(*s)); /* every pos KEYIDX_NONE */
	struct keyidx old = *x;
	*x = (struct keyidx){.s = s, .cap = cap};
	for (uint32_t i = 0; i < old.cap; i++)
		if (old.s[i].pos != KEYIDX_NONE && old.s[i].pos != REMOVED)
			place(x, old.s[i].h, old.s[i].pos);
	free(old.s);
	return 0;
}

int keyidx_put(struct keyidx *x, uint32_t h, uint32_t pos)
{
	if (room(x) != 0)
		return -1;
	place(x, h, pos);
	return 0;
}

void keyidx_del(struct keyidx *x, uint32_t h, uint32_t pos)
{
	struct keyidx_slot *s = slot_of(x, h, pos);
	if (!s)
		return;
	s->pos = REMOVED;
	x->used--;
	x->removed++;
}

void keyidx_moved(struct keyidx *x, uint32_t h, uint32_t from, uint32_t to)
{
	struct keyidx_slot *s = slot_of(x, h, from);
	if (s)
		s->pos = to;
}

void keyidx_clear(struct keyidx *x)
{
	if (x->cap)
		memset(x->s, 0xff, (size_t)x->cap * sizeof(*x->s));
	x->used = x->removed = 0;
}

void keyidx_free(struct keyidx *x)
{
	free(x->s);
	*x = (struct keyidx){0};
}
