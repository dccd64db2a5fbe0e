/* SPDX-License-Identifier: BSD-3-Clause */
/* What changed between two tables: header, ports and flows by name, and the
 * packets each flow has in each frame, grouped into compact frame sets. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sched_priv.h"

struct out {
	FILE *f;
	bool json;
	unsigned n;
};

static void change(struct out *o, const char *what, const char *name, const char *from,
		   const char *to)
{
	if (o->json) {
		fprintf(o->f, "%s{\"what\":", o->n ? "," : "");
		sched_json_str(o->f, what);
		if (name) {
			fputs(",\"name\":", o->f);
			sched_json_str(o->f, name);
		}
		fputs(",\"from\":", o->f);
		from ? sched_json_str(o->f, from) : (void)fputs("null", o->f);
		fputs(",\"to\":", o->f);
		to ? sched_json_str(o->f, to) : (void)fputs("null", o->f);
		fputc('}', o->f);
	} else if (!from) {
		fprintf(o->f, "%s%s%s: added (%s)\n", what, name ? " " : "", name ? name : "", to);
	} else if (!to) {
		fprintf(o->f, "%s%s%s: removed (was %s)\n", what, name ? " " : "", name ? name : "",
			from);
	} else {
		fprintf(o->f, "%s%s%s: %s -> %s\n", what, name ? " " : "", name ? name : "", from,
			to);
	}
	o->n++;
}

static void time_change(struct out *o, const char *what, uint64_t a, uint64_t b)
{
	char x[32], y[32];
	if (a == b)
		return;
	sched_fmt_time(a, x, sizeof(x));
	sched_fmt_time(b, y, sizeof(y));
	change(o, what, NULL, x, y);
}

static void port_text(const struct sched_port *p, char *s, size_t n)
{
	char r[32];
	sched_fmt_rate(p->rate_bps, r, sizeof(r));
	snprintf(s, n, "rate %s max-frame %u overhead %u", r, p->max_frame, p->overhead);
}

static void flow_text(const struct sched_table *t, const struct sched_flow *f, char *s, size_t n)
{
	char m[160], a[64] = "", d[32];
	sched_fmt_match(&f->match, m, sizeof(m));
	if (f->alpha) {
		sched_fmt_time(f->delay_ns, d, sizeof(d));
		snprintf(a, sizeof(a), " alpha %u%s%s", f->alpha, f->delay_ns ? " delay " : "",
			 f->delay_ns ? d : "");
	}
	snprintf(s, n, "port %s size %u%s%s %s", t->ports[f->port].name, f->size, a,
		 f->stamp ? " stamp" : "", m);
}

struct group {
	uint64_t key; /* uid << 32 | from << 16 | to */
	uint32_t *frames;
	size_t n, cap;
};

/* The groups of frame changes, found by their key in an open-addressed
 * table of slots (group index + 1; 0: empty) that doubles at half full. */
struct groups {
	struct group *g;
	size_t n, cap;
	uint32_t *slot, mask;
};

static uint32_t group_hash(uint64_t key, uint32_t mask)
{
	return (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> 40) & mask;
}

static int groups_grow(struct groups *gs)
{
	uint32_t nm = gs->mask * 2 + 1, *ns = calloc(nm + 1, sizeof(uint32_t));
	if (!ns)
		return -ENOMEM;
	for (size_t q = 0; q < gs->n; q++) {
		uint32_t t = group_hash(gs->g[q].key, nm);
		while (ns[t])
			t = (t + 1) & nm;
		ns[t] = (uint32_t)q + 1;
	}
	free(gs->slot);
	gs->slot = ns;
	gs->mask = nm;
	return 0;
}

