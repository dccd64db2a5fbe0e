/* SPDX-License-Identifier: BSD-3-Clause */
/* The table parser: lines -> directives; sched_resolve.c resolves the names
 * and the whole-table rules at the end. See FORMAT.md. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sched_parse_priv.h"

/* A row line, as any writer renders it, stays well inside MAX_TOKS. */
#define MAX_ROW_ITEMS 1024
#define MAX_LINE (1u << 20)

#define ERR(p, col, ...) sched_diag_add((p)->d, SCHED_ERROR, (p)->line, (col), __VA_ARGS__)

static const char *kind_word[] = {
	[SCHED_L_VERSION] = "tdp-schedule",
	[SCHED_L_TF] = "tf",
	[SCHED_L_K] = "k",
	[SCHED_L_EPOCH] = "epoch",
	[SCHED_L_GUARD] = "guard",
	[SCHED_L_SYNC] = "sync-error",
	[SCHED_L_PORT] = "port",
	[SCHED_L_FLOW] = "flow",
	[SCHED_L_ROW] = "frames",
};

size_t sched_utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	if (c < 0x80)
		return 1;
	size_t len = (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
	if (len == 0 || c == 0xc0 || c == 0xc1 || c > 0xf4 || len > n)
		return 0;
	/* RFC 3629 section 4: the second byte's range rules out overlong forms
	 * (E0, F0), surrogates (ED) and code points past U+10FFFF (F4) */
	unsigned lo = c == 0xe0 ? 0xa0 : c == 0xf0 ? 0x90 : 0x80;
	unsigned hi = c == 0xed ? 0x9f : c == 0xf4 ? 0x8f : 0xbf;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t j = 2; j < len; j++)
		if ((s[j] & 0xc0) != 0x80)
			return 0;
	return len;
}

/* Valid UTF-8 and no control characters but tab. Returns the bad column or 0. */
static uint32_t bad_byte(const unsigned char *s, size_t n, unsigned *byte)
{
	for (size_t i = 0; i < n;) {
		unsigned c = s[i];
		size_t len = sched_utf8_len(s + i, n - i);
		if (len == 0 || (c < 0x20 && c != '\t') || c == 0x7f) {
			*byte = c;
			return (uint32_t)i + 1;
		}
		i += len;
	}
	return 0;
}

/* Split a line into tokens at white space and ',' (and ':' when colon is set).
 * Stops at '#'. Returns -1 when there are too many tokens. */
static int lex(struct parser *p, const char *s, uint32_t n, bool colon, uint32_t *comment)
{
	uint32_t i = 0;
	p->ntok = 0;
	*comment = UINT32_MAX;
	while (i < n) {
		char c = s[i];
		if (c == ' ' || c == '\t') {
			i++;
			continue;
		}
		if (c == '#') {
			*comment = i;
			break;
		}
		if (p->ntok == MAX_TOKS)
			return -1;
		struct sched_tok *t = &p->tok[p->ntok++];
		t->s = s + i;
		t->col = i + 1;
		if (c == ',' || (colon && c == ':')) {
			t->len = 1;
			i++;
			continue;
		}
		uint32_t j = i;
		while (j < n && s[j] != ' ' && s[j] != '\t' && s[j] != '#' && s[j] != ',' &&
		       !(colon && s[j] == ':'))
			j++;
		t->len = j - i;
		i = j;
	}
	return 0;
}

static void bad_tok(struct parser *p, const struct sched_tok *t, const char *what)
{
	ERR(p, t->col, "%s: '%.*s'", what, (int)(t->len > 40 ? 40 : t->len), t->s);
}

static bool once(struct parser *p, uint32_t *seen, const char *what, uint32_t col)
{
	if (*seen) {
		ERR(p, col, "'%s' given twice (first at line %u)", what, *seen);
		return false;
	}
	*seen = p->line;
	return true;
}

static int one_value(struct parser *p, const char *what)
{
	if (p->ntok < 2) {
		ERR(p, p->tok[0].col + p->tok[0].len, "'%s' needs a value", what);
		return -1;
	}
	if (p->ntok > 2) {
		bad_tok(p, &p->tok[2], "unexpected text");
		return -1;
	}
	return 0;
}

