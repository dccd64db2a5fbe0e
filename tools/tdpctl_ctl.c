/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tdpctl's commands to a running tdpd, over its control protocol (ctl_proto.h):
 * human tables by default, the daemon's JSON with --json, the Prometheus text
 * format for stats --prometheus.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "ctl_proto.h"
#include "tdpctl.h"
#include "tdpctl_json.h"

#define EXIT_NO_DAEMON 3

static void fmt_ns(int64_t ns, char *out, size_t len)
{
	/* |ns| without the overflow of -INT64_MIN: a reply's numbers are outside input */
	uint64_t a = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns;
	if (a < 10000)
		snprintf(out, len, "%" PRId64 " ns", ns);
	else if (a < 1000000)
		snprintf(out, len, "%.1f us", (double)ns / 1e3);
	else if (a < 1000000000)
		snprintf(out, len, "%.1f ms", (double)ns / 1e6);
	else
		snprintf(out, len, "%.1f s", (double)ns / 1e9);
}

/* Sends {cmd, args} and returns the parsed reply, or NULL (message printed). */
static json_t *call(const struct tdpctl_global *g, const char *sock, const char *cmd, json_t *args,
		    int fd, int *rc)
{
	json_t *req = json_pack("{si ss so}", "version", CTL_VERSION, "cmd", cmd, "args",
				args ? args : json_object());
	char *line = json_dumps(req, JSON_COMPACT);
	json_decref(req);
	char *reply = NULL, err[512];
	int r = ctl_request(sock, line, fd, g->timeout_ms, &reply, err, sizeof(err));
	free(line);
	if (r) {
		fprintf(stderr, "tdpctl: %s\n", err);
		*rc = EXIT_NO_DAEMON;
		return NULL;
	}
	json_error_t je;
	json_t *o = json_loads(reply, 0, &je);
	if (!o) {
		fprintf(stderr, "tdpctl: the daemon's reply is not JSON (%s): %.200s\n", je.text,
			reply);
		free(reply);
		*rc = TDPCTL_EXIT_BAD;
		return NULL;
	}
	free(reply);
	*rc = json_is_true(json_object_get(o, "ok")) ? 0 : TDPCTL_EXIT_BAD;
	return o;
}

static void print_error(json_t *o)
{
	fprintf(stderr, "tdpctl: %s (%s)\n", S(o, "error"), S(o, "code"));
	json_t *dg = json_object_get(o, "diagnostics");
	size_t i;
	json_t *d;
	json_array_foreach(dg, i, d)
		fprintf(stderr, "%s:%" PRId64 ":%" PRId64 ": %s: %s\n", S(d, "file"), I(d, "line"),
			I(d, "col"), S(d, "severity"), S(d, "message"));
}

/* ---- human output ------------------------------------------------------- */

/* what is wrong now, a line each */
static void show_alarms(json_t *alarms)
{
	size_t i;
	json_t *a;
	if (!json_array_size(alarms))
		printf("alarms   none\n");
	json_array_foreach(alarms, i, a) if (!strcmp(S(a, "kind"), "sync-budget"))
		printf("ALARM    sync-budget: uncertainty %" PRId64 " ns past the budget %" PRId64
		       " ns (%s; action %s)\n",
		       I(a, "uncertainty_ns"), I(a, "budget_ns"), S(a, "from"), S(a, "action"));
	else if (!strcmp(S(a, "kind"), "route-moved")) printf(
		"ALARM    route-moved: flow %s leaves by port %s, not its port %s: %" PRId64
		" packets in all (moved-route %s)\n",
		S(a, "flow"), S(a, "to_port"), S(a, "port"), I(a, "packets"), S(a, "policy"));
	else printf("ALARM    %s: port %s (%s)\n", S(a, "kind"), S(a, "port"), S(a, "state"));
}

