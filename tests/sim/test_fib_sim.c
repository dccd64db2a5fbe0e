/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The fib under the route table (daemon/datapath/fib.c): what a set of
 * prefixes needs, lookups against a longest match worked out by hand over
 * every prefix, and a router of 10^6 kernel routes built and used.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dpdk_env.h"
#include "fib.h"
#include "route.h"

struct pfx {
	int family;
	unsigned len;
	uint8_t a[16];
};

static void pfx_get(const void *ctx, size_t i, int *family, const uint8_t **prefix, unsigned *len)
{
	const struct pfx *p = &((const struct pfx *)ctx)[i];
	*family = p->family;
	*prefix = p->a;
	*len = p->len;
}

static int setup(void **state)
{
	(void)state;
	return env_eal_init();
}

/* IPv4: a group for each /24 holding a longer prefix; IPv6: one for each
 * byte a prefix reaches past the first 16 bits, shared where the bits are. */
static void need_counts_groups(void **state)
{
	(void)state;
	struct pfx v[] = {
		{4, 8, {10}},
		{4, 24, {10, 1, 2}},
		{4, 32, {10, 1, 2, 3}},
		{4, 25, {10, 1, 2, 128}}, /* the same /24: no second group */
		{4, 32, {10, 1, 3, 1}},
		{6, 32, {0x20, 0x01, 0x0d, 0xb8}},	 /* levels 16, 24 */
		{6, 48, {0x20, 0x01, 0x0d, 0xb8, 0, 1}}, /* 16, 24, 32, 40 */
		{6, 48, {0x20, 0x01, 0x0d, 0xb8, 0, 2}}, /* shares all four */
		{6, 48, {0x20, 0x01, 0x0d, 0xb8, 1, 2}}, /* a /40 of its own */
		{6, 16, {0x20, 0x01}},			 /* none */
		{6, 128, {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}}, /* 14 */
	};
	struct fib_need n;
	assert_int_equal(fib_need_of(&n, sizeof(v) / sizeof(v[0]), pfx_get, v), 0);
	assert_int_equal(n.n4, 5);
	assert_int_equal(n.n6, 6);
	assert_int_equal(n.g4, 2);
	assert_int_equal(n.g6, 1 + 1 + 1 + 2 + 14);
	/* the first levels (2^24 and 2^16 entries) and the groups, 4 bytes each */
	assert_int_equal(fib_bytes(&n), ((1u << 24) + (1u << 16) + 21 * 256) * 4);
	/* built, it used no more groups than counted: none missing */
	char err[160];
	size_t missing = 9, first;
	struct fib *f = fib_build(&n, sizeof(v) / sizeof(v[0]), pfx_get, v, &missing, &first, err,
				  sizeof(err));
	assert_non_null(f);
	assert_int_equal(missing, 0);
	/* and one group fewer leaves the prefix that wanted it out, named */
	n.g6--;
	struct fib *g = fib_build(&n, sizeof(v) / sizeof(v[0]), pfx_get, v, &missing, &first, err,
				  sizeof(err));
	assert_non_null(g);
	assert_int_equal(missing, 1);
	assert_int_equal(first, 10); /* the /128, the longest, goes in last */
	uint32_t nh;
	fib_lookup6(f, (const uint8_t(*)[16])v[10].a, &nh, 1);
	assert_int_equal(nh, 10);
	fib_lookup6(g, (const uint8_t(*)[16])v[10].a, &nh, 1);
	assert_int_equal(nh, FIB_NONE);
	fib_free(f);
	fib_free(g);
}

static uint32_t rnd(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(*s >> 33);
}

static bool covers(const struct pfx *p, int family, const uint8_t *a)
{
	if (p->family != family)
		return false;
	unsigned full = p->len / 8, rest = p->len % 8;
	if (memcmp(p->a, a, full) != 0)
		return false;
	return !rest || ((p->a[full] ^ a[full]) & (uint8_t)(0xff << (8 - rest))) == 0;
}

/* the longest prefix in v covering a, by looking at every one (of one given
 * twice, the last) */
static uint32_t brute(const struct pfx *v, size_t n, int family, const uint8_t *a)
{
	uint32_t best = FIB_NONE;
	int len = -1;
	for (size_t i = 0; i < n; i++)
		if ((int)v[i].len >= len && covers(&v[i], family, a)) {
			len = (int)v[i].len;
			best = (uint32_t)i;
		}
	return best;
}

