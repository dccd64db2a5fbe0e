/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The frame-start error, fairly: every method under the same conditions in
 * one run.
 *
 *  - /dev/cpu_dma_latency is held at 0 for the whole run (tdpd holds it by
 *    default, cyclictest holds it too), so no method gets deeper C-states.
 *  - The methods take turns in blocks: in each block every method runs
 *    `frames` periods, in an order rotated from block to block, so a stall
 *    of the VM lands on whichever is running and shows as spread across
 *    blocks, not as one method's tail.
 *  - Every period counts, as cyclictest counts them: a wake-up that comes
 *    after later boundaries is late for each of them (by its lateness less
 *    one TF, two TFs, ...). For the engine, the periods it skipped get those
 *    values from the next frame it handled.
 *  - Methods: the engine with ClockFix's rule (max of 8, 32, 128 oversleeps)
 *    and with the quantile (miss targets 1e-2, 1e-3, 1e-4); always polling
 *    the clock (spin); clock_nanosleep to each boundary; cyclictest.
 *  - Per method the median over blocks and the range; the engine's ratio to
 *    cyclictest per percentile, per block, as median [min, max]; the CPU
 *    each method costs against its p99.9 (the frontier; --svg draws it).
 */
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_ethdev.h>
#include <rte_ring.h>

#include "../sim/dpdk_env.h"
#include "bench.h"
#include "engine.h"

enum kind { K_ENGINE, K_SPIN, K_NANOSLEEP, K_CYCLICTEST };

#define MAXB 16

struct method {
	const char *name;
	enum kind kind;
	uint32_t window;
	uint64_t miss_ppb;
	struct engine *e;
	struct sched_table *t;
	int port;
	bool ok;
	struct figs b[MAXB];
	struct hist all;          /* every block's periods */
};

static struct method methods[] = {
	{.name = "engine, max of 8", .kind = K_ENGINE, .window = 8, .miss_ppb = 0},
	{.name = "engine, max of 32", .kind = K_ENGINE, .window = 32, .miss_ppb = 0},
	{.name = "engine, max of 128", .kind = K_ENGINE, .window = 128, .miss_ppb = 0},
	{.name = "engine, quantile 1e-2", .kind = K_ENGINE, .window = 32, .miss_ppb = 10000000},
	{.name = "engine, quantile 1e-3", .kind = K_ENGINE, .window = 32, .miss_ppb = 1000000},
	{.name = "engine, quantile 1e-4", .kind = K_ENGINE, .window = 32, .miss_ppb = 100000},
	{.name = "spin", .kind = K_SPIN, .window = 0, .miss_ppb = 0},
	{.name = "clock_nanosleep", .kind = K_NANOSLEEP, .window = 0, .miss_ppb = 0},
	{.name = "cyclictest", .kind = K_CYCLICTEST, .window = 0, .miss_ppb = 0},
};
#define NM (sizeof(methods) / sizeof(methods[0]))

static void engine_up(struct method *m, struct timebase *tb, int64_t tf)
{
	char txt[512];
	snprintf(txt, sizeof(txt),
		 "tdp-schedule 1\ntf %" PRId64 "ns\nk 10\nport p rate 1Gbit/s\nflow f port p size 100 udp-dport 1\nframes 0-9: f 1\n",
		 tf);
	m->t = table_from(txt);
	static int no;
	char name[32];
	snprintf(name, sizeof(name), "fair%d", no++);
	struct rte_ring *rx, *tx;
	m->port = env_ring_port(name, &rx, &tx);
	struct eng_port_cfg pc = {.dpdk_port = (uint16_t)m->port, .overhead = 24};
	struct eng_config c = {.t = m->t, .tb = tb, .late = LATE_DROP, .flow_depth = 64, .be_depth = 64,
			       .be_poll_ns = 0, .ports = &pc,
			       .pw = {.spin_below_ns = 20000, .min_sleep_ns = 10000, .margin_ns = 2000,
				      .window = m->window, .decay_pct = 95, .book_init_ns = 200,
				      .miss_ppb = m->miss_ppb}};
	char err[128];
	m->e = engine_create(&c, err, sizeof(err));
	if (!m->e) {
		fprintf(stderr, "bench: %s\n", err);
		exit(1);
	}
}