static void show_status(json_t *r)
{
	char a[32], b[32], c[32], d[32];
	json_t *t = json_object_get(r, "table"), *sy = json_object_get(r, "sync"),
	       *p = json_object_get(r, "pending");
	printf("tdpd %s, pid %" PRId64 ", up %.1f s, log level %s\n", S(r, "version"), I(r, "pid"),
	       json_real_value(json_object_get(r, "uptime_s")), S(r, "log_level"));
	fmt_ns(I(sy, "offset_ns"), a, sizeof(a));
	fmt_ns(I(sy, "uncertainty_ns"), b, sizeof(b));
	printf("time     %s, TAI %" PRId64 ".%09" PRId64
	       "; sync %s (%s), offset %s, uncertainty %s\n",
	       S(r, "timebase"), I(r, "tai_ns") / 1000000000, I(r, "tai_ns") % 1000000000,
	       S(sy, "state"), S(sy, "reason"), a, b);
	fmt_ns(I(t, "tf_ns"), a, sizeof(a));
	printf("table    %s: TF %s, k %" PRId64 ", %" PRId64 " flows on %" PRId64
	       " ports, in force since frame %" PRId64 " (%" PRId64 " swaps)\n",
	       S(t, "name"), a, I(t, "k"), I(t, "flows"), I(t, "ports"), I(t, "adopted_frame"),
	       I(r, "swaps"));
	json_t *st = json_object_get(r, "state");
	printf("         digest %.16s, by %s%s; %s\n", S(t, "digest"), S(t, "origin"),
	       json_is_true(json_object_get(t, "resumed")) ? ", resumed after a restart" : "",
	       json_is_true(json_object_get(st, "kept")) ? "kept for a restart"
							 : "not kept for a restart");
	if (json_is_object(p))
		printf("pending  %s: adopted at frame %" PRId64 " (TAI %" PRId64 " ns)\n",
		       S(p, "name"), I(p, "frame"), I(p, "start_tai_ns"));
	printf("frames   %" PRId64 " processed, %" PRId64 " late, %" PRId64 " skipped, %" PRId64
	       " staged past their start, %" PRId64 " alarm, %" PRId64 " demoted; next %" PRId64
	       "\n",
	       I(r, "frames.processed"), I(r, "frames.late"), I(r, "frames.skipped"),
	       I(r, "frames.staged_past_start"), I(r, "frames.alarm"), I(r, "frames.demoted"),
	       I(r, "frames.next"));
	fmt_ns(I(r, "start_error_ns.p50"), a, sizeof(a));
	fmt_ns(I(r, "start_error_ns.p99"), b, sizeof(b));
	fmt_ns(I(r, "start_error_ns.p999"), c, sizeof(c));
	fmt_ns(I(r, "start_error_ns.max"), d, sizeof(d));
	printf("start    error p50 %s, p99 %s, p99.9 %s, max %s\n", a, b, c, d);
	printf("rx       %" PRId64 " packets, %" PRId64 " reserved, %" PRId64 " dropped\n",
	       I(r, "rx.pkts"), I(r, "rx.reserved"), I(r, "rx.dropped"));
	show_alarms(json_object_get(r, "alarms"));
}