/* a prefix nested in a few top bytes, so prefixes overlap and share groups */
static struct pfx random_pfx(uint64_t *s, int family)
{
	struct pfx p = {.family = family};
	unsigned bytes = family == 4 ? 4 : 16;
	p.len = family == 4 ? 8 + rnd(s) % 25 : 16 + rnd(s) % 113;
	p.a[0] = (uint8_t)(10 + rnd(s) % 2);
	for (unsigned b = 1; b < bytes; b++)
		p.a[b] = (uint8_t)(b < 3 ? rnd(s) % 3 : rnd(s));
	unsigned full = p.len / 8, rest = p.len % 8;
	if (full < bytes) {
		p.a[full] &= (uint8_t)(0xff << (8 - rest));
		memset(p.a + full + 1, 0, bytes - full - 1);
	}
	return p;
}

/* 3,000 prefixes of both families, nested and overlapping; 20,000 addresses
 * near them looked up in bulk, each against the longest match by hand. A
 * prefix given twice keeps its last next hop, as rte_fib_add does. */
static void lookups_match_longest_prefix(void **state)
{
	(void)state;
	enum {
		N = 3000,
		Q = 20000
	};
	struct pfx *v = calloc(N, sizeof(*v));
	uint64_t s = 42;
	for (size_t i = 0; i < N; i++)
		v[i] = random_pfx(&s, i % 3 ? 4 : 6);
	struct fib_need need;
	assert_int_equal(fib_need_of(&need, N, pfx_get, v), 0);
	char err[160];
	size_t missing = 1, first;
	struct fib *f = fib_build(&need, N, pfx_get, v, &missing, &first, err, sizeof(err));
	assert_non_null(f);
	assert_int_equal(missing, 0);
	uint32_t ip[64], nh[64], want[64];
	uint8_t ip6[64][16];
	size_t hits = 0;
	for (size_t q = 0; q < Q; q += 64) {
		int family = (q / 64) % 2 ? 4 : 6;
		for (int k = 0; k < 64; k++) {
			struct pfx a = random_pfx(&s, family);
			a.a[0] = (uint8_t)(10 + rnd(&s) % 3); /* 12: no prefix there */
			a.a[family == 4 ? 3 : 15] = (uint8_t)rnd(&s);
			want[k] = brute(v, N, family, a.a);
			hits += want[k] != FIB_NONE;
			ip[k] = (uint32_t)a.a[0] << 24 | (uint32_t)a.a[1] << 16 |
				(uint32_t)a.a[2] << 8 | a.a[3];
			memcpy(ip6[k], a.a, 16);
		}
		if (family == 4)
			fib_lookup4(f, ip, nh, 64);
		else
			fib_lookup6(f, (const uint8_t(*)[16])ip6, nh, 64);
		for (int k = 0; k < 64; k++)
			assert_int_equal(nh[k], want[k]);
	}
	/* most addresses found a prefix, and some none */
	assert_true(hits > Q / 2 && hits < Q);
	fib_free(f);
	free(v);
}

/* The router of a full table: 10^6 IPv4 kernel routes (/24s, and /32s in
 * /24s of their own) and 20,000 IPv6 /48s, built (the rte_lpm it replaced
 * scanned every rule of a length on each add: hours for this), each route
 * found, none missing, in the memory it says. */
