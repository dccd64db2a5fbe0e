/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Builds the runtime form from the rows as written, once sched_fold has
 * folded them into segments that do not overlap on their chain of frames.
 *
 * Expansion walks the cycle once. Every segment waits in the bucket of the
 * next frame it covers (a calendar queue), so the work is O(k + the entries of
 * the segments each frame meets) and the scratch memory O(k + segments),
 * however they interleave; a frame meets at most one segment per chain. Each
 * frame's row is sorted by (port, flow), merged, and looked up in a hash of the
 * distinct rows.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sched_priv.h"

struct scratch_ent {
	uint64_t key; /* (port << 24 | flow) << 32 | line */
	uint32_t n;
};

#define SKEY_FLOWS(k) ((uint32_t)((k) >> 32)) /* port << 24 | flow */
#define SKEY_FLOW(k) (SKEY_FLOWS(k) & SCHED_MAX_FLOWS)
#define SKEY_LINE(k) ((uint32_t)(k))

struct row_hash {
	uint32_t *slot; /* row id + 1 */
	uint32_t *hash;
	uint32_t mask, used;
};

static uint32_t row_hash_of(const struct sched_entry *e, uint32_t n)
{
	uint32_t h = 2166136261u ^ n;
	for (uint32_t i = 0; i < n; i++) {
		h = (h ^ e[i].flow) * 16777619u;
		h = (h ^ e[i].n) * 16777619u;
		h ^= h >> 15;
	}
	return h;
}

static int rh_grow(struct row_hash *rh)
{
	uint32_t nsz = rh->mask ? (rh->mask + 1) * 2 : 1024;
	uint32_t *ns = calloc(nsz, sizeof(uint32_t)), *nh = malloc(nsz * sizeof(uint32_t));
	if (!ns || !nh) {
		free(ns);
		free(nh);
		return -ENOMEM;
	}
	for (uint32_t i = 0; rh->mask && i <= rh->mask; i++) {
		if (!rh->slot[i])
			continue;
		uint32_t j = rh->hash[i] & (nsz - 1);
		while (ns[j])
			j = (j + 1) & (nsz - 1);
		ns[j] = rh->slot[i];
		nh[j] = rh->hash[i];
	}
	free(rh->slot);
	free(rh->hash);
	rh->slot = ns;
	rh->hash = nh;
	rh->mask = nsz - 1;
	return 0;
}

static int cmp_scratch(const void *a, const void *b)
{
	const struct scratch_ent *x = a, *y = b;
	return x->key < y->key ? -1 : x->key > y->key;
}

static void sort_scratch(struct scratch_ent *s, uint32_t n)
{
	if (n > 24) {
		qsort(s, n, sizeof(*s), cmp_scratch);
		return;
	}
	for (uint32_t i = 1; i < n; i++) {
		struct scratch_ent v = s[i];
		uint32_t j = i;
		while (j && s[j - 1].key > v.key) {
			s[j] = s[j - 1];
			j--;
		}
		s[j] = v;
	}
}

/* What a build holds while it walks the cycle */
struct builder {
	struct sched_fold fo;
	uint32_t *head, *link, *cur; /* the calendar: segments by the next frame they cover */
	struct scratch_ent *scr;     /* one frame's entries, as the segments give them */
	struct sched_entry *row;     /* one frame's row */
	struct row_hash rh;	     /* the distinct rows */
	size_t cap_scr, cap_row, cap_ent, cap_off;
};

/* Frame f's entries from every segment that covers it into b->scr, each
 * segment moved on to the next frame it covers: their count, or -1 out of
 * memory. */
static int64_t frame_entries(struct builder *b, uint32_t f, struct sched_diags *d)
{
	uint32_t n = 0;
	for (uint32_t s = b->head[f]; s != UINT32_MAX;) {
		uint32_t next = b->link[s];
		const struct sched_seg *sg = &b->fo.seg[s];
		if (sched_grow(&b->scr, &b->cap_scr, n + sg->nent, sizeof(*b->scr)))
			return -1;
		for (uint32_t e = 0; e < sg->nent; e++) {
			const struct sched_seg_ent *se = &b->fo.ent[sg->ent_off + e];
			b->scr[n++] = (struct scratch_ent){
				.key = ((uint64_t)se->port << 24 | se->flow) << 32 | se->line,
				.n = se->n};
		}
		d->work += sg->nent;
		if ((uint64_t)b->cur[s] + sg->stride <= sg->last) {
			b->cur[s] += sg->stride;
			b->link[s] = b->head[b->cur[s]];
			b->head[b->cur[s]] = s;
		}
		s = next;
	}
	return n;
}

/* The n entries of frame f sorted, the same flow on several chains added up
 * into b->row: its length, or -ERANGE past SCHED_MAX_N, -ENOMEM. */