static void show_ports(json_t *r)
{
	printf("%-10s %-28s %5s %-17s %12s %10s %8s %10s %10s %8s\n", "port", "device", "dpdk",
	       "mac", "rate bit/s", "frames", "late", "reserved", "best-eff", "tx-drop");
	size_t i;
	json_t *p;
	json_array_foreach(json_object_get(r, "ports"), i, p)
		printf("%-10s %-28.28s %5" PRId64 " %-17s %12" PRId64 " %10" PRId64 " %8" PRId64
		       " %10" PRId64 " %10" PRId64 " %8" PRIu64 "\n",
		       S(p, "name"), S(p, "device"), I(p, "dpdk_port"), S(p, "mac"),
		       I(p, "rate_bps"), I(p, "frames"), I(p, "late_frames"), I(p, "reserved_pkts"),
		       I(p, "be_pkts"), (uint64_t)I(p, "tx_drop") + (uint64_t)I(p, "be_tx_drop"));
	json_array_foreach(json_object_get(r, "ports"), i, p)
	{
		printf("%s: %s; driven by %s; netdev %s; interrupt coalescing %s\n", S(p, "name"),
		       json_is_true(json_object_get(p, "scheduled")) ? "scheduled by the table"
								     : "not in the table",
		       *S(p, "pmd") ? S(p, "pmd") : "?",
		       *S(p, "netdev") ? S(p, "netdev") : "none (DPDK-owned)", S(p, "coalescing"));
		json_t *ln = json_object_get(p, "link");
		if (ln)
			printf("%s: link %s, MTU %" PRId64 " (%s); %" PRId64 " down, %" PRId64
			       " up since start; routes read "
			       "again %" PRId64 " times, addresses put back %" PRId64 "\n",
			       S(p, "name"),
			       json_is_true(json_object_get(ln, "followed")) ? S(ln, "state")
									     : "not followed",
			       I(ln, "mtu"), S(ln, "mtu_from"), I(ln, "downs"), I(ln, "ups"),
			       I(ln, "resyncs"), I(ln, "addresses_restored"));
		json_t *h = json_object_get(p, "host_path"), *x = json_object_get(h, "xdp"),
		       *ex = json_object_get(h, "exception");
		if (h)
			printf("%s: host path %s on %s\n", S(p, "name"), S(h, "mode"),
			       S(h, "interface"));
		json_t *rq = json_object_get(p, "rx");
		if (rq)
			printf("%s: %" PRId64 " RX queue%s%s%s%s\n", S(p, "name"), I(rq, "queues"),
			       I(rq, "queues") == 1 ? "" : "s",
			       json_is_true(json_object_get(rq, "rss")) ? ", spread by RSS" : "",
			       *S(rq, "why_fewer") ? ", fewer than RX cores: " : "",
			       S(rq, "why_fewer"));
		if (ex)
			printf("%s: exception interface: to the kernel %" PRId64
			       " (refused %" PRId64 "), from the kernel %" PRId64
			       " (dropped %" PRId64 ")\n",
			       S(p, "name"), I(ex, "to_kernel"), I(ex, "to_kernel_drop"),
			       I(ex, "from_kernel"), I(ex, "from_kernel_drop"));
		if (x)
			printf("%s: XDP program: to tdpd %" PRId64
			       ", dropped for want of a socket %" PRId64
			       "; to the kernel: arp %" PRId64 " nd %" PRId64 " ptp %" PRId64
			       " link-scope %" PRId64 " local %" PRId64 "\n",
			       S(p, "name"), I(x, "to-tdpd"), I(x, "no-socket"), I(x, "arp"),
			       I(x, "nd"), I(x, "ptp"), I(x, "link-scope"), I(x, "local"));
		json_t *dv = json_object_get(p, "driver");
		if (json_is_object(dv))
			printf("%s: driver: rx %" PRId64 ", missed %" PRId64 ", no-mbuf %" PRId64
			       ", errors %" PRId64 "; tx %" PRId64 ", errors %" PRId64 "\n",
			       S(p, "name"), I(dv, "rx"), I(dv, "missed"), I(dv, "no_mbuf"),
			       I(dv, "rx_errors"), I(dv, "tx"), I(dv, "tx_errors"));
		else
			printf("%s: driver: no counters\n", S(p, "name"));
		json_t *pu = json_object_get(p, "push"), *ck = json_object_get(pu, "clock");
		if (pu)
			printf("%s: pushes by %s\n", S(p, "name"), S(pu, "why"));
		if (ck)
			printf("%s: launch clock %s: %" PRId64 " samples (%" PRId64
			       " too slow, %" PRId64 " failed, %" PRId64 " steps), rate %+" PRId64
			       " ppb, latest read %" PRId64 " ns, map missed it by %" PRId64
			       " ns; frames launched %" PRId64 ", late hand-overs %" PRId64
			       ", map not ready %" PRId64 "\n",
			       S(p, "name"),
			       json_is_true(json_object_get(ck, "ready")) ? "ready" : "not ready",
			       I(ck, "samples"), I(ck, "wide"), I(ck, "failed"), I(ck, "steps"),
			       I(ck, "rate_ppb"), I(ck, "last_bracket_ns"), I(ck, "last_miss_ns"),
			       I(p, "launch_frames"), I(p, "launch_late"), I(p, "launch_unready"));
	}
}

/* routes --summary: the counts */
static void show_route_summary(json_t *s)
{
	printf("routes: %" PRId64 " IPv4, %" PRId64 " IPv6 (%" PRId64 " from tdpd.conf and the "
	       "ports' prefixes, %" PRId64 " multipath); %" PRId64 " neighbours\n",
	       I(s, "ipv4"), I(s, "ipv6"), I(s, "tdpd_conf"), I(s, "multipath"),
	       I(s, "neighbours"));
	printf("route table (fib): %.1f MiB\n", (double)I(s, "fib_bytes") / (1 << 20));
	static const char *part[] = {"kernel_by_protocol", "ipv4_by_length", "ipv6_by_length"};
	static const char *title[] = {"the kernel's, by protocol", "IPv4 by prefix length",
				      "IPv6 by prefix length"};
	for (int k = 0; k < 3; k++) {
		const char *key;
		json_t *v;
		printf("%s:", title[k]);
		json_object_foreach(json_object_get(s, part[k]), key, v)
		{
			printf(" %s %" JSON_INTEGER_FORMAT, key, json_integer_value(v));
		}
		printf("%s\n", json_object_size(json_object_get(s, part[k])) ? "" : " none");
	}
}

