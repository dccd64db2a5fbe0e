/* SPDX-License-Identifier: BSD-3-Clause */
/* Writing tables: canonical form, per-line formatting, JSON; table equality. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sched_priv.h"

#define SPANS_PER_LINE 32
#define ENTRIES_PER_LINE 64

static void render_port(const struct sched_port *p, struct sched_buf *b)
{
	char r[48];
	sched_fmt_rate(p->rate_bps, r, sizeof(r));
	sched_buf_printf(b, "port %s rate %s max-frame %u overhead %u", p->name, r, p->max_frame,
			 p->overhead);
}

static void render_flow(const struct sched_table *t, const struct sched_flow *f,
			struct sched_buf *b)
{
	char m[200];
	sched_fmt_match(&f->match, m, sizeof(m));
	sched_buf_printf(b, "flow %s port %s size %u", f->name, t->ports[f->port].name, f->size);
	if (f->alpha)
		sched_buf_printf(b, " alpha %u", f->alpha);
	if (f->delay_ns) {
		char d[32];
		sched_fmt_time(f->delay_ns, d, sizeof(d));
		sched_buf_printf(b, " delay %s", d);
	}
	if (f->stamp)
		sched_buf_printf(b, " stamp");
	sched_buf_printf(b, " %s", m);
}

void sched_render_rule(const struct sched_table *t, const struct sched_span *sp, uint32_t nsp,
		       const struct sched_entry *e, uint32_t ne, struct sched_buf *b)
{
	sched_buf_printf(b, "frame%s ",
			 nsp == 1 && sp[0].first == sched_span_last_hit(&sp[0]) ? "" : "s");
	sched_buf_spans(b, sp, nsp);
	sched_buf_put(b, ":", 1);
	for (uint32_t i = 0; i < ne; i++)
		sched_buf_printf(b, "%s %s %u", i ? "," : "", t->flows[e[i].flow].name, e[i].n);
}

/* a header line whose value is a time: WORD TIME */
static void time_line(struct sched_buf *b, const char *word, uint64_t ns)
{
	char v[32];
	sched_fmt_time(ns, v, sizeof(v));
	sched_buf_printf(b, "%s %s", word, v);
}

static void render_header(const struct sched_table *t, enum sched_line_kind kind,
			  struct sched_buf *b)
{
	if (kind == SCHED_L_VERSION)
		sched_buf_printf(b, "tdp-schedule %u", t->version);
	else if (kind == SCHED_L_K)
		sched_buf_printf(b, "k %u", t->k);
	else if (kind == SCHED_L_TF)
		time_line(b, "tf", t->tf_ns);
	else if (kind == SCHED_L_EPOCH)
		time_line(b, "epoch", t->epoch_ns);
	else if (kind == SCHED_L_GUARD)
		time_line(b, "guard", t->guard_ns);
	else if (kind == SCHED_L_SYNC)
		time_line(b, "sync-error", t->sync_err_ns);
}

int sched_frames_by_row(const struct sched_table *t, uint32_t **offp, uint32_t **frp)
{
	uint32_t *off = calloc((size_t)t->nrows + 2, sizeof(uint32_t));
	uint32_t *fr = malloc(sizeof(uint32_t) * ((size_t)t->k + 1));
	if (!off || !fr) {
		free(off);
		free(fr);
		return -ENOMEM;
	}
	for (uint32_t f = 0; f < t->k; f++)
		off[t->frame_row[f] + 2]++;
	for (uint32_t r = 0; r < t->nrows; r++)
		off[r + 2] += off[r + 1];
	for (uint32_t f = 0; f < t->k; f++)
		fr[off[t->frame_row[f] + 1]++] = f;
	*offp = off;
	*frp = fr;
	return 0;
}

static int emit(struct sched_buf *b, FILE *out)
{
	if (b->oom)
		return -ENOMEM;
	sched_buf_put(b, "\n", 1);
	fputs(b->s, out);
	b->len = 0;
	return 0;
}

/*
 * Rows add up, so a table can be written as layers: for each (flow, n), the
 * frames in which the flow has exactly n packets. Layers with the same frame set
 * share a line. This reads the way people write tables ("voice every 10th
 * frame") rather than as the intersections of every flow's pattern.
 */
