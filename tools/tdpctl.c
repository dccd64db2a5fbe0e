/* SPDX-License-Identifier: BSD-3-Clause */
/* tdpctl: the operator's tool: talks to a running tdpd, works on reservation
 * tables offline, prepares and audits the host. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_proto.h"
#include "tdpctl.h"

static void usage(FILE *out)
{
	fputs("usage: tdpctl [--socket PATH] [--json] [--timeout MS] COMMAND [ARGS]\n"
	      "\n"
	      "talking to a running tdpd:\n"
	      "  status                   table, frames, start error, sync, RX in a few lines\n"
	      "  ports                    per port: device, MAC, pacing rate, coalescing, "
	      "counters\n"
	      "  flows [NAME] [--summary] per flow of the table in force: every counter; NAME:\n"
	      "                           that flow's; --summary: every flow's summed (a table\n"
	      "                           past 65,535 flows is not listed)\n"
	      "  sync                     the time source and its sync state\n"
	      "  stats [--prometheus]     every counter and the frame-start error histogram;\n"
	      "                           --prometheus writes the text format for a textfile "
	      "collector\n"
	      "  routes [ADDRESS] [--summary]\n"
	      "                           the routes in force, each from tdpd.conf or the kernel;\n"
	      "                           ADDRESS: the route a packet to it takes; --summary:\n"
	      "                           their counts (a table past 200,000 routes is not "
	      "listed)\n"
	      "  neighbours               the neighbours in force, each from tdpd.conf or the "
	      "kernel\n"
	      "  log-level [LEVEL]        show or set the daemon's log level (error..debug)\n"
	      "  schedule active [--source]\n"
	      "                           the table in force, the one waiting, the latest swap\n"
	      "  schedule load FILE [--at TAI-SECONDS|+SECONDS | --next-cycle] [--no-wait]\n"
	      "                           validate FILE and have the engine adopt it at the first\n"
	      "                           cycle boundary at or after that time (default: the "
	      "next);\n"
	      "                           says the frame it took effect at\n"
	      "  schedule cancel          withdraw the table waiting to be adopted\n"
	      "  schedule stage FILE [--ttl SECONDS] [--name NAME]\n"
	      "                           validate and build FILE, hold it under an id (default 60 "
	      "s)\n"
	      "  schedule commit ID [--at TAI-SECONDS|+SECONDS] [--no-wait]\n"
	      "                           put the staged table in force at that time, as load "
	      "does\n"
	      "  schedule abort ID        drop the staged table\n"
	      "  capture PORT [-w FILE|-] [-c COUNT] [-s SECONDS] [--direction in|out|both]\n"
	      "                           a port's packets in and out into pcapng (tcpdump -r "
	      "reads\n"
	      "                           it); - writes to standard output\n"
	      "  raw JSON                 send one protocol request as it is, print the reply\n"
	      "\n"
	      "every router of a plan:\n"
	      "  deploy DIR [--check] [--at T|+S] [--margin S] [--allow-unsynced WHY] [--json] "
	      "...\n"
	      "                           put the plan tdpctl plan wrote in DIR in force on every\n"
	      "                           router at one cycle start, or on none ('deploy --help')\n"
	      "\n"
	      "offline:\n"
	      "  schedule VERB            check, show, edit and compare reservation tables\n"
	      "                           ('tdpctl schedule --help' for its verbs)\n"
	      "  shield on [--cpu N]|off|status\n"
	      "                           shield the frame engine's CPU at run time, and undo it\n"
	      "  plan TOPOLOGY [-o DIR] [--json]\n"
	      "                           plan pipeline forwarding over a network of routers: "
	      "alpha\n"
	      "                           per hop, admission on every link, one table per router\n"
	      "  doctor [--cpu N] [--tf T] [--netdev IF]... [--json]\n"
	      "                           audit this host for the engine's CPU, measure its\n"
	      "                           wake-up latency, say which TF it can hold\n"
	      "\n"
	      "--socket  reads go to " CTL_MONITOR_DEFAULT ", changes to " CTL_SOCKET_DEFAULT "\n"
	      "--json    the daemon's answer as JSON\n"
	      "--timeout give up after MS milliseconds without an answer (default 5000;\n"
	      "          schedule load and commit wait for the frame unless --no-wait)\n"
	      "\n"
	      "Exit status: 0 fine; 1 invalid table or refused request; 2 usage or I/O;\n"
	      "3 the daemon cannot be reached. See tdpctl(8), tdp-schedule(5).\n",
	      out);
}

/* ---- the commands: tdpctl's own; the daemon's read commands come from ctl_cmds[] */