static void engine_down(struct method *m)
{
	engine_destroy(m->e);
	rte_eth_dev_stop((uint16_t)m->port);
	sched_free(m->t);
	m->e = NULL;
}

/* frames periods of the engine; frame j starts at j TF (epoch 0) */
static void run_engine_periods(struct method *m, int64_t tf, uint32_t frames, struct hist *h)
{
	engine_start(m->e);
	int64_t j0 = -1, err0 = 0;
	uint32_t n = 0;
	while (n < frames) {
		int64_t j = engine_step(m->e);
		struct eng_stats es;
		engine_stats(m->e, &es);
		int64_t err = es.last_push_ns - j * tf;
		/* the frames skipped after j0 were late by err0 less 1, 2, ... TF */
		for (int64_t k = 1; j0 >= 0 && k < j - j0 && n < frames; k++, n++)
			hist_add(h, err0 - k * tf);
		hist_add(h, err);
		n++;
		j0 = j, err0 = err;
	}
}

/* the next boundary after now, then each TF, each period its own error */
static void run_spin(struct timebase *tb, int64_t tf, uint32_t frames, struct hist *h)
{
	int64_t next = (tb_fast_now(tb).ns / tf + 2) * tf;
	for (uint32_t i = 0; i < frames; i++, next += tf) {
		int64_t now = tb_fast_now(tb).ns;
		while (now < next)
			now = tb_fast_now(tb).ns;
		hist_add(h, now - next);
	}
}

static void run_nanosleep(int64_t tf, uint32_t frames, struct hist *h)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	int64_t next = ((int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec) / tf * tf + 2 * tf;
	for (uint32_t i = 0; i < frames; i++, next += tf) {
		struct timespec at = {next / 1000000000, next % 1000000000};
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL);
		clock_gettime(CLOCK_MONOTONIC, &ts);
		hist_add(h, (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec - next);
	}
}

static void run_block(struct method *m, struct timebase *tb, int64_t tf, uint32_t frames, struct figs *out)
{
	if (m->kind == K_CYCLICTEST) {
		rt_off();
		m->ok = run_cyclictest(tf, frames, out, &m->all) == 0;
		rt_self();
		return;
	}
	static struct hist h;
	hist_init(&h);
	int64_t c0 = thread_cpu(), w0 = mono();
	if (m->kind == K_ENGINE)
		run_engine_periods(m, tf, frames, &h);
	else if (m->kind == K_SPIN)
		run_spin(tb, tf, frames, &h);
	else
		run_nanosleep(tf, frames, &h);
	int64_t c1 = thread_cpu(), w1 = mono();
	figs_of(&h, out);
	out->duty = (double)(c1 - c0) / (double)(w1 - w0);
	hist_merge(&m->all, &h);
	m->ok = true;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* median, min and max of n values */
static void spread(double *v, int n, double out[3])
{
	qsort(v, (size_t)n, sizeof(double), cmp_d);
	out[0] = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	out[1] = v[0];
	out[2] = v[n - 1];
}

static double pick(const struct figs *f, int which)
{
	return which == 0 ? (double)f->p50 : which == 1 ? (double)f->p99 : which == 2 ? (double)f->p999
										: (double)f->max;
}

struct point {
	const char *name;
	double cpu, p999;
};

/* x: CPU on a log scale from 0.5 % to 100 %; y: p99.9 on a log scale */
static double sx(double cpu_share, double L, double span)
{
	double c = cpu_share < 0.005 ? 0.005 : cpu_share > 1 ? 1 : cpu_share;
	return L + span * (log10(c) - log10(0.005)) / (0 - log10(0.005));
}

static double sy(double ns, double lo, double hi, double bottom, double span)
{
	double v = ns < lo ? lo : ns;
	return bottom - span * (log10(v) - log10(lo)) / (log10(hi) - log10(lo));
}

static void svg_frontier(const char *path, int64_t tf, const struct point *pt, int n)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		return;
	}
	const double W = 720, H = 420, L = 70, R = 150, T = 30, B = 50;
	double ymax = 1000, lo = 10, hi = 1000;
	for (int i = 0; i < n; i++)
		ymax = pt[i].p999 > ymax ? pt[i].p999 : ymax;
	while (hi < ymax)
		hi *= 10;
	double xs = W - L - R, ys = H - B - T;
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" font-family=\"sans-serif\" "
		   "font-size=\"11\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", W, H);
	fprintf(f, "<text x=\"%.0f\" y=\"18\" font-size=\"13\">CPU against p99.9 of the frame-start error, TF %" PRId64
		   " us (all blocks' periods)</text>\n", L, tf / 1000);
	fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"black\"/>\n", L, H - B, L + xs, H - B);
	fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"black\"/>\n", L, T, L, H - B);
	static const double ticks[] = {0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1};
	for (size_t i = 0; i < sizeof(ticks) / sizeof(ticks[0]); i++)
		fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">%g%%</text>\n", sx(ticks[i], L, xs),
			H - B + 15, 100 * ticks[i]);
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">CPU of the waiting thread (log)</text>\n",
		L + xs / 2, H - 12);
	for (double d = lo; d <= hi; d *= 10) {
		double y = sy(d, lo, hi, H - B, ys);
		fprintf(f, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", L, y, L + xs, y);
		if (d < 1000)
			fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%.0f ns</text>\n", L - 5, y + 4, d);
		else
			fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%.0f us</text>\n", L - 5, y + 4, d / 1000);
	}
	for (int i = 0; i < n; i++) {
		double x = sx(pt[i].cpu, L, xs), y = sy(pt[i].p999, lo, hi, H - B, ys);
		const char *col = strstr(pt[i].name, "quantile") ? "#c0392b" : strstr(pt[i].name, "max") ? "#2471a3" : "#555";
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>\n", x, y, col);
		/* labels alternate above and below their point, so that close ones
		 * stay apart */
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\">%s</text>\n", x + 6, y + (i % 2 ? 14 : -6), col,
			pt[i].name);
	}
	fputs("</svg>\n", f);
	fclose(f);
}