static void show_routes(json_t *r)
{
	if (json_object_get(r, "summary")) {
		show_route_summary(json_object_get(r, "summary"));
		printf("kernel's routes and neighbours: %s\n", S(r, "kernel"));
		return;
	}
	if (json_object_get(r, "to") && !json_array_size(json_object_get(r, "routes")))
		printf("no route to %s\n", S(r, "to"));
	else
		printf("%-43s %-10s %-39s %s\n", "prefix", "port", "via", "from");
	size_t i;
	json_t *e;
	json_array_foreach(json_object_get(r, "routes"), i, e)
	{
		char nb[48];
		snprintf(nb, sizeof(nb), "neighbour %s",
			 json_object_get(e, "mac") ? S(e, "mac") : "(failed)");
		const char *via = json_object_get(e, "via")	    ? S(e, "via")
				  : json_object_get(e, "local")	    ? "local (this router)"
				  : json_object_get(e, "neighbour") ? nb
								    : "connected";
		bool unres =
			json_object_get(e, "via") && !json_is_true(json_object_get(e, "resolved"));
		char mp[32] = "";
		if (I(e, "nexthops") > 1)
			snprintf(mp, sizeof(mp), " (multipath %" PRId64 "/%" PRId64 ")",
				 I(e, "nexthop"), I(e, "nexthops"));
		printf("%-43s %-10s %-39s %s%s%s%s%s\n", S(e, "prefix"), S(e, "port"), via,
		       S(e, "origin"), json_object_get(e, "protocol") ? " proto " : "",
		       json_object_get(e, "protocol") ? S(e, "protocol") : "", mp,
		       unres ? " (gateway's MAC not yet known)" : "");
	}
	printf("kernel's routes and neighbours: %s\n", S(r, "kernel"));
	if (I(r, "netlink.missing"))
		printf("NOT IN FORCE: %" PRId64
		       " of the kernel's routes the route table could not take (tdpd's log names "
		       "the first)\n",
		       I(r, "netlink.missing"));
}

static void show_neighbours(json_t *r)
{
	printf("%-39s %-17s %-10s %s\n", "address", "mac", "port", "from");
	size_t i;
	json_t *e;
	json_array_foreach(json_object_get(r, "neighbours"), i, e)
	{
		bool failed = !strcmp(S(e, "state"), "failed");
		printf("%-39s %-17s %-10s %s%s\n", S(e, "address"),
		       failed ? "(failed)" : S(e, "mac"), S(e, "port"), S(e, "origin"),
		       failed ? ": ARP/ND found no host; RX answers Host Unreachable" : "");
	}
	printf("kernel's routes and neighbours: %s\n", S(r, "kernel"));
}

/* one flow's counters, or (flows --summary) every flow's summed */
static void flow_line(const char *name, const char *port, json_t *f)
{
	printf("%-16s %-8s %10" PRId64 " %10" PRId64 " %10" PRId64 " %8" PRId64 " %9" PRId64
	       " %8" PRIu64 " %8" PRIu64 " %8" PRId64 " %8" PRId64 " %8" PRId64 " %8" PRId64 "\n",
	       name, port, I(f, "rx"), I(f, "reserved"), I(f, "sent"), I(f, "unused"),
	       I(f, "late_dropped"), (uint64_t)I(f, "late_carried") + (uint64_t)I(f, "tx_carried"),
	       (uint64_t)I(f, "arr_late_dropped") + (uint64_t)I(f, "arr_late_carried"),
	       I(f, "overflow"), I(f, "tx_drop"), I(f, "demoted"), I(f, "stamped"));
}

static void show_flows(json_t *r)
{
	printf("table %s\n%-16s %-8s %10s %10s %10s %8s %9s %8s %8s %8s %8s %8s %8s\n",
	       S(r, "table"), "flow", "port", "rx", "reserved", "sent", "unused", "late-drop",
	       "carried", "arr-late", "overflow", "tx-drop", "demoted", "stamped");
	size_t i;
	json_t *f = json_object_get(r, "sum");
	if (f) {
		char all[32];
		snprintf(all, sizeof(all), "(%" PRId64 " flows)", I(f, "flows"));
		flow_line(all, "-", f);
	}
	json_array_foreach(json_object_get(r, "flows"), i, f)
		flow_line(S(f, "name"), S(f, "port"), f);
	/* pipelined flows: where in the upstream frame their packets arrived */
	json_array_foreach(json_object_get(r, "flows"), i, f)
	{
		json_t *a = json_object_get(f, "arrival_ns");
		if (!a)
			continue;
		char p50[32], p99[32], mx[32];
		fmt_ns(I(a, "p50"), p50, sizeof(p50));
		fmt_ns(I(a, "p99"), p99, sizeof(p99));
		fmt_ns(I(a, "max"), mx, sizeof(mx));
		printf("%s: %" PRId64
		       " arrivals after the upstream frame start: p50 %s, p99 %s, max %s; %" PRId64
		       " in its guard band, %" PRId64 " uncertain\n",
		       S(f, "name"), I(a, "count"), p50, p99, mx, I(f, "arr_guard"),
		       I(f, "arr_uncertain"));
	}
}