struct layer {
	uint64_t key; /* flow << 32 | n */
	uint32_t *fr;
	size_t nf, cap;
	uint64_t h;
};

static int cmp_layer(const void *a, const void *b)
{
	const struct layer *x = *(struct layer *const *)a, *y = *(struct layer *const *)b;
	if (x->h != y->h)
		return x->h < y->h ? -1 : 1;
	if (x->nf != y->nf)
		return x->nf < y->nf ? -1 : 1;
	int c = memcmp(x->fr, y->fr, x->nf * sizeof(uint32_t));
	if (c)
		return c;
	return x->key < y->key ? -1 : x->key > y->key;
}

static bool same_frames(const struct layer *x, const struct layer *y)
{
	return x->h == y->h && x->nf == y->nf && !memcmp(x->fr, y->fr, x->nf * sizeof(uint32_t));
}

/* A line: layers ord[start .. start+len) share their frames. */
struct line_ref {
	struct layer **first;
	uint32_t len;
};

static int cmp_line(const void *a, const void *b)
{
	const struct layer *x = ((const struct line_ref *)a)->first[0];
	const struct layer *y = ((const struct line_ref *)b)->first[0];
	if (x->fr[0] != y->fr[0])
		return x->fr[0] < y->fr[0] ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* the header, ports and flows; nonzero when a write failed */
static int write_head(const struct sched_table *t, FILE *out, struct sched_buf *b)
{
	int rc = 0;
	for (int k = SCHED_L_VERSION; k <= SCHED_L_SYNC; k++) {
		if ((k == SCHED_L_EPOCH && !t->epoch_ns) || (k == SCHED_L_GUARD && !t->guard_ns) ||
		    (k == SCHED_L_SYNC && !t->sync_err_set))
			continue;
		render_header(t, (enum sched_line_kind)k, b);
		rc |= emit(b, out);
	}
	if (t->nports)
		fputc('\n', out);
	for (uint32_t i = 0; i < t->nports; i++) {
		render_port(&t->ports[i], b);
		rc |= emit(b, out);
	}
	if (t->nflows)
		fputc('\n', out);
	for (uint32_t i = 0; i < t->nflows; i++) {
		render_flow(t, &t->flows[i], b);
		rc |= emit(b, out);
	}
	return rc;
}

/* Each (flow, n) of the table's rows as a layer with the frames it is in
 * (found by an open-addressed table of slots); 0, or -ENOMEM. */
static int collect_layers(const struct sched_table *t, struct layer **ly, uint32_t *nly,
			  size_t *cap_ly)
{
	uint32_t mask = 1023;
	while (mask < 2 * t->row_off[t->nrows])
		mask = mask * 2 + 1;
	uint32_t *slot = calloc((size_t)mask + 1, sizeof(uint32_t));
	if (!slot)
		return -ENOMEM;
	int rc = 0;
	for (uint32_t f = 0; f < t->k && !rc; f++) {
		uint32_t n;
		const struct sched_entry *e = sched_row(t, f, &n);
		for (uint32_t i = 0; i < n && !rc; i++) {
			uint64_t key = (uint64_t)e[i].flow << 32 | e[i].n;
			uint32_t s;
			for (s = (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> 32) & mask;
			     slot[s] && (*ly)[slot[s] - 1].key != key; s = (s + 1) & mask)
				;
			if (!slot[s]) {
				if (sched_grow(ly, cap_ly, *nly + 1, sizeof(**ly))) {
					rc = -ENOMEM;
					break;
				}
				(*ly)[*nly] =
					(struct layer){.key = key, .h = 1469598103934665603ull};
				slot[s] = ++*nly;
			}
			struct layer *l = &(*ly)[slot[s] - 1];
			if (sched_grow(&l->fr, &l->cap, l->nf + 1, sizeof(uint32_t))) {
				rc = -ENOMEM;
				break;
			}
			l->fr[l->nf++] = f;
			l->h = (l->h ^ f) * 1099511628211ull;
		}
	}
	free(slot);
	return rc;
}

/* one line of rows (its layers share their frames), split where long: rows
 * add up, so the table stays the same */
static int write_line(const struct sched_table *t, const struct line_ref *ln,
		      struct sched_entry *en, struct sched_span *sp, FILE *out, struct sched_buf *b)
{
	const struct layer *head = ln->first[0];
	uint32_t ne = ln->len;
	int rc = 0;
	for (uint32_t i = 0; i < ne; i++)
		en[i] = (struct sched_entry){.flow = (uint32_t)(ln->first[i]->key >> 32),
					     .n = (uint32_t)ln->first[i]->key};
	size_t ns = sched_spans_from_frames(head->fr, head->nf, sp);
	for (uint32_t j = 0; j < ne; j += ENTRIES_PER_LINE)
		for (size_t i = 0; i < ns; i += SPANS_PER_LINE) {
			uint32_t cs = (uint32_t)(ns - i < SPANS_PER_LINE ? ns - i : SPANS_PER_LINE);
			uint32_t ce = ne - j < ENTRIES_PER_LINE ? ne - j : ENTRIES_PER_LINE;
			sched_render_rule(t, sp + i, cs, en + j, ce, b);
			rc |= emit(b, out);
		}
	return rc;
}

int sched_write(const struct sched_table *t, FILE *out)
{
	struct sched_buf b = {0};
	struct layer *ly = NULL, **ord = NULL;
	struct line_ref *lines = NULL;
	uint32_t nly = 0;
	size_t cap_ly = 0;
	struct sched_span *sp = NULL;
	struct sched_entry *en = NULL;
	int rc = write_head(t, out, &b);

	if (collect_layers(t, &ly, &nly, &cap_ly))
		goto oom;
	ord = malloc(sizeof(*ord) * (nly + 1));
	lines = malloc(sizeof(*lines) * (nly + 1));
	en = malloc(sizeof(*en) * (nly + 1));
	sp = malloc(sizeof(*sp) * ((size_t)t->k + 1));
	if (!ord || !lines || !en || !sp)
		goto oom;
	for (uint32_t i = 0; i < nly; i++)
		ord[i] = &ly[i];
	/* layers with equal frame sets end up next to each other, by flow */
	qsort(ord, nly, sizeof(*ord), cmp_layer);
	uint32_t nl = 0;
	for (uint32_t i = 0; i < nly; i++) {
		if (i == 0 || !same_frames(ord[i], ord[i - 1]))
			lines[nl++] = (struct line_ref){.first = &ord[i]};
		lines[nl - 1].len++;
	}
	qsort(lines, nl, sizeof(*lines), cmp_line);
	if (nl)
		fputc('\n', out);
	for (uint32_t h = 0; h < nl; h++)
		rc |= write_line(t, &lines[h], en, sp, out, &b);
	goto out;
oom:
	rc = -ENOMEM;
out:
	for (uint32_t i = 0; i < nly; i++)
		free(ly[i].fr);
	free(ly);
	free(ord);
	free(lines);
	free(en);
	free(sp);
	free(b.s);
	return rc || ferror(out) ? -EIO : 0;
}

int sched_write_fmt(const struct sched_table *t, FILE *out)
{
	struct sched_buf b = {0};
	int rc = 0;

	for (uint32_t i = 0; i < t->nlines; i++) {
		const struct sched_line *ln = &t->lines[i];
		const char *s = t->src + ln->off;
		switch (ln->kind) {
		case SCHED_L_BLANK:
			break;
		case SCHED_L_COMMENT:
			sched_buf_put(&b, s + ln->comment, ln->len - ln->comment);
			break;
		case SCHED_L_PORT:
			render_port(&t->ports[ln->idx], &b);
			break;
		case SCHED_L_FLOW:
			render_flow(t, &t->flows[ln->idx], &b);
			break;
		case SCHED_L_ROW: {
			const struct sched_rule *r = &t->rules[ln->idx];
			sched_render_rule(t, t->spans + r->span_off, r->nspan,
					  t->rule_ent + r->ent_off, r->nent, &b);
			break;
		}
		default:
			render_header(t, (enum sched_line_kind)ln->kind, &b);
		}
		if (ln->kind != SCHED_L_COMMENT && ln->comment != UINT32_MAX)
			sched_buf_printf(&b, "  %.*s", (int)(ln->len - ln->comment),
					 s + ln->comment);
		while (b.len && (b.s[b.len - 1] == ' ' || b.s[b.len - 1] == '\t'))
			b.s[--b.len] = 0;
		if (b.len == 0)
			sched_buf_put(&b, "", 0);
		if (b.oom) {
			rc = -ENOMEM;
			break;
		}
		fprintf(out, "%s\n", b.s ? b.s : "");
		b.len = 0;
		if (b.s)
			b.s[0] = 0;
	}
	free(b.s);
	return rc || ferror(out) ? -EIO : 0;
}

/* ---- JSON ------------------------------------------------------------------ */

void sched_json_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

static void json_match(FILE *out, const struct sched_match *m)
{
	const char *sep = "";
	fputc('{', out);
	for (const struct sched_match_key *k = sched_match_keys; k->word; k++) {
		if (!(m->fields & k->field))
			continue;
		if (k->max) {
			fprintf(out, "%s\"%s\":%u", sep, k->json, sched_match_get(m, k));
		} else {
			char a[64];
			inet_ntop(m->dst_family == 4 ? AF_INET : AF_INET6, m->dst, a, sizeof(a));
			fprintf(out, "%s\"%s\":\"%s/%u\"", sep, k->json, a, m->dst_len);
		}
		sep = ",";
	}
	fputc('}', out);
}

/* the i-th object of a JSON array opened with its name */
static void named(FILE *out, uint32_t i, const char *name)
{
	fputs(i ? ",{\"name\":" : "{\"name\":", out);
	sched_json_str(out, name);
}

int sched_write_json(const struct sched_table *t, FILE *out)
{
	struct sched_port_summary *ps = calloc(t->nports + 1, sizeof(*ps));
	struct sched_flow_summary *fs = calloc(t->nflows + 1, sizeof(*fs));
	uint32_t *off = NULL, *fr = NULL;
	struct sched_buf b = {0};
	int rc = 0;

	if (!ps || !fs || sched_frames_by_row(t, &off, &fr)) {
		rc = -ENOMEM;
		goto out;
	}
	sched_summarize(t, ps, fs);
	fprintf(out,
		"{\"version\":%u,\"tf_ns\":%llu,\"k\":%u,\"epoch_ns\":%llu,\"guard_ns\":%llu,"
		"\"cycle_ns\":%llu,",
		t->version, (unsigned long long)t->tf_ns, t->k, (unsigned long long)t->epoch_ns,
		(unsigned long long)t->guard_ns, (unsigned long long)t->tf_ns * t->k);
	if (t->sync_err_set)
		fprintf(out, "\"sync_error_ns\":%llu,", (unsigned long long)t->sync_err_ns);
	fputs("\"ports\":[", out);
	for (uint32_t i = 0; i < t->nports; i++) {
		const struct sched_port *p = &t->ports[i];
		const struct sched_port_summary *s = &ps[i];
		named(out, i, p->name);
		fprintf(out,
			",\"rate_bps\":%llu,\"max_frame\":%u,\"overhead\":%u,\"capacity_bits\":%"
			"llu,"
			"\"util_min\":%.6f,\"util_avg\":%.6f,\"util_max\":%.6f,\"frames_used\":%u,"
			"\"frames_overbooked\":%u,\"reserved_bps\":%.0f,\"best_effort_bps\":%.0f}",
			(unsigned long long)p->rate_bps, p->max_frame, p->overhead,
			(unsigned long long)s->capacity_bits, s->util_min, s->util_avg, s->util_max,
			s->frames_used, s->frames_over, s->reserved_bps, s->be_bps);
	}
	fputs("],\"flows\":[", out);
	for (uint32_t i = 0; i < t->nflows; i++) {
		const struct sched_flow *f = &t->flows[i];
		const struct sched_flow_summary *s = &fs[i];
		named(out, i, f->name);
		fputs(",\"port\":", out);
		sched_json_str(out, t->ports[f->port].name);
		fprintf(out, ",\"size\":%u,", f->size);
		if (f->alpha)
			fprintf(out, "\"alpha\":%u,\"delay_ns\":%llu,", f->alpha,
				(unsigned long long)f->delay_ns);
		if (f->stamp)
			fputs("\"stamp\":true,", out);
		fputs("\"match\":", out);
		json_match(out, &f->match);
		fprintf(out,
			",\"packets_per_cycle\":%llu,\"frames_per_cycle\":%u,\"bps\":%.0f,\"pps\":%"
			".3f,"
			"\"max_wait_ns\":%llu}",
			(unsigned long long)s->pkts_per_cycle, s->frames_per_cycle, s->bps, s->pps,
			(unsigned long long)s->max_wait_ns);
	}
	fputs("],\"rows\":[", out);
	bool first = true;
	for (uint32_t r = 0; r < t->nrows; r++) {
		if (t->row_off[r + 1] == t->row_off[r])
			continue;
		sched_buf_frames(&b, fr + off[r], off[r + 1] - off[r]);
		fprintf(out, "%s{\"frames\":\"%s\",\"count\":%u,\"entries\":[", first ? "" : ",",
			b.s ? b.s : "", off[r + 1] - off[r]);
		b.len = 0;
		first = false;
		for (uint32_t i = t->row_off[r]; i < t->row_off[r + 1]; i++) {
			fprintf(out, "%s{\"flow\":", i > t->row_off[r] ? "," : "");
			sched_json_str(out, t->flows[t->ent[i].flow].name);
			fprintf(out, ",\"n\":%u}", t->ent[i].n);
		}
		fputs("]}", out);
	}
	fprintf(out, "],\"runtime\":{\"distinct_rows\":%u,\"entries\":%u,\"bytes\":%zu}}\n",
		t->nrows, t->row_off[t->nrows], sched_runtime_bytes(t));
	if (b.oom)
		rc = -ENOMEM;
out:
	free(ps);
	free(fs);
	free(off);
	free(fr);
	free(b.s);
	return rc || ferror(out) ? -EIO : 0;
}

/* ---- equality ------------------------------------------------------------- */

static bool match_equal(const struct sched_match *a, const struct sched_match *b)
{
	if (a->fields != b->fields)
		return false;
	for (const struct sched_match_key *k = sched_match_keys; k->word; k++)
		if (k->max && sched_match_get(a, k) != sched_match_get(b, k))
			return false;
	return a->dst_family == b->dst_family && a->dst_len == b->dst_len &&
	       memcmp(a->dst, b->dst, sizeof(a->dst)) == 0;
}

static bool port_equal(const struct sched_port *x, const struct sched_port *y)
{
	return !strcmp(x->name, y->name) && x->rate_bps == y->rate_bps &&
	       x->max_frame == y->max_frame && x->overhead == y->overhead;
}

static bool flow_equal(const struct sched_flow *x, const struct sched_flow *y)
{
	return !strcmp(x->name, y->name) && x->port == y->port && x->size == y->size &&
	       x->alpha == y->alpha && x->delay_ns == y->delay_ns && x->stamp == y->stamp &&
	       match_equal(&x->match, &y->match);
}

bool sched_equal(const struct sched_table *a, const struct sched_table *b)
{
	if (a->version != b->version || a->tf_ns != b->tf_ns || a->k != b->k ||
	    a->epoch_ns != b->epoch_ns || a->guard_ns != b->guard_ns ||
	    a->sync_err_set != b->sync_err_set || a->sync_err_ns != b->sync_err_ns ||
	    a->nports != b->nports || a->nflows != b->nflows)
		return false;
	for (uint32_t i = 0; i < a->nports; i++)
		if (!port_equal(&a->ports[i], &b->ports[i]))
			return false;
	for (uint32_t i = 0; i < a->nflows; i++)
		if (!flow_equal(&a->flows[i], &b->flows[i]))
			return false;
	for (uint32_t f = 0; f < a->k; f++) {
		uint32_t na, nb;
		const struct sched_entry *ea = sched_row(a, f, &na), *eb = sched_row(b, f, &nb);
		if (na != nb || memcmp(ea, eb, na * sizeof(*ea)))
			return false;
	}
	return true;
}
