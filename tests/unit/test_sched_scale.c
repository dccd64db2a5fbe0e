/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Small adversarial tables: the checks and the expansion must do work near-linear
 * in the input (d.work counts their steps), and give exactly the answer a
 * frame-by-frame expansion gives.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tdp_sched.h"
#include "testutil.h"

struct text {
	char *s;
	size_t n, cap;
};

static void put(struct text *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct text *b, const char *fmt, ...)
{
	va_list ap;
	for (;;) {
		va_start(ap, fmt);
		int w = vsnprintf(b->s + b->n, b->cap - b->n, fmt, ap);
		va_end(ap);
		if (b->s && (size_t)w < b->cap - b->n) {
			b->n += (size_t)w;
			return;
		}
		b->cap = b->cap ? b->cap * 2 : 4096;
		b->s = realloc(b->s, b->cap);
		assert_non_null(b->s);
	}
}

static struct sched_table *parse(struct text *b, struct sched_diags *d)
{
	sched_diags_init(d, "scale");
	struct sched_table *t = sched_parse(b->s, b->n, d);
	free(b->s);
	memset(b, 0, sizeof(*b));
	return t;
}

/* 65,535 flows told apart by a /32 each: one sort and one sweep, not all pairs. */
static void overlap_check_is_near_linear(void **state)
{
	struct text b = {0};
	struct sched_diags d;
	const uint32_t F = 65535;
	put(&b, "tdp-schedule 1\ntf 100us\nk 10\nport p rate 10Gbit/s\n");
	for (uint32_t i = 0; i < F; i++)
		put(&b, "flow f%u port p size 100 dscp 1 dst 10.%u.%u.%u/32\n", i, i >> 16,
		    (i >> 8) & 255, i & 255);
	struct sched_table *t = parse(&b, &d);
	assert_non_null(t);
	assert_int_equal(d.nerr, 0);
	assert_true(d.work < 4ull * F + 100000); /* all pairs: 2.1e9 */
	sched_free(t);
	sched_diags_free(&d);
}

/* Nested prefixes, IPv4 and IPv6, and flows without a destination: every flow
 * whose packets another also claims is reported once. */
static void nested_prefixes_reported_once_each(void **state)
{
	struct text b = {0};
	struct sched_diags d;
	put(&b, "tdp-schedule 1\ntf 100us\nk 10\nport p rate 10Gbit/s\n");
	put(&b, "flow wide port p size 100 dscp 1 dst 10.0.0.0/8\n");
	for (uint32_t i = 0; i < 1000; i++)
		put(&b, "flow n%u port p size 100 dscp 1 dst 10.0.%u.%u/32\n", i, i >> 8, i & 255);
	/* disjoint from all of the above */
	for (uint32_t i = 0; i < 1000; i++)
		put(&b, "flow o%u port p size 100 dscp 1 dst 11.0.%u.%u/32\n", i, i >> 8, i & 255);
	for (uint32_t i = 0; i < 300; i++)
		put(&b, "flow v%u port p size 100 dscp 2 dst 2001:db8::%x/128\n", i, i);
	put(&b, "flow vwide port p size 100 dscp 2 dst 2001:db8::/64\n");
	struct sched_table *t = parse(&b, &d);
	assert_null(t);
	assert_int_equal(d.nerr, 1000 + 300);
	sched_diags_free(&d);

	/* a flow with no destination claims every destination with its dscp */
	put(&b, "tdp-schedule 1\ntf 100us\nk 10\nport p rate 10Gbit/s\nflow any port p size 100 "
		"dscp 3\n");
	for (uint32_t i = 0; i < 500; i++)
		put(&b, "flow n%u port p size 100 dscp 3 dst 10.0.%u.%u/32\n", i, i >> 8, i & 255);
	for (uint32_t i = 0; i < 500; i++)
		put(&b, "flow m%u port p size 100 dscp 4 dst 10.0.%u.%u/32\n", i, i >> 8, i & 255);
	t = parse(&b, &d);
	assert_null(t);
	assert_int_equal(d.nerr, 500);
	assert_true(d.work < 100000);
	sched_diags_free(&d);

	/* the same prefix twice, and a prefix inside an equal-keyed one of another group */
	parse_err(
		"tdp-schedule 1\ntf 100us\nk 10\nport p rate 1Gbit/s\n"
		"flow a port p size 100 dst 10.1.0.0/16\nflow b port p size 100 dst 10.1.0.0/16\n",
		6, 6, "flow b (dst 10.1.0.0/16) overlaps flow a");
	parse_err("tdp-schedule 1\ntf 100us\nk 10\nport p rate 1Gbit/s\n"
		  "flow a port p size 100 vlan 5 dst 10.1.0.0/16\nflow b port p size 100 dscp 1 "
		  "dst 10.1.2.0/24\n",
		  6, 6, "overlaps flow a");
	sched_free(parse_ok("tdp-schedule 1\ntf 100us\nk 10\nport p rate 1Gbit/s\n"
			    "flow a port p size 100 vlan 5 dst 10.1.0.0/16\n"
			    "flow b port p size 100 dscp 1 dst 10.2.2.0/24\n"
			    "flow c port p size 100 dscp 1 dst 10.3.128.0/17\nflow d port p size "
			    "100 vlan 5 dst 10.0.0.0/16\n"
			    "frames 0: a 1\n"));
}