static void header(struct parser *p, enum sched_line_kind kind)
{
	struct sched_table *t = p->t;
	const char *what = kind_word[kind];
	uint32_t *seen = kind == SCHED_L_VERSION ? &p->l_version
			 : kind == SCHED_L_TF	 ? &p->l_tf
			 : kind == SCHED_L_K	 ? &p->l_k
			 : kind == SCHED_L_EPOCH ? &p->l_epoch
			 : kind == SCHED_L_SYNC	 ? &p->l_sync
						 : &p->l_guard;
	const char *why;
	uint64_t v;

	if (!once(p, seen, what, p->tok[0].col) || one_value(p, what))
		return;
	struct sched_tok *a = &p->tok[1];
	switch (kind) {
	case SCHED_L_VERSION:
		if (sched_num_uint(a->s, a->len, UINT32_MAX, &v, &why)) {
			bad_tok(p, a, why);
		} else if (v != SCHED_FORMAT_VERSION) {
			ERR(p, a->col,
			    "unsupported format version %llu (this build reads version %d)",
			    (unsigned long long)v, SCHED_FORMAT_VERSION);
		} else {
			t->version = (uint32_t)v;
		}
		break;
	case SCHED_L_K:
		if (sched_num_uint(a->s, a->len, SCHED_MAX_K, &v, &why))
			ERR(p, a->col, "%s: k must be 1..%u", why, SCHED_MAX_K);
		else if (v == 0)
			ERR(p, a->col, "k must be at least 1");
		else
			t->k = (uint32_t)v;
		break;
	default:
		if (sched_num_time(a->s, a->len, &v, &why)) {
			bad_tok(p, a, why);
			break;
		}
		if (kind == SCHED_L_TF) {
			if (v < SCHED_MIN_TF_NS || v > SCHED_NS_PER_S)
				ERR(p, a->col, "TF must be between %dns and 1s", SCHED_MIN_TF_NS);
			else if (SCHED_NS_PER_S % v)
				ERR(p, a->col, "TF %.*s does not divide one second", (int)a->len,
				    a->s);
			else
				t->tf_ns = v;
		} else if (kind == SCHED_L_EPOCH) {
			t->epoch_ns = v;
		} else if (kind == SCHED_L_SYNC) {
			t->sync_err_ns = v;
			t->sync_err_set = true;
		} else {
			t->guard_ns = v;
		}
	}
}

/* The name of a port or flow line (what), whose usage says what it needs;
 * NULL with the error said when it has none, a bad one, or have already
 * reached limit. */
static struct sched_tok *decl_name(struct parser *p, const char *what, const char *usage,
				   uint32_t have, uint32_t limit)
{
	if (p->ntok < 2) {
		ERR(p, p->tok[0].col, "'%s' needs %s", what, usage);
		return NULL;
	}
	struct sched_tok *nm = &p->tok[1];
	if (!sched_name_ok(nm->s, nm->len)) {
		char why[96];
		snprintf(why, sizeof(why),
			 "bad %s name (letters, digits, _ - ., at most 31, starting with a letter)",
			 what);
		bad_tok(p, nm, why);
		return NULL;
	}
	if (have >= limit) {
		ERR(p, nm->col, "too many %ss (limit %u)", what, limit);
		return NULL;
	}
	return nm;
}

