/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tdp-probe recv: receives on one interface, timestamps each frame (hardware,
 * kernel software or user space; it says which), and accounts every probe by
 * its absolute frame index. Coalescing goes off on the interface and comes back
 * at exit; the receiving thread is pinned and SCHED_FIFO.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "coalesce.h"
#include "log.h"
#include "probe_net.h"
#include "rt.h"
#include "tdp_probe.h"
#include "hostclock.h"

static void recv_usage(FILE *o)
{
	fprintf(o,
		"usage: tdp-probe recv -i IF [options]\n"
		"Receives probes, computes L = t2 - start(frame) from each probe's absolute frame "
		"index,\n"
		"counts lost, duplicated, reordered and out-of-frame probes, and reports "
		"percentiles.\n"
		"Stops at the sender's end packet, after --count or --duration, or on Ctrl-C.\n\n"
		"  -i, --interface IF     receive on this interface\n"
		"      --port N           UDP port of the probes (default 7350; 0: any)\n"
		"      --timestamps KIND  auto (default), hardware, software or user\n"
		"      --bin TIME         histogram bin (default 1us)\n"
		"      --range TIME       histogram range, counted as overflow above (default "
		"100ms)\n"
		"      --series TIME      time-series bucket (default 10ms; widened to keep 2048 "
		"buckets)\n"
		"      --alpha LIST       the plan's alpha per hop (tdpctl plan prints it, e.g. "
		"2,1,1): each\n"
		"                         probe's hop stamps are checked against it, hop by hop\n"
		"      --frame-delay N    frames a probe is expected to take (default 0); out of "
		"frame is\n"
		"                         L outside [N*TF, (N+1)*TF)\n"
		"      --count N          stop after N probes\n"
		"      --duration TIME    stop after this long\n"
		"      --ignore-end       keep going after the sender's end packet\n"
		"      --ends N           stop once N flows have sent their end packet (default "
		"1)\n"
		"      --json FILE        results as JSON ('-' for stdout)\n"
		"      --csv FILE         one line per probe\n"
		"      --label TEXT       name of this run in reports\n"
		"      --keep-coalescing  leave the interface's interrupt coalescing alone\n"
		"      --cpu N            pin the receiving thread (default: the CPU before the "
		"last)\n"
		"      --prio N           SCHED_FIFO priority (default 70; 0 keeps SCHED_OTHER)\n"
		"      --ready FILE       create FILE once receiving\n"
		"      --no-live          no one-line summary every second\n"
		"  -v, --verbose / -q, --quiet\n");
}

