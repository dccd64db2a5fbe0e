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
	uint64_t key; /* port << 48 | flow << 32 | line */
	uint32_t n;
};

#define SKEY_FLOWS(k) ((uint32_t)((k) >> 32)) /* port << 16 | flow */
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
		uint32_t v = (uint32_t)e[i].flow << 16 | e[i].n;
		h = (h ^ v) * 16777619u;
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

int sched_build(struct sched_table *t, struct sched_diags *d)
{
	uint32_t k = t->k, *head = NULL, *link = NULL, *cur = NULL;
	struct scratch_ent *scr = NULL;
	struct sched_entry *row = NULL;
	struct row_hash rh = {0};
	struct sched_fold fo = {0};
	size_t cap_scr = 0, cap_ent = 0, cap_off = 0, cap_row = 0;
	int rc = -EINVAL;

	if (sched_check_rule_frames(t, d))
		return rc;
	if ((rc = sched_fold(t, &fo, d)))
		return rc;
	rc = -ENOMEM;
	t->frame_row = malloc(sizeof(uint32_t) * k);
	head = malloc(sizeof(uint32_t) * k);
	link = malloc(sizeof(uint32_t) * (fo.nseg + 1));
	cur = malloc(sizeof(uint32_t) * (fo.nseg + 1));
	if (!t->frame_row || !head || !link || !cur || rh_grow(&rh) ||
	    sched_grow(&t->row_off, &cap_off, 1, sizeof(uint32_t)))
		goto oom;
	memset(head, 0xff, sizeof(uint32_t) * k);
	for (uint32_t s = 0; s < fo.nseg; s++) {
		cur[s] = fo.seg[s].first;
		link[s] = head[cur[s]];
		head[cur[s]] = s;
	}

	t->row_off[0] = 0;
	t->nrows = 0;
	for (uint32_t f = 0; f < k; f++) {
		uint32_t n = 0;
		d->work++;
		for (uint32_t s = head[f]; s != UINT32_MAX;) {
			uint32_t next = link[s];
			const struct sched_seg *sg = &fo.seg[s];
			if (sched_grow(&scr, &cap_scr, n + sg->nent, sizeof(*scr)))
				goto oom;
			for (uint32_t e = 0; e < sg->nent; e++) {
				const struct sched_seg_ent *se = &fo.ent[sg->ent_off + e];
				scr[n++] = (struct scratch_ent){
					.key = ((uint64_t)se->port << 16 | se->flow) << 32 |
					       se->line,
					.n = se->n};
			}
			d->work += sg->nent;
			if ((uint64_t)cur[s] + sg->stride <= sg->last) {
				cur[s] += sg->stride;
				link[s] = head[cur[s]];
				head[cur[s]] = s;
			}
			s = next;
		}
		sort_scratch(scr, n);
		/* the same flow on several chains adds up */
		uint32_t m = 0;
		for (uint32_t i = 0; i < n; i++) {
			if (!m || SKEY_FLOWS(scr[m - 1].key) != SKEY_FLOWS(scr[i].key)) {
				scr[m++] = scr[i];
				continue;
			}
			scr[m - 1].n += scr[i].n;
			if (scr[m - 1].n > SCHED_MAX_N) {
				uint16_t fl = (uint16_t)(SKEY_FLOWS(scr[i].key) & 0xffff);
				sched_diag_add(
					d, SCHED_ERROR, SKEY_LINE(scr[i].key), 1,
					"flow %s has %u packets in frame %u (limit %d per frame)",
					t->flows[fl].name, scr[m - 1].n, f, SCHED_MAX_N);
				rc = -ERANGE;
				goto out;
			}
		}
		if (sched_grow(&row, &cap_row, m + 1, sizeof(*row)))
			goto oom;
		for (uint32_t i = 0; i < m; i++)
			row[i] = (struct sched_entry){
				.flow = (uint16_t)(SKEY_FLOWS(scr[i].key) & 0xffff),
				.n = (uint16_t)scr[i].n};
		uint32_t h = row_hash_of(row, m), id = UINT32_MAX, j;
		for (j = h & rh.mask; rh.slot[j]; j = (j + 1) & rh.mask) {
			uint32_t r = rh.slot[j] - 1;
			if (rh.hash[j] == h && t->row_off[r + 1] - t->row_off[r] == m &&
			    memcmp(t->ent + t->row_off[r], row, m * sizeof(*row)) == 0) {
				id = r;
				break;
			}
		}
		if (id == UINT32_MAX) {
			id = t->nrows;
			uint32_t base = t->row_off[id];
			if (sched_grow(&t->ent, &cap_ent, (size_t)base + m + 1, sizeof(*t->ent)) ||
			    sched_grow(&t->row_off, &cap_off, (size_t)id + 2, sizeof(uint32_t)))
				goto oom;
			memcpy(t->ent + base, row, m * sizeof(*row));
			t->row_off[id + 1] = base + m;
			t->nrows++;
			rh.slot[j] = id + 1;
			rh.hash[j] = h;
			if (++rh.used * 2 > rh.mask && rh_grow(&rh))
				goto oom;
		}
		t->frame_row[f] = id;
	}
	/* trim to size: this is the form the engine keeps */
	if (t->row_off[t->nrows]) {
		struct sched_entry *e = realloc(t->ent, sizeof(*t->ent) * t->row_off[t->nrows]);
		if (e)
			t->ent = e;
	}
	uint32_t *o = realloc(t->row_off, sizeof(uint32_t) * (t->nrows + 1));
	if (o)
		t->row_off = o;
	rc = 0;
	goto out;
oom:
	sched_diag_add(d, SCHED_ERROR, 0, 0, "out of memory");
out:
	sched_fold_free(&fo);
	free(head);
	free(link);
	free(cur);
	free(scr);
	free(row);
	free(rh.slot);
	free(rh.hash);
	return rc;
}

size_t sched_runtime_bytes(const struct sched_table *t)
{
	return sizeof(uint32_t) * (size_t)t->k + sizeof(uint32_t) * ((size_t)t->nrows + 1) +
	       sizeof(struct sched_entry) * (size_t)t->row_off[t->nrows];
}