static void port_line(struct parser *p)
{
	struct sched_table *t = p->t;
	const char *why;
	uint64_t v;
	bool have_rate = false, have_mf = false, have_oh = false;
	struct sched_tok *nm = decl_name(p, "port", "a name and a rate: port NAME rate 1Gbit/s",
					 t->nports, SCHED_MAX_PORTS);
	if (!nm)
		return;
	struct sched_port pt = {.max_frame = 1514, .overhead = 24, .line = p->line};
	memcpy(pt.name, nm->s, nm->len);
	for (uint32_t i = 2; i < p->ntok; i += 2) {
		struct sched_tok *key = &p->tok[i], *val = i + 1 < p->ntok ? &p->tok[i + 1] : NULL;
		bool *seen = sched_tok_is(key, "rate")	      ? &have_rate
			     : sched_tok_is(key, "max-frame") ? &have_mf
			     : sched_tok_is(key, "overhead")  ? &have_oh
							      : NULL;
		if (!seen) {
			bad_tok(p, key,
				"unknown port attribute (expected rate, max-frame or overhead)");
			return;
		}
		if (*seen) {
			bad_tok(p, key, "attribute given twice");
			return;
		}
		*seen = true;
		if (!val) {
			ERR(p, key->col, "'%.*s' needs a value", (int)key->len, key->s);
			return;
		}
		if (seen == &have_rate) {
			if (sched_num_rate(val->s, val->len, &pt.rate_bps, &why)) {
				bad_tok(p, val, why);
				return;
			}
		} else if (seen == &have_mf) {
			if (sched_num_bytes(val->s, val->len, 65535, &v, &why) ||
			    v < SCHED_MIN_FRAME) {
				ERR(p, val->col, "max-frame must be %d..65535 bytes",
				    SCHED_MIN_FRAME);
				return;
			}
			pt.max_frame = (uint32_t)v;
		} else {
			if (sched_num_bytes(val->s, val->len, 1000, &v, &why)) {
				ERR(p, val->col, "overhead must be 0..1000 bytes");
				return;
			}
			pt.overhead = (uint32_t)v;
		}
	}
	if (!have_rate) {
		ERR(p, nm->col, "port %s needs a rate (e.g. rate 1Gbit/s)", pt.name);
		return;
	}
	if (sched_grow(&t->ports, &p->cap_ports, t->nports + 1, sizeof(pt)))
		return;
	t->lines[t->nlines].idx = t->nports;
	t->ports[t->nports++] = pt;
}

/* A flow line as it is read: the flow, where its names stand, which
 * attributes it gave. */
struct flow_build {
	struct sched_flow f;
	struct flow_src fs;
	bool have_port, have_size, have_alpha, have_delay;
	uint32_t delay_col;
};

/* One attribute's value: seen says which of port, size, alpha and delay it
 * is, else mk which match key. 0, or -1 (said). */
static int flow_value(struct parser *p, struct flow_build *b, const bool *seen,
		      const struct sched_match_key *mk, const struct sched_tok *val)
{
	struct sched_table *t = p->t;
	const char *why;
	uint64_t v;
	if (seen == &b->have_port) {
		if (!sched_name_ok(val->s, val->len)) {
			bad_tok(p, val, "bad port name");
			return -1;
		}
		b->fs.port_off = (uint32_t)(val->s - t->src);
		b->fs.port_len = (uint8_t)val->len;
		b->fs.port_col = val->col;
	} else if (seen == &b->have_size) {
		b->fs.size_col = val->col;
		if (sched_num_bytes(val->s, val->len, 65535, &v, &why) || v == 0) {
			ERR(p, val->col, "size must be 1..65535 bytes");
			return -1;
		}
		b->f.size = (uint32_t)v;
	} else if (seen == &b->have_alpha) {
		if (sched_num_uint(val->s, val->len, 1000000, &v, &why) || v == 0) {
			ERR(p, val->col, "alpha must be 1..1000000 frames");
			return -1;
		}
		b->f.alpha = (uint32_t)v;
	} else if (seen == &b->have_delay) {
		if (sched_num_time(val->s, val->len, &b->f.delay_ns, &why)) {
			bad_tok(p, val, why);
			return -1;
		}
		b->delay_col = val->col;
		b->fs.delay_col = val->col;
	} else if (mk->field == SCHED_M_DST) {
		if (sched_num_prefix(val->s, val->len, &b->f.match, &why)) {
			bad_tok(p, val, why);
			return -1;
		}
		b->f.match.fields |= SCHED_M_DST;
	} else {
		if (sched_num_uint(val->s, val->len, mk->max, &v, &why)) {
			ERR(p, val->col, "%s must be 0..%llu", mk->word,
			    (unsigned long long)mk->max);
			return -1;
		}
		sched_match_set(&b->f.match, mk, (uint32_t)v);
	}
	return 0;
}

/* The attribute at tok[i] of a flow line and its value into b: the index of
 * the next attribute, or 0 with the error said. */
