/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Benchmark, not a test: the route table's cost as it grows from 10 to 10^6
 * IPv4 routes, and a full IPv6 table's (2 * 10^5 routes, beside rte_fib6 and
 * rte_lpm6). For each count, the same prefixes go
 * into three longest-prefix tables in one run:
 *   - tdpd's (daemon/datapath/fib.c, through router_build, as the netlink
 *     thread builds it on every change);
 *   - DPDK's rte_fib (DIR24_8, 4-byte next hops), the library tdpd could use;
 *   - DPDK's rte_lpm, which tdpd used before (up to 10^5: its add scans every
 *     rule of the prefix's length, so 10^6 takes hours).
 * Build: from the prefixes to a table ready for lookups. Bytes: DPDK's heap
 * before and after (rte_malloc's own count). Lookup: bulk lookups of 32 of
 * the same random addresses inside the routes, the methods alternating in
 * blocks on one pinned CPU, the median block and the spread of the blocks.
 * The route step RX runs (router_lookup_bulk: the lookup, the route's entry,
 * its next hop's MAC) beside them; its build is router_build, what each
 * change of the kernel's routes costs the netlink thread (entries, next
 * hops and the fib). The memory is fresh to each table (the EAL's pages are
 * first touched by whichever builds first): tdpd's fib builds first.
 *
 * usage: bench_routes [--quick] [--svg PREFIX]   (PREFIX-routes.svg: ns a lookup against count)
 */
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_fib.h>
#include <rte_fib6.h>
#include <rte_lpm.h>
#include <rte_lpm6.h>
#include <rte_malloc.h>

#include "dpdk_env.h"
#include "fib.h"
#include "plot.h"
#include "route.h"

#define BURST 32
#define NADDR (1u << 16)
#define BLOCKS 7
enum {
	M_TDPD,
	M_FIB,
	M_LPM,
	M_ROUTE,
	NM
};
static const char *mname[NM] = {"tdpd fib", "rte_fib", "rte_lpm", "route step"};

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static uint64_t heap_bytes(void)
{
	struct rte_malloc_socket_stats st;
	uint64_t sum = 0;
	for (int s = 0; s < RTE_MAX_NUMA_NODES; s++)
		if (rte_malloc_get_socket_stats(s, &st) == 0)
			sum += st.heap_allocsz_bytes;
	return sum;
}

static uint32_t rnd(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(*s >> 33);
}

/* A table shaped like the Internet's (most routes /24, then /22-/23 and
 * /16-/21, a few longer), at random places in 1.0.0.0-223.255.255.255. */
struct pfx4 {
	uint32_t ip;
	uint8_t len;
};
static struct pfx4 *table4(uint32_t n, uint64_t seed)
{
	struct pfx4 *v = malloc(n * sizeof(*v));
	for (uint32_t i = 0; i < n; i++) {
		uint32_t r = rnd(&seed) % 100;
		uint8_t len = r < 60   ? 24
			      : r < 75 ? (uint8_t)(22 + r % 2)
			      : r < 95 ? (uint8_t)(16 + r % 6)
				       : (uint8_t)(25 + r % 8);
		uint32_t ip = (1u + rnd(&seed) % 223) << 24 | (rnd(&seed) & 0xffffff);
		v[i] = (struct pfx4){ip & (len ? ~0u << (32 - len) : 0), len};
	}
	return v;
}

struct rig {
	uint32_t n;
	struct pfx4 *p;
	struct fib *tf;
	struct router *rt;
	struct rte_fib *fib;
	struct rte_lpm *lpm;
	uint32_t *addr;
	struct pkt_info *pi;
	const struct pkt_info **pp;
	double build_ms[NM];
	uint64_t bytes[NM];
};

static void pfx_get(const void *ctx, size_t i, int *family, const uint8_t **prefix, unsigned *len)
{
	static uint8_t b[16];
	const struct pfx4 *p = &((const struct pfx4 *)ctx)[i];
	for (int k = 0; k < 4; k++)
		b[k] = (uint8_t)(p->ip >> (24 - 8 * k));
	*family = 4;
	*prefix = b;
	*len = p->len;
}

static struct router *tdpd_build(struct rig *g, char *err, size_t errlen)
{
	struct router *r = router_create(2, err, errlen);
	uint8_t a[16] = {192, 0, 2, 1};
	router_add_address(r, 1, 4, a, 24, err, errlen);
	struct route_nh nh = {.port = 1, .has_gw = true, .gw = {192, 0, 2, 2}};
	for (uint32_t i = 0; i < g->n; i++) {
		uint8_t p[16] = {(uint8_t)(g->p[i].ip >> 24), (uint8_t)(g->p[i].ip >> 16),
				 (uint8_t)(g->p[i].ip >> 8), (uint8_t)g->p[i].ip};
		router_add_kernel_route(r, 4, p, g->p[i].len, &nh, 1, 186);
	}
	return r;
}

static void rig_up(struct rig *g, uint32_t n)
{
	memset(g, 0, sizeof(*g));
	g->n = n;
	g->p = table4(n, 1234 + n);
	char err[160];
	uint64_t b0 = heap_bytes();
	double t0 = now_ns();
	struct fib_need need;
	size_t missing, first;
	fib_need_of(&need, n, pfx_get, g->p);
	g->tf = fib_build(&need, n, pfx_get, g->p, &missing, &first, err, sizeof(err));
	g->build_ms[M_TDPD] = (now_ns() - t0) / 1e6;
	g->bytes[M_TDPD] = heap_bytes() - b0;
	/* the router: its routes are in before the clock starts, as the netlink
	 * thread has them; the build is what a change costs it (the entries,
	 * their next hops, the fib) */
	struct router *r = tdpd_build(g, err, sizeof(err));
	b0 = heap_bytes();
	t0 = now_ns();
	if (!g->tf || router_build(r, err, sizeof(err)) != 0) {
		fprintf(stderr, "bench_routes: %s\n", err);
		exit(1);
	}
	g->build_ms[M_ROUTE] = (now_ns() - t0) / 1e6;
	g->bytes[M_ROUTE] = heap_bytes() - b0;
	g->rt = r;
	b0 = heap_bytes();
	t0 = now_ns();
	struct rte_fib_conf fc = {
		.type = RTE_FIB_DIR24_8,
		.default_nh = 0,
		.max_routes = (int)n + 16,
		.dir24_8 = {.nh_sz = RTE_FIB_DIR24_8_4B, .num_tbl8 = (uint32_t)need.g4 + 64}};
	char name[32];
	snprintf(name, sizeof(name), "bfib%u", n);
	g->fib = rte_fib_create(name, SOCKET_ID_ANY, &fc);
	for (uint32_t i = 0; g->fib && i < n; i++)
		rte_fib_add(g->fib, g->p[i].ip, g->p[i].len, i + 1);
	g->build_ms[M_FIB] = (now_ns() - t0) / 1e6;
	g->bytes[M_FIB] = heap_bytes() - b0;
	if (n <= 100000) {
		b0 = heap_bytes();
		t0 = now_ns();
		snprintf(name, sizeof(name), "blpm%u", n);
		struct rte_lpm_config lc = {.max_rules = n + 16,
					    .number_tbl8s = (uint32_t)need.g4 + 64};
		g->lpm = rte_lpm_create(name, SOCKET_ID_ANY, &lc);
		for (uint32_t i = 0; g->lpm && i < n; i++)
			rte_lpm_add(g->lpm, g->p[i].ip, g->p[i].len, i);
		g->build_ms[M_LPM] = (now_ns() - t0) / 1e6;
		g->bytes[M_LPM] = heap_bytes() - b0;
	}
	/* addresses inside the routes, a random route each */
	uint64_t s = 99;
	g->addr = malloc(NADDR * sizeof(*g->addr));
	g->pi = calloc(NADDR, sizeof(*g->pi));
	g->pp = malloc(NADDR * sizeof(*g->pp));
	for (uint32_t i = 0; i < NADDR; i++) {
		const struct pfx4 *p = &g->p[rnd(&s) % n];
		uint32_t host = p->len == 32 ? 0 : rnd(&s) & (~0u >> p->len);
		g->addr[i] = p->ip | host;
		g->pi[i].family = 4;
		for (int b = 0; b < 4; b++)
			g->pi[i].dst[b] = (uint8_t)(g->addr[i] >> (24 - 8 * b));
		g->pp[i] = &g->pi[i];
	}
}

static void rig_down(struct rig *g)
{
	fib_free(g->tf);
	router_free(g->rt);
	rte_fib_free(g->fib);
	rte_lpm_free(g->lpm);
	free(g->p);
	free(g->addr);
	free(g->pi);
	free(g->pp);
}

/* one block of method m: every address once, in bursts; ns a lookup, and a
 * checksum so nothing is left out */
static double block(struct rig *g, int m, uint64_t *sum)
{
	uint32_t nh[BURST] = {0};
	uint64_t nh64[BURST];
	struct route_hop hop[BURST];
	double t0 = now_ns();
	for (uint32_t i = 0; i < NADDR; i += BURST) {
		switch (m) {
		case M_TDPD:
			fib_lookup4(g->tf, g->addr + i, nh, BURST);
			break;
		case M_FIB:
			rte_fib_lookup_bulk(g->fib, g->addr + i, nh64, BURST);
			*sum += nh64[0] + nh64[BURST - 1];
			break;
		case M_LPM:
			rte_lpm_lookup_bulk(g->lpm, g->addr + i, nh, BURST);
			break;
		case M_ROUTE:
			router_lookup_bulk(g->rt, g->pp + i, BURST, hop);
			*sum += hop[0].port;
			break;
		}
		*sum += nh[0] + nh[BURST - 1];
	}
	return (now_ns() - t0) / NADDR;
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

struct row {
	uint32_t n;
	double ns[NM], lo[NM], hi[NM]; /* median block, and the blocks' extremes */
	double build_ms[NM];
	uint64_t bytes[NM];
	bool have[NM];
};

static void measure(uint32_t n, int blocks, struct row *w)
{
	struct rig g;
	rig_up(&g, n);
	memset(w, 0, sizeof(*w));
	w->n = n;
	w->have[M_TDPD] = w->have[M_ROUTE] = true;
	w->have[M_FIB] = g.fib != NULL;
	w->have[M_LPM] = g.lpm != NULL;
	double t[NM][BLOCKS];
	uint64_t sum = 0;
	for (int m = 0; m < NM; m++) /* a warm-up block each */
		if (w->have[m])
			block(&g, m, &sum);
	for (int b = 0; b < blocks; b++)
		for (int k = 0; k < NM; k++) {
			int m = (k + b) % NM; /* each method first in turn */
			if (w->have[m])
				t[m][b] = block(&g, m, &sum);
		}
	for (int m = 0; m < NM; m++) {
		w->build_ms[m] = g.build_ms[m];
		w->bytes[m] = g.bytes[m];
		if (!w->have[m])
			continue;
		qsort(t[m], (size_t)blocks, sizeof(double), dbl_cmp);
		w->ns[m] = t[m][blocks / 2];
		w->lo[m] = t[m][0];
		w->hi[m] = t[m][blocks - 1];
	}
	if (sum == 42)
		printf(" ");
	rig_down(&g);
}

/* ns a lookup against routes, a line a method, each point's blocks' range */
static void svg(const char *path, const struct row *w, int nrow)
{
	double x[6], y[NM][6], lo[NM][6], hi[NM][6];
	bool have[NM][6];
	struct plot_line l[NM];
	for (int m = 0; m < NM; m++) {
		for (int i = 0; i < nrow; i++) {
			x[i] = w[i].n;
			y[m][i] = w[i].ns[m], lo[m][i] = w[i].lo[m], hi[m][i] = w[i].hi[m];
			have[m][i] = w[i].have[m];
		}
		l[m] = (struct plot_line){mname[m], y[m], lo[m], hi[m], have[m]};
	}
	plot_svg(path, "IPv4 routes", "ns a lookup (bursts of 32)", 6, x, nrow, l, NM);
}

/* ---- IPv6: one table the size of the Internet's ---------------------------- */

/* 30,000 allocations (a /32 each, in the five regional /12s the registries
 * hand out from), and the routes in them: 45 % /48, 12 % /32, 8 % /44, 6 %
 * /40, 5 % /29, 4 % /36, 15 % /33-/47, 5 % /20-/28. */
struct pfx6 {
	uint8_t a[16];
	uint8_t len;
};
static struct pfx6 *table6(uint32_t n, uint64_t seed)
{
	static const uint16_t rir[] = {0x2001, 0x2400, 0x2600, 0x2800, 0x2a00, 0x2c00};
	enum {
		ALLOC = 30000
	};
	uint32_t *alloc = malloc(ALLOC * sizeof(*alloc));
	for (uint32_t i = 0; i < ALLOC; i++)
		alloc[i] = rnd(&seed) & 0xfffff;
	struct pfx6 *v = calloc(n, sizeof(*v));
	for (uint32_t i = 0; i < n; i++) {
		uint32_t r = rnd(&seed) % 100, k = rnd(&seed) % ALLOC;
		uint8_t len = r < 45   ? 48
			      : r < 57 ? 32
			      : r < 65 ? 44
			      : r < 71 ? 40
			      : r < 76 ? 29
			      : r < 80 ? 36
			      : r < 95 ? (uint8_t)(33 + rnd(&seed) % 15)
				       : (uint8_t)(20 + rnd(&seed) % 9);
		uint16_t top = rir[k % 6];
		/* the /12 and the allocation's 20 bits, then the rest at random */
		uint32_t w32 = (uint32_t)top << 16 | alloc[k];
		if (top == 0x2001)
			w32 = 0x20010000u | (alloc[k] & 0xffff);
		uint8_t *a = v[i].a;
		a[0] = (uint8_t)(w32 >> 24), a[1] = (uint8_t)(w32 >> 16);
		a[2] = (uint8_t)(w32 >> 8), a[3] = (uint8_t)w32;
		for (int b = 4; b < 8; b++)
			a[b] = (uint8_t)rnd(&seed);
		for (unsigned b = 0; b < 16; b++) /* masked to its length */
			a[b] &= b * 8 >= len	   ? 0
				: b * 8 + 8 <= len ? 0xff
						   : (uint8_t)(0xff << (8 - len % 8));
		v[i].len = len;
	}
	free(alloc);
	return v;
}

static void pfx6_get(const void *ctx, size_t i, int *family, const uint8_t **prefix, unsigned *len)
{
	const struct pfx6 *p = &((const struct pfx6 *)ctx)[i];
	*family = 6;
	*prefix = p->a;
	*len = p->len;
}

enum {
	M6_TDPD,
	M6_FIB,
	M6_LPM,
	NM6
};
static const char *m6name[NM6] = {"tdpd fib", "rte_fib6", "rte_lpm6"};

static void bench_v6(uint32_t n, int blocks)
{
	struct pfx6 *p = table6(n, 77);
	double build[NM6] = {0}, t[NM6][BLOCKS];
	uint64_t bytes[NM6] = {0};
	bool have[NM6] = {false};
	char err[160];
	size_t missing, first;
	/* each prefix's own groups past bit 24, summed: what the DPDK tries
	 * reserve for (rte_fib6's trie.c, rte_lpm6's tbl8s) */
	uint64_t bound = 0;
	for (uint32_t i = 0; i < n; i++)
		bound += p[i].len > 24 ? (p[i].len - 24 + 7) / 8 : 0;
	uint64_t b0 = heap_bytes();
	double t0 = now_ns();
	struct fib_need need;
	fib_need_of(&need, n, pfx6_get, p);
	struct fib *tf = fib_build(&need, n, pfx6_get, p, &missing, &first, err, sizeof(err));
	build[M6_TDPD] = (now_ns() - t0) / 1e6;
	bytes[M6_TDPD] = heap_bytes() - b0;
	have[M6_TDPD] = tf && !missing;
	b0 = heap_bytes();
	t0 = now_ns();
	struct rte_fib6_conf fc = {
		.type = RTE_FIB6_TRIE,
		.default_nh = 0,
		.max_routes = (int)n + 16,
		.trie = {.nh_sz = RTE_FIB6_TRIE_4B, .num_tbl8 = (uint32_t)bound + 64}};
	struct rte_fib6 *f6 = rte_fib6_create("bfib6", SOCKET_ID_ANY, &fc);
	for (uint32_t i = 0; f6 && i < n; i++)
		rte_fib6_add(f6, p[i].a, p[i].len, i + 1);
	build[M6_FIB] = (now_ns() - t0) / 1e6;
	bytes[M6_FIB] = heap_bytes() - b0;
	have[M6_FIB] = f6 != NULL;
	b0 = heap_bytes();
	t0 = now_ns();
	struct rte_lpm6_config lc = {.max_rules = n + 16, .number_tbl8s = (uint32_t)bound + 64};
	struct rte_lpm6 *l6 = rte_lpm6_create("blpm6", SOCKET_ID_ANY, &lc);
	for (uint32_t i = 0; l6 && i < n; i++)
		rte_lpm6_add(l6, p[i].a, p[i].len, i);
	build[M6_LPM] = (now_ns() - t0) / 1e6;
	bytes[M6_LPM] = heap_bytes() - b0;
	have[M6_LPM] = l6 != NULL;
	/* addresses inside the routes */
	uint8_t(*addr)[16] = malloc(NADDR * sizeof(*addr));
	uint64_t s = 5, sum = 0;
	for (uint32_t i = 0; i < NADDR; i++) {
		const struct pfx6 *q = &p[rnd(&s) % n];
		for (int b = 0; b < 16; b++)
			addr[i][b] =
				(uint8_t)(q->a[b] |
					  (b * 8 + 8 <= q->len ? 0
					   : b * 8 >= q->len   ? rnd(&s)
							       : rnd(&s) & (0xff >> (q->len % 8))));
	}
	for (int b = -1; b < blocks; b++) /* block -1: warm-up */
		for (int k = 0; k < NM6; k++) {
			int m = (k + (b < 0 ? 0 : b)) % NM6;
			if (!have[m])
				continue;
			uint32_t nh[BURST] = {0};
			uint64_t nh64[BURST] = {0};
			int32_t nhi[BURST] = {0};
			double t1 = now_ns();
			for (uint32_t i = 0; i < NADDR; i += BURST) {
				if (m == M6_TDPD)
					fib_lookup6(tf, (const uint8_t(*)[16])(addr + i), nh,
						    BURST);
				else if (m == M6_FIB)
					rte_fib6_lookup_bulk(f6, addr + i, nh64, BURST);
				else
					rte_lpm6_lookup_bulk_func(l6, addr + i, nhi, BURST);
				sum += nh[0] + nh64[0] + (uint64_t)nhi[0];
			}
			if (b >= 0)
				t[m][b] = (now_ns() - t1) / NADDR;
		}
	printf("%9u  IPv6 routes (45 %% /48, 12 %% /32, the rest /20-/47 in 30,000 /32s)\n", n);
	for (int m = 0; m < NM6; m++) {
		if (!have[m]) {
			printf("%9u  %-10s %9s   not run: no memory\n", n, m6name[m], "-");
			continue;
		}
		qsort(t[m], (size_t)blocks, sizeof(double), dbl_cmp);
		printf("%9u  %-10s %9.1f   (%5.1f-%5.1f) %10.1f %9.1f\n", n, m6name[m],
		       t[m][blocks / 2], t[m][0], t[m][blocks - 1], build[m],
		       (double)bytes[m] / (1 << 20));
	}
	if (sum == 42)
		printf(" ");
	fib_free(tf);
	rte_fib6_free(f6);
	rte_lpm6_free(l6);
	free(addr);
	free(p);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: bench_routes [--quick] [--svg PREFIX]\n"
		   "  the route tables' cost from 10 to 10^6 IPv4 routes and a full IPv6 table,\n"
		   "  beside rte_fib and rte_lpm\n"
		   "  --quick       up to 10^5 routes, fewer blocks\n"
		   "  --svg PREFIX  a plot of ns a lookup against routes in PREFIX-routes.svg\n");
}

/* argv into *quick and *prefix: 0, 1 when --help was printed, or 2 (said,
 * before anything runs: a word it does not take would be ignored) */
static int parse_args(int argc, char **argv, bool *quick, const char **prefix)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick")) {
			*quick = true;
		} else if (!strcmp(argv[i], "--help")) {
			usage(stdout);
			return 1;
		} else if (!strcmp(argv[i], "--svg")) {
			if (i + 1 == argc) {
				fprintf(stderr, "bench_routes: --svg: needs a value\n");
				usage(stderr);
				return 2;
			}
			*prefix = argv[++i];
		} else {
			fprintf(stderr, "bench_routes: %s: not an option\n", argv[i]);
			usage(stderr);
			return 2;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	bool quick = false;
	const char *prefix = NULL;
	int rc = parse_args(argc, argv, &quick, &prefix);
	if (rc)
		return rc == 1 ? 0 : rc;
	/* room for the three tables and the router at 10^6 routes at once */
	if (env_eal_init_mb(1536) != 0) {
		fprintf(stderr, "bench_routes: EAL init failed\n");
		return 1;
	}
	cpu_set_t cs;
	CPU_ZERO(&cs);
	CPU_SET(0, &cs);
	sched_setaffinity(0, sizeof(cs), &cs);
	int top = quick ? 5 : 6, blocks = quick ? 3 : BLOCKS;
	printf("route tables, 10 to 10^%d IPv4 routes (most /24; /16-/23; a few longer), one CPU, "
	       "%d blocks of %u lookups a method, alternating\n",
	       top, blocks, NADDR);
	printf("%9s  %-10s %9s %16s %10s %9s\n", "routes", "method", "ns", "(blocks)", "build ms",
	       "MiB");
	struct row w[6];
	int nrow = 0;
	for (int e = 1; e <= top; e++, nrow++) {
		uint32_t n = 1;
		for (int k = 0; k < e; k++)
			n *= 10;
		measure(n, blocks, &w[nrow]);
		for (int m = 0; m < NM; m++) {
			if (!w[nrow].have[m]) {
				printf("%9u  %-10s %9s   not run%s\n", n, mname[m], "-",
				       m == M_LPM ? ": its build is quadratic in the routes of a "
						    "length"
						  : ": no memory");
				continue;
			}
			printf("%9u  %-10s %9.1f   (%5.1f-%5.1f) %10.1f %9.1f\n", n, mname[m],
			       w[nrow].ns[m], w[nrow].lo[m], w[nrow].hi[m], w[nrow].build_ms[m],
			       (double)w[nrow].bytes[m] / (1 << 20));
		}
		const struct row *r = &w[nrow];
		printf("%9s  lookup: tdpd fib / rte_fib %.2f", "",
		       r->have[M_FIB] ? r->ns[M_TDPD] / r->ns[M_FIB] : 0.0);
		if (r->have[M_LPM])
			printf(", / rte_lpm %.2f; build: rte_lpm / tdpd fib %.1f",
			       r->ns[M_TDPD] / r->ns[M_LPM],
			       r->build_ms[M_LPM] / r->build_ms[M_TDPD]);
		if (r->have[M_FIB])
			printf("; build: rte_fib / tdpd fib %.1f",
			       r->build_ms[M_FIB] / r->build_ms[M_TDPD]);
		printf("\n");
		fflush(stdout);
	}
	bench_v6(quick ? 20000 : 200000, blocks);
	if (prefix) {
		char path[512];
		snprintf(path, sizeof(path), "%s-routes.svg", prefix);
		svg(path, w, nrow);
		printf("plot: %s\n", path);
	}
	return 0;
}
