/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Benchmarks of the frame engine. Figures and ratios against baselines run
 * side by side in the same run on the same CPU; nothing here passes or fails
 * on a time.
 *
 *   clock     cost of a clock read: clock_gettime(CLOCK_TAI / REALTIME) and
 *             the engine's fast clock (TSC mapped onto the CTR)
 *   start     frame-start error at TF 100 us and 1 ms, fairly (bench_start.c):
 *             the engine with each predictor, spin, clock_nanosleep and
 *             cyclictest interleaved in blocks under the same PM QoS, with
 *             ratios and their spread, and the CPU-against-p99.9 frontier
 *   datapath  Mpps per core: classify+enqueue (RX), dequeue+push (engine),
 *             against a plain rx_burst->tx_burst loop; the flows' curve from
 *             10 to 10^6 flows (--flows N: that row alone, nothing else)
 *   frame     per-frame engine cost for k 10..10^6 and 10..10^4 flows
 *   tick      the bc635 simulator's tick path against the timer path and
 *             cyclictest, under the same fair conditions as start
 *   stamps    what a pipelined flow's due check and a hop stamp cost
 *
 * usage: bench_engine [clock|start|datapath|frame|tick|stamps]... [--cpu N] [--quick] [--svg PREFIX]
 *                     [--flows N]
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_lpm.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "../sim/dpdk_env.h"
#include "../unit/pktgen.h"
#include "engine.h"
#include "hist.h"
#include "pkt.h"
#include "probe_pkt.h"
#include "stamp.h"
#include "route.h"
#include "rx.h"
#include "tdp_sched.h"
#include "tb_bc635.h"
#include "tb_sim.h"
#include "tb_system.h"

#include "bench.h"
#include "bench_fair.h"

/* ---- clock read cost ----------------------------------------------------- */

static double read_cost(clockid_t id)
{
	struct timespec ts;
	double best = 1e9;
	for (int r = 0; r < 5; r++) {
		int64_t t0 = mono();
		for (int i = 0; i < 200000; i++)
			clock_gettime(id, &ts);
		double c = (double)(mono() - t0) / 200000;
		if (c < best)
			best = c;
	}
	return best;
}

static double fast_cost(struct timebase *tb)
{
	double best = 1e9;
	/* unsigned: 200,000 times today's ns overflows a signed sum */
	volatile uint64_t sink = 0;
	for (int r = 0; r < 5; r++) {
		int64_t t0 = mono();
		for (int i = 0; i < 200000; i++)
			sink += (uint64_t)tb_fast_now(tb).ns;
		double c = (double)(mono() - t0) / 200000;
		if (c < best)
			best = c;
	}
	(void)sink;
	return best;
}

static void bench_clock(struct timebase *tb)
{
	double tai = read_cost(CLOCK_TAI), rt = read_cost(CLOCK_REALTIME),
	       mono_c = read_cost(CLOCK_MONOTONIC);
	double fast = fast_cost(tb);
	g_read_ns = fast;
	printf("\n== clock read cost (best of 5 x 200000 reads)\n");
	printf("  clock_gettime(CLOCK_TAI)        %6.1f ns\n", tai);
	printf("  clock_gettime(CLOCK_REALTIME)   %6.1f ns\n", rt);
	printf("  clock_gettime(CLOCK_MONOTONIC)  %6.1f ns\n", mono_c);
	printf("  engine fast clock (TSC -> CTR)  %6.1f ns   (%.2fx CLOCK_TAI)\n", fast,
	       fast / tai);
}

/* ---- pipelined flows and hop stamps ------------------------------------------ */

/*
 * One frame of 1024 probe packets of one flow, staged and pushed by engine_step
 * on the sim clock: served in order, pipelined (each packet's due frame
 * checked), and pipelined with a hop stamp written into each just before the
 * push. The differences per packet are what the due check and the stamp cost.
 */
