/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The key index (daemon/core/keyidx.c) as its users keep it: an array of
 * entries with an identity, added at the end, removed by moving the last
 * entry into the hole. After the steps, each entry is found at its place
 * and a key that is not there is not found, through growth from nothing to
 * a hundred thousand entries and through removals of every other one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "keyidx.h"

#define N 100000

struct arr {
	uint64_t *key;
	uint32_t n;
	struct keyidx x;
};

struct want {
	const struct arr *a;
	uint64_t key;
};

static uint32_t hash_of(uint64_t k)
{
	return keyidx_hash(&k, sizeof(k));
}

static bool same(const void *ctx, uint32_t pos)
{
	const struct want *w = ctx;
	return w->a->key[pos] == w->key;
}

static uint32_t find(const struct arr *a, uint64_t k)
{
	struct want w = {a, k};
	return keyidx_find(&a->x, hash_of(k), same, &w);
}

static void add(struct arr *a, uint64_t k)
{
	assert_int_equal(keyidx_put(&a->x, hash_of(k), a->n), 0);
	a->key[a->n++] = k;
}

/* removed as nl_msg.c and its kind do: the last entry fills the hole */
static void del(struct arr *a, uint64_t k)
{
	uint32_t at = find(a, k), last = a->n - 1;
	assert_int_not_equal(at, KEYIDX_NONE);
	keyidx_del(&a->x, hash_of(k), at);
	if (at != last) {
		keyidx_moved(&a->x, hash_of(a->key[last]), last, at);
		a->key[at] = a->key[last];
	}
	a->n--;
}

static void every_entry_found_at_its_place(void **state)
{
	(void)state;
	struct arr a = {.key = calloc(N, sizeof(uint64_t))};
	assert_non_null(a.key);
	assert_int_equal(find(&a, 1), KEYIDX_NONE); /* empty, nothing allocated */
	/* keys that share their low bits: long probe runs */
	for (uint64_t i = 0; i < N; i++)
		add(&a, i << 20 | 7);
	for (uint32_t i = 0; i < a.n; i++)
		assert_int_equal(find(&a, a.key[i]), i);
	assert_int_equal(find(&a, (uint64_t)N << 20 | 7), KEYIDX_NONE);
	/* every other one removed, then the rest still where they are */
	for (uint64_t i = 0; i < N; i += 2)
		del(&a, i << 20 | 7);
	assert_int_equal(a.n, N / 2);
	for (uint32_t i = 0; i < a.n; i++)
		assert_int_equal(find(&a, a.key[i]), i);
	for (uint64_t i = 0; i < N; i += 2)
		assert_int_equal(find(&a, i << 20 | 7), KEYIDX_NONE);
	/* added again into the removed slots, and found */
	for (uint64_t i = 0; i < N; i += 2)
		add(&a, i << 20 | 7);
	for (uint32_t i = 0; i < a.n; i++)
		assert_int_equal(find(&a, a.key[i]), i);
	/* cleared: nothing found, and it fills again */
	keyidx_clear(&a.x);
	a.n = 0;
	assert_int_equal(find(&a, 7), KEYIDX_NONE);
	add(&a, 7);
	assert_int_equal(find(&a, 7), 0);
	keyidx_free(&a.x);
	assert_int_equal(find(&a, 7), KEYIDX_NONE);
	free(a.key);
}

/* Adds and removals that leave the count small keep the table small: the
 * removed slots are reclaimed when it grows, not piled up. */
static void churn_does_not_grow_it(void **state)
{
	(void)state;
	struct arr a = {.key = calloc(N, sizeof(uint64_t))};
	assert_non_null(a.key);
	for (uint64_t i = 0; i < 10 * N; i++) {
		add(&a, i);
		if (a.n > 100)
			del(&a, i - 100);
	}
	assert_int_equal(a.n, 100);
	assert_true(a.x.cap <= 512);
	for (uint32_t i = 0; i < a.n; i++)
		assert_int_equal(find(&a, a.key[i]), i);
	keyidx_free(&a.x);
	free(a.key);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_entry_found_at_its_place),
		cmocka_unit_test(churn_does_not_grow_it),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
