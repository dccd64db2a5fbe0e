/* SPDX-License-Identifier: BSD-3-Clause */
/* tdpd's options, declared once (conf.h): each with its section, type, default,
 * range or names, where it lands in struct conf, and its documentation; the
 * command line, tdpd.conf, --help, --list-options, tdpd(8) and tdpd.conf(5)
 * all come from this table. conf.c parses and applies it. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "conf_priv.h"
#include "hpmode.h"
#include "tb_registry.h"
#include "tdp_sched.h"

const char *const conf_late_names[] = {"drop", "carry", NULL};
const char *conf_timebase_names[8];
char conf_timebase_doc[1024];
static const char *const clock_names[] = {"auto", "tai", "realtime", NULL};
static const char *const fast_names[] = {"auto", "tsc", "os", NULL};
const char *const conf_action_names[] = {"serve", "alarm", "demote", NULL};
static const char *const predictor_names[] = {"max", "quantile", NULL};
static const char *const huge_names[] = {"auto", "yes", "no", NULL};
static const char *const host_path_names[] = {"auto", "tap", "none", NULL}; /* enum hp_path */
static const char *const launch_names[] = {"auto", "off", "on", NULL};	    /* enum pmd_launch */
static const char *const stop_names[] = {"down", "kernel", NULL};	    /* enum hp_stop */
static const char *const start_table_names[] = {"saved", "config", NULL};   /* enum start_table */
static const char *const moved_names[] = {"drop", "best-effort", NULL};	    /* enum rx_moved */
const char *const conf_level_names[] = {"error", "warning", "notice", "info", "debug", NULL};

#define G(field) offsetof(struct conf, field)
#define P(field) offsetof(struct conf_port, field)

static const struct conf_opt before[] = {
	{"schedule", CS_GLOBAL, CT_STR, NULL, 0, 0, NULL, G(schedule), "FILE",
	 "the reservation table to forward by (tdp-schedule(5))", true, 0},
	{"timebase", CS_GLOBAL, CT_ENUM, "system", 0, 0, conf_timebase_names, G(timebase), "SOURCE",
	 conf_timebase_doc, false, 0},
	{"system-clock", CS_GLOBAL, CT_ENUM, "auto", 0, 0, clock_names, G(tb.clock),
	 "auto|tai|realtime",
	 "system timebase: CLOCK_TAI, or CLOCK_REALTIME plus utc-tai-offset; auto takes TAI when "
	 "the kernel knows the offset",
	 false, 0},
	{"utc-tai-offset", CS_GLOBAL, CT_INT, "37", 0, 1000, NULL, G(tb.utc_tai_offset_s), "S",
	 "seconds added to CLOCK_REALTIME when the kernel does not know the UTC-TAI offset", false,
	 0},
	{"fast-clock", CS_GLOBAL, CT_ENUM, "auto", 0, 0, fast_names, G(tb.fast), "auto|tsc|os",
	 "what the engine polls near a boundary: the TSC mapped onto the clock (when invariant) or "
	 "clock_gettime",
	 false, 0},
	{NULL, 0, 0, NULL, 0, 0, NULL, 0, NULL, NULL, false, 0},
};