static double stamp_round(const char *flowopts, bool piped, uint32_t rounds)
{
	char txt[512];
	snprintf(txt, sizeof(txt),
		 "tdp-schedule 1\ntf 1ms\nk 1\nport out rate 100Gbit/s\n"
		 "flow p port out size 200 %s dscp 46 udp-dport 7350\nframes 0: p 1024\n",
		 flowopts);
	static int no;
	char name[32];
	snprintf(name, sizeof(name), "st_out%d", no++);
	struct sched_table *t = table_from(txt);
	struct rte_ring *rx1, *tx1;
	int pout = env_ring_port(name, &rx1, &tx1);
	struct timebase *tb = tb_sim_new(tdp_time(1000 * TDP_NS_PER_S), 1);
	struct eng_port_cfg pc = {.dpdk_port = (uint16_t)pout, .overhead = 24};
	struct eng_config c = {
		.t = t,
		.tb = tb,
		.late = LATE_DROP,
		.flow_depth = 2048,
		.be_depth = 64,
		.ports = &pc,
		.node_id = 7,
		.pw = {.spin_below_ns = 0, .min_sleep_ns = 1000, .window = 4, .decay_pct = 90}};
	char err[160];
	struct engine *e = engine_create(&c, err, sizeof(err));
	static struct probe_tmpl tm;
	struct probe_addr a = {.family = 4,
			       .sport = PROBE_DEFAULT_PORT,
			       .dport = PROBE_DEFAULT_PORT,
			       .ttl = 64,
			       .vlan = -1,
			       .dscp = 46};
	struct probe_hdr h = {.kind = PROBE_K_PROBE, .flow = 0, .tf_ns = 1000000};
	probe_build(&tm, &a, probe_min_size(4, false) + 4 * PROBE_STAMP_LEN, &h);
	engine_start(e);
	int64_t ns = 0;
	uint64_t pk = 0;
	for (uint32_t r = 0; r < rounds; r++) {
		int64_t j = engine_next_frame(e);
		for (uint32_t i = 0; i < 1024; i++) {
			struct rte_mbuf *m = rte_pktmbuf_alloc(env_pool());
			uint8_t *d = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)tm.len);
			memcpy(d, tm.buf, tm.len);
			probe_stamp(&tm, d, i, j - 1, 0);
			if (piped)
				engine_pkt_set_due(m, j);
			if (flowq_enqueue(engine_flow_rx(e, 0), &m, 1) != 1)
				rte_pktmbuf_free(m);
		}
		int64_t t0 = thread_cpu();
		engine_step(e);
		ns += thread_cpu() - t0;
		pk += rte_ring_count(tx1);
		env_drain(tx1);
	}
	struct flow_stats fs;
	engine_flow_stats(e, 0, &fs);
	if (fs.sent != pk || (strstr(flowopts, "stamp") && fs.stamped != pk))
		printf("  (!) %s: %" PRIu64 " pushed, %" PRIu64 " sent, %" PRIu64 " stamped\n",
		       flowopts, pk, fs.sent, fs.stamped);
	engine_destroy(e);
	tb->ops->destroy(tb);
	sched_free(t);
	return (double)ns / (double)pk;
}

