/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tdp-probe: end-to-end latency of time-driven forwarding, measured by frame.
 *   send     probes at frame starts       recv     receive and account them
 *   flood    best-effort load             analyze  the same from a capture
 *   report   pictures and tables from recv/analyze JSON
 */
#include <arpa/inet.h>
#include <errno.h>
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

struct analyze_opts {
	struct probe_acct acct;
	int clock; /* 0: the capture's times are UTC, 1: TAI */
	uint64_t off;
	bool have_off;
};

static const char *const clock_words[] = {"utc", "tai", NULL};

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
	struct analyze_opts o = {.acct = PROBE_ACCT_DEFAULTS};
#define AO(f) offsetof(struct analyze_opts, f)
	static const struct probe_opt opts[] = {
		{PO_ROW("clock", 0, PO_WORD, AO(clock)), .words = clock_words},
		{PO_ROW("utc-tai-offset", 0, PO_UINT, AO(off)),
		 .seen = PO_SEEN(struct analyze_opts, have_off), .max = 1000},
		PROBE_ACCT_ROWS(struct analyze_opts, acct),
		{PO_ROW("help", 'h', PO_HELP, 0)},
		{.name = NULL},
	};
#undef AO
	int bad = probe_cmd_args(opts, &o, argc, argv, "analyze", analyze_usage, true);
	if (bad == 1)
		return 0;
	if (!bad && optind != argc - 1)
		bad = probe_cmd_bad("analyze", "give one capture file");
	static struct probe_rx rx;
	if (!bad && probe_acct_init(&rx, &o.acct))
		bad = 1;
	if (bad) {
		fprintf(stderr, "Try 'tdp-probe analyze --help'.\n");
		return 2;
	}
	const char *path = argv[optind];
	int64_t add = 0;
	bool tai = o.clock == 1;
	if (!tai) {
		if (o.have_off) {
			add = (int64_t)o.off * TDP_NS_PER_S;
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
		struct probe_meta m = {.label = o.acct.label,
				       .source = "analyze",
				       .where = path,
				       .timestamps = ts};
		fprintf(o.acct.json && !strcmp(o.acct.json, "-") ? stderr : stdout,
			"%s: %" PRIu64 " records (%s)%s", path, info.records, fmt,
			info.unusable ? ", some of them too short to use" : "");
		if (info.bad_time)
			fprintf(o.acct.json && !strcmp(o.acct.json, "-") ? stderr : stdout,
				", %" PRIu64 " with a time past 2^63 ns, not used", info.bad_time);
		fputc('\n', o.acct.json && !strcmp(o.acct.json, "-") ? stderr : stdout);
		rc = probe_finish(&rx, &m, o.acct.json, o.acct.csv) ? 1 : 0;
	}
	pcap_close(p);
	probe_rx_free(&rx);
	return rc;
}

/* report is drawn by a Python helper next to this program or in libexec. */
static int cmd_report(int argc, char **argv)
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
		"%s: report: tdp-probe-report is not installed next to tdp-probe or in %s\n",
		tdp_log_ident, TDP_LIBEXECDIR);
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

static const struct probe_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
} cmds[] = {
	{"send", probe_cmd_send},	{"flood", probe_cmd_flood}, {"recv", probe_cmd_recv},
	{"analyze", probe_cmd_analyze}, {"report", cmd_report},	    {NULL, NULL},
};

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
	for (const struct probe_cmd *c = cmds; c->name; c++)
		if (!strcmp(cmd, c->name))
			return c->fn(argc - 1, argv + 1);
	fprintf(stderr, "tdp-probe: unknown command '%s'\n", cmd);
	usage(stderr);
	return 2;
}