/* Lines that name the same frames add up on one segment: the work is k plus the
 * lines, not k times the lines. */
static void rows_that_add_up_cost_one_pass(void **state)
{
	struct text b = {0};
	struct sched_diags d;
	const uint32_t k = 1000000, L = 1000;
	put(&b,
	    "tdp-schedule 1\ntf 1us\nk %u\nport p rate 100Gbit/s\nflow a port p size 60 dscp 1\n"
	    "flow z port p size 60 dscp 2\n",
	    k);
	for (uint32_t i = 0; i < L; i++)
		put(&b, "frames *: a 0\n");
	for (uint32_t i = 0; i < 40; i++)
		put(&b, "frames *: z 1\n");
	for (uint32_t i = 0; i < 30; i++) /* starts that move: 30 segments on one chain */
		put(&b, "frames %u-%u: a 1\n", i, k - 1);
	struct sched_table *t = parse(&b, &d);
	assert_non_null(t);
	assert_int_equal(d.nerr, 0);
	assert_true(d.work < 4ull * k + 100000); /* one entry per line and frame: 1.07e9 */
	assert_row(t, 0, "a 1, z 40");
	assert_row(t, 5, "a 6, z 40");
	assert_row(t, 29, "a 30, z 40");
	assert_row(t, k - 1, "a 30, z 40");
	assert_int_equal(t->nrows, 30);
	sched_free(t);
	sched_diags_free(&d);

	/* overbooked by the sum: the error at the line that passes the limit */
	put(&b,
	    "tdp-schedule 1\ntf 1us\nk %u\nport p rate 100Gbit/s\nflow a port p size 60 dscp 1\n",
	    k);
	for (uint32_t i = 0; i < L; i++)
		put(&b, "frames *: a 100\n");
	t = parse(&b, &d);
	assert_null(t);
	assert_int_equal(d.nerr, 1);
	assert_int_equal(d.v[0].line, 5 + 656);
	assert_non_null(strstr(d.v[0].msg, "flow a has 65600 packets in frame 0"));
	assert_true(d.work < 100000);
	sched_diags_free(&d);
}

