/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tdp-probe recv: receives on one interface, timestamps each frame (hardware,
 * kernel software or user space; it says which), and accounts every probe by
 * its absolute frame index. Coalescing goes off on the interface and comes back
 * at exit; the receiving thread is pinned and SCHED_FIFO.
 */
#include <errno.h>
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

struct recv_opts {
	struct probe_acct acct;
	const char *ifname, *ready;
	uint64_t count, dur, ends;
	int want; /* enum probe_ts_want */
	bool ignore_end, keepc, no_live;
	int cpu, prio;
};

static const char *const ts_words[] = {"auto", "hardware", "software", "user", NULL};

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

/* Probes from fd into rx until stopped, the count, the end packets or the
 * duration, each with the best timestamp it came with; a line a second on
 * stderr unless --no-live. */
static void recv_run(const struct recv_opts *o, int fd, struct probe_rx *rx,
		     const struct probe_tsinfo *ti, struct hostclock *clk, int64_t rt_off,
		     struct probe_rxbatch *b)
{
	tdp_time_t t0 = hostclock_now(clk), next_live = tdp_time_add(t0, TDP_NS_PER_S);
	while (!probe_stop) {
		int n = probe_recv_batch(fd, b, 100);
		tdp_time_t now = hostclock_now(clk);
		if (n < 0) {
			fprintf(stderr, "tdp-probe: receive: %s\n", strerror(-n));
			break;
		}
		for (int k = 0; k < n; k++) {
			if (b->outgoing[k])
				continue;
			int64_t t2;
			enum probe_ts src = ti->got;
			if (src == PROBE_TS_HW && b->ts_hw[k])
				t2 = b->ts_hw[k];
			else if (src != PROBE_TS_USER && b->ts_sw[k])
				t2 = b->ts_sw[k] + rt_off, src = PROBE_TS_SW;
			else
				t2 = now.ns, src = PROBE_TS_USER;
			uint32_t len = b->len[k] > PROBE_RXBUF ? PROBE_RXBUF : b->len[k];
			probe_rx_packet(rx, b->buf[k], len, t2, src);
		}
		if (o->count && rx->probes >= o->count)
			break;
		if (!o->ignore_end && probe_rx_ended(rx) >= o->ends)
			break;
		if (o->dur && tdp_time_diff(now, t0) >= (int64_t)o->dur)
			break;
		if (!tdp_time_before(now, next_live)) {
			if (!o->no_live) {
				char line[320];
				probe_rx_line(rx, line, sizeof(line),
					      (double)tdp_time_diff(now, t0) / 1e9);
				fprintf(stderr, "%s\n", line);
			}
			next_live = tdp_time_add(next_live, TDP_NS_PER_S);
			if (tdp_time_before(next_live, now))
				next_live = tdp_time_add(now, TDP_NS_PER_S);
		}
	}
}

/* The command line into o and rx's accounting: -1 to go on, else the exit
 * status (said). */
static int recv_args(int argc, char **argv, struct recv_opts *o, struct probe_rx *rx)
{
#define RO(f) offsetof(struct recv_opts, f)
	static const struct probe_opt opts[] = {
		{PO_ROW("interface", 'i', PO_STR, RO(ifname))},
		PROBE_ACCT_ROWS(struct recv_opts, acct),
		{PO_ROW("timestamps", 0, PO_WORD, RO(want)), .words = ts_words},
		{PO_ROW("count", 0, PO_UINT, RO(count)), .min = 1, .max = UINT64_MAX},
		{PO_ROW("duration", 0, PO_TIME, RO(dur))},
		{PO_ROW("ignore-end", 0, PO_FLAG, RO(ignore_end))},
		{PO_ROW("ends", 0, PO_UINT, RO(ends)), .min = 1, .max = PROBE_MAX_FLOWS},
		{PO_ROW("keep-coalescing", 0, PO_FLAG, RO(keepc))},
		{PO_ROW("cpu", 0, PO_INT, RO(cpu)), .max = 4095},
		{PO_ROW("prio", 0, PO_INT, RO(prio)), .max = 99},
		{PO_ROW("ready", 0, PO_STR, RO(ready))},
		{PO_ROW("no-live", 0, PO_FLAG, RO(no_live))},
		{PO_ROW("verbose", 'v', PO_VERBOSE, 0)},
		{PO_ROW("quiet", 'q', PO_QUIET, 0)},
		{PO_ROW("help", 'h', PO_HELP, 0)},
		{.name = NULL},
	};
#undef RO
	int bad = probe_cmd_args(opts, o, argc, argv, "recv", recv_usage, false);
	if (bad == 1)
		return 0;
	if (!bad && !o->ifname)
		bad = probe_cmd_bad("recv", "give the interface with -i IF");
	if (!bad && probe_acct_init(rx, &o->acct))
		bad = 1;
	if (bad) {
		fprintf(stderr, "Try 'tdp-probe recv --help'.\n");
		return 2;
	}
	return -1;
}

