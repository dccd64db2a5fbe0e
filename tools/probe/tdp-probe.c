/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tdp-probe: end-to-end latency of time-driven forwarding, measured by frame.
 *   send     probes at frame starts       recv     receive and account them
 *   flood    best-effort load             analyze  the same from a capture
 *   report   pictures and tables from recv/analyze JSON
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "probe_pcap.h"
#include "probe_stats.h"
#include "tdp_probe.h"
#include "tdp_sched.h"
#include "hostclock.h"

static void analyze_usage(FILE *o)
{
	fprintf(o,
		"usage: tdp-probe analyze CAPTURE [options]\n"
		"The receiver's accounting from a pcap or pcapng capture (Ethernet or Linux "
		"cooked),\n"
		"e.g. from tcpdump -j adapter_unsynced --time-stamp-precision nano or a hardware "
		"tap.\n\n"
		"  --clock utc|tai        the capture's clock (default utc, as tcpdump writes it)\n"
		"  --utc-tai-offset S     seconds from UTC to TAI (default: this host's, 37 if it "
		"does not know)\n"
		"  --port N, --bin TIME, --range TIME, --series TIME, --frame-delay N, --alpha "
		"LIST   as for recv\n"
		"  --json FILE, --csv FILE, --label TEXT\n");
}

int probe_cmd_analyze(int argc, char **argv)
{
	enum {
		O_CLOCK = 256,
		O_OFF,
		O_PORT,
		O_BIN,
		O_RANGE,
		O_SERIES,
		O_DELAY,
		O_JSON,
		O_CSV,
		O_LABEL,
		O_ALPHA
	};
	static const struct option lo[] = {{"clock", 1, 0, O_CLOCK},
					   {"utc-tai-offset", 1, 0, O_OFF},
					   {"port", 1, 0, O_PORT},
					   {"bin", 1, 0, O_BIN},
					   {"range", 1, 0, O_RANGE},
					   {"series", 1, 0, O_SERIES},
					   {"frame-delay", 1, 0, O_DELAY},
					   {"alpha", 1, 0, O_ALPHA},
					   {"json", 1, 0, O_JSON},
					   {"csv", 1, 0, O_CSV},
					   {"label", 1, 0, O_LABEL},
					   {"help", 0, 0, 'h'},
					   {0, 0, 0, 0}};
	const char *json = NULL, *csv = NULL, *label = NULL;
	uint64_t port = PROBE_DEFAULT_PORT, bin = 1000, range = 100000000, series = 10000000,
		 delay = 0, off = 0;
	uint32_t plan[PROBE_MAX_HOPS] = {0}, nplan = 0;
	bool tai = false, have_off = false;
	int c, bad = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case O_CLOCK:
			if (!strcmp(optarg, "tai") || !strcmp(optarg, "utc"))
				tai = !strcmp(optarg, "tai");
			else {
				fprintf(stderr, "tdp-probe: --clock: '%s' is not utc or tai\n",
					optarg);
				bad = 1;
			}
			break;
		case O_OFF:
			bad |= probe_opt_uint("--utc-tai-offset", optarg, 0, 1000, &off);
			have_off = true;
			break;
		case O_PORT:
			bad |= probe_opt_uint("--port", optarg, 0, 65535, &port);
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
		case O_JSON:
			json = optarg;
			break;
		case O_CSV:
			csv = optarg;
			break;
		case O_LABEL:
			label = optarg;
			break;
		case 'h':
			analyze_usage(stdout);
			return 0;
		default:
			bad = 1;
		}
	}
	if (!bad && optind != argc - 1) {
		fprintf(stderr, "tdp-probe: analyze: give one capture file\n");
		bad = 1;
	}
	struct probe_rx_cfg cfg = {.port = (uint16_t)port,
				   .bin_ns = (int64_t)bin,
				   .range_ns = (int64_t)range,
				   .series_ns = (int64_t)series,
				   .delay_frames = (uint32_t)delay,
				   .keep_records = csv != NULL,
				   .plan_hops = nplan};
	memcpy(cfg.plan_alpha, plan, sizeof(plan));
	static struct probe_rx rx;
	if (!bad && probe_rx_init(&rx, &cfg)) {
		fprintf(stderr, "tdp-probe: --range must hold between 1 and %d bins of --bin\n",
			LHIST_MAX_BINS);
		bad = 1;
	}
	if (bad) {
		fprintf(stderr, "Try 'tdp-probe analyze --help'.\n");
		return 2;
	}
	const char *path = argv[optind];
	int64_t add = 0;
	if (!tai) {
		if (have_off) {
			add = (int64_t)off * TDP_NS_PER_S;
		} else {
			struct hostclock clk;
			char err[256];
			if (hostclock_init(&clk, HC_CLOCK_AUTO, HC_UTC_TAI_DEFAULT_S, HC_FAST_OS,
					   err, sizeof(err)) == 0)
				add = probe_realtime_offset(&clk);
			else
				add = (int64_t)HC_UTC_TAI_DEFAULT_S * TDP_NS_PER_S;
		}
	}
	char ebuf[PCAP_ERRBUF_SIZE] = "", fmt[64];
	bool micro;
	pcap_t *p = probe_pcap_open(path, fmt, sizeof(fmt), &micro, ebuf, sizeof(ebuf));
	if (!p) {
		fprintf(stderr, "tdp-probe: %s: %s\n", path, ebuf);
		return 1;
	}
	if (micro)
		fprintf(stderr,
			"tdp-probe: warning: %s has microsecond timestamps; latencies are known to "
			"1 us only\n",
			path);
	struct probe_pcap_info info;
	int rc = 0;
	if (probe_pcap_read(p, &rx, add, &info, ebuf, sizeof(ebuf))) {
		fprintf(stderr, "tdp-probe: %s: %s\n", path, ebuf);
		rc = 1;
	} else {
		char ts[160];
		snprintf(ts, sizeof(ts), "capture (%s, %s + %" PRId64 " s)", fmt,
			 tai ? "TAI" : "UTC", (int64_t)(add / TDP_NS_PER_S));
		struct probe_meta m = {
			.label = label, .source = "analyze", .where = path, .timestamps = ts};
		fprintf(json && !strcmp(json, "-") ? stderr : stdout,
			"%s: %" PRIu64 " records (%s)%s", path, info.records, fmt,
			info.unusable ? ", some of them too short to use" : "");
		if (info.bad_time)
			fprintf(json && !strcmp(json, "-") ? stderr : stdout,
				", %" PRIu64 " with a time past 2^63 ns, not used", info.bad_time);
		fputc('\n', json && !strcmp(json, "-") ? stderr : stdout);
		rc = probe_finish(&rx, &m, json, csv) ? 1 : 0;
	}
	pcap_close(p);
	probe_rx_free(&rx);
	return rc;
}