static void million_routes_built(void **state)
{
	(void)state;
	char err[160];
	struct router *r = router_create(2, err, sizeof(err));
	assert_non_null(r);
	uint8_t a4[16] = {10, 0, 0, 1},
		a6[16] = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
	assert_int_equal(router_add_address(r, 1, 4, a4, 16, err, sizeof(err)), 0);
	assert_int_equal(router_add_address(r, 1, 6, a6, 64, err, sizeof(err)), 0);
	struct route_nh nh4 = {.port = 1, .has_gw = true, .gw = {10, 0, 0, 2}};
	struct route_nh nh6 = {.port = 1, .has_gw = true, .gw = {0xfd}};
	nh6.gw[15] = 2;
	enum {
		N4 = 1000000,
		N6 = 20000
	};
	for (uint32_t i = 0; i < N4; i++) {
		/* 990,000 /24s from 11.0.0.0, then 10,000 /32s each in a /24 of its own */
		bool host = i >= N4 - 10000;
		uint32_t net = host ? (100u << 24 | (i % 10000) << 8 | 7) : (11u << 24) + (i << 8);
		uint8_t p[16] = {(uint8_t)(net >> 24), (uint8_t)(net >> 16), (uint8_t)(net >> 8),
				 (uint8_t)net};
		assert_int_equal(router_add_kernel_route(r, 4, p, host ? 32 : 24, &nh4, 1, 186), 0);
	}
	for (uint32_t i = 0; i < N6; i++) {
		uint8_t p[16] = {0x20,	    0x01, 0x0d, (uint8_t)(i >> 16), (uint8_t)(i >> 8),
				 (uint8_t)i};
		assert_int_equal(router_add_kernel_route(r, 6, p, 48, &nh6, 1, 186), 0);
	}
	if (router_build(r, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	const char *first = NULL;
	assert_int_equal(router_missing(r, &first), 0);
	/* the memory it says it takes: the first levels, a group for each /24
	 * holding a /32 (ours, 10.0.0.1, too), one for each /16, /24, /32 and
	 * /40 over the /48s, and 14 for our fd00::1/128 */
	assert_int_equal(router_bytes(r),
			 ((1u << 24) + (1u << 16) + (10001u + 1 + 1 + 1 + 79 + 14) * 256) * 4);
	uint64_t s = 7;
	for (int q = 0; q < 2000; q++) {
		uint32_t i = rnd(&s) % N4;
		bool host = i >= N4 - 10000;
		uint32_t net = host ? (100u << 24 | (i % 10000) << 8 | 7) : (11u << 24) + (i << 8);
		struct pkt_info pi = {.family = 4};
		uint8_t dst[4] = {(uint8_t)(net >> 24), (uint8_t)(net >> 16), (uint8_t)(net >> 8),
				  (uint8_t)(host ? 7 : rnd(&s))};
		memcpy(pi.dst, dst, 4);
		uint32_t port = 9;
		uint8_t mac[6], nh[16];
		assert_int_equal(router_lookup(r, &pi, &port, mac, nh), ROUTE_NO_NEIGH);
		assert_int_equal(port, 1);
		assert_memory_equal(nh, nh4.gw, 4); /* the gateway's MAC is missing */
		if (host) {			    /* the /32's /24 holds nothing else */
			pi.dst[3] = 8;
			assert_int_equal(router_lookup(r, &pi, &port, mac, nh), ROUTE_NONE);
		}
		struct pkt_info p6 = {.family = 6};
		uint32_t j = rnd(&s) % N6;
		uint8_t d6[16] = {0x20,	      0x01, 0x0d, (uint8_t)(j >> 16), (uint8_t)(j >> 8),
				  (uint8_t)j, 9};
		memcpy(p6.dst, d6, 16);
		assert_int_equal(router_lookup(r, &p6, &port, mac, nh), ROUTE_NO_NEIGH);
		assert_memory_equal(nh, nh6.gw, 16);
	}
	router_free(r);
}

/* A table whose groups do not fit DPDK's memory (the test's 512 MiB): the
 * router still builds, with as many groups as fit; the longest prefixes,
 * left out, are counted and the first named, and every shorter route is in
 * force. (Before, the whole build failed and no change was followed.) */
static void groups_past_memory_left_out(void **state)
{
	(void)state;
	char err[160];
	struct router *r = router_create(2, err, sizeof(err));
	uint8_t a4[16] = {10, 0, 0, 1};
	assert_int_equal(router_add_address(r, 1, 4, a4, 16, err, sizeof(err)), 0);
	struct route_nh nh = {.port = 1, .has_gw = true, .gw = {10, 0, 0, 2}};
	for (uint32_t i = 0; i < 1000; i++) {
		uint8_t p[16] = {12, (uint8_t)(i >> 8), (uint8_t)i};
		assert_int_equal(router_add_kernel_route(r, 4, p, 24, &nh, 1, 186), 0);
	}
	enum {
		HOSTS = 600000
	}; /* a group each: 586 MiB */
	for (uint32_t i = 0; i < HOSTS; i++) {
		uint32_t ip = (20u << 24) + (i << 8) + 5;
		uint8_t p[16] = {(uint8_t)(ip >> 24), (uint8_t)(ip >> 16), (uint8_t)(ip >> 8), 5};
		assert_int_equal(router_add_kernel_route(r, 4, p, 32, &nh, 1, 186), 0);
	}
	if (router_build(r, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	const char *first = NULL;
	size_t missing = router_missing(r, &first);
	assert_true(missing > 0 && missing < HOSTS);
	assert_non_null(strstr(first, "/32 (route-memory is full)"));
	assert_true(router_bytes(r) < 512ull << 20);
	uint64_t s = 11;
	uint32_t found = 0;
	for (int q = 0; q < 1000; q++) {
		struct pkt_info pi = {.family = 4};
		uint32_t i = rnd(&s) % 1000;
		memcpy(pi.dst, (uint8_t[]){12, (uint8_t)(i >> 8), (uint8_t)i, 9}, 4);
		uint32_t port = 9;
		uint8_t mac[6], gw[16];
		assert_int_equal(router_lookup(r, &pi, &port, mac, gw), ROUTE_NO_NEIGH);
		assert_int_equal(port, 1);
		uint32_t ip = (20u << 24) + ((rnd(&s) % HOSTS) << 8) + 5;
		memcpy(pi.dst,
		       (uint8_t[]){(uint8_t)(ip >> 24), (uint8_t)(ip >> 16), (uint8_t)(ip >> 8), 5},
		       4);
		int rc = router_lookup(r, &pi, &port, mac, gw);
		assert_true(rc == ROUTE_NO_NEIGH || rc == ROUTE_NONE); /* in, or left out */
		found += rc == ROUTE_NO_NEIGH;
	}
	/* about as many of the host routes in as the groups that fit */
	assert_true(found > 0 && found < 1000);
	router_free(r);
}

/* RX's bulk form gives what the single lookup gives, packet by packet, for
 * a burst of both families (and one of neither) in any order. */
static void bulk_matches_single(void **state)
{
	(void)state;
	char err[160];
	struct router *r = router_create(2, err, sizeof(err));
	uint8_t a4[16] = {10, 0, 0, 1},
		a6[16] = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
	assert_int_equal(router_add_address(r, 0, 4, a4, 16, err, sizeof(err)), 0);
	assert_int_equal(router_add_address(r, 1, 6, a6, 64, err, sizeof(err)), 0);
	uint8_t mac[6] = {2, 0, 0, 0, 0, 9}, nb4[16] = {10, 0, 0, 9}, nb6[16] = {0xfd};
	nb6[15] = 9;
	assert_int_equal(router_add_kernel_neighbour(r, 0, 4, nb4, mac), 0);
	assert_int_equal(router_add_kernel_neighbour(r, 1, 6, nb6, mac), 0);
	struct route_nh nh4 = {.port = 0, .has_gw = true, .gw = {10, 0, 0, 9}};
	struct route_nh nh6 = {.port = 1, .has_gw = true, .gw = {0xfd}};
	nh6.gw[15] = 9;
	for (int i = 0; i < 200; i++) {
		uint8_t p4[16] = {20, (uint8_t)i}, p6[16] = {0x20, 0x01, 0x0d, 0xb8, (uint8_t)i};
		assert_int_equal(router_add_kernel_route(r, 4, p4, 16, &nh4, 1, 186), 0);
		assert_int_equal(router_add_kernel_route(r, 6, p6, 40, &nh6, 1, 186), 0);
	}
	assert_int_equal(router_build(r, err, sizeof(err)), 0);
	uint64_t s = 3;
	for (int round = 0; round < 50; round++) {
		struct pkt_info pi[ROUTE_BULK_MAX];
		const struct pkt_info *pp[ROUTE_BULK_MAX];
		struct route_hop out[ROUTE_BULK_MAX];
		uint32_t n = 1 + rnd(&s) % ROUTE_BULK_MAX;
		for (uint32_t i = 0; i < n; i++) {
			uint32_t k = rnd(&s) % 7;
			memset(&pi[i], 0, sizeof(pi[i]));
			pi[i].family = k < 3 ? 4 : k < 6 ? 6 : 0; /* 0: neither */
			if (pi[i].family == 4) /* routed, local, a neighbour or none */
				memcpy(pi[i].dst,
				       (uint8_t[]){k ? 20 : 10, (uint8_t)rnd(&s), 0,
						   (uint8_t)(k == 2 ? 9 : 1)},
				       4);
			else if (pi[i].family == 6)
				memcpy(pi[i].dst,
				       (uint8_t[]){0x20, 0x01, 0x0d,
						   (uint8_t)(k == 5 ? 0xb9 : 0xb8),
						   (uint8_t)rnd(&s), 7},
				       6);
			pp[i] = &pi[i];
		}
		router_lookup_bulk(r, pp, n, out);
		for (uint32_t i = 0; i < n; i++) {
			uint32_t port = 99;
			uint8_t m[6] = {0}, nh[16];
			int rc = router_lookup(r, &pi[i], &port, m, nh);
			assert_int_equal(out[i].res, rc);
			if (rc == ROUTE_OK) {
				assert_int_equal(out[i].port, port);
				assert_memory_equal(out[i].mac, m, 6);
			}
		}
	}
	router_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(need_counts_groups),
		cmocka_unit_test(lookups_match_longest_prefix),
		cmocka_unit_test(million_routes_built),
		cmocka_unit_test(bulk_matches_single),
		cmocka_unit_test(groups_past_memory_left_out),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