static void show_sync(json_t *r)
{
	char a[32], b[32], c[32];
	fmt_ns(I(r, "offset_ns"), a, sizeof(a));
	fmt_ns(I(r, "uncertainty_ns"), b, sizeof(b));
	fmt_ns(I(r, "last_step_ns"), c, sizeof(c));
	printf("source       %s: %s\n", S(r, "timebase"), S(r, "description"));
	printf("state        %s (%s)\n", S(r, "state"), S(r, "reason"));
	printf("offset       %s, uncertainty %s\n", a, b);
	printf("samples      %" PRId64 " (%" PRId64 " bad), %" PRId64 " faults, %" PRId64
	       " transitions\n",
	       I(r, "samples"), I(r, "bad_samples"), I(r, "faults"), I(r, "transitions"));
	printf("steps        %" PRId64 " (latest %s); engine saw %" PRId64 " steps back, %" PRId64
	       " skips\n",
	       I(r, "steps"), c, I(r, "back_steps"), I(r, "skip_events"));
	printf("actions      holdover: %s, unlocked: %s, over the sync budget: %s\n",
	       S(r, "holdover_action"), S(r, "unlocked_action"),
	       S(json_object_get(r, "budget"), "action"));
	json_t *bg = json_object_get(r, "budget");
	if (json_is_integer(json_object_get(bg, "budget_ns"))) {
		fmt_ns(I(bg, "budget_ns"), c, sizeof(c));
		printf("budget       %s (%s): uncertainty %s it; %" PRId64 " frames over budget\n",
		       c,
		       !strcmp(S(bg, "from"), "sync-error") ? "the table's sync-error"
							    : "a quarter of the guard band",
		       json_is_true(json_object_get(bg, "over")) ? "PAST" : "within",
		       I(bg, "over_budget_frames"));
	} else {
		printf("budget       none: the table has no sync-error and no guard band\n");
	}
	if (I(bg, "time_offset_ns"))
		printf("time-offset  %" PRId64 " ns added to the source's time\n",
		       I(bg, "time_offset_ns"));
	printf("frames       holdover %" PRId64 ", unlocked %" PRId64 ", alarm %" PRId64
	       ", over budget %" PRId64 ", demoted %" PRId64 "\n",
	       I(r, "holdover_frames"), I(r, "unlocked_frames"), I(r, "alarm_frames"),
	       I(r, "budget.over_budget_frames"), I(r, "demoted_frames"));
	json_t *t = json_object_get(r, "tick");
	if (t)
		printf("ticks        %" PRId64 " taken, %" PRId64 " timed out, %" PRId64
		       " missed, %" PRId64 " doubled; latency p50 %" PRId64 " ns p99 %" PRId64
		       " ns\n",
		       I(t, "ticks"), I(t, "timeouts"), I(t, "missed"), I(t, "doubled"),
		       I(t, "latency_ns.p50"), I(t, "latency_ns.p99"));
}

static void show_stats(json_t *r)
{
	char a[32], b[32], c[32], d[32];
	printf("table %s, TF %" PRId64 " ns, k %" PRId64 ", up %.1f s on the %s timebase\n",
	       S(r, "table"), I(r, "tf_ns"), I(r, "k"),
	       json_real_value(json_object_get(r, "elapsed_s")), S(r, "timebase"));
	printf("frames   %" PRId64 " processed, %" PRId64 " late, %" PRId64 " skipped, %" PRId64
	       " staged past their start; engine busy %.1f%%; %" PRId64 " swaps\n",
	       I(r, "engine.frames"), I(r, "engine.late_frames"), I(r, "engine.skipped_frames"),
	       I(r, "engine.stage_overruns"),
	       100 * json_real_value(json_object_get(json_object_get(r, "engine"), "duty")),
	       I(r, "engine.swaps"));
	fmt_ns(I(r, "start_error_ns.p50"), a, sizeof(a));
	fmt_ns(I(r, "start_error_ns.p99"), b, sizeof(b));
	fmt_ns(I(r, "start_error_ns.p999"), c, sizeof(c));
	fmt_ns(I(r, "start_error_ns.max"), d, sizeof(d));
	printf("start    error p50 %s, p99 %s, p99.9 %s, max %s; over 1 s: %" PRId64 "\n", a, b, c,
	       d, I(r, "start_error_ns.over"));
	printf("sync     %s (%s); holdover %" PRId64 ", unlocked %" PRId64 ", alarm %" PRId64
	       ", over budget %" PRId64 ", demoted %" PRId64 " frames\n",
	       S(json_object_get(r, "sync"), "state"), S(json_object_get(r, "sync"), "reason"),
	       I(r, "engine.holdover_frames"), I(r, "engine.unlocked_frames"),
	       I(r, "engine.alarm_frames"), I(r, "engine.over_budget_frames"),
	       I(r, "engine.demoted_frames"));
	printf("rx       %" PRId64 " packets, %" PRId64 " reserved, %" PRId64
	       " best effort; dropped:",
	       I(r, "rx.pkts"), I(r, "rx.reserved"), I(r, "rx.best_effort"));
	const char *k;
	json_t *v;
	json_object_foreach(json_object_get(json_object_get(r, "rx"), "drop"), k, v)
		printf(" %s %" PRId64, k, (int64_t)json_integer_value(v));
	printf("\n\n");
	show_flows(r);
	printf("\n");
	show_ports(r);
}

