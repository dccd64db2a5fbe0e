/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rows as written, folded before they are expanded frame by frame.
 *
 * A span first, first+stride, ... <= last lies on one chain of frames: those
 * congruent to first modulo stride (a single frame lies on the chain of stride
 * 1). On one chain, spans start and end; between two such events the set of row
 * lines in force is constant, so the chain is cut there into segments that do
 * not overlap, each carrying the packets its lines add up to. However many
 * lines name the same frames ("frames *: a 1" written a hundred times), a frame
 * then meets at most one segment per chain, and the expansion's work per frame
 * is bounded by the chains, not by the lines.
 *
 * The counts are kept per flow while the sweep adds and removes lines, so the
 * sweep costs O(S log S + E) for S spans and E entries, plus the entries of the
 * segments it writes.
 *
 * Also here: no frame may be named twice in one row line, whatever its counts.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sched_priv.h"

#define NONE UINT32_MAX

/* ---- a frame named twice in one line ------------------------------------ */

/* x such that a * x = 1 (mod m), for gcd(a, m) = 1. */
static uint64_t inverse(uint64_t a, uint64_t m)
{
	int64_t r0 = (int64_t)m, r1 = (int64_t)(a % m), s0 = 0, s1 = 1;
	while (r1) {
		int64_t q = r0 / r1, r = r0 - q * r1, s = s0 - q * s1;
		r0 = r1;
		r1 = r;
		s0 = s1;
		s1 = s;
	}
	return (uint64_t)((s0 % (int64_t)m + (int64_t)m) % (int64_t)m);
}

/* The first frame both spans name, or NONE. Chinese remainder theorem:
 * x = a.first (mod s), x = b.first (mod t) has solutions iff the firsts agree
 * modulo g = gcd(s, t), and then one per lcm(s, t). Frames < 2^32, so every
 * product below stays under 2^64. */
static uint32_t span_meet(const struct sched_span *a, const struct sched_span *b)
{
	uint64_t al = sched_span_last_hit(a), bl = sched_span_last_hit(b);
	uint64_t lo = a->first > b->first ? a->first : b->first, hi = al < bl ? al : bl;
	if (lo > hi)
		return NONE;
	uint64_t s = a->stride, t = b->stride, g = sched_gcd(s, t);
	uint64_t diff = ((uint64_t)b->first % t + t - (uint64_t)a->first % t) % t;
	if (diff % g)
		return NONE;
	uint64_t tg = t / g, lcm = s * tg;
	uint64_t kk = tg == 1 ? 0 : (diff / g % tg) * inverse(s / g % tg, tg) % tg;
	uint64_t x0 = (a->first + s * kk) % lcm;
	uint64_t x = x0 >= lo % lcm ? lo - lo % lcm + x0 : lo - lo % lcm + lcm + x0;
	return x <= hi ? (uint32_t)x : NONE;
}

#define PAIRWISE_MAX 64

int sched_check_rule_frames(const struct sched_table *t, struct sched_diags *d)
{
	uint64_t *bits = NULL;
	int errs = 0;

	for (uint32_t r = 0; r < t->nrules; r++) {
		const struct sched_rule *ru = &t->rules[r];
		const struct sched_span *sp = &t->spans[ru->span_off];
		uint32_t at = NONE, col = 0;
		if (ru->nspan <= PAIRWISE_MAX) {
			for (uint32_t i = 1; i < ru->nspan && at == NONE; i++)
				for (uint32_t j = 0; j < i; j++) {
					d->work++;
					uint32_t x = span_meet(&sp[j], &sp[i]);
					if (x != NONE && (at == NONE || x < at)) {
						at = x;
						col = sp[i].col;
					}
				}
		} else {
			/* many spans: mark the frames, then clear what was marked */
			if (!bits && !(bits = calloc((size_t)t->k / 64 + 1, sizeof(uint64_t)))) {
				sched_diag_add(d, SCHED_ERROR, 0, 0, "out of memory");
				return errs + 1;
			}
			uint32_t done = 0;
			for (uint32_t i = 0; i < ru->nspan && at == NONE; i++, done++)
				for (uint64_t f = sp[i].first; f <= sp[i].last; f += sp[i].stride) {
					d->work++;
					if (bits[f / 64] >> (f % 64) & 1) {
						at = (uint32_t)f;
						col = sp[i].col;
						break;
					}
					bits[f / 64] |= 1ull << (f % 64);
				}
			for (uint32_t i = 0; i < done; i++)
				for (uint64_t f = sp[i].first; f <= sp[i].last; f += sp[i].stride)
					bits[f / 64] &= ~(1ull << (f % 64));
		}
		if (at != NONE) {
			sched_diag_add(d, SCHED_ERROR, ru->line, col,
				       "frame %u is named twice in this row", at);
			errs++;
		}
	}
	free(bits);
	return errs;
}

/* ---- chains and segments ------------------------------------------------ */

struct item {
	uint32_t stride, res; /* the chain */
	uint64_t at;	      /* first, or one stride past the last hit */
	uint32_t rule;
};

static int cmp_item(const void *pa, const void *pb)
{
	const struct item *x = pa, *y = pb;
	if (x->stride != y->stride)
		return x->stride < y->stride ? -1 : 1;
	if (x->res != y->res)
		return x->res < y->res ? -1 : 1;
	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	return x->rule < y->rule ? -1 : x->rule > y->rule;
}

/* Per flow: packets of the lines in force, and where in the list of flows in force. */
struct tally {
	uint32_t *n, *line, *pos;
	uint32_t *live, nlive;
};

