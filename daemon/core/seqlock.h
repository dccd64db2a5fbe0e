/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A sequence lock for a few 64-bit words that one thread writes and others
 * read without waiting (the engine reads the TSC mapping and a source's offset
 * line through it on every poll of the clock).
 *
 * No fences: the writer makes the count odd, stores the words with release and
 * makes the count even with release; the reader loads the count and the words
 * with acquire and the count again. A word the reader saw from a write that
 * began after its first load of the count synchronises with that write's
 * release, so the odd count, stored before it, is visible to the second load:
 * the reader retries. The words are _Atomic, so the sanitizers see no race.
 */
#ifndef TDP_SEQLOCK_H
#define TDP_SEQLOCK_H

#include <stdatomic.h>
#include <stdint.h>

struct seqlock {
	atomic_uint seq;
};

static inline void seqlock_write_begin(struct seqlock *l)
{
	unsigned s = atomic_load_explicit(&l->seq, memory_order_relaxed);
	atomic_store_explicit(&l->seq, s + 1, memory_order_relaxed);
}

static inline void seqlock_write_end(struct seqlock *l)
{
	unsigned s = atomic_load_explicit(&l->seq, memory_order_relaxed);
	atomic_store_explicit(&l->seq, s + 1, memory_order_release);
}

static inline void seq_store(_Atomic int64_t *w, int64_t v)
{
	atomic_store_explicit(w, v, memory_order_release);
}

/* The count to pass to seqlock_read_retry (odd while a write is under way). */
static inline unsigned seqlock_read_begin(const struct seqlock *l)
{
	return atomic_load_explicit(&((struct seqlock *)l)->seq, memory_order_acquire);
}

static inline int64_t seq_load(const _Atomic int64_t *w)
{
	return atomic_load_explicit((_Atomic int64_t *)w, memory_order_acquire);
}

/* True when the words read since seqlock_read_begin may be torn. */
static inline int seqlock_read_retry(const struct seqlock *l, unsigned begin)
{
	return (begin & 1) ||
	       atomic_load_explicit(&((struct seqlock *)l)->seq, memory_order_relaxed) != begin;
}

/* Three words published together: a line (its origin in x, its value there,
 * its slope), which is how the TSC, a ptp offset and a NIC's clock are
 * mapped onto tdpd's time. */
struct seq3 {
	struct seqlock lock;
	_Atomic int64_t w[3];
};

static inline void seq3_publish(struct seq3 *s, int64_t a, int64_t b, int64_t c)
{
	seqlock_write_begin(&s->lock);
	seq_store(&s->w[0], a);
	seq_store(&s->w[1], b);
	seq_store(&s->w[2], c);
	seqlock_write_end(&s->lock);
}

/* The three words of one publication, never of two. */
static inline void seq3_read(const struct seq3 *s, int64_t *a, int64_t *b, int64_t *c)
{
	unsigned v;
	do {
		v = seqlock_read_begin(&s->lock);
		*a = seq_load(&s->w[0]);
		*b = seq_load(&s->w[1]);
		*c = seq_load(&s->w[2]);
	} while (seqlock_read_retry(&s->lock, v));
}

#endif
