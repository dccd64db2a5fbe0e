/* SPDX-License-Identifier: BSD-3-Clause */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "bigmem.h"

#define HUGE_2M ((size_t)2 << 20)

/* The mappings held, for bigmem_free (which tells them from calloc's by
 * this list) and bigmem_use. */
struct held {
	uint8_t *p;
	size_t len;
	struct held *next;
};
static struct held *held;
static atomic_flag held_lock = ATOMIC_FLAG_INIT;

static void lock(void)
{
	while (atomic_flag_test_and_set_explicit(&held_lock, memory_order_acquire))
		;
}

static void unlock(void)
{
	atomic_flag_clear_explicit(&held_lock, memory_order_release);
}

static void *map_huge(size_t len)
{
	/* 2 MiB more than asked, so that an aligned start lies within it;
	 * inaccessible, so that mlockall(MCL_FUTURE) fills none of it yet */
	size_t span = len + HUGE_2M;
	uint8_t *raw = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED)
		return NULL;
	uint8_t *p = (uint8_t *)(((uintptr_t)raw + HUGE_2M - 1) & ~(uintptr_t)(HUGE_2M - 1));
	if (p > raw)
		munmap(raw, (size_t)(p - raw));
	if (raw + span > p + len)
		munmap(p + len, (size_t)(raw + span - (p + len)));
	/* the advice first (an error, THP not built in, leaves small pages);
	 * then made writable, which is when the memory is committed, so that a
	 * box short of it refuses here */
	(void)madvise(p, len, MADV_HUGEPAGE);
	if (mprotect(p, len, PROT_READ | PROT_WRITE) != 0) {
		munmap(p, len);
		return NULL;
	}
	/* present now: each page faulted in here, not on the data path (under
	 * mlockall the mprotect already did it) */
	for (size_t o = 0; o < len; o += 4096)
		((volatile uint8_t *)p)[o] = 0;
	return p;
}

void *bigmem_calloc(size_t n, size_t size)
{
	if (size && n > (SIZE_MAX - HUGE_2M) / size)
		return NULL;
	size_t want = n * size;
	if (want < BIGMEM_MIN) {
		void *p = NULL;
		if (posix_memalign(&p, BIGMEM_ALIGN, want ? want : 1) != 0)
			return NULL;
		return memset(p, 0, want ? want : 1);
	}
	struct held *h = malloc(sizeof(*h));
	if (!h)
		return NULL;
	h->len = (want + HUGE_2M - 1) & ~(HUGE_2M - 1);
	h->p = map_huge(h->len);
	if (!h->p) {
		free(h);
		return NULL;
	}
	lock();
	h->next = held;
	held = h;
	unlock();
	return h->p;
}

void bigmem_free(void *p)
{
	if (!p)
		return;
	struct held *h = NULL;
	lock();
	for (struct held **at = &held; *at; at = &(*at)->next)
		if ((*at)->p == p) {
			h = *at;
			*at = h->next;
			break;
		}
	unlock();
	if (!h) {
		free(p);
		return;
	}
	munmap(h->p, h->len);
	free(h);
}

/* the mappings held, as [start, end) ranges; their count (at most max) */
static size_t held_ranges(uintptr_t (*r)[2], size_t max, uint64_t *bytes)
{
	size_t n = 0;
	*bytes = 0;
	lock();
	for (struct held *h = held; h; h = h->next) {
		*bytes += h->len;
		if (n < max) {
			r[n][0] = (uintptr_t)h->p;
			r[n][1] = (uintptr_t)h->p + h->len;
			n++;
		}
	}
	unlock();
	return n;
}

void bigmem_use(struct bigmem_use *u)
{
	uintptr_t r[256][2];
	size_t nr = held_ranges(r, 256, &u->mapped);
	u->huge = 0;
	FILE *f = nr ? fopen("/proc/self/smaps", "re") : NULL;
	if (!f)
		return;
	/* the kernel's areas that begin within a mapping held (two mappings
	 * held side by side may be one area: counted once) */
	char line[256];
	bool ours = false;
	while (fgets(line, sizeof(line), f)) {
		uintptr_t a, b;
		uint64_t kb;
		if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " ", &a, &b) == 2) {
			ours = false;
			for (size_t i = 0; i < nr && !ours; i++)
				ours = a >= r[i][0] && a < r[i][1];
		} else if (ours && sscanf(line, "AnonHugePages: %" SCNu64 " kB", &kb) == 1) {
			u->huge += kb * 1024;
		}
	}
	fclose(f);
}

bool bigmem_thp_word(const char *line, char *out, size_t len)
{
	const char *a = strchr(line, '['), *b = a ? strchr(a, ']') : NULL;
	if (!b)
		return false;
	snprintf(out, len, "%.*s", (int)(b - a - 1), a + 1);
	return true;
}

void bigmem_thp_mode(char *out, size_t len)
{
	snprintf(out, len, "unknown");
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "re");
	if (!f)
		return;
	char line[128];
	if (fgets(line, sizeof(line), f))
		bigmem_thp_word(line, out, len);
	fclose(f);
}