static void show_active(json_t *r, bool source)
{
	if (source) {
		fputs(S(r, "source"), stdout);
		return;
	}
	char a[32];
	json_t *t = json_object_get(r, "table"), *p = json_object_get(r, "pending"),
	       *ls = json_object_get(r, "last_swap");
	fmt_ns(I(t, "tf_ns"), a, sizeof(a));
	printf("in force  %s: TF %s, k %" PRId64 ", guard %" PRId64 " ns, %" PRId64
	       " flows, since frame %" PRId64 "\n",
	       S(t, "name"), a, I(t, "k"), I(t, "guard_ns"), I(t, "flows"), I(t, "adopted_frame"));
	printf("digest    %s\n", S(t, "digest"));
	printf("origin    %s%s\n", S(t, "origin"),
	       json_is_true(json_object_get(t, "resumed"))
		       ? ", resumed from the state directory after a restart"
		       : "");
	size_t i;
	json_t *f;
	printf("flows    ");
	if (json_is_true(json_object_get(t, "flow_list_omitted")))
		printf(" %" PRId64 ", more than a reply lists (tdpctl flows NAME, flows --summary)",
		       I(t, "flows"));
	json_array_foreach(json_object_get(t, "flow_list"), i, f)
		printf(" %s@%s", S(f, "name"), S(f, "port"));
	printf("\n");
	if (json_is_object(p))
		printf("waiting   %s: k %" PRId64 ", %" PRId64 " flows, at frame %" PRId64
		       " (TAI %" PRId64 " ns)\n",
		       S(p, "name"), I(p, "k"), I(p, "flows"), I(p, "frame"), I(p, "start_tai_ns"));
	else
		printf("waiting   none\n");
	json_t *st = json_object_get(r, "staged");
	if (json_is_object(st))
		printf("staged    %s as %" PRId64 ": k %" PRId64 ", %" PRId64
		       " flows, digest %.16s, %.1f s left\n",
		       S(st, "name"), I(st, "id"), I(st, "k"), I(st, "flows"), S(st, "digest"),
		       (double)I(st, "expires_in_ms") / 1000);
	if (ls)
		printf("last swap %s at frame %" PRId64 " (planned %" PRId64 ")\n", S(ls, "name"),
		       I(ls, "frame"), I(ls, "requested"));
	printf("loads     %" PRId64 " (%" PRId64 " rejected), swaps %" PRId64 " (%" PRId64
	       " late)\n",
	       I(r, "loads"), I(r, "rejected"), I(r, "swaps"), I(r, "late_swaps"));
}

/* ---- commands ------------------------------------------------------------ */

static const char *pick_socket(const struct tdpctl_global *g, bool change)
{
	if (g->socket)
		return g->socket;
	if (change)
		return CTL_SOCKET_DEFAULT;
	/* reads go to the monitor socket; the control socket serves them too */
	return access(CTL_MONITOR_DEFAULT, F_OK) == 0 ? CTL_MONITOR_DEFAULT : CTL_SOCKET_DEFAULT;
}

/* TAI seconds[.fraction] or +seconds[.fraction] -> ns; 0 or -1. */
static int parse_when(const char *s, bool *relative, int64_t *ns)
{
	*relative = *s == '+';
	if (*relative)
		s++;
	char *end;
	errno = 0;
	long long sec = strtoll(s, &end, 10);
	if (end == s || errno || sec < 0 || sec > 9000000000LL)
		return -1;
	int64_t frac = 0, scale = 100000000;
	if (*end == '.') {
		for (end++; *end >= '0' && *end <= '9'; end++) {
			frac += (*end - '0') * scale;
			scale /= 10;
		}
	}
	if (*end)
		return -1;
	*ns = sec * 1000000000LL + frac;
	return 0;
}

/* A change's reply: the error, or with --json the result, printed here (NULL
 * back); else the result, for the caller to print as text. With --json, a
 * refusal goes to standard output too, as the daemon's reply (ok false,
 * error, code, diagnostics), for scripts and tdpctl deploy. */
static json_t *text_result(const struct tdpctl_global *g, json_t *o, int rc)
{
	json_t *r = json_object_get(o, "result");
	if (rc) {
		print_error(o);
		if (g->json) {
			json_dumpf(o, stdout, JSON_INDENT(2));
			putchar('\n');
		}
		return NULL;
	}
	if (g->json) {
		json_dumpf(r, stdout, JSON_INDENT(2));
		putchar('\n');
		return NULL;
	}
	return r;
}