/* A line with more spans than are compared pairwise: its frames are marked. */
static void many_spans_in_one_line(void **state)
{
	struct text b = {0};
	struct sched_diags d;
	put(&b, "tdp-schedule 1\ntf 1us\nk 1000\nport p rate 100Gbit/s\nflow a port p size 60 dscp "
		"1\nframes ");
	for (uint32_t i = 0; i < 200; i++)
		put(&b, "%u, ", i * 3);
	put(&b, "2-999/500: a 1\n");
	struct sched_table *t = parse(&b, &d);
	assert_non_null(t);
	assert_row(t, 501, "a 1");
	assert_row(t, 502, "a 1");
	assert_row(t, 598, "");
	sched_free(t);
	sched_diags_free(&d);

	put(&b, "tdp-schedule 1\ntf 1us\nk 1000\nport p rate 100Gbit/s\nflow a port p size 60 dscp "
		"1\nframes ");
	for (uint32_t i = 0; i < 200; i++)
		put(&b, "%u, ", i * 3);
	put(&b, "2-999/500, 1-999/4: a 0\n"); /* 1, 5, 9: 9 is 3 x 3 */
	t = parse(&b, &d);
	assert_null(t);
	assert_int_equal(d.nerr, 1);
	assert_non_null(strstr(d.v[0].msg, "frame 9 is named twice in this row"));
	sched_diags_free(&d);
}

/*
 * 510,510 distinct rows on a table of 256 ports (every frame below 2*3*...*17
 * meets its own mix of remainders). Per (row, port) bookkeeping would take
 * rows x ports x 8 = 1 GB; admission and the summary must live in what the rows
 * themselves take. Run in a child under a 512 MB address-space limit (not
 * under a sanitizer, whose shadow memory needs more).
 */
static void admission_memory_follows_the_entries(void **state)
{
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	skip();
#endif
	static const uint32_t primes[] = {2, 3, 5, 7, 11, 13, 17};
	struct text b = {0};
	put(&b, "tdp-schedule 1\ntf 1us\nk 1000000\n");
	for (uint32_t i = 0; i < 256; i++)
		put(&b, "port p%u rate 100Gbit/s\n", i);
	for (uint32_t i = 0; i < 7; i++)
		put(&b, "flow f%u port p%u size 60 dscp %u\n", i, i * 40, i);
	for (uint32_t i = 0; i < 7; i++)
		for (uint32_t r = 0; r < primes[i]; r++)
			put(&b, "frames %u-999999/%u: f%u %u\n", r, primes[i], i, r + 1);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit lim = {512u << 20, 512u << 20};
		struct sched_diags d;
		setrlimit(RLIMIT_AS, &lim);
		struct sched_table *t = parse(&b, &d);
		if (!t || t->nrows != 510510)
			_exit(2);
		struct sched_port_summary *ps = calloc(t->nports, sizeof(*ps));
		struct sched_flow_summary *fs = calloc(t->nflows, sizeof(*fs));
		size_t errs = sched_admit(t, &d);
		sched_summarize(t, ps, fs);
		if (errs || d.nerr) {
			sched_diags_print(&d, stderr);
			_exit(3);
		}
		/* f0 on p0: 1 or 2 packets in every frame */
		_exit(ps[0].frames_used == 1000000 && ps[1].frames_used == 0 &&
				      ps[1].util_min == 0 && fs[0].pkts_per_cycle == 1500000
			      ? 0
			      : 4);
	}
	free(b.s);
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* Many rows over every limit: each is counted, only the first hundred are
 * composed (and blamed on a line, which walks the row lines). */