/* then each time source's own settings (tb_registry.h), then these */
static const struct conf_opt after[] = {
	{"sync-lock-threshold", CS_GLOBAL, CT_DUR, "1us", 1, 1000000000, NULL, G(tb.sync.lock_ns),
	 "TIME",
	 "a sample whose error is within this is good; sync-lock-samples good ones in a row lock, "
	 "as many bad ones unlock",
	 false, 0},
	{"sync-lock-samples", CS_GLOBAL, CT_INT, "4", 1, 1000, NULL, G(tb.sync.lock_samples), "N",
	 "good samples in a row to lock; bad samples in a row to unlock", false, 0},
	{"sync-sample-timeout", CS_GLOBAL, CT_DUR, "3s", 1000000, 3600000000000LL, NULL,
	 G(tb.sync.timeout_ns), "TIME", "locked with no sample for this long: holdover", false, 0},
	{"sync-holdover", CS_GLOBAL, CT_DUR, "60s", 0, 86400000000000LL, NULL,
	 G(tb.sync.holdover_ns), "TIME",
	 "how long holdover lasts before the source counts as unlocked", false, 0},
	{"sync-drift", CS_GLOBAL, CT_INT, "1000", 0, 1000000, NULL, G(tb.sync.drift_ppb), "PPB",
	 "how fast the uncertainty grows in holdover, parts per billion of the time since the last "
	 "good sample",
	 false, 0},
	{"sync-step", CS_GLOBAL, CT_DUR, "10us", 1, 1000000000000LL, NULL, G(tb.sync.step_ns),
	 "TIME",
	 "an offset that moves more than this between samples is a phase step (counted and logged)",
	 false, 0},
	{"sync-holdover-action", CS_GLOBAL, CT_ENUM, "serve", 0, 0, conf_action_names,
	 G(sync_holdover_action), "serve|alarm|demote",
	 "in holdover: serve reserved flows as when locked; serve them and count alarm frames; or "
	 "demote them to best effort",
	 false, 0},
	{"sync-unlocked-action", CS_GLOBAL, CT_ENUM, "alarm", 0, 0, conf_action_names,
	 G(sync_unlocked_action), "serve|alarm|demote",
	 "unlocked: serve reserved flows; serve them and count alarm frames (the default: the "
	 "frames stay as precise as the local clock); or demote them to best effort",
	 false, 0},
	{"sync-budget-action", CS_GLOBAL, CT_ENUM, "alarm", 0, 0, conf_action_names,
	 G(sync_budget_action), "serve|alarm|demote",
	 "when the source's uncertainty exceeds the table's sync-error (a quarter of its guard "
	 "band without one), the frames line up no more as planned: serve, alarm (log it and count "
	 "the frames), or demote reserved flows to best effort",
	 false, 0},
	{"time-offset", CS_GLOBAL, CT_DUR, "0", -1000000000, 1000000000, NULL, G(time_offset_ns),
	 "TIME",
	 "added to the source's time, either sign: a correction it does not make (an antenna "
	 "cable, a path's asymmetry), or a deliberate offset in a lab; refused on a source with a "
	 "frame tick, whose edges mark the frames",
	 false, 0},
	{"engine-cpu", CS_GLOBAL, CT_INT, "-1", -1, 1023, NULL, G(engine_cpu), "CPU",
	 "the shielded CPU of the frame engine; -1 takes the last online CPU. Like "
	 "housekeeping-cpu and rx-cpus, one this process may run on (its affinity and cpuset; "
	 "under tdpctl shield, tdpd runs from tdpd.service), or tdpd says so and stops",
	 false, 0},
	{"housekeeping-cpu", CS_GLOBAL, CT_INT, "0", 0, 1023, NULL, G(housekeeping_cpu), "CPU",
	 "the CPU of the RX, classification and control thread", false, 0},
	{"rx-cpus", CS_GLOBAL, CT_STR, "", 0, 0, NULL, G(rx_cpus), "CPU,CPU...",
	 "RX cores beside the housekeeping thread's, one per CPU listed (at most 7): each polls "
	 "its share of every port's RX queues (a PCI port gets one queue per RX core, as many as "
	 "its PMD offers, spread by "
	 "RSS on the IP addresses and ports) into its own queue of each flow; empty: RX on the "
	 "housekeeping CPU alone",
	 false, 0},
	{"engine-priority", CS_GLOBAL, CT_INT, "80", 0, 99, NULL, G(engine_priority), "PRIO",
	 "SCHED_FIFO priority of the frame engine; 0 runs it SCHED_OTHER", false, 0},
	{"rx-priority", CS_GLOBAL, CT_INT, "0", 0, 99, NULL, G(rx_priority), "PRIO",
	 "SCHED_FIFO priority of the RX thread; 0 runs it SCHED_OTHER", false, 0},
	{"late-policy", CS_GLOBAL, CT_ENUM, "drop", 0, 0, conf_late_names, G(late_policy),
	 "drop|carry",
	 "a frame the engine could not push in time: drop its reserved packets, or carry them to "
	 "the flow's next reserved frame; "
	 "also for packets of pipelined flows that arrive after their frame was staged (carried "
	 "into slots the flow's "
	 "on-time packets leave free)",
	 false, 0},
	{"node-id", CS_GLOBAL, CT_INT, "0", 0, 65535, NULL, G(node_id), "N",
	 "this router's id in the hop stamps it writes into probe packets of flows with the stamp "
	 "option",
	 false, 0},
	{"flow-queue-depth", CS_GLOBAL, CT_INT, "256", 1, 65536, NULL, G(flow_queue_depth), "N",
	 "packets queued per reserved flow; more are dropped and counted as overflow; a table "
	 "whose flow sends more in one frame is refused. On each RX core a flow's queue takes "
	 "192 bytes and 8 a slot (the power of two above N), beside about 0.8 KB of the flow's "
	 "own: at 10^6 flows and two RX cores, a depth of 8 takes about 1.4 GB, the default "
	 "9.4 GB",
	 false, 0},
	{"be-queue-depth", CS_GLOBAL, CT_INT, "1024", 1, 65536, NULL, G(be_queue_depth), "N",
	 "best-effort packets queued per output port", false, 0},
	{"spin-below", CS_GLOBAL, CT_DUR, "20us", 0, 1000000000, NULL, G(spin_below_ns), "TIME",
	 "with a TF below this the engine never sleeps, it polls the clock", false, 0},
	{"min-sleep", CS_GLOBAL, CT_DUR, "10us", 0, 1000000000, NULL, G(min_sleep_ns), "TIME",
	 "the engine does not sleep for less than this", false, 0},
	{"wake-margin", CS_GLOBAL, CT_DUR, "2us", 0, 1000000000, NULL, G(wake_margin_ns), "TIME",
	 "extra lead before a boundary on top of the predicted oversleep and bookkeeping", false,
	 0},
	{"max-lead", CS_GLOBAL, CT_DUR, "0", 0, 1000000000, NULL, G(max_lead_ns), "TIME",
	 "cap the predictive wait's lead: the engine polls the clock at most this long before a "
	 "boundary (0: no cap); "
	 "for routers that share CPUs, at the price of late wake-ups when the machine is busy",
	 false, 0},
	{"wake-predictor", CS_GLOBAL, CT_ENUM, "max", 0, 0, predictor_names, G(wake_predictor),
	 "max|quantile",
	 "how the oversleep is predicted: max, the largest of the last oversleep-window sleeps "
	 "(ClockFix's rule); quantile, the oversleep only wake-miss-target of the sleeps exceed, "
	 "from a histogram over about 1000 / wake-miss-target sleeps",
	 false, 0},
	{"wake-miss-target", CS_GLOBAL, CT_FRAC, "1e-4", 1, 100000000, NULL, G(wake_miss_ppb),
	 "FRACTION",
	 "quantile predictor: the share of frames allowed to wake after their boundary (1e-9 to "
	 "0.1); less costs CPU, polling the clock for a longer lead",
	 false, 0},
	{"oversleep-window", CS_GLOBAL, CT_INT, "32", 1, 256, NULL, G(oversleep_window), "N",
	 "max predictor: sleeps over which the maximum oversleep is taken as the prediction", false,
	 0},
	{"oversleep-decay", CS_GLOBAL, CT_INT, "95", 1, 100, NULL, G(oversleep_decay), "PERCENT",
	 "max predictor: each frame without a sleep scales the oversleep window by this much",
	 false, 0},
	{"launch-lead", CS_GLOBAL, CT_DUR, "100us", 1000, 500000000, NULL, G(launch_lead_ns),
	 "TIME",
	 "ports that push by launch time (tx-launch) get each frame's burst this long before the "
	 "frame starts, each packet with its time on the wire; the engine may wake this late "
	 "without a late frame. At most half the TF; left at its default, half the TF where that "
	 "is less. Packets that arrive in the last launch-lead of a frame go in a later one",
	 false, 0},
	{"launch-margin", CS_GLOBAL, CT_DUR, "5us", 0, 100000000, NULL, G(launch_margin_ns), "TIME",
	 "a launch-time port's burst handed over later than this before its frame goes out by the "
	 "CPU at the boundary instead (counted: launch_late); below launch-lead",
	 false, 0},
	{"be-poll", CS_GLOBAL, CT_DUR, "100us", 0, 1000000000, NULL, G(be_poll_ns), "TIME",
	 "while waiting for a boundary, fill best effort this often; 0 fills only after each push. "
	 "The frame's row is staged after the last of these fills, within about this long and the "
	 "predicted wake-up lead of the boundary (with 0, right after the push before it): a row "
	 "that takes longer to stage goes out after its start, and is counted (stage_overruns) and "
	 "logged",
	 false, 0},
	{"clock-refresh", CS_GLOBAL, CT_DUR, "100ms", 0, 60000000000LL, NULL, G(clock_refresh_ns),
	 "TIME",
	 "the time source's periodic work this often, on the housekeeping thread (never the "
	 "engine's): re-anchoring the polled fast clock, reading the card or the PHC, the kernel's "
	 "sync state",
	 false, 0},
	{"mbufs", CS_GLOBAL, CT_INT, "16383", 1023, 4194303, NULL, G(mbufs), "N",
	 "packet buffers in the pool; a table whose row needs more at once (beside the rings and "
	 "caches; an af_xdp queue keeps 2048 in its fill ring) is refused",
	 false, 0},
	{"route-memory", CS_GLOBAL, CT_INT, "576", 192, 1048576, NULL, G(route_memory), "MiB",
	 "DPDK memory for the route tables: the one in force and the next, built beside it while "
	 "the kernel's routes change, each 64.25 MiB and 1 KiB for each /24 holding a longer IPv4 "
	 "prefix and each byte an IPv6 prefix reaches past its first 16 bits; the default holds "
	 "10^6 IPv4 routes with 10,000 such /24s and 2*10^5 IPv6 routes shaped like the "
	 "Internet's (about 160,000 groups), with tdpd.conf's own beside them at start",
	 false, 0},
	{"rx-idle-sleep", CS_GLOBAL, CT_DUR, "0", 0, 1000000000, NULL, G(rx_idle_sleep_ns), "TIME",
	 "sleep this long after 64 empty RX polls (0 polls without pause; set it where routers "
	 "share CPUs)",
	 false, 0},
	{"mlock", CS_GLOBAL, CT_BOOL, "yes", 0, 1, NULL, G(mlock), "yes|no",
	 "lock all memory (mlockall)", false, 0},
	{"dma-latency", CS_GLOBAL, CT_BOOL, "yes", 0, 1, NULL, G(dma_latency), "yes|no",
	 "hold /dev/cpu_dma_latency at 0 while running", false, 0},
	{"huge-pages", CS_GLOBAL, CT_ENUM, "auto", 0, 0, huge_names, G(huge_pages), "auto|yes|no",
	 "DPDK memory from hugepages; auto uses them when enough are free for the pool and the "
	 "route tables, else runs with --no-huge and says why; yes refuses to start without them "
	 "and says how many to reserve",
	 false, 0},
	{"stats-interval", CS_GLOBAL, CT_DUR, "0", 0, 3600000000000LL, NULL, G(stats_interval_ns),
	 "TIME", "log a one-line summary this often; 0 never", false, 0},
	{"duration", CS_GLOBAL, CT_DUR, "0", 0, 31536000000000000LL, NULL, G(duration_ns), "TIME",
	 "stop by itself after this long; 0 runs until SIGINT or SIGTERM", false, 0},
	{"log-level", CS_GLOBAL, CT_ENUM, "info", 0, 0, conf_level_names, G(log_level), "LEVEL",
	 "error, warning, notice, info or debug", false, 0},
	{"summary-json", CS_GLOBAL, CT_STR, "", 0, 0, NULL, G(summary_json), "FILE",
	 "at exit, also write every counter and the frame-start error histogram as JSON to FILE "
	 "(past 65,535 flows, their counters summed in flows_sum in place of each flow's)",
	 false, 0},
	{"control-socket", CS_GLOBAL, CT_STR, "/run/tdpd/tdpd.sock", 0, 0, NULL, G(control_socket),
	 "PATH",
	 "the control socket: every tdpctl command, changes included (mode 0660, root and "
	 "control-group); none: no socket",
	 false, 0},
	{"monitor-socket", CS_GLOBAL, CT_STR, "/run/tdpd/tdpd-ro.sock", 0, 0, NULL,
	 G(monitor_socket), "PATH",
	 "the read-only socket for monitoring (mode 0666); none: no socket", false, 0},
	{"control-group", CS_GLOBAL, CT_STR, "tdp", 0, 0, NULL, G(control_group), "GROUP",
	 "members of this group may use the control socket; a group that does not exist leaves it "
	 "to root",
	 false, 0},
	{"xdp-program", CS_GLOBAL, CT_STR, "", 0, 0, NULL, G(xdp_program), "FILE",
	 "the XDP program for net_af_xdp ports (tdpd_xdp.o); empty: the one built beside tdpd, "
	 "else the installed one",
	 false, 0},
	{"icmp-rate", CS_GLOBAL, CT_INT, "1000", 0, 1000000, NULL, G(icmp_rate), "N",
	 "ICMP errors (time exceeded, unreachable) sent at most N a second, as Linux's "
	 "icmp_msgs_per_sec; 0 sends none",
	 false, 0},
	{"icmp-burst", CS_GLOBAL, CT_INT, "50", 1, 100000, NULL, G(icmp_burst), "N",
	 "ICMP errors sent back to back before icmp-rate applies, as Linux's icmp_msgs_burst",
	 false, 0},
	{"kernel-routes", CS_GLOBAL, CT_BOOL, "yes", 0, 1, NULL, G(kernel_routes), "yes|no",
	 "follow the kernel's routes and neighbours on the ports' interfaces over rtnetlink (ip "
	 "route, FRR, BIRD; ARP/ND); tdpd.conf's win",
	 false, 0},
	{"stop-action", CS_GLOBAL, CT_ENUM, "down", 0, 0, stop_names, G(stop_action), "down|kernel",
	 "what the ports' kernel interfaces become when tdpd stops or dies: down, so the links' "
	 "far ends lose carrier "
	 "and their routing protocols route around this router at once; kernel, left up with "
	 "tdpd's XDP program "
	 "removed, so the kernel forwards if its forwarding is on, with no reserved service",
	 false, 0},
	{"state-directory", CS_GLOBAL, CT_STR, "/var/lib/tdpd", 0, 0, NULL, G(state_directory),
	 "DIR",
	 "where tdpd keeps the table in force (written whenever one comes into force) for a "
	 "restart to resume; one "
	 "tdpd per directory",
	 false, 0},
	{"start-table", CS_GLOBAL, CT_ENUM, "saved", 0, 0, start_table_names, G(start_table),
	 "saved|config",
	 "the table to start with: saved resumes the one in force at the last stop (put in force "
	 "by schedule load or "
	 "commit, tdpctl deploy) when it differs from schedule, because the network runs it; "
	 "config runs schedule "
	 "(tdpd.conf's) and says so",
	 false, 0},
	{"moved-route", CS_GLOBAL, CT_ENUM, "drop", 0, 0, moved_names, G(moved_route),
	 "drop|best-effort",
	 "a reserved packet whose route no longer leaves by its flow's port (a routing protocol "
	 "moved it): drop it, "
	 "keeping the new path free of traffic it never admitted; or send it as best effort by the "
	 "new route. Either "
	 "way it is counted for the flow, logged and raised as an alarm",
	 false, 0},
	{"log-syslog", CS_GLOBAL, CT_BOOL, "no", 0, 1, NULL, G(log_syslog), "yes|no",
	 "also log to syslog (under systemd, stderr already goes to the journal with each line's "
	 "priority)",
	 false, 0},

	{"device", CS_PORT, CT_STR, NULL, 0, 0, NULL, P(device), "DEV",
	 "a PCI address (0000:01:00.0) or a DPDK vdev (net_af_packet0,iface=eth1; "
	 "net_af_xdp0,iface=eth1)",
	 true, 0},
	{"rate", CS_PORT, CT_RATE, "0", 0, 0, NULL, P(rate_bps), "RATE",
	 "link rate the engine paces by; 0 takes the PMD's link speed, else the table's rate",
	 false, 0},
	{"rx-desc", CS_PORT, CT_INT, "1024", 64, 16384, NULL, P(rx_desc), "N", "RX descriptors",
	 false, 0},
	{"tx-desc", CS_PORT, CT_INT, "1024", 64, 16384, NULL, P(tx_desc), "N",
	 "TX descriptors; a row with more packets is pushed by refilling the ring as the port "
	 "sends (a warning)",
	 false, 0},
	{"peer-mac", CS_PORT, CT_STR, "", 0, 0, NULL, P(peer_mac), "MAC",
	 "next hop for reserved packets that are not routed by IP (MPLS)", false, 0},
	{"address", CS_PORT, CT_LIST, NULL, 0, 0, NULL, P(address), "ADDR/LEN",
	 "our address on this port; its prefix becomes a connected route, and tdpd puts it on the "
	 "port's kernel interface (repeatable)",
	 false, 0},
	{"host-path", CS_PORT, CT_ENUM, "auto", 0, 0, host_path_names, P(host_path),
	 "auto|tap|none",
	 "where the router's host stack meets the port: auto is the interface itself on af_xdp and "
	 "af_packet, an exception interface (TAP) on a PCI port; tap gives an af_xdp port one too; "
	 "none counts and drops the host's frames",
	 false, 0},
	{"tx-launch", CS_PORT, CT_ENUM, "auto", 0, 0, launch_names, P(tx_launch), "auto|off|on",
	 "push reserved packets by launch time where the PMD offers the send-on-timestamp offload "
	 "(DPDK 22.11: mlx5, with tx_pp on a ConnectX-6 Dx, by wait-on-time on a ConnectX-7): the "
	 "NIC, not the CPU, meets the frame boundary; auto uses it where offered, on refuses to "
	 "start without it, off never",
	 false, 0},
	{"host-interface", CS_PORT, CT_STR, "", 0, 0, NULL, P(host_interface), "NAME",
	 "the exception interface's name (default tdp-PORT), created with the port's MAC while "
	 "tdpd runs",
	 false, 0},
	{"neighbour", CS_PORT, CT_LIST, NULL, 0, 0, NULL, P(neighbour), "ADDR MAC",
	 "a static neighbour on this port (repeatable)", false, 0},
	{"route", CS_PORT, CT_LIST, NULL, 0, 0, NULL, P(route), "PREFIX via ADDR",
	 "a static route out of this port through a neighbour or an address on one of its "
	 "prefixes, whose MAC the kernel resolves (repeatable)",
	 false, 0},
	{NULL, 0, 0, NULL, 0, 0, NULL, 0, NULL, NULL, false, 0},
};

