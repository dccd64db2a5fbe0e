/* SPDX-License-Identifier: BSD-3-Clause */
/* The table parser's second half: once every line is read, the names
 * resolved to indexes and the rules that take the whole table (the header's
 * limits, duplicate names, each flow's port and size), each error at its
 * line. See FORMAT.md. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sched_parse_priv.h"

/* ---- name lookup --------------------------------------------------------- */

struct name_index {
	uint32_t *slot; /* index + 1, 0 = empty */
	uint32_t mask;
};

static uint32_t name_hash(const char *s, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint8_t)s[i]) * 16777619u;
	return h;
}

static int index_build(struct name_index *x, uint32_t count, const char *(*name)(void *, uint32_t),
		       void *ctx, uint32_t *dup_of)
{
	uint32_t sz = 16;
	while (sz < count * 2)
		sz *= 2;
	x->slot = calloc(sz, sizeof(uint32_t));
	if (!x->slot)
		return -ENOMEM;
	x->mask = sz - 1;
	for (uint32_t i = 0; i < count; i++) {
		const char *nm = name(ctx, i);
		uint32_t h = name_hash(nm, strlen(nm)) & x->mask;
		dup_of[i] = UINT32_MAX;
		for (; x->slot[h]; h = (h + 1) & x->mask)
			if (strcmp(name(ctx, x->slot[h] - 1), nm) == 0) {
				dup_of[i] = x->slot[h] - 1;
				break;
			}
		if (dup_of[i] == UINT32_MAX)
			x->slot[h] = i + 1;
	}
	return 0;
}

static int index_find(const struct name_index *x, const char *s, size_t n,
		      const char *(*name)(void *, uint32_t), void *ctx)
{
	for (uint32_t h = name_hash(s, n) & x->mask; x->slot[h]; h = (h + 1) & x->mask) {
		const char *nm = name(ctx, x->slot[h] - 1);
		if (strlen(nm) == n && memcmp(nm, s, n) == 0)
			return (int)(x->slot[h] - 1);
	}
	return -1;
}

static const char *port_name(void *ctx, uint32_t i)
{
	return ((struct sched_table *)ctx)->ports[i].name;
}

static const char *flow_name(void *ctx, uint32_t i)
{
	return ((struct sched_table *)ctx)->flows[i].name;
}

/* tf, k, the cycle, epoch, guard band and sync error, each at its line */
static void resolve_header(struct parser *p)
{
	struct sched_table *t = p->t;
	struct sched_diags *d = p->d;
	/* a missing directive is reported at the version line, where it belongs */
	uint32_t at = p->l_version ? p->l_version : 1;
	if (!p->l_tf)
		sched_diag_add(d, SCHED_ERROR, at, 1,
			       "no 'tf' line: the time-frame length is required (e.g. tf 100us)");
	if (!p->l_k)
		sched_diag_add(d, SCHED_ERROR, at, 1,
			       "no 'k' line: the number of frames per cycle is required");
	if (t->tf_ns && t->k) {
		uint64_t cyc = t->tf_ns * t->k;
		char tf[32], c[32];
		sched_fmt_time(t->tf_ns, tf, sizeof(tf));
		sched_fmt_time(cyc, c, sizeof(c));
		if (cyc > SCHED_NS_PER_S || SCHED_NS_PER_S % cyc) {
			sched_diag_add(d, SCHED_ERROR, p->l_k, 3,
				       "the cycle k x TF = %u x %s = %s does not divide one second",
				       t->k, tf, c);
		} else {
			if (p->l_epoch && t->epoch_ns >= cyc)
				sched_diag_add(d, SCHED_ERROR, p->l_epoch, 7,
					       "epoch must be less than the cycle (%s)", c);
		}
		if (p->l_guard && t->guard_ns >= t->tf_ns)
			sched_diag_add(d, SCHED_ERROR, p->l_guard, 7,
				       "guard band must be shorter than TF (%s)", tf);
	}
	/* two nodes' frames may be apart by both their errors, either way: the
	 * guard band holds twice that, so one node's error is at most half */
	if (p->l_sync && t->sync_err_ns > t->guard_ns / 2) {
		char s[32], g[32];
		sched_fmt_time(t->sync_err_ns, s, sizeof(s));
		sched_fmt_time(t->guard_ns, g, sizeof(g));
		sched_diag_add(
			d, SCHED_ERROR, p->l_sync, 12,
			"sync-error %s is more than half the guard band (%s): the band must hold "
			"twice the "
			"clock error between two nodes, this one's and its neighbour's together",
			s, g);
	}
}

/* each flow's port by name, and what the port and TF bound: its delay and size */
static void resolve_flows(struct parser *p, const struct name_index *pi, const uint32_t *dup)
{
	struct sched_table *t = p->t;
	struct sched_diags *d = p->d;
	for (uint32_t i = 0; i < t->nflows; i++) {
		struct sched_flow *f = &t->flows[i];
		if (dup[i] != UINT32_MAX)
			sched_diag_add(d, SCHED_ERROR, f->line, 6,
				       "flow %s defined twice (first at line %u)", f->name,
				       t->flows[dup[i]].line);
		const struct flow_src *fs = &p->fsrc[i];
		const char *pname = t->src + fs->port_off;
		int pidx = index_find(pi, pname, fs->port_len, port_name, t);
		if (pidx < 0) {
			sched_diag_add(d, SCHED_ERROR, f->line, fs->port_col,
				       "flow %s: no port named '%.*s'", f->name, (int)fs->port_len,
				       pname);
			continue;
		}
		if (f->delay_ns && t->tf_ns && f->delay_ns >= t->tf_ns)
			sched_diag_add(d, SCHED_ERROR, f->line, fs->delay_col,
				       "flow %s: delay must be shorter than TF (a later arrival "
				       "belongs to a later frame; "
				       "add whole frames to alpha instead)",
				       f->name);
		f->port = (uint16_t)pidx;
		const struct sched_port *pt = &t->ports[pidx];
		if (f->size > pt->max_frame)
			sched_diag_add(d, SCHED_ERROR, f->line, fs->size_col,
				       "flow %s: size %u exceeds port %s's max-frame %u", f->name,
				       f->size, pt->name, pt->max_frame);
	}
}