static void report(int64_t tf, int nb, const char *svg)
{
	printf("\n== frame-start error at TF %" PRId64 " us, CPU %d, SCHED_FIFO 80, %d blocks (ns: all blocks' periods "
	       "together [min, max over blocks]; cyclictest in 1 us bins)\n", tf / 1000, cpu, nb);
	printf("  %-22s %9s %22s %22s %22s %10s %7s\n", "", "periods", "p50", "p99", "p99.9", "max", "CPU");
	struct point pt[NM];
	int np = 0;
	for (size_t i = 0; i < NM; i++) {
		struct method *m = &methods[i];
		if (!m->ok) {
			printf("  %-22s (could not run: is rt-tests installed, and are we root?)\n", m->name);
			continue;
		}
		double v[MAXB], s[5][3];
		uint64_t periods = 0;
		for (int w = 0; w < 5; w++) {
			for (int b = 0; b < nb; b++)
				v[b] = w < 4 ? pick(&m->b[b], w) : m->b[b].duty;
			spread(v, nb, s[w]);
		}
		for (int b = 0; b < nb; b++)
			periods += m->b[b].n;
		struct figs all;
		figs_of(&m->all, &all);
		printf("  %-22s %9" PRIu64, m->name, periods);
		for (int w = 0; w < 3; w++)
			printf(" %7.0f [%5.0f, %6.0f]", pick(&all, w), s[w][1], s[w][2]);
		printf(" %10" PRId64 " %6.1f%%\n", all.max, 100 * s[4][0]);
		pt[np++] = (struct point){m->name, s[4][0], (double)all.p999};
	}
	struct method *cyc = &methods[NM - 1];
	if (cyc->ok) {
		struct figs call;
		figs_of(&cyc->all, &call);
		printf("  against cyclictest: all periods together [min, max of the per-block ratios]\n");
		printf("  %-22s %25s %25s %25s\n", "", "p50", "p99", "p99.9");
		for (size_t i = 0; i < NM - 1; i++) {
			struct method *m = &methods[i];
			if (m->kind != K_ENGINE && m->kind != K_SPIN && m->kind != K_NANOSLEEP)
				continue;
			printf("  %-22s", m->name);
			for (int w = 0; w < 3; w++) {
				double v[MAXB], s[3];
				int k = 0;
				for (int b = 0; b < nb; b++)
					if (pick(&cyc->b[b], w) > 0)
						v[k++] = pick(&m->b[b], w) / pick(&cyc->b[b], w);
				if (!k) {
					printf(" %25s", "(cyclictest 0 us)");
					continue;
				}
				spread(v, k, s);
				struct figs mall;
				figs_of(&m->all, &mall);
				printf("  %7.3gx [%7.3g, %7.3g]", pick(&call, w) > 0 ? pick(&mall, w) / pick(&call, w) : 0, s[1],
				       s[2]);
			}
			printf("\n");
		}
	}
	if (svg) {
		char path[512];
		snprintf(path, sizeof(path), "%s-tf%" PRId64 "us.svg", svg, tf / 1000);
		svg_frontier(path, tf, pt, np);
		printf("  the frontier (CPU against p99.9): %s\n", path);
	}
}