static void bench_stamps(void)
{
	uint32_t rounds = quick ? 100 : 1000;
	double best[3] = {1e18, 1e18, 1e18};
	rt_self();
	for (int rep = 0; rep < 3; rep++) {
		double x[3] = {stamp_round("", false, rounds), stamp_round("alpha 1", true, rounds),
			       stamp_round("alpha 1 stamp", true, rounds)};
		for (int i = 0; i < 3; i++)
			if (x[i] < best[i])
				best[i] = x[i];
	}
	/* the two halves: finding the slot (while staging) and writing it (after the wait, before the push) */
	static struct probe_tmpl tm;
	struct probe_addr a = {.family = 4,
			       .sport = PROBE_DEFAULT_PORT,
			       .dport = PROBE_DEFAULT_PORT,
			       .ttl = 64,
			       .vlan = -1};
	struct probe_hdr h = {.kind = PROBE_K_PROBE, .tf_ns = 1000000};
	probe_build(&tm, &a, probe_min_size(4, false) + 4 * PROBE_STAMP_LEN, &h);
	static uint8_t buf[1024][256];
	static struct stamp_slot sl[1024];
	double loc = 1e18, wr = 1e18;
	for (int rep = 0; rep < 20; rep++) {
		for (int i = 0; i < 1024; i++)
			memcpy(buf[i], tm.buf, tm.len);
		int64_t t0 = thread_cpu();
		for (int i = 0; i < 1024; i++)
			stamp_locate(buf[i], tm.len, &sl[i]);
		int64_t t1 = thread_cpu();
		for (int i = 0; i < 1024; i++)
			stamp_write(&sl[i], 7, 1000 + i, 250);
		int64_t t2 = thread_cpu();
		if ((double)(t1 - t0) / 1024 < loc)
			loc = (double)(t1 - t0) / 1024;
		if ((double)(t2 - t1) / 1024 < wr)
			wr = (double)(t2 - t1) / 1024;
	}
	rt_off();
	printf("\n== pipelined flows and hop stamps: one frame of 1024 probes (engine_step, thread "
	       "CPU time; best of 3)\n");
	printf("  served in order                  %7.1f ns per packet\n", best[0]);
	printf("  pipelined (due frame checked)    %7.1f ns per packet   (+%.1f ns)\n", best[1],
	       best[1] - best[0]);
	printf("  pipelined and stamped            %7.1f ns per packet   (+%.1f ns per stamp; "
	       "%.2fx the clock read)\n",
	       best[2], best[2] - best[1], (best[2] - best[1]) / g_read_ns);
	printf("    of which: stamp_locate while staging %5.1f ns; stamp_write after the wait, "
	       "before the push %5.1f ns\n",
	       loc, wr);
}

/* ---- per-frame cost against k and flows ------------------------------------- */

static void bench_frame(void)
{
	uint32_t ks[] = {10, 1000, 100000, 1000000};
	uint32_t fs[] = {10, 1000, 10000};
	static char port_name[] = "p";
	printf("\n== per-frame engine cost (stage + push + fill, empty queues; sim clock), ns per "
	       "frame\n");
	printf("  %10s", "k \\ flows");
	for (int j = 0; j < 3; j++)
		printf(" %10u", fs[j]);
	printf("   (every frame reserves one flow; entries per row stay 1)\n");
	static int no;
	for (int i = 0; i < 4; i++) {
		printf("  %10u", ks[i]);
		for (int j = 0; j < 3; j++) {
			uint32_t k = ks[i], nf = fs[j];
			size_t cap = 200 + (size_t)nf * 96;
			char *txt = malloc(cap);
			/* TF = 1 s / k: the cycle is one second */
			size_t n = (size_t)snprintf(
				txt, cap, "tdp-schedule 1\ntf %uns\nk %u\nport %s rate 100Gbit/s\n",
				1000000000u / k, k, port_name);
			for (uint32_t f = 0; f < nf; f++)
				n += (size_t)snprintf(txt + n, cap - n,
						      "flow f%u port p size 60 udp-dport %u\n", f,
						      f + 1);
			/* flow f owns frames f, f+nf, ... (or shares when nf > k) */
			for (uint32_t f = 0; f < nf; f++) {
				uint32_t first = f % k;
				if (nf <= k)
					n += (size_t)snprintf(txt + n, cap - n,
							      "frames %u-%u/%u: f%u 1\n", first,
							      k - 1, nf, f);
				else if (f < k)
					n += (size_t)snprintf(txt + n, cap - n,
							      "frames %u: f%u 1\n", first, f);
			}
			struct sched_table *t = table_from(txt);
			free(txt);
			char name[32];
			snprintf(name, sizeof(name), "fr%d", no++);
			struct rte_ring *rx, *tx;
			int port = env_ring_port(name, &rx, &tx);
			struct timebase *tb = tb_sim_new(tdp_time(1000 * TDP_NS_PER_S), 1);
			struct eng_port_cfg pc = {.dpdk_port = (uint16_t)port, .overhead = 24};
			struct eng_config c = {
				.t = t,
				.tb = tb,
				.late = LATE_DROP,
				.flow_depth = 4,
				.be_depth = 4,
				.ports = &pc,
				/* the sim clock sleeps to the boundary: only the work is timed */
				.pw = {.spin_below_ns = 0,
				       .min_sleep_ns = 0,
				       .window = 4,
				       .decay_pct = 90}};
			char err[128];
			struct engine *e = engine_create(&c, err, sizeof(err));
			engine_start(e);
			uint32_t steps = quick ? 50000 : 200000;
			for (uint32_t s = 0; s < 1000; s++)
				engine_step(e);
			int64_t t0 = mono();
			for (uint32_t s = 0; s < steps; s++)
				engine_step(e);
			double per = (double)(mono() - t0) / steps;
			printf(" %10.1f", per);
			fflush(stdout);
			engine_destroy(e);
			rte_eth_dev_stop((uint16_t)port);
			tb->ops->destroy(tb);
			sched_free(t);
		}
		printf("\n");
	}
}

