/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Editing a table in place: reserve and release packets of a flow in a set of
 * frames. Edits touch only the row lines they must; every other line, comment
 * and blank line is kept byte for byte. The caller re-parses and re-admits the
 * result before writing it anywhere.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sched_priv.h"

/* Per-line replacement: NULL keeps the line; "" with del set removes it. */
struct edit {
	const struct sched_table *t;
	char **repl;
	bool *del;
	char **after; /* text inserted after a line (several lines, '\n' separated) */
};

static int edit_init(struct edit *e, const struct sched_table *t)
{
	e->t = t;
	e->repl = calloc(t->nlines + 1, sizeof(char *));
	e->del = calloc(t->nlines + 1, sizeof(bool));
	e->after = calloc(t->nlines + 1, sizeof(char *));
	return e->repl && e->del && e->after ? 0 : -ENOMEM;
}

static void edit_free(struct edit *e)
{
	for (uint32_t i = 0; e->repl && i <= e->t->nlines; i++) {
		free(e->repl[i]);
		free(e->after[i]);
	}
	free(e->repl);
	free(e->del);
	free(e->after);
}

/* A line's own ending: CRLF when its '\n' has a '\r' before it. */
static const char *line_eol(const struct sched_table *t, uint32_t i)
{
	const struct sched_line *ln = &t->lines[i];
	return ln->off + ln->len < t->src_len && t->src[ln->off + ln->len] == '\r' ? "\r\n" : "\n";
}

/* Lines added in the file's way: its first line's ending. */
static void put_lines(struct sched_buf *b, const char *text, const char *eol)
{
	for (const char *s = text, *nl; *s; s = nl + 1) {
		if (!(nl = strchr(s, '\n'))) {
			sched_buf_put(b, s, strlen(s));
			return;
		}
		sched_buf_put(b, s, (size_t)(nl - s));
		sched_buf_put(b, eol, strlen(eol));
	}
}

static char *edit_text(const struct edit *e)
{
	const struct sched_table *t = e->t;
	struct sched_buf b = {0};
	const char *eol = t->nlines ? line_eol(t, 0) : "\n";

	for (uint32_t i = 0; i < t->nlines; i++) {
		const struct sched_line *ln = &t->lines[i];
		if (e->repl[i])
			sched_buf_printf(&b, "%s%s", e->repl[i], line_eol(t, i));
		else if (!e->del[i])
			sched_buf_printf(&b, "%.*s%s", (int)ln->len, t->src + ln->off,
					 line_eol(t, i));
		if (e->after[i])
			put_lines(&b, e->after[i], eol);
	}
	if (e->after[t->nlines])
		put_lines(&b, e->after[t->nlines], eol);
	if (b.oom) {
		free(b.s);
		return NULL;
	}
	return b.s ? b.s : strdup("");
}

/* The edited text, or NULL said out of memory (as it is when oom) */
static char *edit_end(struct edit *e, struct sched_diags *d, bool oom)
{
	char *out = oom ? NULL : edit_text(e);
	if (!out)
		sched_diag_add(d, SCHED_ERROR, 0, 0, "out of memory");
	return out;
}

/* A rule line with new entries and spans; the line's comment is kept. */
static char *rule_text(const struct sched_table *t, uint32_t line, const struct sched_span *sp,
		       uint32_t nsp, const struct sched_entry *en, uint32_t ne, bool comment)
{
	struct sched_buf b = {0};
	const struct sched_line *ln = &t->lines[line - 1];

	sched_render_rule(t, sp, nsp, en, ne, &b);
	if (comment && ln->comment != UINT32_MAX)
		sched_buf_printf(&b, "  %.*s", (int)(ln->len - ln->comment),
				 t->src + ln->off + ln->comment);
	if (b.oom) {
		free(b.s);
		return NULL;
	}
	return b.s;
}