static uint32_t one_attr(struct parser *p, struct flow_build *b, uint32_t i)
{
	struct sched_tok *key = &p->tok[i], *val = i + 1 < p->ntok ? &p->tok[i + 1] : NULL;
	if (sched_tok_is(key, "stamp")) { /* a flag: no value */
		if (b->f.stamp) {
			bad_tok(p, key, "attribute given twice");
			return 0;
		}
		b->f.stamp = true;
		return i + 1;
	}
	const struct sched_match_key *mk = NULL;
	for (const struct sched_match_key *k = sched_match_keys; k->word; k++)
		if (sched_tok_is(key, k->word))
			mk = k;
	bool *seen = sched_tok_is(key, "port")	  ? &b->have_port
		     : sched_tok_is(key, "size")  ? &b->have_size
		     : sched_tok_is(key, "alpha") ? &b->have_alpha
		     : sched_tok_is(key, "delay") ? &b->have_delay
						  : NULL;
	if (!mk && !seen) {
		char what[256];
		snprintf(what, sizeof(what),
			 "unknown flow attribute (expected port, size, alpha, delay, stamp, %s)",
			 sched_match_words());
		bad_tok(p, key, what);
		return 0;
	}
	if ((seen && *seen) || (mk && (b->f.match.fields & mk->field))) {
		bad_tok(p, key, "attribute given twice");
		return 0;
	}
	if (!val) {
		ERR(p, key->col, "'%.*s' needs a value", (int)key->len, key->s);
		return 0;
	}
	if (seen)
		*seen = true;
	return flow_value(p, b, seen, mk, val) ? 0 : i + 2;
}

/* What a flow must have once its line is read: a port, a size, a match,
 * and alpha with a delay. 0, or -1 said. */
static int flow_whole(struct parser *p, const struct flow_build *b, uint32_t col)
{
	if (!b->have_port || !b->have_size) {
		ERR(p, col, "flow %s needs %s", b->f.name,
		    !b->have_port ? "a port (port NAME)" : "a size (size BYTES)");
		return -1;
	}
	if (!b->f.match.fields) {
		ERR(p, col, "flow %s needs a match (%s)", b->f.name, sched_match_words());
		return -1;
	}
	if (b->have_delay && !b->have_alpha) {
		ERR(p, b->delay_col,
		    "delay places the arrivals of a pipelined flow: it needs alpha");
		return -1;
	}
	return 0;
}

static void flow_line(struct parser *p)
{
	struct sched_table *t = p->t;
	struct sched_tok *nm = decl_name(p, "flow", "a name: flow NAME port P size N MATCH...",
					 t->nflows, SCHED_MAX_FLOWS);
	if (!nm)
		return;
	struct flow_build b = {.f = {.line = p->line}};
	memcpy(b.f.name, nm->s, nm->len);
	for (uint32_t i = 2; i < p->ntok;)
		if (!(i = one_attr(p, &b, i)))
			return;
	if (flow_whole(p, &b, nm->col))
		return;
	/* The port is resolved at the end: it may be declared further down. */
	if (sched_grow(&t->flows, &p->cap_flows, t->nflows + 1, sizeof(b.f)) ||
	    sched_grow(&p->fsrc, &p->cap_fsrc, t->nflows + 1, sizeof(b.fs)))
		return;
	b.f.port = UINT16_MAX;
	p->fsrc[t->nflows] = b.fs;
	t->lines[t->nlines].idx = t->nflows;
	t->flows[t->nflows++] = b.f;
}

static int parse_span(struct parser *p, struct sched_tok *a, struct sched_span *sp)
{
	const char *s = a->s, *why;
	uint32_t n = a->len;
	uint64_t first, last, stride = 1;
	const char *slash = memchr(s, '/', n);
	uint32_t body = slash ? (uint32_t)(slash - s) : n;

	if (slash && sched_num_uint(slash + 1, n - body - 1, UINT32_MAX, &stride, &why)) {
		bad_tok(p, a, "bad stride");
		return -1;
	}
	if (stride == 0) {
		bad_tok(p, a, "stride must be at least 1");
		return -1;
	}
	if (body == 1 && s[0] == '*') {
		first = 0;
		last = UINT32_MAX; /* k - 1, filled in when k is known */
	} else {
		const char *dash = memchr(s, '-', body);
		uint32_t fl = dash ? (uint32_t)(dash - s) : body;
		if (sched_num_uint(s, fl, SCHED_MAX_K, &first, &why)) {
			bad_tok(p, a, "bad frame number (frames are 0..k-1)");
			return -1;
		}
		last = first;
		if (dash && sched_num_uint(dash + 1, body - fl - 1, SCHED_MAX_K, &last, &why)) {
			bad_tok(p, a, "bad frame number (frames are 0..k-1)");
			return -1;
		}
		if (last < first) {
			bad_tok(p, a, "range runs backwards");
			return -1;
		}
		if (slash && !dash) {
			bad_tok(p, a, "a stride needs a range (first-last/stride)");
			return -1;
		}
	}
	sp->first = (uint32_t)first;
	sp->last = (uint32_t)last;
	sp->stride = (uint32_t)stride;
	sp->col = a->col;
	return 0;
}

