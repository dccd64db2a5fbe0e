/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Blocks of one size in 2 MiB chunks (daemon/core/slab.c): each on a cache
 * line, zeroed, apart from every other; a freed block handed out again; a
 * chunk whose blocks are all free given back, the last one kept; large
 * blocks each their own; the slab's end gives back everything it held.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "bigmem.h"
#include "slab.h"
#include "../tdp_test.h"

static uint64_t mapped(void)
{
	struct bigmem_use u;
	bigmem_use(&u);
	return u.mapped;
}

static void blocks_are_lines_apart_and_zeroed(void **state)
{
	(void)state;
	uint64_t m0 = mapped();
	struct slab *s = slab_new(1400); /* a flow's, 64 packets deep: 1,408 */
	assert_non_null(s);
	enum {
		N = 5000
	}; /* three chunks and some */
	uint8_t **b = calloc(N, sizeof(*b));
	for (uint32_t i = 0; i < N; i++) {
		b[i] = slab_alloc(s);
		assert_non_null(b[i]);
		assert_int_equal((uintptr_t)b[i] % 64, 0);
		for (size_t k = 0; k < 1408; k++)
			assert_int_equal(b[i][k], 0);
		memset(b[i], (int)(i & 255), 1408);
	}
	/* every block kept what was written into it: none overlaps another */
	for (uint32_t i = 0; i < N; i++)
		assert_int_equal(b[i][0] + b[i][1407], 2 * (i & 255));
	struct slab_use u;
	slab_use(s, &u);
	uint32_t per = (uint32_t)((SLAB_CHUNK - 64) / 1408);
	assert_int_equal(u.blocks, N);
	assert_int_equal(u.chunks, (N + per - 1) / per);
	assert_int_equal(mapped() - m0, u.chunks * SLAB_CHUNK);
	/* the one freed is the next handed out, zeroed again */
	slab_free(s, b[7]);
	uint8_t *again = slab_alloc(s);
	assert_ptr_equal(again, b[7]);
	assert_int_equal(again[0], 0);
	/* all freed: the chunks go back but the last */
	for (uint32_t i = 0; i < N; i++)
		slab_free(s, b[i]);
	slab_free(s, NULL);
	slab_use(s, &u);
	assert_int_equal(u.blocks, 0);
	assert_int_equal(u.chunks, 1);
	assert_int_equal(mapped() - m0, SLAB_CHUNK);
	slab_destroy(s);
	assert_int_equal(mapped(), m0);
	free(b);
}

static void large_blocks_are_their_own(void **state)
{
	(void)state;
	uint64_t m0 = mapped();
	struct slab *s = slab_new(3u << 20); /* past a chunk's sixteenth */
	assert_non_null(s);
	uint8_t *a = slab_alloc(s), *b = slab_alloc(s);
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal((uintptr_t)a % 64, 0);
	assert_int_equal(a[(3u << 20) - 1], 0);
	memset(a, 1, 3u << 20);
	memset(b, 2, 3u << 20);
	assert_int_equal(a[(3u << 20) - 1] + b[0], 3);
	struct slab_use u;
	slab_use(s, &u);
	assert_int_equal(u.blocks, 2);
	assert_int_equal(u.chunks, 0);
	assert_true(mapped() - m0 >= 2 * (3u << 20));
	slab_free(s, a);
	slab_use(s, &u);
	assert_int_equal(u.blocks, 1);
	/* b is still out: the slab's end gives it back too */
	slab_destroy(s);
	assert_int_equal(mapped(), m0);
}

static void the_end_gives_back_blocks_still_out(void **state)
{
	(void)state;
	uint64_t m0 = mapped();
	struct slab *s = slab_new(100000);
	for (int i = 0; i < 100; i++) /* five chunks of 20 */
		assert_non_null(slab_alloc(s));
	assert_int_equal(mapped() - m0, 5 * SLAB_CHUNK);
	slab_destroy(s);
	assert_int_equal(mapped(), m0);
	slab_destroy(NULL);
	assert_null(slab_new(0));
}

TDP_TEST_MAIN(cmocka_unit_test(blocks_are_lines_apart_and_zeroed),
	      cmocka_unit_test(large_blocks_are_their_own),
	      cmocka_unit_test(the_end_gives_back_blocks_still_out))
