/* SPDX-License-Identifier: BSD-3-Clause */
/* Fair runs of frame-timing methods (bench_fair.h). */
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_ethdev.h>
#include <rte_ring.h>

#include "../sim/dpdk_env.h"
#include "bench_fair.h"
#include "engine.h"

/* ---- the run's conditions ---------------------------------------------------- */

static int qos_fd = -1;
static char
	rt_was[32]; /* sched_rt_runtime_us as found, put back at the end or on an exit on the way */

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

void fair_begin(void)
{
	/* the same PM QoS for every method, held for the whole run */
	qos_fd = open("/dev/cpu_dma_latency", O_WRONLY | O_CLOEXEC);
	int32_t zero = 0;
	bool held = qos_fd >= 0 && write(qos_fd, &zero, sizeof(zero)) == (ssize_t)sizeof(zero);
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
	rt = was[0] ? fopen("/proc/sys/kernel/sched_rt_runtime_us", "w")
		    : NULL; /* only what can be put back */
	bool unthrottled = rt && fputs("-1\n", rt) >= 0;
	if (rt && fclose(rt) != 0)
		unthrottled = false;
	if (unthrottled) {
		static bool registered;
		snprintf(rt_was, sizeof(rt_was), "%s", was);
		if (!registered)
			atexit(rt_restore);
		registered = true;
	}
	printf("\n== fair: /dev/cpu_dma_latency %s and RT throttling %s for every method; methods "
	       "interleaved in "
	       "blocks\n",
	       held ? "held at 0" : "not held (not root?)",
	       unthrottled ? "off" : "on (not root?): polling methods are stopped 50 ms a second");
}

void fair_end(void)
{
	if (qos_fd >= 0)
		close(qos_fd);
	qos_fd = -1;
	rt_restore();
}

/* ---- the methods ------------------------------------------------------------- */

static void engine_up(struct method *m, struct timebase *tb, int64_t tf)
{
	char txt[512];
	snprintf(txt, sizeof(txt),
		 "tdp-schedule 1\ntf %" PRId64 "ns\nk 10\nport p rate 1Gbit/s\nflow f port p size "
		 "100 udp-dport 1\nframes 0-9: f 1\n",
		 tf);
	m->t = table_from(txt);
	static int no;
	char name[32];
	snprintf(name, sizeof(name), "fair%d", no++);
	struct rte_ring *rx, *tx;
	m->port = env_ring_port(name, &rx, &tx);
	struct eng_port_cfg pc = {.dpdk_port = (uint16_t)m->port, .overhead = 24};
	struct eng_config c = {.t = m->t,
			       .tb = m->tb ? m->tb : tb,
			       .late = LATE_DROP,
			       .flow_depth = 64,
			       .be_depth = 64,
			       .be_poll_ns = 0,
			       .ports = &pc,
			       .pw = {.spin_below_ns = 20000,
				      .min_sleep_ns = 10000,
				      .margin_ns = 2000,
				      .window = m->window,
				      .decay_pct = 95,
				      .book_init_ns = 200,
				      .miss_ppb = m->miss_ppb}};
	char err[128];
	m->e = engine_create(&c, err, sizeof(err));
	if (!m->e) {
		fprintf(stderr, "bench: %s\n", err);
		exit(1);
	}
	m->steps = 0;
}