/* sched_rt_runtime_us as found, put back at the end or on an exit on the way */
static char rt_was[32];

static void rt_restore(void)
{
	if (!rt_was[0])
		return;
	FILE *rt = fopen("/proc/sys/kernel/sched_rt_runtime_us", "w");
	if (rt) {
		fprintf(rt, "%s\n", rt_was);
		fclose(rt);
	}
	rt_was[0] = 0;
}

void bench_start(struct timebase *tb, const char *svg)
{
	/* the same PM QoS for every method, held for the whole run */
	int qos = open("/dev/cpu_dma_latency", O_WRONLY | O_CLOEXEC);
	int32_t zero = 0;
	bool held = qos >= 0 && write(qos, &zero, sizeof(zero)) == (ssize_t)sizeof(zero);
	/* RT throttling would stop a method that polls at SCHED_FIFO for 50 ms
	 * of every second, and whichever method runs next: off for the run, as
	 * tdpctl shield turns it off for the engine */
	char was[32] = "";
	FILE *rt = fopen("/proc/sys/kernel/sched_rt_runtime_us", "r");
	if (rt && !fgets(was, sizeof(was), rt))
		was[0] = 0;
	if (rt)
		fclose(rt);
	was[strcspn(was, "\n")] = 0;
	rt = was[0] ? fopen("/proc/sys/kernel/sched_rt_runtime_us", "w") : NULL; /* only what can be put back */
	bool unthrottled = rt && fputs("-1\n", rt) >= 0;
	if (rt && fclose(rt) != 0)
		unthrottled = false;
	if (unthrottled) {
		snprintf(rt_was, sizeof(rt_was), "%s", was);
		atexit(rt_restore);
	}
	printf("\n== frame-start error, fair: /dev/cpu_dma_latency %s and RT throttling %s for every method; methods "
	       "interleaved in blocks\n", held ? "held at 0" : "not held (not root?)",
	       unthrottled ? "off" : "on (not root?): polling methods are stopped 50 ms a second");
	int64_t tfs[] = {100000, 1000000};
	for (int t = 0; t < 2; t++) {
		int64_t tf = tfs[t];
		int nb = quick ? 3 : 10;
		uint32_t frames = (uint32_t)((quick ? 300000000LL : 2000000000LL) / tf);
		if (frames > 10000)
			frames = 10000;
		for (size_t i = 0; i < NM; i++)
			hist_init(&methods[i].all);
		rt_self();
		for (size_t i = 0; i < NM; i++)
			if (methods[i].kind == K_ENGINE) {
				engine_up(&methods[i], tb, tf);
				struct hist warm;
				hist_init(&warm);
				run_engine_periods(&methods[i], tf, frames / 4, &warm); /* the predictor learns */
			}
		for (int b = 0; b < nb; b++)
			for (size_t k = 0; k < NM; k++) {
				struct method *m = &methods[(k + (size_t)b) % NM];
				run_block(m, tb, tf, frames, &m->b[b]);
			}
		rt_off();
		for (size_t i = 0; i < NM; i++)
			if (methods[i].e)
				engine_down(&methods[i]);
		report(tf, nb, svg);
		if (g_read_ns > 0 && methods[1].ok)
			printf("  engine (max of 32) p50 / clock read cost: %.2fx\n",
			       (double)hist_quantile(&methods[1].all, 0.5) / g_read_ns);
	}
	if (qos >= 0)
		close(qos);
	rt_restore();
}