/* The tick-driven path (the bc635 simulator's heartbeat interrupt on an
 * eventfd, edges from a thread sleeping to each) against the timer path, same
 * engine, same histograms, interleaved in blocks with cyclictest under the
 * same conditions (bench_fair.h). */
static void bench_tick(void)
{
	int64_t tfs[] = {1000000, 100000};
	fair_begin();
	for (int i = 0; i < 2; i++) {
		int64_t tf = tfs[i];
		struct tb_params p = {.clock = HC_CLOCK_AUTO,
				      .utc_tai_offset_s = 37,
				      .fast = HC_FAST_AUTO,
				      .tf_ns = tf};
		tb_sync_params_defaults(&p.sync);
		struct timebase *bc, *sys;
		char err[256];
		if (timebase_find("bc635-sim")->create(&bc, &p, err, sizeof(err)) != 0) {
			printf("\n== tick path: bc635-sim: %s\n", err);
			break;
		}
		if (timebase_find("system")->create(&sys, &p, err, sizeof(err)) != 0) {
			printf("\n== tick path: system: %s\n", err);
			bc->ops->destroy(bc);
			break;
		}
		struct method ms[] = {
			{.name = "timer path (system)", .kind = K_ENGINE, .window = 32, .tb = sys},
			{.name = "tick path (bc635-sim)", .kind = K_ENGINE, .window = 32, .tb = bc},
			{.name = "cyclictest", .kind = K_CYCLICTEST},
		};
		int nb = quick ? 3 : 10;
		uint32_t frames = (uint32_t)((quick ? 300000000LL : 2000000000LL) / tf);
		if (frames > 10000)
			frames = 10000;
		printf("\n== tick path (bc635 simulator heartbeat) against timer path at TF "
		       "%" PRId64 " us\n",
		       tf / 1000);
		fair_run(ms, 3, sys, tf, nb, frames);
		fair_report(ms, 3, tf, nb);
		bc->ops->destroy(bc);
		sys->ops->destroy(sys);
	}
	fair_end();
}

static void usage(FILE *to)
{
	fprintf(to,
		"usage: bench_engine [clock|start|datapath|frame|tick|stamps]... [--cpu N] "
		"[--quick] [--svg PREFIX] [--flows N]\n"
		"  clock     cost of a clock read\n"
		"  start     frame-start error against spin, clock_nanosleep and cyclictest\n"
		"  datapath  RX and the engine against l2fwd- and l3fwd-style loops; the flows' "
		"curve\n"
		"            from 10 to 10^6 flows (--flows N: that row alone)\n"
		"  frame     the engine's cost a frame against k and flows\n"
		"  tick      the bc635 simulator's tick path\n"
		"  stamps    a pipelined flow's due check and a hop stamp\n"
		"With no benchmark named, all of them. Figures only: nothing passes or fails on a "
		"time.\n");
}