/* frame fr into the group of key, made when new */
static int groups_add(struct groups *gs, uint64_t key, uint32_t fr)
{
	uint32_t s = group_hash(key, gs->mask);
	while (gs->slot[s] && gs->g[gs->slot[s] - 1].key != key)
		s = (s + 1) & gs->mask;
	if (!gs->slot[s]) {
		if (gs->n * 2 >= gs->mask) {
			/* many distinct changes: a bigger table */
			if (groups_grow(gs))
				return -ENOMEM;
			for (s = group_hash(key, gs->mask); gs->slot[s]; s = (s + 1) & gs->mask)
				;
		}
		if (sched_grow(&gs->g, &gs->cap, gs->n + 1, sizeof(*gs->g)))
			return -ENOMEM;
		gs->g[gs->n] = (struct group){.key = key};
		gs->slot[s] = (uint32_t)++gs->n;
	}
	struct group *gr = &gs->g[gs->slot[s] - 1];
	if (sched_grow(&gr->frames, &gr->cap, gr->n + 1, sizeof(uint32_t)))
		return -ENOMEM;
	gr->frames[gr->n++] = fr;
	return 0;
}

/* version, TF, k, epoch, guard band and sync error */
static void header_changes(struct out *o, const struct sched_table *a, const struct sched_table *b)
{
	char x[32], y[32];
	if (a->version != b->version) {
		snprintf(x, sizeof(x), "%u", a->version);
		snprintf(y, sizeof(y), "%u", b->version);
		change(o, "version", NULL, x, y);
	}
	time_change(o, "tf", a->tf_ns, b->tf_ns);
	if (a->k != b->k) {
		snprintf(x, sizeof(x), "%u", a->k);
		snprintf(y, sizeof(y), "%u", b->k);
		change(o, "k", NULL, x, y);
	}
	time_change(o, "epoch", a->epoch_ns, b->epoch_ns);
	time_change(o, "guard", a->guard_ns, b->guard_ns);
	if (a->sync_err_set || b->sync_err_set)
		time_change(o, "sync-error", a->sync_err_ns, b->sync_err_ns);
}

static void port_changes(struct out *o, const struct sched_table *a, const struct sched_table *b)
{
	char x[256], y[256];
	for (uint32_t i = 0; i < a->nports; i++) {
		int j = sched_port_find(b, a->ports[i].name);
		port_text(&a->ports[i], x, sizeof(x));
		if (j < 0) {
			change(o, "port", a->ports[i].name, x, NULL);
			continue;
		}
		port_text(&b->ports[j], y, sizeof(y));
		if (strcmp(x, y))
			change(o, "port", a->ports[i].name, x, y);
	}
	for (uint32_t j = 0; j < b->nports; j++)
		if (sched_port_find(a, b->ports[j].name) < 0) {
			port_text(&b->ports[j], y, sizeof(y));
			change(o, "port", b->ports[j].name, NULL, y);
		}
}

/* flows of a against b by name (map from sched_flow_map): back[j] is b's flow j
 * in a (or -1) */
static void flow_changes(struct out *o, const struct sched_table *a, const struct sched_table *b,
			 const int32_t *map, int *back)
{
	char x[256], y[256];
	for (uint32_t i = 0; i < a->nflows; i++) {
		int j = map[i];
		flow_text(a, &a->flows[i], x, sizeof(x));
		if (j < 0) {
			change(o, "flow", a->flows[i].name, x, NULL);
			continue;
		}
		flow_text(b, &b->flows[j], y, sizeof(y));
		if (strcmp(x, y))
			change(o, "flow", a->flows[i].name, x, y);
	}
	for (uint32_t j = 0; j < b->nflows; j++)
		back[j] = -1;
	for (uint32_t i = 0; i < a->nflows; i++)
		if (map[i] >= 0)
			back[map[i]] = (int)i;
	for (uint32_t j = 0; j < b->nflows; j++)
		if (back[j] < 0) {
			flow_text(b, &b->flows[j], y, sizeof(y));
			change(o, "flow", b->flows[j].name, NULL, y);
		}
}

/* Every frame's row of a against b's: each (flow, from, to) change goes to
 * its group with the frame. A flow's uid is its index in a, or a->nflows +
 * its index in b when a lacks it. cnt and seen: b->nflows + 1 each, zero. */