/* The frame sets before the colon of a row line into t->spans; 0, or -1
 * (said). */
static int row_spans(struct parser *p, const struct sched_rule *r, uint32_t colon)
{
	struct sched_table *t = p->t;
	for (uint32_t i = 1; i < colon; i++) {
		struct sched_tok *a = &p->tok[i];
		bool comma = a->len == 1 && a->s[0] == ',';
		if (comma != ((i - 1) % 2 == 1) || (comma && i + 1 == colon)) {
			bad_tok(p, a, comma ? "unexpected ','" : "expected ',' between frame sets");
			return -1;
		}
		if (comma)
			continue;
		struct sched_span sp;
		if (parse_span(p, a, &sp))
			return -1;
		if (t->nspans - r->span_off == MAX_ROW_ITEMS) {
			ERR(p, a->col,
			    "more than %d frame sets in one line; split it (rows add up)",
			    MAX_ROW_ITEMS);
			return -1;
		}
		if (sched_grow(&t->spans, &p->cap_spans, t->nspans + 1, sizeof(sp)))
			return -1;
		t->spans[t->nspans++] = sp;
	}
	return 0;
}

/* One "FLOW N" of a row at token i into the row's entries; 0, or -1 (said). */
static int row_entry(struct parser *p, const struct sched_rule *r, uint32_t i)
{
	struct sched_table *t = p->t;
	struct sched_tok *nm = &p->tok[i], *cnt = i + 1 < p->ntok ? &p->tok[i + 1] : NULL;
	const char *why;
	uint64_t n;
	if (!sched_name_ok(nm->s, nm->len)) {
		bad_tok(p, nm, "expected a flow name");
		return -1;
	}
	if (t->nrule_ent - r->ent_off == MAX_ROW_ITEMS) {
		ERR(p, nm->col, "more than %d flows in one line; split it (rows add up)",
		    MAX_ROW_ITEMS);
		return -1;
	}
	if (!cnt || (cnt->len == 1 && cnt->s[0] == ',')) {
		ERR(p, nm->col + nm->len, "flow %.*s needs a packet count", (int)nm->len, nm->s);
		return -1;
	}
	if (sched_num_uint(cnt->s, cnt->len, SCHED_MAX_N, &n, &why)) {
		ERR(p, cnt->col, "%s: packets per frame must be 0..%d", why, SCHED_MAX_N);
		return -1;
	}
	if (sched_grow(&t->rule_ent, &p->cap_ent, t->nrule_ent + 1, sizeof(*t->rule_ent)) ||
	    sched_grow(&t->rule_col, &p->cap_col, t->nrule_ent + 1, sizeof(uint32_t)) ||
	    sched_grow(&p->ent_name_off, &p->cap_noff, t->nrule_ent + 1, sizeof(uint32_t)) ||
	    sched_grow(&p->ent_name_len, &p->cap_nlen, t->nrule_ent + 1, 1))
		return -1;
	t->rule_ent[t->nrule_ent] = (struct sched_entry){.flow = UINT32_MAX, .n = (uint32_t)n};
	t->rule_col[t->nrule_ent] = nm->col;
	p->ent_name_off[t->nrule_ent] = (uint32_t)(nm->s - t->src);
	p->ent_name_len[t->nrule_ent] = (uint8_t)nm->len;
	t->nrule_ent++;
	return 0;
}