static int cancel(const struct tdpctl_global *g, int argc)
{
	if (argc > 1) {
		fprintf(stderr, "tdpctl: schedule cancel takes no argument\n");
		return TDPCTL_EXIT_USAGE;
	}
	int rc;
	json_t *o = call(g, pick_socket(g, true), "schedule-cancel", json_object(), -1, &rc);
	if (!o)
		return rc;
	json_t *r = text_result(g, o, rc);
	if (r)
		printf("%s: withdrawn before frame %" PRId64 "; %s stays in force\n",
		       S(r, "cancelled"), I(r, "requested_frame"), S(r, "in_force"));
	json_decref(o);
	return rc;
}

static int load(const struct tdpctl_global *g, int argc, char **argv)
{
	const char *file = NULL;
	json_t *args = json_object();
	bool at = false, next = false;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--at") && i + 1 < argc) {
			if (tdpctl_at_option(argv[++i], args) != 0) {
				json_decref(args);
				return TDPCTL_EXIT_USAGE;
			}
			at = true;
		} else if (!strcmp(argv[i], "--next-cycle")) {
			next = true;
		} else if (!strcmp(argv[i], "--no-wait")) {
			json_object_set_new(args, "wait", json_false());
		} else if (tdpctl_file_arg("load", argv[i], &file)) {
			json_decref(args);
			return TDPCTL_EXIT_USAGE;
		}
	}
	if (!file || (at && next)) {
		fprintf(stderr, "usage: tdpctl schedule load FILE [--at TAI-SECONDS|+SECONDS | "
				"--next-cycle] [--no-wait]\n");
		json_decref(args);
		return TDPCTL_EXIT_USAGE;
	}
	int rc;
	json_t *o = tdpctl_pass_table(g, "schedule-load", file, NULL, args, &rc);
	if (!o)
		return rc;
	tdpctl_print_swap(file, "accepted", text_result(g, o, rc));
	json_decref(o);
	return rc;
}

/* A live command's reply in words */
static void show_reply(const char *wire, json_t *r, bool source)
{
	static const struct {
		const char *wire;
		void (*show)(json_t *r);
	} views[] = {
		{"status", show_status}, {"ports", show_ports},		  {"flows", show_flows},
		{"routes", show_routes}, {"neighbours", show_neighbours}, {"sync", show_sync},
		{"stats", show_stats},
	};
	for (size_t i = 0; i < sizeof(views) / sizeof(views[0]); i++)
		if (!strcmp(wire, views[i].wire)) {
			views[i].show(r);
			return;
		}
	if (!strcmp(wire, "log-level"))
		printf("%s\n", S(r, "level"));
	else if (!strcmp(wire, "schedule-active"))
		show_active(r, source);
}

/* schedule active [--source]: 0, or the usage said */
static int active_args(int argc, char **argv, json_t *args, bool *source)
{
	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--source")) {
			fprintf(stderr, "tdpctl: schedule active: unknown argument '%s'\n",
				argv[i]);
			return TDPCTL_EXIT_USAGE;
		}
		*source = true;
	}
	if (*source)
		json_object_set_new(args, "source", json_true());
	return 0;
}

/* any other live command's arguments: stats --prometheus, flows [NAME]
 * [--summary], routes [ADDRESS] [--summary], log-level LEVEL (a change); 0,
 * or the usage said */
static int live_args(int argc, char **argv, json_t *args, bool *prom, bool *change)
{
	const char *cmd = argv[0];
	for (int i = 1; i < argc; i++) {
		if (!strcmp(cmd, "stats") && !strcmp(argv[i], "--prometheus")) {
			*prom = true;
		} else if (!strcmp(cmd, "flows") && !strcmp(argv[i], "--summary")) {
			json_object_set_new(args, "summary", json_true());
		} else if (!strcmp(cmd, "flows") && argv[i][0] != '-' &&
			   !json_object_get(args, "name")) {
			json_object_set_new(args, "name", json_string(argv[i]));
		} else if (!strcmp(cmd, "routes") && !strcmp(argv[i], "--summary")) {
			json_object_set_new(args, "summary", json_true());
		} else if (!strcmp(cmd, "routes") && argv[i][0] != '-' &&
			   !json_object_get(args, "to")) {
			json_object_set_new(args, "to", json_string(argv[i]));
		} else if (!strcmp(cmd, "log-level") && i == 1 && argv[i][0] != '-') {
			json_object_set_new(args, "level", json_string(argv[i]));
			*change = true;
		} else {
			fprintf(stderr, "tdpctl: %s: unexpected argument '%s' (tdpctl --help)\n",
				cmd, argv[i]);
			return TDPCTL_EXIT_USAGE;
		}
	}
	return 0;
}

