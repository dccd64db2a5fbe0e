/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Counters one thread writes and others read. The writer adds with a relaxed
 * store of its own read (it is the only writer, so no read-modify-write is
 * needed); a reader copies a struct of uint64_t counters with relaxed loads,
 * one word at a time: each counter is exact, the set is a snapshot only as far
 * as the writer's order allows. Counters are per thread by contract.
 */
#ifndef TDP_COUNTERS_H
#define TDP_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

/* field += v, by its only writer */
#define CTR_ADD(field, v) __atomic_store_n(&(field), (field) + (v), __ATOMIC_RELAXED)
/* field = v, by its only writer */
#define CTR_SET(field, v) __atomic_store_n(&(field), (v), __ATOMIC_RELAXED)
/* a single counter, from any thread */
#define CTR_GET(field) __atomic_load_n(&(field), __ATOMIC_RELAXED)

/* Copies n bytes of uint64_t counters (a struct of nothing else). */
static inline void ctr_snapshot(void *dst, const void *src, size_t n)
{
	const uint64_t *s = src;
	uint64_t *d = dst;
	for (size_t i = 0; i < n / sizeof(uint64_t); i++)
		d[i] = __atomic_load_n(&s[i], __ATOMIC_RELAXED);
}

#endif
