/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * No two flows' match rules may claim the same packet.
 *
 * Two rules are disjoint when a field they both match on has different values;
 * destination prefixes are disjoint when neither contains the other. Flows are
 * grouped by the set of fields they use. For each pair of groups, the exact
 * fields both groups use form a sort key; when both use a destination, the
 * prefix follows in the key (family, address, length). Equal keys with nested
 * prefixes are found by one sweep with a stack of enclosing prefixes, as in an
 * interval tree's insertion order: prefixes are either nested or disjoint, so
 * after sorting, the prefixes that contain the next one are exactly the stack.
 *
 * Cost: O(G x F log F) for G groups (at most 2^6) and F flows, however the
 * flows are told apart. Each flow is reported at most once per pair of groups,
 * against the nearest flow that claims its packets; every overlapping pair has
 * at least one of its flows reported.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sched_priv.h"

/* The exact-valued fields packed into one key, each at its shift
 * (sched_match_keys[]): dscp 6, vlan 12, pcp 3, udp 16, mpls 20 bits. */
static uint64_t exact_key(const struct sched_match *m, uint32_t fields)
{
	uint64_t k = 0;
	for (const struct sched_match_key *x = sched_match_keys; x->word; x++)
		if (x->max && (fields & x->field))
			k |= (uint64_t)sched_match_get(m, x) << x->shift;
	return k;
}

struct keyed {
	uint64_t key;
	const struct sched_match *m; /* NULL when the destination is not compared */
	uint32_t flow;
	uint8_t side; /* 0: group i, 1: group j */
};

static int cmp_prefix(const struct sched_match *a, const struct sched_match *b)
{
	if (a->dst_family != b->dst_family)
		return a->dst_family < b->dst_family ? -1 : 1;
	int c = memcmp(a->dst, b->dst, sizeof(a->dst));
	if (c)
		return c;
	return a->dst_len < b->dst_len ? -1 : a->dst_len > b->dst_len; /* the wider first */
}

static int cmp_keyed(const void *pa, const void *pb)
{
	const struct keyed *x = pa, *y = pb;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->m) {
		int c = cmp_prefix(x->m, y->m);
		if (c)
			return c;
	}
	return x->flow < y->flow ? -1 : x->flow > y->flow;
}

/* Does a's prefix contain b's (b at least as long, same leading bits)? */
static bool prefix_contains(const struct sched_match *a, const struct sched_match *b)
{
	if (a->dst_family != b->dst_family || a->dst_len > b->dst_len)
		return false;
	unsigned full = a->dst_len / 8, rest = a->dst_len % 8;
	if (memcmp(a->dst, b->dst, full))
		return false;
	if (!rest)
		return true;
	uint8_t mask = (uint8_t)(0xff00u >> rest);
	return (a->dst[full] & mask) == (b->dst[full] & mask);
}

static void report(const struct sched_table *t, struct sched_diags *d, uint32_t a, uint32_t b)
{
	if (a > b) {
		uint32_t x = a;
		a = b;
		b = x;
	}
	if (sched_diag_full(d)) {
		sched_diag_add(d, SCHED_ERROR, 0, 0, "overlap");
		return;
	}
	char ma[160], mb[160];
	sched_fmt_match(&t->flows[a].match, ma, sizeof(ma));
	sched_fmt_match(&t->flows[b].match, mb, sizeof(mb));
	sched_diag_add(d, SCHED_ERROR, t->flows[b].line, 6,
		       "flow %s (%s) overlaps flow %s (%s, line %u): a packet could match both; "
		       "make them differ in a field both match on",
		       t->flows[b].name, mb, t->flows[a].name, ma, t->flows[a].line);
}

/* A stack entry: a flow whose prefix contains the ones above it, and the
 * nearest entry at or below it from each side (UINT32_MAX: none). */
struct level {
	uint32_t at;
	uint32_t near[2];
};

/* Sorted entries ka[0..n): report every flow whose packets a flow of the other
 * side (any flow when same is set) also claims. */
static void sweep(const struct sched_table *t, struct sched_diags *d, const struct keyed *ka,
		  uint32_t n, bool same, struct level *st)
{
	uint32_t depth = 0;
	for (uint32_t i = 0; i < n; i++) {
		const struct keyed *x = &ka[i];
		d->work++;
		while (depth) {
			const struct keyed *top = &ka[st[depth - 1].at];
			if (top->key == x->key && (!x->m || prefix_contains(top->m, x->m)))
				break;
			depth--;
			d->work++;
		}
		if (depth) {
			const struct level *below = &st[depth - 1];
			uint32_t p = same ? below->at : below->near[!x->side];
			if (p != UINT32_MAX)
				report(t, d, ka[p].flow, x->flow);
		}
		struct level *l = &st[depth];
		l->at = i;
		l->near[0] = depth ? st[depth - 1].near[0] : UINT32_MAX;
		l->near[1] = depth ? st[depth - 1].near[1] : UINT32_MAX;
		l->near[x->side] = i;
		depth++;
	}
}

struct by_mask {
	uint32_t mask;
	uint32_t flow;
};

static int cmp_by_mask(const void *pa, const void *pb)
{
	const struct by_mask *x = pa, *y = pb;
	if (x->mask != y->mask)
		return x->mask < y->mask ? -1 : 1;
	return x->flow < y->flow ? -1 : x->flow > y->flow;
}

int sched_check_overlaps(struct sched_table *t, struct sched_diags *d)
{
	uint32_t gstart[65], nmask = 0, F = t->nflows;
	struct by_mask *bm = malloc(sizeof(*bm) * (F + 1));
	struct keyed *ka = malloc(sizeof(*ka) * (F + 1));
	struct level *st = malloc(sizeof(*st) * (F + 1));
	int rc = 0;

	if (!bm || !ka || !st) {
		sched_diag_add(d, SCHED_ERROR, 0, 0, "out of memory");
		rc = -ENOMEM;
		goto out;
	}
	for (uint32_t i = 0; i < F; i++)
		bm[i] = (struct by_mask){t->flows[i].match.fields, i};
	qsort(bm, F, sizeof(*bm), cmp_by_mask);
	for (uint32_t i = 0; i < F; i++)
		if (i == 0 || bm[i].mask != bm[i - 1].mask)
			gstart[nmask++] = i;
	gstart[nmask] = F;

	for (uint32_t gi = 0; gi < nmask; gi++)
		for (uint32_t gj = gi; gj < nmask; gj++) {
			uint32_t mi = bm[gstart[gi]].mask, mj = bm[gstart[gj]].mask;
			uint32_t common = mi & mj & ~(uint32_t)SCHED_M_DST;
			bool dst = mi & mj & SCHED_M_DST;
			uint32_t n = 0;
			for (uint32_t side = 0; side < (gi == gj ? 1u : 2u); side++) {
				uint32_t g = side ? gj : gi;
				for (uint32_t x = gstart[g]; x < gstart[g + 1]; x++) {
					const struct sched_match *m = &t->flows[bm[x].flow].match;
					ka[n++] =
						(struct keyed){exact_key(m, common), dst ? m : NULL,
							       bm[x].flow, (uint8_t)side};
				}
			}
			qsort(ka, n, sizeof(*ka), cmp_keyed);
			sweep(t, d, ka, n, gi == gj, st);
		}
out:
	free(bm);
	free(ka);
	free(st);
	return rc;
}
