/* SPDX-License-Identifier: BSD-3-Clause */
/* Hugepages or not, against /proc/meminfo texts written here. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "../tdp_test.h"

#include "huge.h"

static struct pmd_huge meminfo(long free_pages, long page_kb)
{
	char path[] = "/tmp/tdp-test-meminfo.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fprintf(f,
		"MemTotal:       24568720 kB\nHugePages_Total:     512\nHugePages_Free:  %8ld\n"
		"HugePages_Rsvd:        0\nHugepagesize:    %8ld kB\nHugetlb:         1048576 kB\n",
		free_pages, page_kb);
	fclose(f);
	struct pmd_huge h;
	assert_int_equal(pmd_huge_read(path, &h), 0);
	unlink(path);
	return h;
}

static void decisions(void **state)
{
	(void)state;
	char msg[400];
	bool no;
	/* 16383 mbufs of 2432 B: 37 MiB, + 64 for DPDK, + route-memory (its
	 * default, 576, and its least) */
	assert_int_equal(pmd_mem_mb(16383, 576), 677);
	assert_int_equal(pmd_mem_mb(16383, 192), 293);
	struct pmd_huge h = meminfo(512, 2048);
	assert_int_equal(h.free_pages, 512);
	assert_int_equal(h.page_kb, 2048);
	/* 1 GiB free: hugepages, in both modes, without a word */
	assert_int_equal(pmd_huge_plan(PMD_HUGE_AUTO, 16383, 576, &h, &no, msg, sizeof(msg)), 0);
	assert_false(no);
	assert_string_equal(msg, "");
	assert_int_equal(pmd_huge_plan(PMD_HUGE_YES, 16383, 576, &h, &no, msg, sizeof(msg)), 0);
	assert_false(no);
	/* a few free pages: auto does not try them (the pool would not fit), it
	 * says why and falls back */
	h = meminfo(4, 2048);
	assert_int_equal(pmd_huge_plan(PMD_HUGE_AUTO, 16383, 576, &h, &no, msg, sizeof(msg)), 0);
	assert_true(no);
	assert_non_null(strstr(
		msg,
		"4 hugepages of 2048 kB free (8 MiB), the pool of 16383 mbufs, 576 MiB of route "
		"tables (route-memory) and DPDK need 677 MiB: DPDK runs with --no-huge"));
	assert_non_null(strstr(msg, "339 hugepages reserved"));
	/* none and yes: an error with the numbers and what to do, not EACCES */
	h = meminfo(0, 2048);
	assert_int_equal(pmd_huge_plan(PMD_HUGE_YES, 16383, 576, &h, &no, msg, sizeof(msg)),
			 -ENOMEM);
	assert_non_null(strstr(
		msg, "need 677 MiB of hugepages, and 0 of 2048 kB are free (0 MiB): reserve 339"));
	/* a smaller route-memory: fewer pages */
	assert_int_equal(pmd_huge_plan(PMD_HUGE_YES, 16383, 192, &h, &no, msg, sizeof(msg)),
			 -ENOMEM);
	assert_non_null(
		strstr(msg, "192 MiB of route tables (route-memory) and DPDK need 293 MiB"));
	assert_non_null(strstr(msg, "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"));
	/* 1 GiB pages: one is enough */
	h = meminfo(1, 1048576);
	assert_int_equal(pmd_huge_plan(PMD_HUGE_YES, 16383, 576, &h, &no, msg, sizeof(msg)), 0);
	assert_false(no);
	/* no: never */
	assert_int_equal(pmd_huge_plan(PMD_HUGE_NO, 16383, 576, &h, &no, msg, sizeof(msg)), 0);
	assert_true(no);
	/* no /proc/meminfo: none free */
	assert_true(pmd_huge_read("/nonexistent/meminfo", &h) < 0);
	assert_int_equal(h.free_pages, 0);
}

TDP_TEST_MAIN(cmocka_unit_test(decisions))