/* A positive count from text, or 0 when it is not one. */
static uint32_t count_of(const char *t)
{
	char *end;
	unsigned long v = strtoul(t, &end, 10);
	return *t >= '0' && *t <= '9' && !*end && v <= UINT32_MAX ? (uint32_t)v : 0;
}

/* The benchmarks asked for (each of want[], all when none is named), the
 * options into their globals: -1 to run them, else the exit status. */
static int parse_args(int argc, char **argv, bool want[6], const char **svg, uint32_t *flows_only)
{
	static const char *const names[6] = {"clock", "start", "datapath",
					     "frame", "tick",  "stamps"};
	bool any = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool valued = !strcmp(a, "--cpu") || !strcmp(a, "--svg") || !strcmp(a, "--flows");
		if (valued && i + 1 == argc) {
			fprintf(stderr, "bench: %s: needs a value\n", a);
			return 2;
		}
		int j = 0;
		if (!strcmp(a, "--cpu")) {
			const char *v = argv[++i];
			char *end;
			long n = strtol(v, &end, 10);
			if (*v < '0' || *v > '9' || *end || n >= CPU_SETSIZE) {
				fprintf(stderr, "bench: --cpu %s: not a CPU number\n", v);
				return 2;
			}
			cpu = (int)n;
		} else if (!strcmp(a, "--quick")) {
			quick = true;
		} else if (!strcmp(a, "--svg")) {
			*svg = argv[++i];
		} else if (!strcmp(a, "--flows")) {
			*flows_only = count_of(argv[++i]);
			if (!*flows_only) {
				fprintf(stderr, "bench: --flows %s: not a count of flows\n",
					argv[i]);
				return 2;
			}
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 0;
		} else {
			while (j < 6 && strcmp(a, names[j]))
				j++;
			if (j == 6) {
				fprintf(stderr, "bench: %s: not a benchmark or an option\n", a);
				usage(stderr);
				return 2;
			}
			want[j] = any = true;
		}
	}
	for (int j = 0; !any && j < 6; j++)
		want[j] = true;
	return -1;
}

int main(int argc, char **argv)
{
	bool want[6] = {false, false, false, false, false, false};
	const char *svg = NULL;
	uint32_t flows_only = 0;
	int rc = parse_args(argc, argv, want, &svg, &flows_only);
	if (rc >= 0)
		return rc;
	bool huge;
	if (env_eal_init_huge(&huge) != 0) {
		fprintf(stderr, "bench: EAL init failed\n");
		return 1;
	}
	mlockall(MCL_CURRENT | MCL_FUTURE);
	struct timebase *tb;
	char err[128];
	struct tb_params p = {.clock = HC_CLOCK_AUTO, .utc_tai_offset_s = 37, .fast = HC_FAST_AUTO};
	if (timebase_find("system")->create(&tb, &p, err, sizeof(err)) != 0) {
		fprintf(stderr, "bench: %s\n", err);
		return 1;
	}
	char desc[256];
	tb->ops->describe(tb, desc, sizeof(desc));
	printf("tdpd engine benchmarks; timebase: %s\n", desc);
	printf("DPDK memory: %s\n",
	       huge ? "2 MiB hugepages, as tdpd uses them where they are free"
		    : "4 KiB pages (fewer than 256 hugepages free, or no hugetlbfs mounted; for "
		      "the figures tdpd has on hugepages: echo 256 > /proc/sys/vm/nr_hugepages, "
		      "and "
		      "mount -t hugetlbfs nodev /dev/hugepages)");
	bench_clock(tb); /* the ratios below need the read cost */
	if (want[1])
		bench_start(tb, svg);
	if (want[4])
		bench_tick();
	if (want[2] && flows_only) {
		bench_flows_curve(NULL, flows_only);
	} else if (want[2]) {
		bench_datapath();
		bench_flows_curve(svg, 0);
		bench_rx_piped(tb);
	}
	if (want[3])
		bench_frame();
	if (want[5])
		bench_stamps();
	tb->ops->destroy(tb);
	return 0;
}