/* Interrupt coalescing off on the interface (unless --keep-coalescing), as
 * said in coal, saved in cs to restore. */
static void recv_coalescing(const struct recv_opts *o, const char *ifname,
			    struct coalesce_saved *cs, char *coal, size_t len)
{
	if (o->keepc)
		return;
	int r = coalesce_off(ifname, cs);
	coalesce_describe(cs, r, coal, len);
	if (r && r != -EOPNOTSUPP)
		log_warn("interrupt coalescing: %s; arrivals may be batched and delayed", coal);
	else
		log_info("interrupt coalescing: %s", coal);
}

/* The receiving thread's CPU and priority (rp to release), as said in rtdesc. */
static void recv_rt(struct recv_opts *o, struct rt_process *rp, char *rtdesc, size_t len)
{
	if (o->cpu == -2) {
		/* the sender takes the last CPU by default; keep out of its way on a shared box */
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		o->cpu = n > 1 ? (int)n - 2 : 0;
	}
	rt_process_setup(rp, true, true);
	unsigned w = rt_thread_setup("receiver", o->cpu, o->prio);
	snprintf(rtdesc, len, "CPU %d, %s %d%s", o->cpu, o->prio ? "SCHED_FIFO" : "SCHED_OTHER",
		 o->prio, w ? " (with warnings)" : "");
}

/* What was received, with how: 0, or 1 when the report could not be written. */
static int recv_report(const struct recv_opts *o, const struct probe_rx *rx,
		       const struct probe_tsinfo *ti, const char *ifname, const char *coal,
		       const char *rtdesc)
{
	char where[64];
	snprintf(where, sizeof(where), "%s", ifname);
	const char *tsn = probe_ts_name(ti->got);
	if (rx->ts[PROBE_TS_USER] && ti->got != PROBE_TS_USER) {
		log_warn("%" PRIu64
			 " frames came without a kernel timestamp and were stamped in user space",
			 rx->ts[PROBE_TS_USER]);
		tsn = "mixed";
	}
	struct probe_meta m = {.label = o->acct.label,
			       .source = "recv",
			       .where = where,
			       .timestamps = tsn,
			       .coalescing = coal,
			       .rt = rtdesc};
	fprintf(o->acct.json && !strcmp(o->acct.json, "-") ? stderr : stdout, "timestamps: %s\n",
		ti->why);
	return probe_finish(rx, &m, o->acct.json, o->acct.csv) ? 1 : 0;
}

int probe_cmd_recv(int argc, char **argv)
{
	struct recv_opts o = {.acct = PROBE_ACCT_DEFAULTS,
			      .ends = 1,
			      .want = PROBE_WANT_AUTO,
			      .cpu = -2,
			      .prio = 70};
	static struct probe_rx rx;
	int rc = recv_args(argc, argv, &o, &rx);
	if (rc >= 0)
		return rc;
	rc = 1;
	int fd = -1;
	char err[256];
	struct probe_if pi;
	struct probe_tsinfo ti = {.phc = -1};
	struct coalesce_saved cs = {0};
	struct hostclock clk;
	struct rt_process rp = {.dma_fd = -1};
	static struct probe_rxbatch b;
	char coal[200] = "left alone", rtdesc[96];
	if (probe_if_get(o.ifname, &pi, err, sizeof(err)) ||
	    (fd = probe_rx_open(&pi, err, sizeof(err))) < 0) {
		fprintf(stderr, "tdp-probe: %s\n", err);
		goto out;
	}
	if (probe_ts_setup(fd, &pi, o.want, &ti)) {
		fprintf(stderr, "tdp-probe: timestamps: %s\n", ti.why);
		rc = 2;
		goto out;
	}
	log_notice("timestamps: %s", ti.why);
	recv_coalescing(&o, pi.name, &cs, coal, sizeof(coal));
	if (hostclock_init(&clk, HC_CLOCK_AUTO, HC_UTC_TAI_DEFAULT_S, HC_FAST_AUTO, err,
			   sizeof(err))) {
		fprintf(stderr, "tdp-probe: clock: %s\n", err);
		goto out;
	}
	int64_t rt_off = probe_realtime_offset(&clk);
	recv_rt(&o, &rp, rtdesc, sizeof(rtdesc));
	probe_on_signals();
	if (o.ready) {
		FILE *rf = fopen(o.ready, "w");
		if (!rf || fclose(rf))
			log_warn("--ready %s: %s; whoever waits for it will not start", o.ready,
				 strerror(errno));
	}
	log_notice("receiving on %s, UDP port %" PRIu64 ", bins of %" PRIu64 " ns up to %" PRIu64
		   " ns",
		   pi.name, o.acct.port, o.acct.bin, o.acct.range);
	recv_run(&o, fd, &rx, &ti, &clk, rt_off, &b);
	rc = recv_report(&o, &rx, &ti, pi.name, coal, rtdesc);
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