static void row_line(struct parser *p)
{
	struct sched_table *t = p->t;
	uint32_t colon = 0;
	struct sched_rule r = {.line = p->line, .span_off = t->nspans, .ent_off = t->nrule_ent};

	for (uint32_t j = 1; j < p->ntok; j++)
		if (p->tok[j].len == 1 && p->tok[j].s[0] == ':') {
			colon = j;
			break;
		}
	if (!colon) {
		ERR(p, p->tok[0].col, "expected 'frames SET: FLOW N, ...' (missing ':')");
		return;
	}
	if (colon == 1) {
		ERR(p, p->tok[1].col, "no frames before ':'");
		return;
	}
	if (row_spans(p, &r, colon))
		goto bad;
	r.nspan = t->nspans - r.span_off;
	uint32_t i = colon + 1;
	if (i >= p->ntok) {
		ERR(p, p->tok[colon].col + 1, "no flows after ':'");
		goto bad;
	}
	while (i < p->ntok) {
		if (row_entry(p, &r, i))
			goto bad;
		i += 2;
		if (i < p->ntok && p->tok[i].len == 1 && p->tok[i].s[0] == ',') {
			i++;
			if (i == p->ntok) {
				bad_tok(p, &p->tok[i - 1], "unexpected ','");
				goto bad;
			}
		}
	}
	r.nent = t->nrule_ent - r.ent_off;
	if (sched_grow(&t->rules, &p->cap_rules, t->nrules + 1, sizeof(r)))
		goto bad;
	t->lines[t->nlines].idx = t->nrules;
	t->rules[t->nrules++] = r;
	return;
bad:
	t->nspans = r.span_off;
	t->nrule_ent = r.ent_off;
}

static enum sched_line_kind directive(const struct sched_tok *w)
{
	for (int k = SCHED_L_VERSION; k <= SCHED_L_ROW; k++)
		if (sched_tok_is(w, kind_word[k]))
			return (enum sched_line_kind)k;
	if (sched_tok_is(w, "frame"))
		return SCHED_L_ROW;
	return SCHED_L_BLANK;
}

static void one_line(struct parser *p, const char *s, uint32_t n)
{
	struct sched_table *t = p->t;
	struct sched_line *ln = &t->lines[t->nlines];
	uint32_t comment;

	/* The first word decides whether ':' separates tokens. */
	uint32_t w = 0;
	while (w < n && (s[w] == ' ' || s[w] == '\t'))
		w++;
	bool row = (n - w >= 5 && memcmp(s + w, "frame", 5) == 0);
	if (lex(p, s, n, row, &comment)) {
		ERR(p, 1, "line has too many words (limit %d)", MAX_TOKS);
		ln->kind = SCHED_L_COMMENT;
		return;
	}
	ln->comment = comment;
	if (p->ntok == 0) {
		ln->kind = comment == UINT32_MAX ? SCHED_L_BLANK : SCHED_L_COMMENT;
		return;
	}
	enum sched_line_kind kind = directive(&p->tok[0]);
	ln->kind = (uint8_t)kind;
	if (kind == SCHED_L_BLANK) {
		ln->kind = SCHED_L_COMMENT;
		bad_tok(p, &p->tok[0],
			"unknown keyword (expected tdp-schedule, tf, k, epoch, guard, sync-error, "
			"port, flow or frames)");
		return;
	}
	if (kind != SCHED_L_VERSION && !p->l_version && !p->said_version) {
		ERR(p, p->tok[0].col,
		    "the table must start with 'tdp-schedule %d' (the format version)",
		    SCHED_FORMAT_VERSION);
		p->said_version = true;
	}
	switch (kind) {
	case SCHED_L_PORT:
		port_line(p);
		break;
	case SCHED_L_FLOW:
		flow_line(p);
		break;
	case SCHED_L_ROW:
		row_line(p);
		break;
	default:
		header(p, kind);
		break;
	}
}

/* ---- entry points -------------------------------------------------------- */

struct sched_table *sched_parse(const char *buf, size_t len, struct sched_diags *d)
{
	struct parser *p = calloc(1, sizeof(*p));
	struct sched_table *t = calloc(1, sizeof(*t));
	size_t errs = d->nerr;

