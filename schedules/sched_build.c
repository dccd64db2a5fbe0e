/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Builds the runtime form from the rows as written, and checks that no two
 * flows' match rules can claim the same packet.
 *
 * Expansion walks the cycle once. Every span waits in the bucket of the next
 * frame it covers (a calendar queue), so the work is O(k + entries) and the
 * scratch memory O(k + spans), however the spans interleave. Each frame's row is
 * sorted by (port, flow), merged, and looked up in a hash of the distinct rows.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sched_priv.h"

struct scratch_ent {
	uint64_t key;   /* port << 48 | flow << 32 | rule */
	uint32_t n;
};

#define SKEY_FLOWS(k) ((uint32_t)((k) >> 32))     /* port << 16 | flow */
#define SKEY_RULE(k) ((uint32_t)(k))

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
	struct row_hash rh = { 0 };
	size_t cap_scr = 0, cap_ent = 0, cap_off = 0, cap_row = 0;
	int rc = -ENOMEM;

	t->frame_row = malloc(sizeof(uint32_t) * k);
	head = malloc(sizeof(uint32_t) * k);
	link = malloc(sizeof(uint32_t) * (t->nspans + 1));
	cur = malloc(sizeof(uint32_t) * (t->nspans + 1));
	if (!t->frame_row || !head || !link || !cur || rh_grow(&rh) ||
	    sched_grow(&t->row_off, &cap_off, 1, sizeof(uint32_t)))
		goto oom;
	memset(head, 0xff, sizeof(uint32_t) * k);
	for (uint32_t s = 0; s < t->nspans; s++) {
		cur[s] = t->spans[s].first;
		link[s] = head[cur[s]];
		head[cur[s]] = s;
	}
	/* span -> rule */
	uint32_t *span_rule = malloc(sizeof(uint32_t) * (t->nspans + 1));
	if (!span_rule)
		goto oom;
	for (uint32_t r = 0; r < t->nrules; r++)
		for (uint32_t s = 0; s < t->rules[r].nspan; s++)
			span_rule[t->rules[r].span_off + s] = r;

	t->row_off[0] = 0;
	t->nrows = 0;
	for (uint32_t f = 0; f < k; f++) {
		uint32_t n = 0;
		for (uint32_t s = head[f]; s != UINT32_MAX;) {
			uint32_t next = link[s];
			const struct sched_rule *ru = &t->rules[span_rule[s]];
			if (sched_grow(&scr, &cap_scr, n + ru->nent, sizeof(*scr)))
				goto oom_sr;
			for (uint32_t e = 0; e < ru->nent; e++) {
				const struct sched_entry *re = &t->rule_ent[ru->ent_off + e];
				if (re->n == 0)
					continue;
				scr[n++] = (struct scratch_ent){
					.key = ((uint64_t)t->flows[re->flow].port << 16 | re->flow) << 32 |
					       span_rule[s],
					.n = re->n };
			}
			const struct sched_span *sp = &t->spans[s];
			if ((uint64_t)cur[s] + sp->stride <= sp->last) {
				cur[s] += sp->stride;
				link[s] = head[cur[s]];
				head[cur[s]] = s;
			}
			s = next;
		}
		sort_scratch(scr, n);
		/* merge the same flow from several lines (rows add up); the same
		 * line twice means its frame set names this frame twice */
		uint32_t m = 0;
		for (uint32_t i = 0; i < n; i++) {
			uint32_t rl = t->rules[SKEY_RULE(scr[i].key)].line;
			if (!m || SKEY_FLOWS(scr[m - 1].key) != SKEY_FLOWS(scr[i].key)) {
				scr[m++] = scr[i];
				continue;
			}
			uint16_t fl = (uint16_t)(SKEY_FLOWS(scr[i].key) & 0xffff);
			if (SKEY_RULE(scr[m - 1].key) == SKEY_RULE(scr[i].key)) {
				sched_diag_add(d, SCHED_ERROR, rl, 1, "frame %u is named twice in this row", f);
				rc = -EINVAL;
				goto out_sr;
			}
			scr[m - 1].n += scr[i].n;
			scr[m - 1].key = scr[i].key;
			if (scr[m - 1].n > SCHED_MAX_N) {
				sched_diag_add(d, SCHED_ERROR, rl, 1,
					       "flow %s has %u packets in frame %u (limit %d per frame)",
					       t->flows[fl].name, scr[m - 1].n, f, SCHED_MAX_N);
				rc = -ERANGE;
				goto out_sr;
			}
		}
		if (sched_grow(&row, &cap_row, m + 1, sizeof(*row)))
			goto oom_sr;
		for (uint32_t i = 0; i < m; i++)
			row[i] = (struct sched_entry){ .flow = (uint16_t)(SKEY_FLOWS(scr[i].key) & 0xffff),
						       .n = (uint16_t)scr[i].n };
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
				goto oom_sr;
			memcpy(t->ent + base, row, m * sizeof(*row));
			t->row_off[id + 1] = base + m;
			t->nrows++;
			rh.slot[j] = id + 1;
			rh.hash[j] = h;
			if (++rh.used * 2 > rh.mask && rh_grow(&rh))
				goto oom_sr;
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
	goto out_sr;
oom_sr:
	sched_diag_add(d, SCHED_ERROR, 0, 0, "out of memory");
	rc = -ENOMEM;
out_sr:
	free(span_rule);
	goto out;
oom:
	sched_diag_add(d, SCHED_ERROR, 0, 0, "out of memory");
out:
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

/* ---- match overlaps ----------------------------------------------------- */

/* The exact-valued fields packed into one key: dscp 6, vlan 12, pcp 3, udp 16, mpls 20. */
static uint64_t exact_key(const struct sched_match *m, uint32_t fields)
{
	uint64_t k = 0;
	if (fields & SCHED_M_DSCP)
		k |= (uint64_t)m->dscp << 51;
	if (fields & SCHED_M_VLAN)
		k |= (uint64_t)m->vlan << 39;
	if (fields & SCHED_M_PCP)
		k |= (uint64_t)m->pcp << 36;
	if (fields & SCHED_M_UDP_DPORT)
		k |= (uint64_t)m->udp_dport << 20;
	if (fields & SCHED_M_MPLS)
		k |= m->mpls;
	return k;
}

struct keyed {
	uint64_t key;
	uint32_t flow;
};

static int cmp_keyed(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->flow < y->flow ? -1 : x->flow > y->flow;
}

static void report(const struct sched_table *t, struct sched_diags *d, uint32_t a, uint32_t b)
{
	if (a > b) {
		uint32_t x = a;
		a = b;
		b = x;
	}
	char ma[160], mb[160];
	sched_fmt_match(&t->flows[a].match, ma, sizeof(ma));
	sched_fmt_match(&t->flows[b].match, mb, sizeof(mb));
	sched_diag_add(d, SCHED_ERROR, t->flows[b].line, 6,
		       "flow %s (%s) overlaps flow %s (%s, line %u): a packet could match both; "
		       "make them differ in a field both match on",
		       t->flows[b].name, mb, t->flows[a].name, ma, t->flows[a].line);
}

/*
 * Two rules are disjoint when a field they both match on has different values
 * (prefixes: neither contains the other). Flows are grouped by which fields they
 * use; for each pair of groups, the exact fields they share form a sort key and
 * only flows with equal keys are compared. O(F log F) per pair of groups.
 */
int sched_check_overlaps(struct sched_table *t, struct sched_diags *d)
{
	uint32_t masks[64], nmask = 0;
	struct keyed *ka = NULL, *kb = NULL;
	int rc = 0;

	for (uint32_t i = 0; i < t->nflows; i++) {
		uint32_t m = t->flows[i].match.fields, j;
		for (j = 0; j < nmask && masks[j] != m; j++)
			;
		if (j == nmask)
			masks[nmask++] = m;
	}
	ka = malloc(sizeof(*ka) * (t->nflows + 1));
	kb = malloc(sizeof(*kb) * (t->nflows + 1));
	if (!ka || !kb) {
		rc = -ENOMEM;
		goto out;
	}
	for (uint32_t gi = 0; gi < nmask; gi++)
		for (uint32_t gj = gi; gj < nmask; gj++) {
			uint32_t common = masks[gi] & masks[gj] & ~(uint32_t)SCHED_M_DST;
			uint32_t na = 0, nb = 0;
			for (uint32_t i = 0; i < t->nflows; i++) {
				uint32_t m = t->flows[i].match.fields;
				uint64_t key = exact_key(&t->flows[i].match, common);
				if (m == masks[gi])
					ka[na++] = (struct keyed){ key, i };
				if (m == masks[gj] && gj != gi)
					kb[nb++] = (struct keyed){ key, i };
			}
			qsort(ka, na, sizeof(*ka), cmp_keyed);
			if (gi == gj) {
				for (uint32_t x = 0; x < na; x++)
					for (uint32_t y = x + 1; y < na && ka[y].key == ka[x].key; y++)
						if (sched_match_overlap(&t->flows[ka[x].flow].match,
									&t->flows[ka[y].flow].match))
							report(t, d, ka[x].flow, ka[y].flow);
				continue;
			}
			qsort(kb, nb, sizeof(*kb), cmp_keyed);
			for (uint32_t x = 0, y0 = 0; x < na; x++) {
				while (y0 < nb && kb[y0].key < ka[x].key)
					y0++;
				for (uint32_t y = y0; y < nb && kb[y].key == ka[x].key; y++)
					if (sched_match_overlap(&t->flows[ka[x].flow].match,
								&t->flows[kb[y].flow].match))
						report(t, d, ka[x].flow, kb[y].flow);
			}
		}
out:
	free(ka);
	free(kb);
	return rc;
}