static int row_changes(const struct sched_table *a, const struct sched_table *b, const int32_t *map,
		       const int *back, uint32_t *cnt, bool *seen, struct groups *gs)
{
	uint32_t kmax = a->k > b->k ? a->k : b->k;
	for (uint32_t fr = 0; fr < kmax; fr++) {
		uint32_t na = 0, nb = 0;
		const struct sched_entry *ea = fr < a->k ? sched_row(a, fr, &na) : NULL;
		const struct sched_entry *eb = fr < b->k ? sched_row(b, fr, &nb) : NULL;
		for (uint32_t i = 0; i < nb; i++)
			cnt[eb[i].flow] = eb[i].n;
		for (uint32_t i = 0; i < na; i++) {
			int j = map[ea[i].flow];
			uint64_t from = ea[i].n, to = j >= 0 ? cnt[j] : 0;
			if (j >= 0)
				seen[j] = true;
			if (from != to &&
			    groups_add(gs, (uint64_t)ea[i].flow << 32 | from << 16 | to, fr))
				return -ENOMEM;
		}
		for (uint32_t i = 0; i < nb; i++) {
			if (seen[eb[i].flow])
				continue;
			int ia = back[eb[i].flow];
			uint64_t uid = ia >= 0 ? (uint64_t)ia : (uint64_t)a->nflows + eb[i].flow;
			uint64_t to = eb[i].n;
			if (to != 0 && groups_add(gs, uid << 32 | to, fr))
				return -ENOMEM;
		}
		for (uint32_t i = 0; i < nb; i++) {
			cnt[eb[i].flow] = 0;
			seen[eb[i].flow] = false;
		}
	}
	return 0;
}

static void group_lines(struct out *o, const struct sched_table *a, const struct sched_table *b,
			const struct groups *gs)
{
	for (size_t i = 0; i < gs->n; i++) {
		const struct group *g = &gs->g[i];
		uint32_t uid = (uint32_t)(g->key >> 32);
		unsigned from = (unsigned)(g->key >> 16 & 0xffff), to = (unsigned)(g->key & 0xffff);
		const char *name =
			uid < a->nflows ? a->flows[uid].name : b->flows[uid - a->nflows].name;
		struct sched_buf fb = {0};
		sched_buf_frames(&fb, g->frames, g->n);
		if (o->json)
			fprintf(o->f,
				"%s{\"what\":\"frames\",\"frames\":\"%s\",\"count\":%zu,\"name\":"
				"\"%s\","
				"\"from\":%u,\"to\":%u}",
				o->n ? "," : "", fb.s ? fb.s : "", g->n, name, from, to);
		else
			fprintf(o->f, "frame%s %s: %s %u -> %u\n", g->n == 1 ? "" : "s",
				fb.s ? fb.s : "", name, from, to);
		o->n++;
		free(fb.s);
	}
}

int sched_diff(const struct sched_table *a, const struct sched_table *b, bool json, FILE *f)
{
	struct out o = {.f = f, .json = json};
	struct groups gs = {.mask = 1023};
	int rc = 0;
	if (json)
		fputs("{\"changes\":[", f);
	header_changes(&o, a, b);
	port_changes(&o, a, b);
	int32_t *map = malloc(sizeof(*map) * (a->nflows + 1));
	int *back = malloc(sizeof(int) * (b->nflows + 1));
	uint32_t *cnt = calloc(b->nflows + 1, sizeof(uint32_t));
	bool *seen = calloc(b->nflows + 1, sizeof(bool));
	gs.slot = calloc(gs.mask + 1, sizeof(uint32_t));
	if (!map || !back || !cnt || !seen || !gs.slot || sched_flow_map(a, b, map)) {
		rc = -ENOMEM;
	} else {
		flow_changes(&o, a, b, map, back);
		rc = row_changes(a, b, map, back, cnt, seen, &gs);
		if (!rc)
			group_lines(&o, a, b, &gs);
	}
	if (json)
		fprintf(f, "],\"equal\":%s}\n", o.n ? "false" : "true");
	for (size_t i = 0; i < gs.n; i++)
		free(gs.g[i].frames);
	free(gs.g);
	free(gs.slot);
	free(map);
	free(back);
	free(cnt);
	free(seen);
	if (rc)
		return rc;
	return o.n ? 1 : 0;
}