static int c_schedule(struct tdpctl_global *g, int n, char **v, bool timeout_set)
{
	const char *sub = n >= 2 ? v[1] : "";
	/* load and commit wait for the frame the table comes into force */
	if (!timeout_set && (!strcmp(sub, "load") || !strcmp(sub, "commit")))
		g->timeout_ms = -1;
	if (!strcmp(sub, "active") || !strcmp(sub, "load") || !strcmp(sub, "cancel"))
		return tdpctl_live(g, n, v);
	if (!strcmp(sub, "stage") || !strcmp(sub, "commit") || !strcmp(sub, "abort"))
		return tdpctl_stage(g, n - 1, v + 1);
	return tdpctl_schedule(n, v);
}

static int c_shield(struct tdpctl_global *g, int n, char **v, bool timeout_set)
{
	return tdpctl_shield(n, v);
}

static int c_doctor(struct tdpctl_global *g, int n, char **v, bool timeout_set)
{
	return tdpctl_doctor(n, v);
}

static int c_plan(struct tdpctl_global *g, int n, char **v, bool timeout_set)
{
	return tdpctl_plan(n, v);
}

static int c_deploy(struct tdpctl_global *g, int n, char **v, bool timeout_set)
{
	return tdpctl_deploy(n, v);
}

static int c_capture(struct tdpctl_global *g, int n, char **v, bool timeout_set)
{
	return tdpctl_capture(g, n, v);
}

static int c_raw(struct tdpctl_global *g, int n, char **v, bool timeout_set)
{
	if (n != 2) {
		fprintf(stderr, "usage: tdpctl raw JSON\n");
		return TDPCTL_EXIT_USAGE;
	}
	return tdpctl_raw(g, v[1]);
}

static int c_help(struct tdpctl_global *g, int n, char **v, bool timeout_set)
{
	usage(stdout);
	return 0;
}

struct tdpctl_cmd {
	const char *name;
	int (*fn)(struct tdpctl_global *g, int n, char **v, bool timeout_set);
};

static const struct tdpctl_cmd cmds[] = {
	{"help", c_help},	{"schedule", c_schedule}, {"shield", c_shield},
	{"doctor", c_doctor},	{"plan", c_plan},	  {"deploy", c_deploy},
	{"capture", c_capture}, {"raw", c_raw},		  {NULL, NULL},
};

static int run(int argc, char **argv)
{
	struct tdpctl_global g = {.socket = NULL, .json = false, .timeout_ms = 5000};
	bool timeout_set = false;
	int i = 1;
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		}
		if (!strcmp(argv[i], "--version")) {
			printf("tdpctl %s (schedule format %d, control protocol %d)\n", TDP_VERSION,
			       1, CTL_VERSION);
			return 0;
		}
		if (!strcmp(argv[i], "--json")) {
			g.json = true;
		} else if (!strcmp(argv[i], "--socket") && i + 1 < argc) {
			g.socket = argv[++i];
		} else if (!strcmp(argv[i], "--timeout") && i + 1 < argc) {
			char *end;
			long v = strtol(argv[++i], &end, 10);
			if (*end || v < 1 || v > 86400000) {
				fprintf(stderr,
					"tdpctl: --timeout takes milliseconds, 1..86400000\n");
				return TDPCTL_EXIT_USAGE;
			}
			g.timeout_ms = (int)v;
			timeout_set = true;
		} else {
			fprintf(stderr, "tdpctl: unknown option '%s'\n", argv[i]);
			usage(stderr);
			return TDPCTL_EXIT_USAGE;
		}
	}
	if (i >= argc) {
		usage(stderr);
		return TDPCTL_EXIT_USAGE;
	}
	const char *cmd = argv[i];
	int n = argc - i;
	char **v = argv + i;
	for (const struct tdpctl_cmd *c = cmds; c->name; c++)
		if (!strcmp(cmd, c->name))
			return c->fn(&g, n, v, timeout_set);
	/* the daemon's other commands, as the protocol names them (a table's
	 * are tdpctl schedule's) */
	if (ctl_cmd_find(cmd) && strncmp(cmd, "schedule-", 9))
		return tdpctl_live(&g, n, v);
	fprintf(stderr, "tdpctl: unknown command '%s'\n", cmd);
	usage(stderr);
	return TDPCTL_EXIT_USAGE;
}

int main(int argc, char **argv)
{
	int rc = run(argc, argv);
	/* what went to standard output must have arrived (a full disk, a closed
	 * pipe): otherwise that is an I/O error, whatever the command said */
	if ((fflush(stdout) != 0 || ferror(stdout)) && rc != TDPCTL_EXIT_USAGE) {
		fprintf(stderr, "tdpctl: standard output: %s\n", strerror(errno ? errno : EIO));
		rc = TDPCTL_EXIT_USAGE;
	}
	return rc;
}
