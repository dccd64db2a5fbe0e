/* SPDX-License-Identifier: BSD-3-Clause */
/* Internal helpers shared by the schedule library's modules. */
#ifndef TDP_SCHED_PRIV_H
#define TDP_SCHED_PRIV_H

#include "tdp_sched.h"

__extension__ typedef unsigned __int128 sched_u128;

/* A token of a line: text, length and 1-based column. */
struct sched_tok {
	const char *s;
	uint32_t len;
	uint32_t col;
};

/* Numbers with explicit units. Each returns 0, or -1 and sets *why. */
int sched_num_uint(const char *s, size_t n, uint64_t max, uint64_t *out, const char **why);
int sched_num_bytes(const char *s, size_t n, uint64_t max, uint64_t *out, const char **why);

bool sched_name_ok(const char *s, size_t n);
bool sched_tok_is(const struct sched_tok *t, const char *word);

/* Build the runtime form (sched_build.c); check that no two flows' match
 * rules claim one packet (sched_overlap.c). */
int sched_build(struct sched_table *t, struct sched_diags *d);
int sched_check_overlaps(struct sched_table *t, struct sched_diags *d);

/* The row lines folded into segments that do not overlap on their chain of
 * frames (sched_fold.c): frames first, first + stride, ... last, and the
 * packets every line in force there adds up to. */
struct sched_seg {
	uint32_t first, last, stride;
	uint32_t ent_off, nent;
};
struct sched_seg_ent {
	uint32_t flow, n;
	uint16_t port;
	uint32_t line; /* the last row line that adds to this flow here */
};
struct sched_fold {
	struct sched_seg *seg;
	uint32_t nseg;
	struct sched_seg_ent *ent;
	uint32_t nent;
};
int sched_fold(const struct sched_table *t, struct sched_fold *fo, struct sched_diags *d);
void sched_fold_free(struct sched_fold *fo);
/* A frame named twice in one row line: one error per line. Returns the count. */
int sched_check_rule_frames(const struct sched_table *t, struct sched_diags *d);

/* Match rules: true when some packet could match both. */
bool sched_match_overlap(const struct sched_match *a, const struct sched_match *b);

/* Frame spans. */
uint32_t sched_span_count(const struct sched_span *s);
uint32_t sched_span_last_hit(const struct sched_span *s);

/* Grows *v (element size es) to hold at least want elements. 0 or -ENOMEM. */
int sched_grow(void *v, size_t *cap, size_t want, size_t es);

/* A string builder. */
struct sched_buf {
	char *s;
	size_t len, cap;
	bool oom;
};
void sched_buf_put(struct sched_buf *b, const char *s, size_t n);
void sched_buf_printf(struct sched_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void sched_buf_frames(struct sched_buf *b, const uint32_t *frames, size_t n);
void sched_buf_spans(struct sched_buf *b, const struct sched_span *sp, size_t n);
/* Compact spans for a sorted frame list; out holds at least n. Returns the count. */
size_t sched_spans_from_frames(const uint32_t *frames, size_t n, struct sched_span *out);
/* Frames grouped by distinct row: frames of row r are fr[off[r] .. off[r+1]). */
int sched_frames_by_row(const struct sched_table *t, uint32_t **off, uint32_t **fr);

/* Row line rendering: "frames SPANS: flow n, flow n". */
void sched_render_rule(const struct sched_table *t, const struct sched_span *sp, uint32_t nsp,
		       const struct sched_entry *e, uint32_t ne, struct sched_buf *b);

#endif