int tdpctl_live(const struct tdpctl_global *g, int argc, char **argv)
{
	const char *cmd = argv[0];
	bool schedule = !strcmp(cmd, "schedule");
	if (schedule && argc >= 2 && !strcmp(argv[1], "load"))
		return load(g, argc - 1, argv + 1);
	if (schedule && argc >= 2 && !strcmp(argv[1], "cancel"))
		return cancel(g, argc - 1);
	const char *wire = schedule ? "schedule-active" : cmd;
	bool change = false, prom = false, source = false;
	json_t *args = json_object();
	int rc = schedule ? active_args(argc, argv, args, &source)
			  : live_args(argc, argv, args, &prom, &change);
	if (rc) {
		json_decref(args);
		return rc;
	}
	json_t *o = call(g, pick_socket(g, change), wire, args, -1, &rc);
	if (!o)
		return rc;
	json_t *r = json_object_get(o, "result");
	if (rc) {
		print_error(o);
	} else if (prom) {
		tdpctl_prometheus(r);
	} else if (g->json) {
		json_dumpf(r, stdout, JSON_INDENT(2));
		putchar('\n');
	} else {
		show_reply(wire, r, source);
	}
	json_decref(o);
	return rc;
}

int tdpctl_raw(const struct tdpctl_global *g, const char *line)
{
	char *reply = NULL, err[512];
	int r = ctl_request(g->socket ? g->socket : CTL_SOCKET_DEFAULT, line, -1, g->timeout_ms,
			    &reply, err, sizeof(err));
	if (r) {
		fprintf(stderr, "tdpctl: %s\n", err);
		return EXIT_NO_DAEMON;
	}
	fputs(reply, stdout);
	free(reply);
	return 0;
}

/* ---- for the other commands that talk to tdpd (tdpctl.h) ------------------ */

json_t *tdpctl_call(const struct tdpctl_global *g, bool change, const char *cmd, json_t *args,
		    int fd, int *rc)
{
	return call(g, pick_socket(g, change), cmd, args, fd, rc);
}

json_t *tdpctl_text_result(const struct tdpctl_global *g, json_t *o, int rc)
{
	return text_result(g, o, rc);
}

int tdpctl_file_arg(const char *cmd, const char *arg, const char **file)
{
	if (arg[0] == '-' && arg[1]) {
		fprintf(stderr, "tdpctl: schedule %s: unknown option '%s'\n", cmd, arg);
		return TDPCTL_EXIT_USAGE;
	}
	if (*file) {
		fprintf(stderr, "tdpctl: schedule %s takes one file\n", cmd);
		return TDPCTL_EXIT_USAGE;
	}
	*file = arg;
	return 0;
}

int tdpctl_at_option(const char *v, json_t *args)
{
	bool rel;
	int64_t ns;
	if (parse_when(v, &rel, &ns) != 0) {
		fprintf(stderr,
			"tdpctl: --at takes TAI seconds (e.g. 1795000000.5) or +SECONDS from now, "
			"not '%s'\n",
			v);
		return -1;
	}
	json_object_set_new(args, rel ? "in_ns" : "at_tai_ns", json_integer(ns));
	return 0;
}

void tdpctl_print_swap(const char *name, const char *verb, json_t *r)
{
	if (r && json_is_true(json_object_get(r, "waiting")))
		printf("%s: %s; the engine adopts it at frame %" PRId64 " (TAI %" PRId64 " ns)\n",
		       name, verb, I(r, "requested_frame"), I(r, "start_tai_ns"));
	else if (r)
		printf("%s: in force from frame %" PRId64 " (TAI %" PRId64 " ns)%s; %" PRId64
		       " packets queued for removed flows dropped\n",
		       name, I(r, "frame"), I(r, "start_tai_ns"),
		       json_is_true(json_object_get(r, "late")) ? ", later than planned" : "",
		       I(r, "dropped_queued"));
}

json_t *tdpctl_pass_table(const struct tdpctl_global *g, const char *cmd, const char *file,
			  const char *name, json_t *args, int *rc)
{
	int fd = strcmp(file, "-") ? open(file, O_RDONLY | O_CLOEXEC) : 0;
	if (fd < 0) {
		fprintf(stderr, "tdpctl: %s: %s\n", file, strerror(errno));
		json_decref(args);
		*rc = TDPCTL_EXIT_USAGE;
		return NULL;
	}
	json_object_set_new(args, "name", json_string(name ? name : file));
	json_t *o = call(g, pick_socket(g, true), cmd, args, fd, rc);
	if (fd > 0)
		close(fd);
	return o;
}
