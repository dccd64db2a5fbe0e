/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The data path's large arrays (daemon/core/bigmem.c): small ones from
 * malloc's heap, zeroed and on a cache line, large ones a zeroed mapping of whole 2 MiB pages, counted while
 * held; and on huge pages even under mlockall(MCL_FUTURE), which fills a
 * mapping with small pages the moment it is made (advice given after that is
 * too late: such a mapping gets no huge page).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <cmocka.h>

#include "bigmem.h"
#include "../tdp_test.h"

#define MIB ((size_t)1 << 20)

static void small_ones_come_from_the_heap_on_a_cache_line(void **state)
{
	struct bigmem_use a, b;
	bigmem_use(&a);
	uint64_t *p = bigmem_calloc(1000, sizeof(*p));
	assert_non_null(p);
	for (int i = 0; i < 1000; i++)
		assert_int_equal(p[i], 0);
	p[999] = 7;
	bigmem_use(&b);
	assert_int_equal(b.mapped, a.mapped);
	bigmem_free(p);
	bigmem_free(NULL);
	/* arrays of 32-byte elements (RX's flows, the classifier's slots):
	 * each starts on a line, whatever the heap held before (calloc's
	 * 16-byte alignment put half of them mid-line) */
	void *q[16];
	for (int i = 0; i < 16; i++) {
		q[i] = bigmem_calloc((size_t)i + 1, 32);
		assert_non_null(q[i]);
		assert_int_equal((uintptr_t)q[i] % 64, 0);
	}
	for (int i = 0; i < 16; i++)
		bigmem_free(q[i]);
}

static void large_ones_are_whole_pages_counted_while_held(void **state)
{
	struct bigmem_use a, b, c;
	bigmem_use(&a);
	size_t n = 3 * MIB;
	uint8_t *p = bigmem_calloc(n, 1);
	assert_non_null(p);
	for (size_t i = 0; i < n; i++)
		if (p[i])
			fail_msg("byte %zu is %u, not 0", i, p[i]);
	memset(p, 0xa5, n);
	bigmem_use(&b);
	/* 3 MiB: two 2 MiB pages, from a 2 MiB boundary */
	assert_int_equal(b.mapped - a.mapped, 4 * MIB);
	assert_int_equal(((uintptr_t)p & (2 * MIB - 1)), 0);
	/* 4 MiB (a classifier's 2^17 slots): two pages, not a third for
	 * anything kept beside it */
	void *q = bigmem_calloc(4 * MIB, 1);
	assert_non_null(q);
	bigmem_use(&c);
	assert_int_equal(c.mapped - b.mapped, 4 * MIB);
	bigmem_free(q);
	bigmem_free(p);
	bigmem_use(&c);
	assert_int_equal(c.mapped, a.mapped);
}

static void too_large_is_refused(void **state)
{
	assert_null(bigmem_calloc(SIZE_MAX / 2, 4));
	assert_null(bigmem_calloc(SIZE_MAX, SIZE_MAX));
}

static void the_kernels_mode_is_read(void **state)
{
	char mode[16];
	bigmem_thp_mode(mode, sizeof(mode));
	assert_true(!strcmp(mode, "always") || !strcmp(mode, "madvise") || !strcmp(mode, "never") ||
		    !strcmp(mode, "unknown"));
}

/* The sanitizers' shadow memory is reserved, not mapped: mlockall would try
 * to lock terabytes of it. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#else
#define SANITIZED 0
#endif

static void on_huge_pages_under_mlockall(void **state)
{
	char mode[16];
	bigmem_thp_mode(mode, sizeof(mode));
	if (SANITIZED || !strcmp(mode, "never") || !strcmp(mode, "unknown")) {
		printf("# skipped: %s\n",
		       SANITIZED ? "built with a sanitizer" : "transparent huge pages are not on");
		skip();
	}
	if (mlockall(MCL_CURRENT | MCL_FUTURE) != 0) {
		printf("# skipped: mlockall refused (not root?)\n");
		skip();
	}
	struct bigmem_use u;
	size_t n = 64 * MIB;
	uint8_t *p = bigmem_calloc(n, 1);
	assert_non_null(p);
	p[n - 1] = 1;
	bigmem_use(&u);
	munlockall();
	printf("# 64 MiB asked: %.1f MiB mapped, %.1f MiB on huge pages\n", (double)u.mapped / MIB,
	       (double)u.huge / MIB);
	/* most of it: the kernel may lack a free 2 MiB block for a few */
	assert_true(u.huge >= 32 * MIB);
	bigmem_free(p);
}

TDP_TEST_MAIN(cmocka_unit_test(small_ones_come_from_the_heap_on_a_cache_line),
	      cmocka_unit_test(large_ones_are_whole_pages_counted_while_held),
	      cmocka_unit_test(too_large_is_refused), cmocka_unit_test(the_kernels_mode_is_read),
	      cmocka_unit_test(on_huge_pages_under_mlockall))