/* report is drawn by a Python helper next to this program or in libexec. */
static int cmd_report(int argc, char **argv, const char *argv0)
{
	char path[PATH_MAX];
	const char *env = getenv("TDP_PROBE_REPORT");
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	const char *cand[3] = {env, NULL, TDP_LIBEXECDIR "/tdp-probe-report"};
	if (n > 0) {
		self[n] = 0;
		snprintf(path, sizeof(path), "%s/tdp-probe-report", dirname(self));
		cand[1] = path;
	}
	for (int i = 0; i < 3; i++) {
		if (!cand[i] || access(cand[i], X_OK) != 0)
			continue;
		char **av = calloc((size_t)argc + 1, sizeof(*av));
		if (!av)
			return 1;
		av[0] = (char *)cand[i];
		for (int j = 1; j < argc; j++)
			av[j] = argv[j];
		execv(cand[i], av);
		fprintf(stderr, "tdp-probe: %s: %s\n", cand[i], strerror(errno));
		free(av);
		return 1;
	}
	fprintf(stderr,
		"%s: report: tdp-probe-report is not installed next to tdp-probe or in %s\n", argv0,
		TDP_LIBEXECDIR);
	return 1;
}

static void usage(FILE *o)
{
	fprintf(o, "usage: tdp-probe COMMAND [options]   (tdp-probe COMMAND --help for each)\n"
		   "End-to-end latency of time-driven forwarding, measured against the absolute "
		   "frame index.\n\n"
		   "  send      probes at the frame starts of a table's flow (or of --tf), "
		   "precisely timed\n"
		   "  flood     best-effort load at a rate or at line rate\n"
		   "  recv      receive, timestamp and account probes; text, JSON and CSV\n"
		   "  analyze   the same from a pcap/pcapng capture\n"
		   "  report    PMF, CDF tail, inter-packet times and a table from JSON results "
		   "(PNG, SVG, HTML)\n\n"
		   "  --version, --help\n");
}

int main(int argc, char **argv)
{
	tdp_log_level = LOG_NOTICE;
	tdp_log_ident = "tdp-probe";
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "--version")) {
		printf("tdp-probe %s\n", TDP_VERSION);
		return 0;
	}
	if (!strcmp(cmd, "send"))
		return probe_cmd_send(argc - 1, argv + 1);
	if (!strcmp(cmd, "flood"))
		return probe_cmd_flood(argc - 1, argv + 1);
	if (!strcmp(cmd, "recv"))
		return probe_cmd_recv(argc - 1, argv + 1);
	if (!strcmp(cmd, "analyze"))
		return probe_cmd_analyze(argc - 1, argv + 1);
	if (!strcmp(cmd, "report"))
		return cmd_report(argc - 1, argv + 1, argv[0]);
	fprintf(stderr, "tdp-probe: unknown command '%s'\n", cmd);
	usage(stderr);
	return 2;
}
