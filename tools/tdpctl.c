/* SPDX-License-Identifier: BSD-3-Clause */
/* tdpctl: the operator's tool. Today: offline work on reservation tables. */
#include <stdio.h>
#include <string.h>

#include "tdpctl.h"

static void usage(FILE *out)
{
	fputs("usage: tdpctl [--version] [--help] COMMAND [ARGS]\n"
	      "\n"
	      "commands:\n"
	      "  schedule   check, show, edit and compare time-cycle reservation tables\n"
	      "             (offline; 'tdpctl schedule --help' for its verbs)\n"
	      "\n"
	      "See tdpctl(8) and tdp-schedule(5).\n", out);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return TDPCTL_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("tdpctl %s (schedule format %d)\n", TDP_VERSION, 1);
		return 0;
	}
	if (!strcmp(argv[1], "schedule"))
		return tdpctl_schedule(argc - 1, argv + 1);
	fprintf(stderr, "tdpctl: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return TDPCTL_EXIT_USAGE;
}