static void messages_past_the_cap_are_only_counted(void **state)
{
	struct text b = {0};
	struct sched_diags d;
	const uint32_t L = 2000;
	put(&b, "tdp-schedule 1\ntf 10us\nk 100000\nport p rate 1Gbit/s\nflow a port p size 60 "
		"dscp 1\n");
	for (uint32_t i = 0; i < L; i++) /* frame f has min(f + 1, L) packets: L distinct rows */
		put(&b, "frames %u-99999: a 1\n", i);
	struct sched_table *t = parse(&b, &d);
	assert_non_null(t);
	uint64_t before = d.work;
	assert_int_equal(sched_admit(t, &d), L - 14); /* 14 packets of 84 B fit in 10 us */
	assert_int_equal(d.nerr, L - 14);
	assert_int_equal(d.n, SCHED_DIAG_KEEP);
	assert_true(d.work - before < 100ull * 2 * L + 10000); /* blaming all: 8e6 */
	sched_diags_free(&d);

	struct sched_fit lim = {.mbufs = 100000, .flow_depth = 5};
	sched_diags_init(&d, "fit");
	assert_int_equal(sched_fit(t, &lim, &d), L - 5);
	assert_int_equal(d.nerr, L - 5);
	assert_int_equal(d.n, SCHED_DIAG_KEEP);
	assert_true(d.work < 100ull * 2 * L + 10000);
	sched_diags_free(&d);
	sched_free(t);
}

/* Random row lines against a frame-by-frame expansion. */
static uint32_t rnd(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(*s >> 33);
}

static void expansion_matches_brute_force(void **state)
{
	const uint32_t k = 125, F = 4;
	uint64_t seed = 42;
	for (int round = 0; round < 300; round++) {
		struct text b = {0};
		struct sched_diags d;
		uint32_t want[125][4] = {{0}};
		bool dup = false;
		put(&b,
		    "tdp-schedule 1\ntf 1us\nk %u\nport p rate 100Gbit/s\nport q rate 100Gbit/s\n",
		    k);
		for (uint32_t f = 0; f < F; f++)
			put(&b, "flow f%u port %s size 60 dscp %u\n", f, f & 1 ? "q" : "p", f);
		uint32_t lines = 1 + rnd(&seed) % 8;
		for (uint32_t l = 0; l < lines; l++) {
			uint32_t nsp = 1 + rnd(&seed) % 3, fl = rnd(&seed) % F, n = rnd(&seed) % 3;
			bool hit[125] = {false};
			put(&b, "frames ");
			for (uint32_t s = 0; s < nsp; s++) {
				uint32_t a = rnd(&seed) % k, z = a + rnd(&seed) % (k - a),
					 st = 1 + rnd(&seed) % 7;
				put(&b, "%s%u-%u/%u", s ? ", " : "", a, z, st);
				for (uint32_t x = a; x <= z; x += st) {
					dup |= hit[x];
					hit[x] = true;
					want[x][fl] += n;
				}
			}
			put(&b, ": f%u %u\n", fl, n);
		}
		char *text = strndup(b.s, b.n);
		struct sched_table *t = parse(&b, &d);
		if (dup) {
			if (t || !strstr(d.v[0].msg, "is named twice in this row")) {
				fputs(text, stderr);
				sched_diags_print(&d, stderr);
			}
			assert_null(t);
			assert_non_null(strstr(d.v[0].msg, "is named twice in this row"));
		} else {
			assert_non_null(t);
			for (uint32_t x = 0; x < k; x++) {
				uint32_t n, got[4] = {0};
				const struct sched_entry *e = sched_row(t, x, &n);
				for (uint32_t i = 0; i < n; i++) {
					got[e[i].flow] = e[i].n;
					assert_true(i == 0 ||
						    t->flows[e[i - 1].flow].port <
							    t->flows[e[i].flow].port ||
						    e[i - 1].flow < e[i].flow);
				}
				assert_memory_equal(got, want[x], sizeof(got));
			}
		}
		free(text);
		sched_free(t);
		sched_diags_free(&d);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(overlap_check_is_near_linear),
		cmocka_unit_test(nested_prefixes_reported_once_each),
		cmocka_unit_test(rows_that_add_up_cost_one_pass),
		cmocka_unit_test(many_spans_in_one_line),
		cmocka_unit_test(admission_memory_follows_the_entries),
		cmocka_unit_test(messages_past_the_cap_are_only_counted),
		cmocka_unit_test(expansion_matches_brute_force),
	};
	return cmocka_run_group_tests_name("sched_scale", tests, NULL, NULL);
}