/* the tick figures, then the engine goes */
static void engine_down(struct method *m)
{
	struct eng_stats es;
	engine_stats(m->e, &es);
	figs_of(engine_tick_hist(m->e), &m->tick);
	m->tick_share = m->steps ? (double)es.ticks / (double)m->steps : 0;
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
		m->steps++;
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

static void run_block(struct method *m, struct timebase *tb, int64_t tf, uint32_t frames,
		      struct figs *out)
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

/* ---- the clock sources' refresh, as tdpd's housekeeping thread --------------- */

#define MAX_TB 8

struct refresher {
	struct timebase *tb[MAX_TB];
	int ntb;
	atomic_int stop;
	pthread_t th;
};

static void *refresher_run(void *arg)
{
	struct refresher *r = arg;
	/* on another CPU than the methods' */
	if (sysconf(_SC_NPROCESSORS_ONLN) > 1) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(cpu == 0 ? 1 : 0, &set);
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	int64_t next[MAX_TB];
	for (int i = 0; i < r->ntb; i++)
		next[i] = mono() + 100000000;
	while (!atomic_load(&r->stop)) {
		for (int i = 0; i < r->ntb; i++)
			if (mono() >= next[i] || tb_refresh_asked(r->tb[i])) {
				tb_refresh(r->tb[i]);
				next[i] = mono() + 100000000;
			}
		struct timespec ts = {0, 10000000};
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static void refresher_add(struct refresher *r, struct timebase *tb)
{
	for (int i = 0; i < r->ntb; i++)
		if (r->tb[i] == tb)
			return;
	if (r->ntb < MAX_TB)
		r->tb[r->ntb++] = tb;
}

void fair_run(struct method *ms, size_t n, struct timebase *tb, int64_t tf, int nb, uint32_t frames)
{
	struct refresher rf = {.ntb = 0};
	refresher_add(&rf, tb);
	for (size_t i = 0; i < n; i++) {
		hist_init(&ms[i].all);
		ms[i].ok = false;
		if (ms[i].tb)
			refresher_add(&rf, ms[i].tb);
	}
	bool refreshing = pthread_create(&rf.th, NULL, refresher_run, &rf) == 0;
	rt_self();
	for (size_t i = 0; i < n; i++)
		if (ms[i].kind == K_ENGINE) {
			engine_up(&ms[i], tb, tf);
			struct hist warm;
			hist_init(&warm);
			run_engine_periods(&ms[i], tf, frames / 4,
					   &warm); /* the predictor learns */
		}
	for (int b = 0; b < nb; b++)
		for (size_t k = 0; k < n; k++) {
			struct method *m = &ms[(k + (size_t)b) % n];
			run_block(m, tb, tf, frames, &m->b[b]);
		}
	rt_off();
	for (size_t i = 0; i < n; i++)
		if (ms[i].e)
			engine_down(&ms[i]);
	if (refreshing) {
		atomic_store(&rf.stop, 1);
		pthread_join(rf.th, NULL);
	}
}

/* ---- the report -------------------------------------------------------------- */

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
	return which == 0   ? (double)f->p50
	       : which == 1 ? (double)f->p99
	       : which == 2 ? (double)f->p999
			    : (double)f->max;
}

double fair_cpu(const struct method *m, int nb)
{
	double v[FAIR_MAXB], s[3];
	for (int b = 0; b < nb; b++)
		v[b] = m->b[b].duty;
	spread(v, nb, s);
	return s[0];
}

void fair_report(const struct method *ms, size_t n, int64_t tf, int nb)
{
	printf("\n== frame-start error at TF %" PRId64
	       " us, CPU %d, SCHED_FIFO 80, %d blocks (ns: all blocks' periods "
	       "together [min, max over blocks]; cyclictest in 1 us bins)\n",
	       tf / 1000, cpu, nb);
	printf("  %-22s %9s %22s %22s %22s %10s %7s\n", "", "periods", "p50", "p99", "p99.9", "max",
	       "CPU");
	const struct method *cyc = NULL;
	for (size_t i = 0; i < n; i++) {
		const struct method *m = &ms[i];
		if (m->kind == K_CYCLICTEST)
			cyc = m->ok ? m : NULL;
		if (!m->ok) {
			printf("  %-22s (could not run: is rt-tests installed, and are we root?)\n",
			       m->name);
			continue;
		}
		double v[FAIR_MAXB], s[3][3];
		uint64_t periods = 0;
		for (int w = 0; w < 3; w++) {
			for (int b = 0; b < nb; b++)
				v[b] = pick(&m->b[b], w);
			spread(v, nb, s[w]);
		}
		for (int b = 0; b < nb; b++)
			periods += m->b[b].n;
		struct figs all;
		figs_of(&m->all, &all);
		printf("  %-22s %9" PRIu64, m->name, periods);
		for (int w = 0; w < 3; w++)
			printf(" %7.0f [%5.0f, %6.0f]", pick(&all, w), s[w][1], s[w][2]);
		printf(" %10" PRId64 " %6.1f%%\n", all.max, 100 * fair_cpu(m, nb));
	}
	for (size_t i = 0; i < n; i++)
		if (ms[i].kind == K_ENGINE && ms[i].tick.n)
			printf("  %-22s tick latency (tick taken - its frame start): p50 %" PRId64
			       " p99 %" PRId64 " p99.9 %" PRId64 " max %" PRId64
			       "; %.1f%% of frames had their tick\n",
			       ms[i].name, ms[i].tick.p50, ms[i].tick.p99, ms[i].tick.p999,
			       ms[i].tick.max, 100 * ms[i].tick_share);
	if (!cyc)
		return;
	struct figs call;
	figs_of(&cyc->all, &call);
	printf("  against cyclictest: all periods together (per-block ratios: median [min, "
	       "max])\n");
	printf("  %-22s %33s %33s %33s\n", "", "p50", "p99", "p99.9");
	for (size_t i = 0; i < n; i++) {
		const struct method *m = &ms[i];
		if (m->kind == K_CYCLICTEST || !m->ok)
			continue;
		printf("  %-22s", m->name);
		for (int w = 0; w < 3; w++) {
			double v[FAIR_MAXB], s[3];
			int k = 0;
			for (int b = 0; b < nb; b++)
				if (pick(&cyc->b[b], w) > 0)
					v[k++] = pick(&m->b[b], w) / pick(&cyc->b[b], w);
			if (!k) {
				printf(" %33s", "(cyclictest 0 us)");
				continue;
			}
			spread(v, k, s);
			struct figs mall;
			figs_of(&m->all, &mall);
			printf("  %7.3gx (%7.3g [%7.3g, %7.3g])",
			       pick(&call, w) > 0 ? pick(&mall, w) / pick(&call, w) : 0, s[0], s[1],
			       s[2]);
		}
		printf("\n");
	}
}