#define NROWS(a) (sizeof(a) / sizeof((a)[0]) - 1) /* each table ends with a NULL row */
#define CONF_NOPTS (NROWS(before) + TB_REGISTRY_NOPTS + NROWS(after))
/* every option has its slot in set_line and set_file */
_Static_assert(CONF_NOPTS <= CONF_MAX_OPTS,
	       "the option table has more options than CONF_MAX_OPTS slots");
_Static_assert(TB_REGISTRY_SOURCES <= CONF_MAX_SOURCES, "more time sources than CONF_MAX_SOURCES");

static const enum conf_type tb_types[] = {
	[TB_OPT_STR] = CT_STR, [TB_OPT_INT] = CT_INT, [TB_OPT_DUR] = CT_DUR, [TB_OPT_ENUM] = CT_ENUM};

static struct conf_opt all[CONF_NOPTS + 1];
const struct conf_opt *conf_opts = all;

/* The table: tdpd's own options with each time source's own settings where
 * the timebase option stands, as a source declares them (its opts[]). */
__attribute__((constructor)) static void conf_opts_build(void)
{
	size_t n = 0;
	for (size_t i = 0; i < NROWS(before); i++)
		all[n++] = before[i];
	for (size_t s = 0; timebase_table[s]; s++) {
		const struct tb_opt *t = timebase_table[s]->opts;
		for (; t && t->name; t++)
			all[n++] = (struct conf_opt){t->name,	 CS_GLOBAL, tb_types[t->type],
						     t->def,	 t->min,    t->max,
						     t->choices, t->off,    t->arg,
						     t->doc,	 false,	    (uint8_t)(s + 1)};
	}
	for (size_t i = 0; i < NROWS(after); i++)
		all[n++] = after[i];
	all[n] = (struct conf_opt){NULL, 0, 0, NULL, 0, 0, NULL, 0, NULL, NULL, false, 0};
}