static int64_t frame_row(const struct sched_table *t, struct builder *b, uint32_t n, uint32_t f,
			 struct sched_diags *d)
{
	struct scratch_ent *scr = b->scr;
	sort_scratch(scr, n);
	uint32_t m = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (!m || SKEY_FLOWS(scr[m - 1].key) != SKEY_FLOWS(scr[i].key)) {
			scr[m++] = scr[i];
			continue;
		}
		scr[m - 1].n += scr[i].n;
		if (scr[m - 1].n > SCHED_MAX_N) {
			uint32_t fl = SKEY_FLOW(scr[i].key);
			sched_diag_add(d, SCHED_ERROR, SKEY_LINE(scr[i].key), 1,
				       "flow %s has %u packets in frame %u (limit %d per frame)",
				       t->flows[fl].name, scr[m - 1].n, f, SCHED_MAX_N);
			return -ERANGE;
		}
	}
	if (sched_grow(&b->row, &b->cap_row, m + 1, sizeof(*b->row)))
		return -ENOMEM;
	for (uint32_t i = 0; i < m; i++)
		b->row[i] = (struct sched_entry){.flow = SKEY_FLOW(scr[i].key), .n = scr[i].n};
	return m;
}

/* The id of the row of m entries in b->row: one already kept, or a new
 * one; UINT32_MAX out of memory. */
static uint32_t row_id(struct sched_table *t, struct builder *b, uint32_t m)
{
	struct row_hash *rh = &b->rh;
	uint32_t h = row_hash_of(b->row, m), j;
	for (j = h & rh->mask; rh->slot[j]; j = (j + 1) & rh->mask) {
		uint32_t r = rh->slot[j] - 1;
		if (rh->hash[j] == h && t->row_off[r + 1] - t->row_off[r] == m &&
		    memcmp(t->ent + t->row_off[r], b->row, m * sizeof(*b->row)) == 0)
			return r;
	}
	uint32_t id = t->nrows, base = t->row_off[id];
	if (sched_grow(&t->ent, &b->cap_ent, (size_t)base + m + 1, sizeof(*t->ent)) ||
	    sched_grow(&t->row_off, &b->cap_off, (size_t)id + 2, sizeof(uint32_t)))
		return UINT32_MAX;
	memcpy(t->ent + base, b->row, m * sizeof(*b->row));
	t->row_off[id + 1] = base + m;
	t->nrows++;
	rh->slot[j] = id + 1;
	rh->hash[j] = h;
	if (++rh->used * 2 > rh->mask && rh_grow(rh))
		return UINT32_MAX;
	return id;
}

/* The calendar: each segment waits at the first frame it covers. -ENOMEM
 * or 0. */
static int calendar(struct sched_table *t, struct builder *b)
{
	uint32_t k = t->k, nseg = b->fo.nseg;
	t->frame_row = malloc(sizeof(uint32_t) * k);
	b->head = malloc(sizeof(uint32_t) * k);
	b->link = malloc(sizeof(uint32_t) * (nseg + 1));
	b->cur = malloc(sizeof(uint32_t) * (nseg + 1));
	if (!t->frame_row || !b->head || !b->link || !b->cur || rh_grow(&b->rh) ||
	    sched_grow(&t->row_off, &b->cap_off, 1, sizeof(uint32_t)))
		return -ENOMEM;
	memset(b->head, 0xff, sizeof(uint32_t) * k);
	for (uint32_t s = 0; s < nseg; s++) {
		b->cur[s] = b->fo.seg[s].first;
		b->link[s] = b->head[b->cur[s]];
		b->head[b->cur[s]] = s;
	}
	t->row_off[0] = 0;
	t->nrows = 0;
	return 0;
}

/* trim to size: this is the form the engine keeps */
static void trim(struct sched_table *t)
{
	if (t->row_off[t->nrows]) {
		struct sched_entry *e = realloc(t->ent, sizeof(*t->ent) * t->row_off[t->nrows]);
		if (e)
			t->ent = e;
	}
	uint32_t *o = realloc(t->row_off, sizeof(uint32_t) * (t->nrows + 1));
	if (o)
		t->row_off = o;
}

int sched_build(struct sched_table *t, struct sched_diags *d)
{
	struct builder b = {0};
	int rc = -EINVAL;
	if (sched_check_rule_frames(t, d))
		return rc;
	if ((rc = sched_fold(t, &b.fo, d)))
		return rc;
	rc = calendar(t, &b);
	for (uint32_t f = 0; !rc && f < t->k; f++) {
		d->work++;
		int64_t n = frame_entries(&b, f, d);
		int64_t m = n < 0 ? -ENOMEM : frame_row(t, &b, (uint32_t)n, f, d);
		uint32_t id = m < 0 ? UINT32_MAX : row_id(t, &b, (uint32_t)m);
		if (id == UINT32_MAX)
			rc = m < 0 ? (int)m : -ENOMEM;
		else
			t->frame_row[f] = id;
	}
	if (!rc)
		trim(t);
	if (rc == -ENOMEM)
		sched_diag_add(d, SCHED_ERROR, 0, 0, "out of memory");
	sched_fold_free(&b.fo);
	free(b.head);
	free(b.link);
	free(b.cur);
	free(b.scr);
	free(b.row);
	free(b.rh.slot);
	free(b.rh.hash);
	return rc;
}

size_t sched_runtime_bytes(const struct sched_table *t)
{
	return sizeof(uint32_t) * (size_t)t->k + sizeof(uint32_t) * ((size_t)t->nrows + 1) +
	       sizeof(struct sched_entry) * (size_t)t->row_off[t->nrows];
}