static void append_after(struct edit *e, uint32_t line_idx, const char *text)
{
	struct sched_buf b = {0};
	if (e->after[line_idx])
		sched_buf_put(&b, e->after[line_idx], strlen(e->after[line_idx]));
	sched_buf_printf(&b, "%s\n", text);
	free(e->after[line_idx]);
	e->after[line_idx] = b.s;
}

static uint32_t last_row_line(const struct sched_table *t)
{
	uint32_t last = t->nlines; /* index; nlines = end of file */
	for (uint32_t i = 0; i < t->nlines; i++)
		if (t->lines[i].kind == SCHED_L_ROW)
			last = i;
	return last;
}

static uint32_t rule_frames(const struct sched_table *t, const struct sched_rule *r, uint32_t *out)
{
	uint32_t n = 0;
	for (uint32_t s = 0; s < r->nspan; s++) {
		const struct sched_span *sp = &t->spans[r->span_off + s];
		for (uint64_t f = sp->first; f <= sp->last; f += sp->stride)
			out[n++] = (uint32_t)f;
	}
	return n;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static int check_args(const struct sched_table *t, const char *flow, uint32_t n,
		      const uint8_t *member, struct sched_diags *d, int *fi, uint32_t *nsel)
{
	*fi = sched_flow_find(t, flow);
	if (*fi < 0) {
		sched_diag_add(d, SCHED_ERROR, 0, 0, "no flow named '%s'", flow);
		return -1;
	}
	if (n == 0 || n > SCHED_MAX_N) {
		sched_diag_add(d, SCHED_ERROR, 0, 0, "packet count must be 1..%d", SCHED_MAX_N);
		return -1;
	}
	*nsel = 0;
	for (uint32_t f = 0; f < t->k; f++)
		*nsel += member[f] != 0;
	if (!*nsel) {
		sched_diag_add(d, SCHED_ERROR, 0, 0, "no frames selected");
		return -1;
	}
	return 0;
}

char *sched_edit_reserve(const struct sched_table *t, const char *flow, uint32_t n,
			 const uint8_t *member, struct sched_diags *d)
{
	struct edit e = {0};
	uint32_t *frames = NULL, *tmp = NULL, nsel;
	struct sched_span *sp = NULL;
	char *out = NULL;
	int fi;

	if (check_args(t, flow, n, member, d, &fi, &nsel))
		return NULL;
	frames = malloc(sizeof(uint32_t) * t->k);
	tmp = malloc(sizeof(uint32_t) * t->k);
	sp = malloc(sizeof(*sp) * t->k);
	if (!frames || !tmp || !sp || edit_init(&e, t))
		goto oom;
	uint32_t nf = 0;
	for (uint32_t f = 0; f < t->k; f++)
		if (member[f])
			frames[nf++] = f;
	for (uint32_t f = 0; f < nf; f++) {
		uint32_t ne;
		const struct sched_entry *en = sched_row(t, frames[f], &ne);
		for (uint32_t i = 0; i < ne; i++)
			if (en[i].flow == (uint32_t)fi && en[i].n + n > SCHED_MAX_N) {
				sched_diag_add(
					d, SCHED_ERROR, 0, 0,
					"flow %s would have %u packets in frame %u (limit %d)",
					flow, en[i].n + n, frames[f], SCHED_MAX_N);
				goto out;
			}
	}
	/* A row line with exactly this frame set takes the packets; else a new line. */
	for (uint32_t r = t->nrules; r-- > 0;) {
		const struct sched_rule *ru = &t->rules[r];
		uint32_t cnt = 0;
		for (uint32_t s = 0; s < ru->nspan; s++)
			cnt += sched_span_count(&t->spans[ru->span_off + s]);
		if (cnt != nf || rule_frames(t, ru, tmp) != nf)
			continue;
		bool same = true;
		for (uint32_t i = 0; i < nf && same; i++)
			same = member[tmp[i]] != 0;
		if (!same)
			continue;
		struct sched_entry *en = malloc(sizeof(*en) * (ru->nent + 1));
		if (!en)
			goto oom;
		memcpy(en, t->rule_ent + ru->ent_off, sizeof(*en) * ru->nent);
		uint32_t ne = ru->nent, i;
		for (i = 0; i < ne && en[i].flow != (uint32_t)fi; i++)
			;
		if (i == ne)
			en[ne++] = (struct sched_entry){.flow = (uint32_t)fi, .n = 0};
		en[i].n += n;
		e.repl[ru->line - 1] =
			rule_text(t, ru->line, t->spans + ru->span_off, ru->nspan, en, ne, true);
		free(en);
		if (!e.repl[ru->line - 1])
			goto oom;
		goto done;
	}
	{
		struct sched_entry en = {.flow = (uint32_t)fi, .n = n};
		size_t ns = sched_spans_from_frames(frames, nf, sp);
		struct sched_buf b = {0};
		sched_render_rule(t, sp, (uint32_t)ns, &en, 1, &b);
		if (b.oom)
			goto oom;
		uint32_t at = last_row_line(t);
		append_after(&e, at, b.s);
		free(b.s);
	}
done:
	out = edit_end(&e, d, false);
	goto out;
oom:
	out = edit_end(&e, d, true);
out:
	edit_free(&e);
	free(frames);
	free(tmp);
	free(sp);
	return out;
}

/* Work space of a release: per frame of the cycle, what is still to take
 * (need), and room for a rule's frames (fr), what each gives (grp), a group
 * of them (set) and their spans (sp). */
struct release {
	uint32_t *need, *fr, *grp, *set;
	struct sched_span *sp;
	struct sched_entry *en; /* a rule's entries, rewritten */
};

/* Frames of member where flow fi has fewer than n packets into r->set, said
 * as one error; the number of them (0: every frame can give n). */
static uint32_t release_lacking(const struct sched_table *t, const char *flow, int fi, uint32_t n,
				const uint8_t *member, struct release *r, struct sched_diags *d)
{
	uint32_t nlack = 0;
	for (uint32_t f = 0; f < t->k; f++) {
		if (!member[f])
			continue;
		uint32_t ne, have = 0;
		const struct sched_entry *x = sched_row(t, f, &ne);
		for (uint32_t i = 0; i < ne; i++)
			if (x[i].flow == (uint32_t)fi)
				have = x[i].n;
		if (have < n)
			r->set[nlack++] = f;
		r->need[f] = n;
	}
	if (nlack) {
		struct sched_buf b = {0};
		sched_buf_frames(&b, r->set, nlack > 64 ? 64 : nlack);
		sched_diag_add(
			d, SCHED_ERROR, 0, 0,
			"flow %s has fewer than %u packets in frame%s %s%s; nothing released", flow,
			n, nlack == 1 ? "" : "s", b.s ? b.s : "", nlack > 64 ? ",..." : "");
		free(b.s);
	}
	return nlack;
}

/* The next amount taken from the rule's frames (0 first when some give
 * nothing, so the untouched frames keep the line); UINT32_MAX when done. */
static uint32_t next_take(const uint32_t *grp, uint32_t nf, bool *has0)
{
	if (*has0) {
		*has0 = false;
		return 0;
	}
	for (uint32_t i = 0; i < nf; i++)
		if (grp[i] != UINT32_MAX)
			return grp[i];
	return UINT32_MAX;
}

/* Rule ru without what it gives of flow entry ei: one line per distinct
 * amount taken. The untouched frames (else the first group) keep the line's
 * place and its comment. 0, or -1 when out of memory. */
static int release_rule(const struct sched_table *t, struct edit *e, const struct sched_rule *ru,
			uint32_t ei, uint32_t nf, bool uniform, struct release *r)
{
	uint32_t c = t->rule_ent[ru->ent_off + ei].n, li = ru->line - 1;
	free(r->en);
	r->en = malloc(sizeof(*r->en) * (ru->nent + 1));
	if (!r->en)
		return -1;
	bool has0 = false, first = true;
	for (uint32_t i = 0; i < nf; i++)
		has0 |= r->grp[i] == 0;
	for (uint32_t take; (take = next_take(r->grp, nf, &has0)) != UINT32_MAX;) {
		uint32_t m = 0, ne = 0;
		for (uint32_t j = 0; j < nf; j++)
			if (r->grp[j] == take) {
				r->set[m++] = r->fr[j];
				r->grp[j] = UINT32_MAX;
			}
		for (uint32_t x = 0; x < ru->nent; x++) {
			struct sched_entry v = t->rule_ent[ru->ent_off + x];
			if (x == ei)
				v.n = c - take;
			if (x != ei || v.n)
				r->en[ne++] = v;
		}
		char *txt = NULL;
		if (ne) {
			const struct sched_span *use = t->spans + ru->span_off;
			uint32_t ns = ru->nspan;
			if (!uniform) {
				use = r->sp;
				ns = (uint32_t)sched_spans_from_frames(r->set, m, r->sp);
			}
			if (!(txt = rule_text(t, ru->line, use, ns, r->en, ne, first)))
				return -1;
		}
		if (first) {
			const struct sched_line *ln = &t->lines[li];
			if (txt)
				e->repl[li] = txt;
			else if (ln->comment != UINT32_MAX)
				e->repl[li] = strndup(t->src + ln->off + ln->comment,
						      ln->len - ln->comment);
			else
				e->del[li] = true;
			first = false;
		} else if (txt) {
			append_after(e, li, txt);
			free(txt);
		}
	}
	return 0;
}

char *sched_edit_release(const struct sched_table *t, const char *flow, uint32_t n,
			 const uint8_t *member, struct sched_diags *d)
{
	struct edit e = {0};
	struct release r = {0};
	char *out = NULL;
	int fi;
	uint32_t nsel;

	if (check_args(t, flow, n, member, d, &fi, &nsel))
		return NULL;
	r.need = calloc(t->k, sizeof(uint32_t));
	r.fr = malloc(sizeof(uint32_t) * t->k);
	r.grp = malloc(sizeof(uint32_t) * t->k);
	r.set = malloc(sizeof(uint32_t) * t->k);
	r.sp = malloc(sizeof(*r.sp) * t->k);
	if (!r.need || !r.fr || !r.grp || !r.set || !r.sp || edit_init(&e, t))
		goto oom;
	if (release_lacking(t, flow, fi, n, member, &r, d))
		goto out;
	/* Take from the last lines first: the newest reservations go first. */
	for (uint32_t ri = t->nrules; ri-- > 0;) {
		const struct sched_rule *ru = &t->rules[ri];
		uint32_t ei;
		for (ei = 0; ei < ru->nent && t->rule_ent[ru->ent_off + ei].flow != (uint32_t)fi;
		     ei++)
			;
		if (ei == ru->nent || t->rule_ent[ru->ent_off + ei].n == 0)
			continue;
		uint32_t c = t->rule_ent[ru->ent_off + ei].n;
		uint32_t nf = rule_frames(t, ru, r.fr);
		qsort(r.fr, nf, sizeof(*r.fr), cmp_u32);
		bool any = false, uniform = true;
		for (uint32_t i = 0; i < nf; i++) {
			uint32_t take = r.need[r.fr[i]] < c ? r.need[r.fr[i]] : c;
			r.need[r.fr[i]] -= take;
			r.grp[i] = take;
			any |= take != 0;
			uniform &= take == r.grp[0];
		}
		if (any && release_rule(t, &e, ru, ei, nf, uniform, &r))
			goto oom;
	}
	out = edit_end(&e, d, false);
	goto out;
oom:
	out = edit_end(&e, d, true);
out:
	edit_free(&e);
	free(r.need);
	free(r.fr);
	free(r.grp);
	free(r.set);
	free(r.sp);
	free(r.en);
	return out;
}