static int tally_add(const struct sched_table *t, struct tally *ty, uint32_t r, bool add,
		     uint64_t frame, struct sched_diags *d)
{
	const struct sched_rule *ru = &t->rules[r];
	for (uint32_t e = 0; e < ru->nent; e++) {
		const struct sched_entry *re = &t->rule_ent[ru->ent_off + e];
		uint32_t f = re->flow;
		if (!re->n)
			continue;
		d->work++;
		if (add) {
			if (!ty->n[f]) {
				ty->pos[f] = ty->nlive;
				ty->live[ty->nlive++] = f;
			}
			ty->n[f] += re->n;
			ty->line[f] = ru->line;
			if (ty->n[f] > SCHED_MAX_N) {
				sched_diag_add(
					d, SCHED_ERROR, ru->line, 1,
					"flow %s has %u packets in frame %llu (limit %d per frame)",
					t->flows[f].name, ty->n[f], (unsigned long long)frame,
					SCHED_MAX_N);
				return -ERANGE;
			}
		} else if (!(ty->n[f] -= re->n)) {
			uint32_t moved = ty->live[--ty->nlive];
			ty->live[ty->pos[f]] = moved;
			ty->pos[moved] = ty->pos[f];
		}
	}
	return 0;
}

static int emit(const struct sched_table *t, struct sched_fold *fo, const struct tally *ty,
		uint32_t stride, uint64_t from, uint64_t to, size_t *cap_seg, size_t *cap_ent)
{
	if (!ty->nlive)
		return 0;
	if (sched_grow(&fo->seg, cap_seg, (size_t)fo->nseg + 1, sizeof(*fo->seg)) ||
	    sched_grow(&fo->ent, cap_ent, (size_t)fo->nent + ty->nlive, sizeof(*fo->ent)))
		return -ENOMEM;
	fo->seg[fo->nseg++] = (struct sched_seg){.first = (uint32_t)from,
						 .last = (uint32_t)(to - stride),
						 .stride = stride,
						 .ent_off = fo->nent,
						 .nent = ty->nlive};
	for (uint32_t i = 0; i < ty->nlive; i++) {
		uint32_t f = ty->live[i];
		fo->ent[fo->nent++] = (struct sched_seg_ent){
			.port = t->flows[f].port, .flow = f, .n = ty->n[f], .line = ty->line[f]};
	}
	return 0;
}

int sched_fold(const struct sched_table *t, struct sched_fold *fo, struct sched_diags *d)
{
	struct item *st = malloc(sizeof(*st) * ((size_t)t->nspans + 1));
	struct item *en = malloc(sizeof(*en) * ((size_t)t->nspans + 1));
	struct tally ty = {calloc((size_t)t->nflows + 1, sizeof(uint32_t)),
			   malloc(sizeof(uint32_t) * ((size_t)t->nflows + 1)),
			   malloc(sizeof(uint32_t) * ((size_t)t->nflows + 1)),
			   malloc(sizeof(uint32_t) * ((size_t)t->nflows + 1)), 0};
	size_t cap_seg = 0, cap_ent = 0, n = 0;
	int rc = -ENOMEM;

	memset(fo, 0, sizeof(*fo));
	if (!st || !en || !ty.n || !ty.line || !ty.pos || !ty.live)
		goto oom;
	for (uint32_t r = 0; r < t->nrules; r++) {
		const struct sched_rule *ru = &t->rules[r];
		bool any = false;
		for (uint32_t e = 0; e < ru->nent; e++)
			any |= t->rule_ent[ru->ent_off + e].n != 0;
		for (uint32_t s = 0; any && s < ru->nspan; s++) {
			const struct sched_span *sp = &t->spans[ru->span_off + s];
			uint32_t last = sched_span_last_hit(sp);
			uint32_t stride = last == sp->first ? 1 : sp->stride;
			st[n] = (struct item){stride, sp->first % stride, sp->first, r};
			en[n++] = (struct item){stride, sp->first % stride, (uint64_t)last + stride,
						r};
		}
	}
	qsort(st, n, sizeof(*st), cmp_item);
	qsort(en, n, sizeof(*en), cmp_item);
	/* both lists hold the same spans sorted by chain first: a chain is the
	 * same run of indices in each */
	for (size_t c0 = 0, c1; c0 < n; c0 = c1) {
		for (c1 = c0 + 1;
		     c1 < n && st[c1].stride == st[c0].stride && st[c1].res == st[c0].res; c1++)
			;
		size_t i = c0, j = c0;
		uint64_t cur = 0;
		while (j < c1) {
			uint64_t next = i < c1 && st[i].at < en[j].at ? st[i].at : en[j].at;
			if (next > cur &&
			    emit(t, fo, &ty, st[c0].stride, cur, next, &cap_seg, &cap_ent))
				goto oom;
			cur = next;
			for (; j < c1 && en[j].at == cur; j++)
				tally_add(t, &ty, en[j].rule, false, cur, d);
			for (; i < c1 && st[i].at == cur; i++)
				if (tally_add(t, &ty, st[i].rule, true, cur, d)) {
					rc = -ERANGE;
					goto fail;
				}
		}
	}
	rc = 0;
	goto out;
oom:
	sched_diag_add(d, SCHED_ERROR, 0, 0, "out of memory");
fail:
	sched_fold_free(fo);
out:
	free(st);
	free(en);
	free(ty.n);
	free(ty.line);
	free(ty.pos);
	free(ty.live);
	return rc;
}

void sched_fold_free(struct sched_fold *fo)
{
	free(fo->seg);
	free(fo->ent);
	memset(fo, 0, sizeof(*fo));
}