static int write_out(const char *path, const struct probe_rx *rx, const struct probe_meta *m,
		     bool csv)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;
	if (!f) {
		fprintf(stderr, "tdp-probe: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (csv)
		probe_rx_csv(f, rx);
	else
		probe_rx_json(f, rx, m);
	int bad = ferror(f);
	if (f != stdout)
		bad |= fclose(f);
	if (bad)
		fprintf(stderr, "tdp-probe: writing %s failed\n", path);
	return bad ? -1 : 0;
}

int probe_finish(const struct probe_rx *rx, const struct probe_meta *m, const char *json,
		 const char *csv)
{
	bool json_stdout = json && !strcmp(json, "-");
	probe_rx_text(json_stdout ? stderr : stdout, rx);
	int rc = 0;
	if (json && write_out(json, rx, m, false))
		rc = -1;
	if (csv && write_out(csv, rx, m, true))
		rc = -1;
	return rc;
}

int probe_cmd_recv(int argc, char **argv)
{
	enum {
		O_PORT = 256,
		O_TS,
		O_BIN,
		O_RANGE,
		O_SERIES,
		O_DELAY,
		O_ALPHA,
		O_COUNT,
		O_DUR,
		O_IGNORE,
		O_ENDS,
		O_JSON,
		O_CSV,
		O_LABEL,
		O_KEEPC,
		O_CPU,
		O_PRIO,
		O_READY,
		O_NOLIVE
	};
	static const struct option lo[] = {{"interface", 1, 0, 'i'},
					   {"port", 1, 0, O_PORT},
					   {"timestamps", 1, 0, O_TS},
					   {"bin", 1, 0, O_BIN},
					   {"range", 1, 0, O_RANGE},
					   {"series", 1, 0, O_SERIES},
					   {"frame-delay", 1, 0, O_DELAY},
					   {"alpha", 1, 0, O_ALPHA},
					   {"count", 1, 0, O_COUNT},
					   {"duration", 1, 0, O_DUR},
					   {"ignore-end", 0, 0, O_IGNORE},
					   {"ends", 1, 0, O_ENDS},
					   {"json", 1, 0, O_JSON},
					   {"csv", 1, 0, O_CSV},
					   {"label", 1, 0, O_LABEL},
					   {"keep-coalescing", 0, 0, O_KEEPC},
					   {"cpu", 1, 0, O_CPU},
					   {"prio", 1, 0, O_PRIO},
					   {"ready", 1, 0, O_READY},
					   {"no-live", 0, 0, O_NOLIVE},
					   {"verbose", 0, 0, 'v'},
					   {"quiet", 0, 0, 'q'},
					   {"help", 0, 0, 'h'},
					   {0, 0, 0, 0}};
	const char *ifname = NULL, *json = NULL, *csv = NULL, *label = NULL, *ready = NULL;
	uint64_t port = PROBE_DEFAULT_PORT, bin = 1000, range = 100000000, series = 10000000,
		 delay = 0, count = 0, dur = 0, ends = 1, v;
	uint32_t plan[PROBE_MAX_HOPS] = {0}, nplan = 0;
	enum probe_ts_want want = PROBE_WANT_AUTO;
	bool ignore_end = false, keepc = false, live = true;
	int cpu = -2, prio = 70, c, bad = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "i:vqh", lo, NULL)) != -1) {
		switch (c) {
		case 'i':
			ifname = optarg;
			break;
		case O_PORT:
			bad |= probe_opt_uint("--port", optarg, 0, 65535, &port);
			break;
		case O_TS:
			if (!strcmp(optarg, "auto"))
				want = PROBE_WANT_AUTO;
			else if (!strcmp(optarg, "hardware"))
				want = PROBE_WANT_HW;
			else if (!strcmp(optarg, "software"))
				want = PROBE_WANT_SW;
			else if (!strcmp(optarg, "user"))
				want = PROBE_WANT_USER;
			else {
				fprintf(stderr,
					"tdp-probe: --timestamps: '%s' is not auto, hardware, "
					"software or user\n",
					optarg);
				bad = 1;
			}
			break;
		case O_BIN:
			bad |= probe_opt_time("--bin", optarg, &bin);
			break;
		case O_RANGE:
			bad |= probe_opt_time("--range", optarg, &range);
			break;
		case O_SERIES:
			bad |= probe_opt_time("--series", optarg, &series);
			break;
		case O_DELAY:
			bad |= probe_opt_uint("--frame-delay", optarg, 0, 1000000, &delay);
			break;
		case O_ALPHA:
			bad |= probe_opt_alpha("--alpha", optarg, plan, &nplan);
			break;
		case O_COUNT:
			bad |= probe_opt_uint("--count", optarg, 1, UINT64_MAX, &count);
			break;
		case O_DUR:
			bad |= probe_opt_time("--duration", optarg, &dur);
			break;
		case O_IGNORE:
			ignore_end = true;
			break;
		case O_ENDS:
			bad |= probe_opt_uint("--ends", optarg, 1, PROBE_MAX_FLOWS, &ends);
			break;
		case O_JSON:
			json = optarg;
			break;
		case O_CSV:
			csv = optarg;
			break;
		case O_LABEL:
			label = optarg;
			break;
		case O_KEEPC:
			keepc = true;
			break;
		case O_CPU:
			bad |= probe_opt_uint("--cpu", optarg, 0, 4095, &v);
			cpu = (int)v;
			break;
		case O_PRIO:
			bad |= probe_opt_uint("--prio", optarg, 0, 99, &v);
			prio = (int)v;
			break;
		case O_READY:
			ready = optarg;
			break;
		case O_NOLIVE:
			live = false;
			break;
		case 'v':
			tdp_log_level = LOG_DEBUG;
			break;
		case 'q':
			tdp_log_level = LOG_WARNING;
			break;
		case 'h':
			recv_usage(stdout);
			return 0;
		default:
			bad = 1;
		}
	}
	if (!bad && optind < argc) {
		fprintf(stderr, "tdp-probe: recv: unexpected argument '%s'\n", argv[optind]);
		bad = 1;
	}
	if (!bad && !ifname) {
		fprintf(stderr, "tdp-probe: recv: give the interface with -i IF\n");
		bad = 1;
	}
	struct probe_rx_cfg rc_cfg = {.port = (uint16_t)port,
				      .bin_ns = (int64_t)bin,
				      .range_ns = (int64_t)range,
				      .series_ns = (int64_t)series,
				      .delay_frames = (uint32_t)delay,
				      .plan_hops = nplan,
				      .keep_records = csv != NULL};
	memcpy(rc_cfg.plan_alpha, plan, sizeof(plan));
	static struct probe_rx rx;
	if (!bad && probe_rx_init(&rx, &rc_cfg)) {
		fprintf(stderr, "tdp-probe: --range must hold between 1 and %d bins of --bin\n",
			LHIST_MAX_BINS);
		bad = 1;
	}
	if (bad) {
		fprintf(stderr, "Try 'tdp-probe recv --help'.\n");
		return 2;
	}
	int rc = 1, fd = -1;
	char err[256];
	struct probe_if pi;
	struct probe_tsinfo ti = {.phc = -1};
	struct coalesce_saved cs = {0};
	struct hostclock clk;
	struct rt_process rp = {.dma_fd = -1};
	static struct probe_rxbatch b;
	char coal[200] = "left alone";
	if (probe_if_get(ifname, &pi, err, sizeof(err)) ||
	    (fd = probe_rx_open(&pi, err, sizeof(err))) < 0) {
		fprintf(stderr, "tdp-probe: %s\n", err);
		goto out;
	}
	if (probe_ts_setup(fd, &pi, want, &ti)) {
		fprintf(stderr, "tdp-probe: timestamps: %s\n", ti.why);
		rc = 2;
		goto out;
	}
	log_notice("timestamps: %s", ti.why);
	if (!keepc) {
		int r = coalesce_off(pi.name, &cs);
		coalesce_describe(&cs, r, coal, sizeof(coal));
		if (r && r != -EOPNOTSUPP)
			log_warn("interrupt coalescing: %s; arrivals may be batched and delayed",
				 coal);
		else
			log_info("interrupt coalescing: %s", coal);
	}
	if (hostclock_init(&clk, HC_CLOCK_AUTO, HC_UTC_TAI_DEFAULT_S, HC_FAST_AUTO, err,
			   sizeof(err))) {
		fprintf(stderr, "tdp-probe: clock: %s\n", err);
		goto out;
	}
	int64_t rt_off = probe_realtime_offset(&clk);
	if (cpu == -2) {
		/* the sender takes the last CPU by default; keep out of its way on a shared box */
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		cpu = n > 1 ? (int)n - 2 : 0;
	}
	rt_process_setup(&rp, true, true);
	unsigned w = rt_thread_setup("receiver", cpu, prio);
	char rtdesc[96];
	snprintf(rtdesc, sizeof(rtdesc), "CPU %d, %s %d%s", cpu,
		 prio ? "SCHED_FIFO" : "SCHED_OTHER", prio, w ? " (with warnings)" : "");
	probe_on_signals();
	if (ready) {
		FILE *rf = fopen(ready, "w");
		if (!rf || fclose(rf))
			log_warn("--ready %s: %s; whoever waits for it will not start", ready,
				 strerror(errno));
	}
	log_notice("receiving on %s, UDP port %" PRIu64 ", bins of %" PRIu64 " ns up to %" PRIu64
		   " ns",
		   pi.name, port, bin, range);
	tdp_time_t t0 = hostclock_now(&clk), next_live = tdp_time_add(t0, TDP_NS_PER_S);
	while (!probe_stop) {
		int n = probe_recv_batch(fd, &b, 100);
		tdp_time_t now = hostclock_now(&clk);
		if (n < 0) {
			fprintf(stderr, "tdp-probe: receive: %s\n", strerror(-n));
			break;
		}
		for (int k = 0; k < n; k++) {
			if (b.outgoing[k])
				continue;
			int64_t t2;
			enum probe_ts src = ti.got;
			if (src == PROBE_TS_HW && b.ts_hw[k])
				t2 = b.ts_hw[k];
			else if (src != PROBE_TS_USER && b.ts_sw[k])
				t2 = b.ts_sw[k] + rt_off, src = PROBE_TS_SW;
			else
				t2 = now.ns, src = PROBE_TS_USER;
			uint32_t len = b.len[k] > PROBE_RXBUF ? PROBE_RXBUF : b.len[k];
			probe_rx_packet(&rx, b.buf[k], len, t2, src);
		}
		if (count && rx.probes >= count)
			break;
		if (!ignore_end && probe_rx_ended(&rx) >= ends)
			break;
		if (dur && tdp_time_diff(now, t0) >= (int64_t)dur)
			break;
		if (!tdp_time_before(now, next_live)) {
			if (live) {
				char line[320];
				probe_rx_line(&rx, line, sizeof(line),
					      (double)tdp_time_diff(now, t0) / 1e9);
				fprintf(stderr, "%s\n", line);
			}
			next_live = tdp_time_add(next_live, TDP_NS_PER_S);
			if (tdp_time_before(next_live, now))
				next_live = tdp_time_add(now, TDP_NS_PER_S);
		}
	}
	char where[64];
	snprintf(where, sizeof(where), "%s", pi.name);
	const char *tsn = probe_ts_name(ti.got);
	if (rx.ts[PROBE_TS_USER] && ti.got != PROBE_TS_USER) {
		log_warn("%" PRIu64
			 " frames came without a kernel timestamp and were stamped in user space",
			 rx.ts[PROBE_TS_USER]);
		tsn = "mixed";
	}
	struct probe_meta m = {.label = label,
			       .source = "recv",
			       .where = where,
			       .timestamps = tsn,
			       .coalescing = coal,
			       .rt = rtdesc};
	fprintf(json && !strcmp(json, "-") ? stderr : stdout, "timestamps: %s\n", ti.why);
	rc = probe_finish(&rx, &m, json, csv) ? 1 : 0;
out:
	rt_process_release(&rp);
	if (fd >= 0) {
		probe_ts_restore(&pi, &ti);
		close(fd);
	}
	if (coalesce_restore(&cs))
		log_warn("could not restore interrupt coalescing on %s", pi.name);
	probe_rx_free(&rx);
	return rc;
}