/* each row's frames within the cycle, its flows by name, each once */
static void resolve_rules(struct parser *p, const struct name_index *fi, uint32_t *seen)
{
	struct sched_table *t = p->t;
	struct sched_diags *d = p->d;
	for (uint32_t r = 0; r < t->nrules; r++) {
		struct sched_rule *ru = &t->rules[r];
		for (uint32_t s = 0; s < ru->nspan; s++) {
			struct sched_span *sp = &t->spans[ru->span_off + s];
			if (sp->last == UINT32_MAX && t->k)
				sp->last = t->k - 1;
			if (t->k && sp->last >= t->k)
				sched_diag_add(d, SCHED_ERROR, ru->line, sp->col,
					       "frame %u is outside the cycle (frames are 0..%u)",
					       sp->first >= t->k ? sp->first : sp->last, t->k - 1);
		}
		for (uint32_t e = 0; e < ru->nent; e++) {
			uint32_t x = ru->ent_off + e;
			const char *nm = t->src + p->ent_name_off[x];
			int f = index_find(fi, nm, p->ent_name_len[x], flow_name, t);
			if (f < 0) {
				sched_diag_add(d, SCHED_ERROR, ru->line, t->rule_col[x],
					       "no flow named '%.*s'", (int)p->ent_name_len[x], nm);
				continue;
			}
			t->rule_ent[x].flow = f;
			if (seen[f] == r + 1) /* O(1) per entry, however long the row */
				sched_diag_add(d, SCHED_ERROR, ru->line, t->rule_col[x],
					       "flow %s listed twice in this row",
					       t->flows[f].name);
			seen[f] = r + 1;
		}
	}
}

void sched_resolve(struct parser *p)
{
	struct sched_table *t = p->t;
	struct sched_diags *d = p->d;
	struct name_index pi = {0}, fi = {0};
	uint32_t *dup = NULL, *seen = NULL;

	if (!p->l_version && !t->version && !p->l_tf && !p->l_k && !t->nports && !t->nflows &&
	    !t->nrules) {
		if (d->nerr == 0)
			sched_diag_add(
				d, SCHED_ERROR, 1, 1,
				"empty table: expected 'tdp-schedule %d' and at least tf and k",
				SCHED_FORMAT_VERSION);
		return;
	}
	resolve_header(p);

	dup = malloc(sizeof(uint32_t) * (t->nports > t->nflows ? t->nports : t->nflows) + 4);
	if (!dup || index_build(&pi, t->nports, port_name, t, dup))
		goto oom;
	for (uint32_t i = 0; i < t->nports; i++)
		if (dup[i] != UINT32_MAX)
			sched_diag_add(d, SCHED_ERROR, t->ports[i].line, 6,
				       "port %s defined twice (first at line %u)", t->ports[i].name,
				       t->ports[dup[i]].line);
	if (index_build(&fi, t->nflows, flow_name, t, dup))
		goto oom;
	resolve_flows(p, &pi, dup);
	if (d->nerr == 0)
		sched_check_overlaps(t, d);
	if (!(seen = calloc((size_t)t->nflows + 1, sizeof(uint32_t))))
		goto oom;

	resolve_rules(p, &fi, seen);
	goto out;
oom:
	sched_diag_add(d, SCHED_ERROR, 0, 0, "out of memory");
out:
	free(pi.slot);
	free(fi.slot);
	free(dup);
	free(seen);
}

struct named {
	const char *name;
	int32_t i;
};

static int named_cmp(const void *x, const void *y)
{
	return strcmp(((const struct named *)x)->name, ((const struct named *)y)->name);
}

int sched_flow_map(const struct sched_table *a, const struct sched_table *b, int32_t *map)
{
	struct named *v = malloc(((size_t)b->nflows + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (uint32_t j = 0; j < b->nflows; j++)
		v[j] = (struct named){b->flows[j].name, (int32_t)j};
	qsort(v, b->nflows, sizeof(*v), named_cmp);
	for (uint32_t i = 0; i < a->nflows; i++) {
		struct named key = {a->flows[i].name, 0};
		const struct named *hit = bsearch(&key, v, b->nflows, sizeof(*v), named_cmp);
		map[i] = hit ? hit->i : -1;
	}
	free(v);
	return 0;
}

int sched_flow_find(const struct sched_table *t, const char *name)
{
	for (uint32_t i = 0; i < t->nflows; i++)
		if (strcmp(t->flows[i].name, name) == 0)
			return (int)i;
	return -1;
}

int sched_port_find(const struct sched_table *t, const char *name)
{
	for (uint32_t i = 0; i < t->nports; i++)
		if (strcmp(t->ports[i].name, name) == 0)
			return (int)i;
	return -1;
}