	if (!p || !t || !(t->src = malloc(len + 1))) {
		sched_diag_add(d, SCHED_ERROR, 0, 0, "out of memory");
		goto fail;
	}
	memcpy(t->src, buf, len);
	t->src[len] = 0;
	t->src_len = len;
	p->t = t;
	p->d = d;

	size_t off = 0;
	while (off < len) {
		const char *nl = memchr(t->src + off, '\n', len - off);
		size_t n = nl ? (size_t)(nl - (t->src + off)) : len - off;
		size_t keep = n;
		if (keep && t->src[off + keep - 1] == '\r')
			keep--;
		p->line++;
		if (p->line == UINT32_MAX || keep > MAX_LINE) {
			sched_diag_add(d, SCHED_ERROR, p->line, 1,
				       keep > MAX_LINE ? "line too long" : "too many lines");
			goto fail;
		}
		if (sched_grow(&t->lines, &p->cap_lines, t->nlines + 1, sizeof(*t->lines))) {
			sched_diag_add(d, SCHED_ERROR, 0, 0, "out of memory");
			goto fail;
		}
		t->lines[t->nlines] = (struct sched_line){
			.off = (uint32_t)off, .len = (uint32_t)keep, .comment = UINT32_MAX};
		unsigned byte;
		uint32_t col = bad_byte((const unsigned char *)t->src + off, keep, &byte);
		if (col) {
			sched_diag_add(d, SCHED_ERROR, p->line, col,
				       "byte 0x%02x is not text: this is not a schedule table",
				       byte);
			goto fail;
		}
		if (off > UINT32_MAX - keep) {
			sched_diag_add(d, SCHED_ERROR, p->line, 1, "file too large");
			goto fail;
		}
		one_line(p, t->src + off, (uint32_t)keep);
		t->nlines++;
		off += n + (nl ? 1 : 0);
	}
	/* Resolving names and ranges on a table with syntax errors would only
	 * add noise: the first errors are the ones that matter. */
	if (d->nerr == errs)
		sched_resolve(p);
	if (d->nerr != errs)
		goto fail;
	if (sched_build(t, d))
		goto fail;
	free(p->ent_name_off);
	free(p->ent_name_len);
	free(p->fsrc);
	free(p);
	return t;
fail:
	if (p) {
		free(p->ent_name_off);
		free(p->ent_name_len);
		free(p->fsrc);
	}
	free(p);
	sched_free(t);
	return NULL;
}

struct sched_table *sched_load(const char *path, struct sched_diags *d)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0;

	if (!f) {
		sched_diag_add(d, SCHED_ERROR, 0, 0, "cannot open: %s", strerror(errno));
		d->io = true;
		return NULL;
	}
	struct stat st;
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		sched_diag_add(d, SCHED_ERROR, 0, 0, "is a directory, not a reservation table");
		d->io = true;
		goto fail;
	}
	for (;;) {
		if (sched_grow(&buf, &cap, len + 65536, 1)) {
			sched_diag_add(d, SCHED_ERROR, 0, 0, "out of memory");
			goto fail;
		}
		size_t r = fread(buf + len, 1, cap - len, f);
		len += r;
		if (r == 0)
			break;
		if (len > SCHED_MAX_BYTES) {
			sched_diag_add(d, SCHED_ERROR, 0, 0,
				       "more than %u MiB: not a reservation table",
				       SCHED_MAX_BYTES >> 20);
			goto fail;
		}
	}
	if (ferror(f)) {
		sched_diag_add(d, SCHED_ERROR, 0, 0, "read error: %s", strerror(errno));
		d->io = true;
		goto fail;
	}
	if (f != stdin)
		fclose(f);
	struct sched_table *t = sched_parse(buf ? buf : "", len, d);
	free(buf);
	if (t)
		t->file = strdup(path);
	return t;
fail:
	if (f != stdin)
		fclose(f);
	free(buf);
	return NULL;
}

void sched_free(struct sched_table *t)
{
	if (!t)
		return;
	free(t->ports);
	free(t->flows);
	free(t->rules);
	free(t->spans);
	free(t->rule_ent);
	free(t->rule_col);
	free(t->frame_row);
	free(t->row_off);
	free(t->ent);
	free(t->src);
	free(t->lines);
	free(t->file);
	free(t);
}
